#!/usr/bin/env bash
# Compiles the attention benchmark libraries (bench/attention_shapes.mlir) for
# bench/attention_bench.py. Run it here, where LLVM/MLIR and the CUDA toolkit
# are; no GPU is needed. Carry the output directory to the GPU machine.
#
#   bash bench/build_attention.sh [OUT_DIR]
#
# OUT_DIR: the argument, else $TX_BENCH_ATTN_OUT, else build/bench-attn. It
# receives three variants, each built by scripts/tx-compile.sh (which uses
# $TX_BUILD_DIR/bin/tx-opt, default build/bin/tx-opt):
#   OUT_DIR/flash/libattention_shapes.so   attention=flash  (tx-attention-to-gpu,
#                                          the pipeline's default strategy)
#   OUT_DIR/wgmma/libattention_shapes.so   attention=flash chip=sm_90a (the
#                                          warpgroup-MMA kernel; H100/H200 only)
#   OUT_DIR/simple/libattention_shapes.so  attention=simple (reference lowering:
#                                          the Sq x Sk f32 scores materialized)
# and OUT_DIR/build-info.txt (date, git state, tx-opt, ptxas), which the
# benchmark prints. ptxas -v resource usage of every kernel (from
# <variant>/attention_shapes.kernels.txt, written by tx-compile.sh when ptxas
# is installed) is printed at the end.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-${TX_BENCH_ATTN_OUT:-$root/build/bench-attn}}
src="$root/bench/attention_shapes.mlir"
stem=attention_shapes
build=${TX_BUILD_DIR:-$root/build}
cuda=${TX_CUDA_TOOLKIT:-/usr/local/cuda}
variants=(
  "flash:attention=flash"
  "wgmma:attention=flash chip=sm_90a"
  "simple:attention=simple"
)
# More variants for sweeps, NAME:OPTIONS separated by ';', e.g.
#   TX_BENCH_ATTN_EXTRA="wg-kv128:attention=flash chip=sm_90a attention-kv-tile=128"
# (each becomes OUT_DIR/NAME; pass it to attention_bench.py --variant NAME=OUT_DIR/NAME).
if [ -n "${TX_BENCH_ATTN_EXTRA:-}" ]; then
  IFS=';' read -r -a extra <<< "$TX_BENCH_ATTN_EXTRA"
  variants+=("${extra[@]}")
fi
mkdir -p "$out"

# The variants in parallel; each one's output in OUT_DIR/<variant>.log.
pids=()
for v in "${variants[@]}"; do
  name=${v%%:*}; opts=${v#*:}
  rm -rf "${out:?}/${name:?}"  # no stale PTX in the kernel report
  # shellcheck disable=SC2086  # $opts: one pipeline option per word
  # Forward benchmarks: no derived backward entry points (TX_GRADIENTS=0).
  TX_GRADIENTS=0 bash "$root/scripts/tx-compile.sh" "$src" "$out/$name" $opts > "$out/$name.log" 2>&1 &
  pids+=($!)
done
fail=0
for i in "${!variants[@]}"; do
  name=${variants[$i]%%:*}
  if ! wait "${pids[$i]}"; then
    echo "build_attention: variant '$name' failed; its log ($out/$name.log):" >&2
    cat "$out/$name.log" >&2
    fail=1
  fi
done
[ "$fail" = 0 ] || exit 1

{
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  if git -C "$root" rev-parse HEAD >/dev/null 2>&1; then
    dirty=$(git -C "$root" status --porcelain --untracked-files=no -- lib include tools runtime scripts | awk '{print $2}' | tr '\n' ' ')
    echo "git: $(git -C "$root" rev-parse --short HEAD) ($(git -C "$root" log -1 --format=%s | cut -c1-80))"
    echo "uncommitted changes in lib/ include/ tools/ runtime/ scripts/: ${dirty:-none}"
  fi
  echo "tx-opt: $build/bin/tx-opt (modified $(date -u -r "$build/bin/tx-opt" +%Y-%m-%dT%H:%M:%SZ))"
  if [ -x "$cuda/bin/ptxas" ]; then
    echo "ptxas: $("$cuda/bin/ptxas" --version | tail -1)"
  fi
  for v in "${variants[@]}"; do
    name=${v%%:*}; opts=${v#*:}
    echo "variant $name: scripts/tx-compile.sh bench/attention_shapes.mlir $name $opts ($(tail -1 "$out/$name.log"))"
  done
} > "$out/build-info.txt"
cat "$out/build-info.txt"

# ptxas resource usage (tx-compile.sh's kernels.txt: "== kernel" followed by
# ptxas -v's "Used" and spill lines), one line per kernel.
for v in "${variants[@]}"; do
  name=${v%%:*}
  report="$out/$name/$stem.kernels.txt"
  echo
  if [ ! -s "$report" ]; then
    echo "== $name: no ptxas report ($report missing: ptxas not installed at $cuda/bin?)"
    continue
  fi
  nk=$(grep -c '^== ' "$report")
  echo "== $name: ptxas -v, $nk kernels ($report; smem = static shared memory only, dynamic smem is set at launch)"
  # Every kernel when there are few (flash: one per function); otherwise
  # (simple: ~11 per function) a summary, the full list being in the report.
  full=0; [ "$nk" -le 16 ] && full=1
  awk -v full="$full" '
    function flush() {
      if (k == "") return
      n++; if (r + 0 > maxr) { maxr = r + 0; maxk = k }
      if (m + 0 > maxm) maxm = m + 0
      spills += ss + sl
      if (full) printf "  %-48s %3s registers  %6s B smem  %4s B stack  spill %s/%s B (st/ld)\n", k, r, m, st, ss, sl
    }
    /^== / { flush(); k = $2; r = "?"; m = 0; st = 0; ss = 0; sl = 0; next }
    /Used/ {
      for (i = 1; i <= NF; i++) {
        if ($(i+1) == "registers,") r = $i
        if ($(i+1) == "bytes" && $(i+2) == "smem") m = $i
      }
    }
    /spill/ { st = $1; ss = $5; sl = $9 }
    END {
      flush()
      if (!full) printf "  %d kernels: max %d registers (%s), max %d B static smem, %d B spilled in all\n", n, maxr, maxk, maxm, spills
    }' "$report"
done
