#!/usr/bin/env bash
# Compiles the softmax benchmark libraries into build/bench (run here, where
# LLVM is; carry build/bench to the GPU machine): the default fast strategy,
# forced mappings for the sweep, and the simple reference mapping.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/build/bench}
src="$root/bench/softmax_shapes.mlir"
variants=(
  "fast:"
  "tpr4:softmax-threads-per-row=4"
  "tpr8:softmax-threads-per-row=8"
  "tpr32:softmax-threads-per-row=32"
  "cta128:softmax-block-size=128 softmax-threads-per-row=128"
  "cta256:softmax-block-size=256 softmax-threads-per-row=256"
  "cta512:softmax-block-size=512 softmax-threads-per-row=512"
  "stream:softmax-max-cached-vectors=0"
  "g1056:softmax-grid-ctas=1056"
  "t4g528:softmax-threads-per-row=4 softmax-grid-ctas=528"
  "t8g528:softmax-threads-per-row=8 softmax-grid-ctas=528"
  "t8g1056:softmax-threads-per-row=8 softmax-grid-ctas=1056"
  "t16g528:softmax-threads-per-row=16 softmax-grid-ctas=528"
  "t16g1056:softmax-threads-per-row=16 softmax-grid-ctas=1056"
  "t16g2112:softmax-threads-per-row=16 softmax-grid-ctas=2112"
  "t16g1056np:softmax-threads-per-row=16 softmax-grid-ctas=1056 softmax-prefetch=false"
  "t32g1056:softmax-threads-per-row=32 softmax-grid-ctas=1056"
  "b64t8:softmax-block-size=64 softmax-threads-per-row=8"
  "b128t8:softmax-block-size=128 softmax-threads-per-row=8"
  "b512t8:softmax-block-size=512 softmax-threads-per-row=8"
  "b128t16:softmax-block-size=128 softmax-threads-per-row=16"
  "b128t32:softmax-block-size=128 softmax-threads-per-row=32"
  "simple:softmax=simple"
)
for v in "${variants[@]}"; do
  name=${v%%:*}; opts=${v#*:}
  # Forward benchmarks: no derived backward entry points (TX_GRADIENTS=0).
  TX_GRADIENTS=0 bash "$root/scripts/tx-compile.sh" "$src" "$out/softmax_$name" $opts &
done
wait
