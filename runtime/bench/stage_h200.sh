#!/usr/bin/env bash
# Stages everything the H200 checks of the runtime need into one directory
# (default <build>/rt-h200), to be carried to the GPU machine and run there
# with runtime/bench/run_h200.sh (no LLVM needed there):
#   bin/   tx-runtime-{selftest,calltest,faulttest,entrytest,bench}
#   lib/   libtx_cuda_runtime.so (this tree's)
#   host_cost/libhost_cost.so   runtime/bench/host_cost.mlir (tx-compile.sh)
#   small/libsmall.so           test/Runtime/Inputs/small.mlir
#   before/libtx_cuda_runtime.so  the runtime at BEFORE_REV (default: the
#                                 merge base with main), for before/after
#
#   bash runtime/bench/stage_h200.sh [OUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${TX_BUILD_DIR:-$root/build}
out=${1:-$build/rt-h200}
jobs=${TX_JOBS:-2}

ninja -C "$build" -j"$jobs" tx-opt tx_cuda_runtime tx-runtime-selftest \
  tx-runtime-calltest tx-runtime-faulttest tx-runtime-entrytest \
  tx-runtime-bench
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/before"
for p in selftest calltest faulttest entrytest bench; do
  cp "$build/bin/tx-runtime-$p" "$out/bin/"
done
cp "$build/lib/libtx_cuda_runtime.so" "$out/lib/"
TX_BUILD_DIR=$build bash "$root/scripts/tx-compile.sh" \
  "$root/runtime/bench/host_cost.mlir" "$out/host_cost"
TX_BUILD_DIR=$build bash "$root/scripts/tx-compile.sh" \
  "$root/test/Runtime/Inputs/small.mlir" "$out/small"
# (Each library keeps tx-compile.sh's copy of the runtime next to it, for
# Python; a program that already loaded libtx_cuda_runtime.so - bin/../lib/,
# or before/ through LD_LIBRARY_PATH - shares that one: same file name.)

# The runtime before this branch, built standalone.
rev=${BEFORE_REV:-$(git -C "$root" merge-base HEAD main)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$root" archive "$rev" runtime | tar -x -C "$tmp"
cmake -G Ninja -S "$tmp/runtime" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release \
  > /dev/null
ninja -C "$tmp/build" -j"$jobs" tx_cuda_runtime > /dev/null
cp "$tmp/build/lib/libtx_cuda_runtime.so" "$out/before/"
echo "$rev" > "$out/before/REVISION"
echo "stage_h200: $out ($(du -sh "$out" | cut -f1)); before = runtime at $rev"
