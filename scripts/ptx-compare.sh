#!/usr/bin/env bash
# Compares the GPU code of two tx compilers (the refactoring invariant of
# issue #39: the PTX of every kernel byte-identical before and after), kernel
# by kernel, for sm_90 and sm_90a:
#
#   scripts/ptx-compare.sh --old-rev 37bf922            # old: built from that commit
#   scripts/ptx-compare.sh --old-build /tmp/old/build   # old: an existing build
#   scripts/ptx-compare.sh --old-rev HEAD~3 --chips sm_90a bench/attention_shapes.mlir
#
# The old compiler is built from --old-rev in a git worktree beside the
# checkout (<root>/../tx-ptx-compare-<rev>, reused when it exists; only
# tx-opt is built); the new one is $TX_BUILD_DIR or <root>/build. Files
# (default: the bundled examples, harness/cases.mlir, harness/flash_cases.mlir
# and the benchmark libraries bench/*_shapes.mlir) go through
# `tx-opt --tx-gpu-pipeline="chip=<c> format=isa"`; every kernel's PTX
# (scripts/extract_ptx.py) and the host code (the module without the
# gpu.binary ops) are compared, the compile-time property
# LLVMIRToISATimeInMs aside. One line per file and chip; the kernels that
# differ are named. Exit status 0 when everything is identical, 1 when
# something differs, 2 on a usage or build error. --keep DIR keeps both
# outputs in DIR. --old-inputs DIR: the old compiler compiles DIR/<the
# file's path in this checkout> instead, when it exists (for inputs whose
# syntax changed in between, such as the typed tx.gpu_strategy attributes;
# e.g. --old-inputs ../tx-ptx-compare-ab7c8f8, the old compiler's own tree;
# check that the two inputs differ in syntax only). --options "K=V ..." adds
# tx-gpu-pipeline options (e.g. "attention-grad-kernels=true
# attention-grad-deterministic=true" to compare the backward's kernels).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
new_build=${TX_BUILD_DIR:-$root/build}
old_build="" old_rev="" chips="sm_90 sm_90a" keep="" old_inputs="" options=""
files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --old-rev) old_rev=$2; shift 2 ;;
    --old-build) old_build=$2; shift 2 ;;
    --new-build) new_build=$2; shift 2 ;;
    --chips) chips=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --options) options=" $2"; shift 2 ;;
    --old-inputs) old_inputs=$(cd "$2" && pwd) || exit 2; shift 2 ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    -*) echo "ptx-compare: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) files+=("$1"); shift ;;
  esac
done
if [ -z "$old_build" ] && [ -z "$old_rev" ]; then
  echo "ptx-compare: give --old-rev REV or --old-build DIR (see --help)" >&2
  exit 2
fi
if [ -n "$old_rev" ]; then
  rev=$(git -C "$root" rev-parse --short "$old_rev") || exit 2
  wt="$root/../tx-ptx-compare-$rev"
  if [ ! -d "$wt" ]; then
    git -C "$root" worktree add --detach "$wt" "$rev" >/dev/null || exit 2
  fi
  old_build="$wt/build"
  if [ ! -f "$old_build/build.ninja" ]; then
    cmake -G Ninja -S "$wt" -B "$old_build" -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 2
  fi
  echo "ptx-compare: building the old tx-opt ($rev) in $old_build"
  ninja -C "$old_build" tx-opt >/dev/null || { echo "ptx-compare: the old build failed" >&2; exit 2; }
fi
for b in "$old_build" "$new_build"; do
  [ -x "$b/bin/tx-opt" ] || { echo "ptx-compare: $b/bin/tx-opt is missing" >&2; exit 2; }
done
if [ ${#files[@]} -eq 0 ]; then
  files=("$root"/examples/*.mlir "$root/harness/cases.mlir" "$root/harness/flash_cases.mlir"
         "$root"/bench/*_shapes.mlir)
fi
out=${keep:-$(mktemp -d)}
mkdir -p "$out"
[ -n "$keep" ] || trap 'rm -rf "$out"' EXIT

status=0
for f in "${files[@]}"; do
  stem=$(basename "$f" .mlir)
  for c in $chips; do
    for side in old new; do
      b=$old_build; [ "$side" = new ] && b=$new_build
      src=$f
      if [ "$side" = old ] && [ -n "$old_inputs" ]; then
        rel=$(realpath --relative-to="$root" "$f")
        [ -f "$old_inputs/$rel" ] && src="$old_inputs/$rel"
      fi
      d="$out/$side/$c/$stem"
      rm -rf "$d"; mkdir -p "$d/ptx"
      if ! "$b/bin/tx-opt" "$src" --tx-gpu-pipeline="chip=$c format=isa$options" 2> "$d/err" \
           | sed -E 's/LLVMIRToISATimeInMs = [0-9]+ : i64, //' > "$d/out.mlir"; then
        echo "$c $stem: the $side compiler failed ($d/err)"; status=1; continue 2
      fi
      python3 "$root/scripts/extract_ptx.py" "$d/ptx" < "$d/out.mlir" 2>/dev/null
      grep -v 'gpu.binary' "$d/out.mlir" > "$d/host.mlir"
    done
    o="$out/old/$c/$stem" n="$out/new/$c/$stem"
    same=0 diff=() 
    for p in "$o"/ptx/*.ptx "$n"/ptx/*.ptx; do
      [ -e "$p" ] || continue
      k=$(basename "$p")
      case " ${seen:-} " in *" $c/$stem/$k "*) continue ;; esac
      seen="${seen:-} $c/$stem/$k"
      if cmp -s "$o/ptx/$k" "$n/ptx/$k"; then same=$((same + 1)); else diff+=("${k%.ptx}"); fi
    done
    host=same
    cmp -s "$o/host.mlir" "$n/host.mlir" || host=differs
    line="$c $stem: $same kernels identical"
    [ ${#diff[@]} -gt 0 ] && line="$line, ${#diff[@]} differ: ${diff[*]}" && status=1
    [ "$host" = differs ] && line="$line; host code differs" && status=1
    echo "$line"
  done
done
[ $status = 0 ] && echo "ptx-compare: identical" || echo "ptx-compare: differences (outputs in ${keep:-a temporary directory; --keep DIR keeps them})"
exit $status
