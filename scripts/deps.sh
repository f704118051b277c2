#!/usr/bin/env bash
# Installs the Debian packages tx needs, only when something is missing.
# Sourced or run by scripts/test.sh and scripts/main.sh.
set -euo pipefail

tx_need_install=0
for f in /usr/lib/llvm-22/lib/cmake/mlir/MLIRConfig.cmake \
         /usr/lib/llvm-22/bin/mlir-opt /usr/lib/llvm-22/bin/mlir-runner \
         /usr/lib/llvm-22/bin/mlir-translate /usr/lib/llvm-22/bin/llc \
         /usr/lib/llvm-22/bin/lit /usr/lib/llvm-22/bin/FileCheck \
         /usr/lib/llvm-22/bin/not; do
  [ -e "$f" ] || tx_need_install=1
done
for c in cmake ninja python3 c++; do
  command -v "$c" >/dev/null 2>&1 || tx_need_install=1
done

if [ "$tx_need_install" = 1 ]; then
  echo "tx: installing LLVM/MLIR 22 and build tools (apt-get)..."
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends \
    libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools llvm-22 \
    cmake ninja-build python3 g++ >/dev/null
fi

# scripts/test.sh (`deps.sh --tests`): the python/tx tests (test/Python) run
# on Debian's CPU-only PyTorch (python3-torch, for /usr/bin/python3), which is
# installed when no torch is importable there. Without it those tests are
# reported as unsupported. TX_NO_TORCH=1 skips the install.
if [ "${1:-}" = "--tests" ] && [ "${TX_NO_TORCH:-0}" != 1 ] \
   && ! /usr/bin/python3 -c 'import torch' >/dev/null 2>&1; then
  echo "tx: installing python3-torch (CPU) for the python/tx tests (apt-get)..."
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  if ! { $sudo_cmd apt-get update -qq && $sudo_cmd apt-get install -y -qq \
           --no-install-recommends python3-torch >/dev/null; }; then
    echo "tx: warning: could not install python3-torch; the python/tx tests that need torch will be skipped" >&2
  fi
fi
