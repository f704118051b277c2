#!/usr/bin/env bash
# Compiles a .mlir file of tx functions into a shared library with one C entry
# point per public function (_mlir_ciface_<name>, see docs/ABI.md), plus the
# runtime it needs, in OUT_DIR:
#
#   scripts/tx-compile.sh IN.mlir OUT_DIR [extra tx-gpu-pipeline options]
#
# OUT_DIR receives lib<stem>.so, libtx_cuda_runtime.so (found through
# $ORIGIN), <stem>.host.mlir (the pipeline's output), <stem>.ll, and
# <stem>.kernels.txt (ptxas -v resource usage of every kernel, when ptxas is
# installed). Default target: sm_90 cubin (format=bin).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ $# -lt 2 ]; then
  echo "usage: $0 IN.mlir OUT_DIR [tx-gpu-pipeline options]" >&2
  exit 2
fi
in=$1; out=$2; shift 2
extra="$*"
build=${TX_BUILD_DIR:-$root/build}
llvm=/usr/lib/llvm-22/bin
cuda=${TX_CUDA_TOOLKIT:-/usr/local/cuda}
stem=$(basename "$in" .mlir)
mkdir -p "$out"

for f in "$build/bin/tx-opt" "$build/lib/libtx_cuda_runtime.so"; do
  [ -e "$f" ] || { echo "tx-compile: $f is missing; run scripts/test.sh or ninja -C $build first" >&2; exit 1; }
done

format=bin
[ -x "$cuda/bin/ptxas" ] || format=isa
opts="format=$format toolkit=$cuda $extra"
"$build/bin/tx-opt" "$in" --tx-gpu-pipeline="$opts" -o "$out/$stem.host.mlir"
"$llvm/mlir-translate" --mlir-to-llvmir "$out/$stem.host.mlir" -o "$out/$stem.ll"
"$llvm/llc" -O2 -relocation-model=pic -filetype=obj "$out/$stem.ll" -o "$out/$stem.o"
cp -f "$build/lib/libtx_cuda_runtime.so" "$out/"
c++ -shared -o "$out/lib$stem.so" "$out/$stem.o" \
  -L"$out" -ltx_cuda_runtime -Wl,-rpath,'$ORIGIN' -Wl,-Bsymbolic \
  -Wl,-rpath-link,"$build/cuda-stub"
rm -f "$out/$stem.o"

# Kernel report: ptxas -v on the PTX of every kernel.
if [ -x "$cuda/bin/ptxas" ]; then
  "$build/bin/tx-opt" "$in" --tx-gpu-pipeline="format=isa toolkit=$cuda $extra" \
    | python3 "$root/scripts/extract_ptx.py" "$out/ptx"
  : > "$out/$stem.kernels.txt"
  for p in "$out"/ptx/*.ptx; do
    chip=$(grep -m1 -o 'sm_[0-9]*[af]\?' "$p")
    echo "== $(basename "$p" .ptx)" >> "$out/$stem.kernels.txt"
    "$cuda/bin/ptxas" -v -arch="$chip" "$p" -o /dev/null 2>&1 \
      | grep -E "Used|spill" >> "$out/$stem.kernels.txt" || true
  done
fi
echo "tx-compile: $out/lib$stem.so ($(nm -D --defined-only "$out/lib$stem.so" | grep -c ' _mlir_ciface_') entry points, format=$format)"
