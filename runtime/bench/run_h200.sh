#!/usr/bin/env bash
# Runs the runtime's GPU checks and host-cost benchmarks on a GPU machine,
# from a directory staged by runtime/bench/stage_h200.sh:
#
#   bash runtime/bench/run_h200.sh build/rt-h200
#
# 1. checks (each must end in PASSED):
#    - tx-runtime-selftest: the happy path and mistakes on the real driver;
#      --happy-path under compute-sanitizer (when installed) must show no
#      API error (#13 item 5: no failing driver call on a correct program);
#    - tx-runtime-calltest: stream-ordered calls on the real driver: results,
#      a real out-of-memory (1 TiB) reported and the next call working, an
#      injected one likewise, CUDA-graph capture and replay, two host threads
#      calling at once on two streams (#14, #15);
#    - tx-runtime-faulttest: every driver call failed by injection is
#      reported and the next call works (device-setup and 2-context cases
#      are skipped with one GPU);
#    - tx-runtime-entrytest: compiled entry points (small.mlir), synchronous,
#      stream-ordered, and with faults;
# 2. host cost (us per call, median over batches): the mgpu* call pattern of
#    compiled code on a tiny PTX kernel, and compiled softmax entry points
#    (4x128 static and dynamic, 65536x128 static), in the stream-ordered
#    form (call), the synchronous form (sync) and txRuntimeSetStream async
#    (setstream), with this runtime and with the runtime before (before/);
#    the bare cuLaunchKernel ("driver") is the floor; torch.softmax's host
#    time for comparison when PyTorch is installed.
set -uo pipefail
dir=$(cd "${1:?usage: run_h200.sh STAGED_DIR}" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=$dir/bin
status=0
section() { printf '\n===== %s =====\n' "$*"; }
run() { # run CMD...: prints it, runs it, remembers a failure
  echo "\$ $*"
  "$@" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || { echo "!!! exit status $rc"; status=1; }
}

section "devices"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true

section "checks"
run timeout 300 "$bin/tx-runtime-selftest"
run timeout 300 "$bin/tx-runtime-selftest" --happy-path
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
if [ -n "$sanitizer" ]; then
  run timeout 600 "$sanitizer" --tool memcheck --report-api-errors all \
    "$bin/tx-runtime-selftest" --happy-path
else
  echo "(compute-sanitizer not found: skipped)"
fi
run timeout 300 "$bin/tx-runtime-calltest"
run timeout 300 "$bin/tx-runtime-faulttest"
run env TX_RUNTIME_SYNC_LAUNCHES=1 timeout 300 "$bin/tx-runtime-faulttest" --sync-launches
run timeout 300 "$bin/tx-runtime-entrytest" "$dir/small/libsmall.so"

section "host cost: mgpu* call pattern (tiny kernel), this runtime"
for shape in static dynamic; do
  for mode in driver call setstream sync; do
    run "$bin/tx-runtime-bench" pattern --shape "$shape" --mode "$mode" --iters 200 --batches 50
  done
done
section "host cost: mgpu* call pattern, runtime before ($(cat "$dir/before/REVISION" 2>/dev/null))"
for shape in static dynamic; do
  for mode in setstream sync; do
    run env LD_LIBRARY_PATH="$dir/before${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$bin/tx-runtime-bench" pattern --shape "$shape" --mode "$mode" --iters 200 --batches 50
  done
done

lib=$dir/host_cost/libhost_cost.so
entries="softmax_static:4:128 softmax_dynamic:4:128 softmax_static_big:65536:128"
section "host cost: compiled entry points, this runtime"
for e in $entries; do
  IFS=: read -r fn rows cols <<<"$e"
  for mode in call setstream sync; do
    run "$bin/tx-runtime-bench" entry --lib "$lib" --fn "$fn" --rows "$rows" --cols "$cols" --mode "$mode" --iters 200 --batches 50
  done
done
section "host cost: compiled entry points, runtime before"
for e in $entries; do
  IFS=: read -r fn rows cols <<<"$e"
  for mode in setstream sync; do
    run env LD_LIBRARY_PATH="$dir/before${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$bin/tx-runtime-bench" entry --lib "$lib" --fn "$fn" --rows "$rows" --cols "$cols" --mode "$mode" --iters 200 --batches 50
  done
done

if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  section "host cost: torch.softmax and tx through ctypes on PyTorch's stream"
  run python3 "$here/torch_host_cost.py" --lib "$lib"
else
  echo "(PyTorch with CUDA not available: torch comparison skipped)"
fi

section "summary"
[ $status -eq 0 ] && echo "run_h200: all commands succeeded" || echo "run_h200: SOME COMMANDS FAILED (see !!! above)"
exit $status
