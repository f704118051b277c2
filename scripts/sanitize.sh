#!/usr/bin/env bash
# compute-sanitizer sweep over every tx kernel family (issue #13): runs
# harness/sanitize_calls.py (small calls of the softmax row-group and CTA
# kernels, attention on CUDA cores, mma.sync and wgmma; causal, i1 and
# additive masks, GQA, Sq = 1, tails of Sq/Sk, f16/bf16/f32) once under each
# of memcheck, racecheck, synccheck and initcheck, and prints a per-tool
# summary. Any error (or a call that fails under the tool) fails the script.
#
# On a GPU machine, with the libraries of scripts/main.sh in place:
#   scripts/sanitize.sh                      # libraries in build/examples
#   TX_SANITIZE_TOOLS="synccheck" scripts/sanitize.sh
#   scripts/sanitize.sh --lib-dir DIR [--log-dir DIR]
#   scripts/sanitize.sh --only dec_ --only len_dec   # calls whose name
#                                    # contains one of these (repeatable)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
lib_dir=${TX_BUILD_DIR:-$root/build}/examples
log_dir=""
only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --lib-dir) lib_dir=$2; shift 2 ;;
    --log-dir) log_dir=$2; shift 2 ;;
    --only) only+=(--only "$2"); shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "sanitize.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$cs" ] || { echo "sanitize.sh: compute-sanitizer not found" >&2; exit 2; }
[ -d "$lib_dir" ] || { echo "sanitize.sh: no libraries in $lib_dir (run scripts/main.sh first)" >&2; exit 2; }
log_dir=${log_dir:-$(mktemp -d)}
mkdir -p "$log_dir"
# One cudaMalloc per tensor, so that memcheck sees the bounds of each buffer.
export PYTORCH_NO_CUDA_MEMORY_CACHING=1
# No error reporting may be swallowed: abort on none, print all.
export TX_RUNTIME_ABORT_ON_ERROR=0
# The runtime's stream-ordered pool keeps freed memory for reuse; release it
# at once, so that memcheck's leak check sees only real leaks.
export TX_RUNTIME_POOL_RELEASE_THRESHOLD=0
status=0
summary=""
for tool in ${TX_SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
  extra=""
  # memcheck without --leak-check: the leak check reports the host
  # program's own allocations (PyTorch's buffers still held at exit), not
  # kernel errors; what the runtime frees is tested on the CPU
  # (test/Runtime/faults.test counts the fake driver's live allocations).
  [ "$tool" = memcheck ] && extra="--report-api-errors explicit"
  [ "$tool" = racecheck ] && extra="--racecheck-report all"
  log="$log_dir/sanitize-$tool.log"
  "$cs" --tool "$tool" $extra --error-exitcode 99 --print-limit 100 \
    python3 "$root/harness/sanitize_calls.py" --lib-dir "$lib_dir" "${only[@]}" > "$log" 2>&1
  rc=$?
  errors=$(grep -aoE "ERROR SUMMARY: [0-9]+ error" "$log" | tail -1 | grep -oE "[0-9]+" || true)
  # racecheck prints no ERROR SUMMARY: its errors are in "RACECHECK SUMMARY:
  # N hazards displayed (E errors, W warnings)".
  [ -z "$errors" ] && errors=$(grep -aoE "hazards displayed \([0-9]+ error" "$log" | tail -1 \
                               | grep -oE "[0-9]+" || true)
  errors=${errors:-?}
  hazards=$(grep -aoE "RACECHECK SUMMARY: [0-9]+ hazard" "$log" | tail -1 | grep -oE "[0-9]+" || true)
  calls=$(grep -aoE "sanitize_calls: [0-9]+ calls, [0-9]+ failed" "$log" | tail -1)
  line=$(printf "%-10s errors %s%s  exit %d  (%s)" "$tool" "$errors" \
         "${hazards:+, hazards $hazards}" "$rc" "${calls:-calls did not finish}")
  summary+="$line"$'\n'
  if [ "$rc" != 0 ] || [ "$errors" != 0 ]; then
    status=1
    echo "== $tool: first reports ($log) =="
    grep -a -m 30 -E "^=========  *(Invalid|Program hit|Leaked|Barrier|Uninitialized|Race|Warning|Error|.*[Hh]azard|Misaligned|Out-of-range|Address)|^=========     at " "$log" || tail -20 "$log"
  fi
done
echo
echo "== compute-sanitizer summary ($lib_dir; logs in $log_dir) =="
printf "%s" "$summary"
[ "$status" = 0 ] && echo "sanitize: clean" || echo "sanitize: ERRORS"
exit $status
