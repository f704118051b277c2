#!/usr/bin/env bash
# The runtime's own host cost per call, on this (GPU-less) machine: the mgpu*
# call pattern of compiled code run against the fake driver, in every mode,
# with this build's runtime and, if given, another runtime's lib directory
# (e.g. the one stage_h200.sh puts in <out>/before) for before/after.
#
#   bash runtime/bench/fake_host_cost.sh [BUILD_DIR] [BEFORE_LIB_DIR]
#
# The "driver" lines are the fake driver's own cost for the same work (the
# floor); the runtime's cost is the difference.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-${TX_BUILD_DIR:-$root/build}}
before=${2:-}
bench=$build/bin/tx-runtime-bench
fake=$build/fake-cuda
args=(--iters 1000 --batches 50)
for shape in static dynamic; do
  for mode in driver call setstream sync; do
    LD_LIBRARY_PATH=$fake "$bench" pattern --shape $shape --mode $mode "${args[@]}"
  done
  if [ -n "$before" ]; then
    for mode in setstream sync; do
      echo -n "[before] "
      LD_LIBRARY_PATH=$before:$fake "$bench" pattern --shape $shape --mode $mode "${args[@]}"
    done
  fi
done
