#!/usr/bin/env bash
# The test command: installs what is missing, configures, builds, runs the
# lit suite and a short fuzz run, and exits non-zero when any test fails or the
# fuzzer has a finding. A second run in a row only re-checks (no reinstall, no
# reconfigure, ninja no-ops).
#
#   scripts/test.sh            # lit, lit on an ASan+UBSan build, 120 s of fuzzing
#   TX_BUILD_DIR=/tmp/b scripts/test.sh
#   TX_SANITIZE_TESTS=0 scripts/test.sh    # no sanitizer build (saves its build)
#   TX_FUZZ_SECONDS=0 scripts/test.sh      # no fuzzing
#   TX_FUZZ_SECONDS=600 TX_FUZZ_SEED=7 scripts/test.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/deps.sh" --tests

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

# The same suite against an ASan + UBSan build in its own directory
# (scripts/test-sanitize.sh; TX_SANITIZE_TESTS=0 skips it). The default build
# above is untouched by it.
san_rc=0
fuzz_build=$build
if [ "${TX_SANITIZE_TESTS:-1}" != 0 ]; then
  san_build=${TX_SANITIZE_BUILD_DIR:-$build-asan}
  set +e
  TX_SANITIZE_BUILD_DIR=$san_build bash "$root/scripts/test-sanitize.sh"
  san_rc=$?
  set -e
  # Fuzz the instrumented build: it reports memory errors and UB besides
  # crashes.
  [ "$san_rc" = 0 ] && fuzz_build=$san_build
fi

# Fuzzing (docs/Fuzzing.md): TX_FUZZ_SECONDS of mutated tx programs through
# tx-opt's pipelines and passes and the mlir-opt plugin, deterministic for
# TX_FUZZ_SEED. A crash, assert, sanitizer report, hang or silent failure
# fails the command; the minimized input is kept in <build>/fuzz/findings.
fuzz_seconds=${TX_FUZZ_SECONDS:-120}
fuzz_rc=0
if [ "$fuzz_seconds" != 0 ]; then
  fuzz_jobs=${TX_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
  [ "$fuzz_jobs" -gt 4 ] && fuzz_jobs=4
  set +e
  python3 "$root/test/fuzz/txfuzz.py" --build "$fuzz_build" --seconds "$fuzz_seconds" \
    --seed "${TX_FUZZ_SEED:-1}" --jobs "$fuzz_jobs" --minimize-seconds 60 \
    --findings "$fuzz_build/fuzz/findings" | grep -v '^txfuzz: [0-9]* inputs'
  fuzz_rc=${PIPESTATUS[0]}
  set -e
  [ "$fuzz_rc" = 0 ] || echo "tx fuzz: findings (exit $fuzz_rc); inputs and commands in $fuzz_build/fuzz/findings"
fi
[ "$rc" = 0 ] || exit "$rc"
[ "$san_rc" = 0 ] || exit "$san_rc"
exit "$fuzz_rc"
