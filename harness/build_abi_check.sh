#!/usr/bin/env bash
# Builds the libraries of harness/abi_check.py (no GPU needed):
#   $OUT/fast/libabi_cases.so    default strategies (fast softmax, flash attention)
#   $OUT/simple/libabi_cases.so  softmax=simple attention=simple
#   bash harness/build_abi_check.sh [OUT]     (default: build/abi-check)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-${TX_BUILD_DIR:-$root/build}/abi-check}
bash "$root/scripts/tx-compile.sh" "$root/harness/abi_cases.mlir" "$out/fast"
bash "$root/scripts/tx-compile.sh" "$root/harness/abi_cases.mlir" "$out/simple" softmax=simple attention=simple
