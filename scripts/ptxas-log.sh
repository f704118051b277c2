#!/usr/bin/env bash
# The ptxas that scripts/tx-compile.sh hands to tx-opt's gpu-module-to-binary
# (as bin/ptxas of a toolkit directory whose nvvm/ is the real toolkit's): it
# runs the real ptxas with -v and keeps, per GPU module, the PTX it was given
# and ptxas's report, so that the kernel report needs no second compile.
#
#   TX_REAL_PTXAS   the real ptxas (required)
#   TX_PTX_DIR      where <module>.ptx and <module>.ptxas.txt go (required)
#
# MLIR names its temporary input mlir-<module>-nvptx64-nvidia-cuda-<chip>-*.ptx;
# when the name has another form, the module is named after the PTX's first
# .entry and the file's own name. ptxas's messages still reach tx-opt
# (stderr), and its exit status is the real one.
set -uo pipefail
real=${TX_REAL_PTXAS:?ptxas-log.sh: TX_REAL_PTXAS is not set}
dir=${TX_PTX_DIR:?ptxas-log.sh: TX_PTX_DIR is not set}
ptx=""
for a in "$@"; do
  case "$a" in *.ptx) ptx=$a ;; esac
done
[ -n "$ptx" ] || exec "$real" "$@" # --version and other queries

base=$(basename "$ptx" .ptx)
module=$(printf '%s\n' "$base" | sed -n 's/^mlir-\(.*\)-nvptx64-nvidia-cuda-.*$/\1/p')
if [ -z "$module" ]; then
  entry=$(grep -m1 -o '\.entry [A-Za-z0-9_$]*' "$ptx" | cut -d' ' -f2)
  module=${entry:-kernel}.$base
fi
mkdir -p "$dir"
cp -f "$ptx" "$dir/$module.ptx"
"$real" -v "$@" 2> "$dir/$module.ptxas.txt"
rc=$?
cat "$dir/$module.ptxas.txt" >&2
exit $rc
