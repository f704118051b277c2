#!/usr/bin/env bash
# Compiles a .mlir file of tx functions into a shared library with one C entry
# point per public function (_mlir_ciface_<name>, see docs/ABI.md), plus the
# runtime it needs, in OUT_DIR:
#
#   scripts/tx-compile.sh IN.mlir OUT_DIR [extra tx-gpu-pipeline options]
#
# OUT_DIR receives lib<stem>.so, libtx_cuda_runtime.so (found through
# $ORIGIN), lib<stem>.json (the manifest of the entry points, for python/tx:
# tx-opt --tx-emit-manifest, docs/Python.md), <stem>.host.mlir (the
# pipeline's output), <stem>.ll, <stem>.remarks.txt (tx-opt's remarks, e.g.
# ops left to the reference lowering), and <stem>.kernels.txt (ptxas -v
# resource usage of every kernel, with PTX in ptx/, when ptxas is installed).
# Default target: sm_90 cubin (format=bin).
#
# Prints one line for the library (entry points, kernels, registers, spills)
# and each distinct remark once with the functions it concerns
# (scripts/compile_report.py). TX_VERBOSE=1 adds a line per kernel and
# tx-opt's remarks as printed; TX_QUIET=1 prints only errors.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ $# -lt 2 ]; then
  echo "usage: $0 IN.mlir OUT_DIR [tx-gpu-pipeline options]" >&2
  exit 2
fi
in=$1; out=${2%/}; shift 2
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
manifest="$out/lib$stem.json"
remarks="$out/$stem.remarks.txt"
rm -f "$manifest"
# One tx-opt run compiles the library's host and kernel code and writes the
# manifest; its diagnostics (remarks such as the ops left to the reference
# lowering, without the op dumps) go to $remarks.
if ! "$build/bin/tx-opt" "$in" --mlir-print-op-on-diagnostic=false \
     --tx-emit-manifest="path='$manifest.tmp' library=lib$stem.so pipeline='$opts'" \
     --tx-gpu-pipeline="$opts" -o "$out/$stem.host.mlir" 2> "$remarks"; then
  cat "$remarks" >&2
  echo "tx-compile: tx-opt failed on $in" >&2
  exit 1
fi
"$llvm/mlir-translate" --mlir-to-llvmir "$out/$stem.host.mlir" -o "$out/$stem.ll"
"$llvm/llc" -O2 -relocation-model=pic -filetype=obj "$out/$stem.ll" -o "$out/$stem.o"
cp -f "$build/lib/libtx_cuda_runtime.so" "$out/"
c++ -shared -o "$out/lib$stem.so" "$out/$stem.o" \
  -L"$out" -ltx_cuda_runtime -Wl,-rpath,'$ORIGIN' -Wl,-Bsymbolic \
  -Wl,-rpath-link,"$build/cuda-stub"
rm -f "$out/$stem.o"

# Kernel report: ptxas -v on the PTX of every kernel (registers, spills, and
# ptxas's "Potential Performance Loss" notes, e.g. wgmma instructions it
# serialized, C7513/C7518). The PTX comes from a
# second run of the pipeline with format=isa; its diagnostics repeat the
# first run's and are shown only if it fails.
if [ -x "$cuda/bin/ptxas" ]; then
  isa_err="$out/.$stem.isa.err"
  if ! "$build/bin/tx-opt" "$in" --mlir-print-op-on-diagnostic=false \
       --tx-gpu-pipeline="format=isa toolkit=$cuda $extra" 2> "$isa_err" \
       | python3 "$root/scripts/extract_ptx.py" "$out/ptx"; then
    cat "$isa_err" >&2
    echo "tx-compile: the PTX run of tx-opt failed on $in" >&2
    exit 1
  fi
  rm -f "$isa_err"
  : > "$out/$stem.kernels.txt"
  for p in "$out"/ptx/*.ptx; do
    [ -e "$p" ] || continue
    chip=$(grep -m1 -o 'sm_[0-9]*[af]\?' "$p")
    echo "== $(basename "$p" .ptx)" >> "$out/$stem.kernels.txt"
    "$cuda/bin/ptxas" -v -arch="$chip" "$p" -o /dev/null 2>&1 \
      | grep -E "Used|spill|Performance Loss" >> "$out/$stem.kernels.txt" || true
  done
else
  rm -f "$out/$stem.kernels.txt"
fi
mv -f "$manifest.tmp" "$manifest"

if [ "${TX_QUIET:-0}" != 1 ]; then
  report_opts=""
  [ "${TX_VERBOSE:-0}" = 1 ] && report_opts="--kernels --verbose"
  python3 "$root/scripts/compile_report.py" $report_opts --stem "$stem" \
    --label "tx-compile: $out/lib$stem.so" "$out"
fi
