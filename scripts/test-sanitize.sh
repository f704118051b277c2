#!/usr/bin/env bash
# The lit suite against an AddressSanitizer + UndefinedBehaviorSanitizer build
# of tx (-DTX_SANITIZE=ON) in its own build directory, $TX_SANITIZE_BUILD_DIR
# (default: build-asan next to the default build). Any ASan, UBSan or LSan
# report fails the test that triggered it. Configures once; a second run in a
# row only re-checks (ninja no-ops). Run by scripts/test.sh (CI); see
# docs/Fuzzing.md.
#
#   scripts/test-sanitize.sh
#   TX_SANITIZE_BUILD_DIR=/tmp/asan scripts/test-sanitize.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/deps.sh"

build=${TX_SANITIZE_BUILD_DIR:-${TX_BUILD_DIR:-$root/build}-asan}
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTX_SANITIZE=ON
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
echo "tx lit (ASan+UBSan, $build): ${passed} passed, ${failed} failed, ${unsupported} skipped"
if [ "$rc" != 0 ] && [ "$failed" = 0 ]; then
  echo "tx lit (ASan+UBSan): the suite did not run to completion (exit $rc)"
fi
exit "$rc"
