#!/usr/bin/env bash
# Builds the libraries of the python/tx GPU checks (run here, where LLVM is;
# carry the output to the GPU machine), for chip=sm_90a (H100/H200):
#   OUT/call_overhead/libcall_overhead.so   bench/call_overhead.mlir (bench/call_overhead.py)
#   OUT/pkg/libpkg.so                       test/Python/Inputs/pkg.mlir (python/tests/gpu_smoke.py)
#
#   bash bench/build_pytx.sh [OUT]          # default build/pytx
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-${TX_BUILD_DIR:-$root/build}/pytx}
bash "$root/scripts/tx-compile.sh" "$root/bench/call_overhead.mlir" "$out/call_overhead" chip=sm_90a
bash "$root/scripts/tx-compile.sh" "$root/test/Python/Inputs/pkg.mlir" "$out/pkg" chip=sm_90a
