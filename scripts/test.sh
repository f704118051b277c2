#!/usr/bin/env bash
# The test command: installs what is missing, configures, builds, runs the
# lit suite, and exits non-zero when any test fails. A second run in a row only
# re-checks (no reinstall, no reconfigure, ninja no-ops).
#
#   scripts/test.sh            # whole suite
#   TX_BUILD_DIR=/tmp/b scripts/test.sh
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
exit "$rc"
