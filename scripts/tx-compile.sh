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
# Each function whose results are tx.attention / tx.softmax of its arguments
# also gets its forward-with-LSE and backward entry points (<name>__tx_fwd,
# <name>__tx_bwd: tx-opt --tx-derive-gradients), which python/tx's autograd
# calls; TX_GRADIENTS=0 leaves them out (a smaller, faster-to-build library
# without backward). When they do not compile (a form the backward's GPU
# lowering lacks), the library is built without them and a warning says so.
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
for o in "$@"; do
  case "$o" in
    -*) echo "tx-compile: '$o' is not a tx-gpu-pipeline option: options are written" \
             "name=value without dashes (e.g. ${o#${o%%[!-]*}}); tx-opt --help lists them" >&2
        exit 2 ;;
  esac
done
extra="$*"
build=${TX_BUILD_DIR:-$root/build}
llvm=/usr/lib/llvm-22/bin
cuda=${TX_CUDA_TOOLKIT:-/usr/local/cuda}
stem=$(basename "$in" .mlir)
mkdir -p "$out"

for f in "$build/bin/tx-opt" "$build/lib/libtx_cuda_runtime.so"; do
  [ -e "$f" ] || { echo "tx-compile: $f is missing; run scripts/test.sh or ninja -C $build first" >&2; exit 1; }
done

format=
for o in "$@"; do # the user's format= and toolkit=, if any (the last wins)
  case "$o" in
    format=*) format=${o#format=} ;;
    toolkit=*) cuda=${o#toolkit=} ;;
  esac
done
if [ -z "$format" ]; then
  format=bin
  [ -x "$cuda/bin/ptxas" ] || format=isa
fi
manifest="$out/lib$stem.json"
remarks="$out/$stem.remarks.txt"
rm -f "$manifest"
# Whatever a failed run leaves half-made goes (the last good library stays).
work=$(mktemp -d "${TMPDIR:-/tmp}/tx-compile.XXXXXX")
cleanup() { rm -rf "$work" "$manifest.tmp" "$out/$stem.o"; }
trap cleanup EXIT
fail() { # fail MESSAGE: the remarks go to stderr, not into OUT_DIR
  [ -s "$remarks" ] && cat "$remarks" >&2
  rm -f "$remarks"
  echo "tx-compile: $1" >&2
  exit 1
}
# The kernel report comes from the compile itself: the pipeline's ptxas is
# scripts/ptxas-log.sh (through a toolkit directory whose nvvm/ is the real
# one), which keeps each GPU module's PTX and ptxas -v report in $work/ptx.
toolkit=$cuda
if [ "$format" = bin ] || [ "$format" = fatbin ]; then
  toolkit=$work/toolkit
  mkdir -p "$toolkit/bin"
  ln -s "$cuda/nvvm" "$toolkit/nvvm"
  for f in "$cuda"/bin/*; do # fatbinary and the rest as they are
    [ "$(basename "$f")" = ptxas ] || ln -s "$f" "$toolkit/bin/"
  done
  ln -s "$root/scripts/ptxas-log.sh" "$toolkit/bin/ptxas"
  export TX_REAL_PTXAS="$cuda/bin/ptxas" TX_PTX_DIR="$work/ptx"
fi
opts="$extra format=$format toolkit=$toolkit"
# One tx-opt run compiles the library's host and kernel code and writes the
# manifest (with the options as the user gave them); its diagnostics
# (remarks such as the ops left to the reference lowering, without the op
# dumps) go to $remarks.
compile() { # compile [--tx-derive-gradients]
  "$build/bin/tx-opt" "$in" --mlir-print-op-on-diagnostic=false "$@" \
    --tx-emit-manifest="path='$manifest.tmp' library=lib$stem.so pipeline='format=$format toolkit=$cuda $extra'" \
    --tx-gpu-pipeline="$opts" -o "$out/$stem.host.mlir" 2> "$remarks"
}
if [ "${TX_GRADIENTS:-1}" = 0 ]; then
  compile || fail "tx-opt failed on $in"
elif ! compile --tx-derive-gradients; then
  # The backward entry points must not cost the forward its library: when
  # the compile with them fails and the one without succeeds, the library
  # has no backward and a warning says why.
  mv -f "$remarks" "$remarks.grad"
  compile || { rm -f "$remarks.grad"; fail "tx-opt failed on $in"; }
  why=$(grep -m1 'error:' "$remarks.grad" | sed 's/^.*error: //')
  rm -f "$remarks.grad"
  echo "tx-compile: warning: $in: the derived backward entry points do not compile" \
       "($why); the library has none (python/tx refuses autograd on its functions;" \
       "TX_GRADIENTS=0 skips the attempt)" >&2
fi
"$llvm/mlir-translate" --mlir-to-llvmir "$out/$stem.host.mlir" -o "$out/$stem.ll" \
  || fail "mlir-translate failed on $out/$stem.host.mlir"
"$llvm/llc" -O2 -relocation-model=pic -filetype=obj "$out/$stem.ll" -o "$out/$stem.o" \
  || fail "llc failed on $out/$stem.ll"
cp -f "$build/lib/libtx_cuda_runtime.so" "$out/"
c++ -shared -o "$out/lib$stem.so" "$out/$stem.o" \
  -L"$out" -ltx_cuda_runtime -Wl,-rpath,'$ORIGIN' -Wl,-Bsymbolic \
  -Wl,-rpath-link,"$build/cuda-stub" || fail "linking lib$stem.so failed"

# Kernel report (registers, spills, and ptxas's "Potential Performance
# Loss" notes, e.g. wgmma instructions it serialized, C7513/C7518): the -v
# output of the compile's own ptxas runs, one "== <module>" block each. A
# PTX library (format=isa) gets its ptxas -v runs here.
rm -rf "$out/ptx" "$out/$stem.kernels.txt"
if [ "$format" = isa ] && [ -x "$cuda/bin/ptxas" ]; then
  mkdir -p "$work/ptx"
  python3 "$root/scripts/extract_ptx.py" "$work/ptx" < "$out/$stem.host.mlir" 2>/dev/null || true
  for p in "$work"/ptx/*.ptx; do
    [ -e "$p" ] || continue
    chip=$(grep -m1 -o 'sm_[0-9]*[af]\?' "$p")
    "$cuda/bin/ptxas" -v -arch="$chip" "$p" -o /dev/null 2> "${p%.ptx}.ptxas.txt" || true
  done
fi
if [ -d "$work/ptx" ]; then
  mkdir -p "$out/ptx"
  : > "$out/$stem.kernels.txt"
  for p in "$work"/ptx/*.ptx; do
    [ -e "$p" ] || continue
    m=$(basename "$p" .ptx)
    cp -f "$p" "$out/ptx/"
    echo "== $m" >> "$out/$stem.kernels.txt"
    grep -E "Used|spill|Performance Loss" "$work/ptx/$m.ptxas.txt" \
      >> "$out/$stem.kernels.txt" || true
  done
fi
mv -f "$manifest.tmp" "$manifest"

if [ "${TX_QUIET:-0}" != 1 ]; then
  report_opts=""
  [ "${TX_VERBOSE:-0}" = 1 ] && report_opts="--kernels --verbose"
  python3 "$root/scripts/compile_report.py" $report_opts --stem "$stem" \
    --label "tx-compile: $out/lib$stem.so" "$out"
fi
