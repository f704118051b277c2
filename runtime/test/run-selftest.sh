#!/usr/bin/env bash
# Runs tx-runtime-selftest from a build tree and exits with its status.
#
#   runtime/test/run-selftest.sh <build-dir>
#
# Without a real CUDA driver (no libcuda.so.1 known to the dynamic loader), the
# self-test is run against the CUDA toolkit's stub libcuda.so - whose SONAME
# is libcuda.so.1 - through a symlink in <build-dir>/cuda-stub, so that it
# can check the no-GPU error path (cuInit fails with CUDA_ERROR_STUB_LIBRARY).
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 <build-dir>" >&2
  exit 2
fi
build_dir=$(cd "$1" && pwd)
selftest="$build_dir/bin/tx-runtime-selftest"
if [[ ! -x "$selftest" ]]; then
  echo "run-selftest: $selftest not found; build the tx-runtime-selftest target" >&2
  exit 2
fi

# Is a real driver visible to the dynamic loader (ld.so.cache or
# LD_LIBRARY_PATH)?
have_driver=0
ldconfig_bin=$(command -v ldconfig || echo /sbin/ldconfig)
if "$ldconfig_bin" -p 2>/dev/null | grep -qE '^[[:space:]]*libcuda\.so\.1[[:space:]]'; then
  have_driver=1
fi
IFS=: read -r -a ld_dirs <<<"${LD_LIBRARY_PATH:-}"
for dir in "${ld_dirs[@]}"; do
  if [[ -n "$dir" && -e "$dir/libcuda.so.1" && "$dir" != */stubs && "$dir" != */cuda-stub ]]; then
    have_driver=1
  fi
done

if [[ $have_driver -eq 1 ]]; then
  echo "run-selftest: using the installed libcuda.so.1 (real driver)"
else
  cuda_toolkit=${TX_CUDA_TOOLKIT:-/usr/local/cuda}
  stub="$cuda_toolkit/lib64/stubs/libcuda.so"
  if [[ ! -e "$stub" ]]; then
    echo "run-selftest: no libcuda.so.1 and no stub at $stub" >&2
    exit 2
  fi
  stub_dir="$build_dir/cuda-stub"
  mkdir -p "$stub_dir"
  ln -sf "$stub" "$stub_dir/libcuda.so.1"
  export LD_LIBRARY_PATH="$stub_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "run-selftest: no real libcuda.so.1; using the stub $stub"
fi

status=0
"$selftest" || status=$?
exit "$status"
