#!/usr/bin/env bash
# Runs tx's fuzzer (test/fuzz/txfuzz.py) against a built tree; see
# docs/Fuzzing.md. Options are the fuzzer's (--help), for example
#
#   scripts/fuzz.sh --seconds 3600 --seed 1        # the one-hour run
#   scripts/fuzz.sh --seed 1 --start 4242 --iterations 1 -v   # replay input 4242
#   TX_BUILD_DIR=build-asan scripts/fuzz.sh --seconds 600     # sanitizer build
#
# Exit status: 0 no finding, 1 findings (kept minimized in BUILD/fuzz/findings),
# 2 setup error.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TX_BUILD_DIR:-$root/build}
exec python3 "$root/test/fuzz/txfuzz.py" --build "$build" "$@"
