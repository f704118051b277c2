#!/usr/bin/env bash
# The test command: installs what is missing, configures, builds, runs the
# lit suite and a short fuzz run, and exits non-zero when any test fails or the
# fuzzer has a finding. A second run in a row only re-checks (no reinstall, no
# reconfigure, ninja no-ops).
#
#   scripts/test.sh            # whole suite + 120 s of fuzzing
#   TX_BUILD_DIR=/tmp/b scripts/test.sh
#   TX_FUZZ_SECONDS=0 scripts/test.sh      # lit only
#   TX_FUZZ_SECONDS=600 TX_FUZZ_SEED=7 scripts/test.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/deps.sh"

build=${TX_BUILD_DIR:-$root/build}
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
ninja -C "$build"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
ninja -C "$build" check-tx 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
passed=$(grep -aoE '^ *Passed *: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
failed=$(grep -aoE '^ *Failed *: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
unsupported=$(grep -aoE '^ *Unsupported *: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
echo "tx lit: ${passed} passed, ${failed} failed, ${unsupported} skipped"
if [ "$rc" != 0 ] && [ "$failed" = 0 ]; then
  echo "tx lit: the suite did not run to completion (exit $rc)"
fi

# Fuzzing (docs/Fuzzing.md): TX_FUZZ_SECONDS of mutated tx programs through
# tx-opt's pipelines and passes and the mlir-opt plugin, deterministic for
# TX_FUZZ_SEED. A crash, assert, hang or silent failure fails the command;
# the minimized input is kept in $build/fuzz/findings.
fuzz_seconds=${TX_FUZZ_SECONDS:-120}
fuzz_rc=0
if [ "$fuzz_seconds" != 0 ]; then
  fuzz_jobs=${TX_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
  [ "$fuzz_jobs" -gt 4 ] && fuzz_jobs=4
  set +e
  python3 "$root/test/fuzz/txfuzz.py" --build "$build" --seconds "$fuzz_seconds" \
    --seed "${TX_FUZZ_SEED:-1}" --jobs "$fuzz_jobs" --minimize-seconds 60 \
    --findings "$build/fuzz/findings" | grep -v '^txfuzz: [0-9]* inputs'
  fuzz_rc=${PIPESTATUS[0]}
  set -e
  [ "$fuzz_rc" = 0 ] || echo "tx fuzz: findings (exit $fuzz_rc); inputs and commands in $build/fuzz/findings"
fi
[ "$rc" = 0 ] || exit "$rc"
exit "$fuzz_rc"
