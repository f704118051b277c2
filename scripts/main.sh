#!/usr/bin/env bash
# The main job: build tx if needed, compile the bundled examples (and the GPU
# check cases) to sm_90 GPU code, report what was produced, and run the
# numerical check against PyTorch when a CUDA GPU is present.
#
# The bundled examples (examples/*.mlir) are compiled for chip=$TX_CHIP
# (default sm_90a: H100/H200, where f16 attention takes the warpgroup-MMA
# kernel); the check cases for sm_90 (mma.sync kernel), plus
# flash_cases_sm90a for sm_90a.
#
#   scripts/main.sh                  # build + compile + (check if GPU)
#   TX_RUN_ONLY=1 scripts/main.sh    # on a GPU machine without LLVM: only run
#                                    # the check on already-compiled libraries
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TX_BUILD_DIR:-$root/build}
out="$build/examples"
chip=${TX_CHIP:-sm_90a}

if [ "${TX_RUN_ONLY:-0}" != 1 ]; then
  bash "$root/scripts/deps.sh"
  if [ ! -f "$build/build.ninja" ]; then
    cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
  fi
  ninja -C "$build"
  mkdir -p "$out"
  # The attention examples also with attention=simple (the reference path),
  # as <stem>_simple, plus the flash check cases.
  mkdir -p "$out/src"
  for f in "$root"/examples/*attention*.mlir; do
    cmp -s "$f" "$out/src/$(basename "$f" .mlir)_simple.mlir" || cp "$f" "$out/src/$(basename "$f" .mlir)_simple.mlir"
  done
  cmp -s "$root/harness/flash_cases.mlir" "$out/src/flash_cases.mlir" || cp "$root/harness/flash_cases.mlir" "$out/src/"
  # The same cases with small, odd tiles (3 rows per warp, 32 keys per step).
  cmp -s "$root/harness/flash_cases.mlir" "$out/src/flash_cases_tiles.mlir" || cp "$root/harness/flash_cases.mlir" "$out/src/flash_cases_tiles.mlir"
  # And for chip=sm_90a: the warpgroup-MMA (wgmma) kernel for f16 at head dims 64/128.
  cmp -s "$root/harness/flash_cases.mlir" "$out/src/flash_cases_sm90a.mlir" || cp "$root/harness/flash_cases.mlir" "$out/src/flash_cases_sm90a.mlir"
  for f in "$root"/examples/*.mlir "$root/harness/cases.mlir" "$out"/src/*.mlir; do
    stem=$(basename "$f" .mlir)
    opts=""
    [ "$(dirname "$f")" = "$root/examples" ] && opts="chip=$chip"
    case "$stem" in *_simple) opts="attention=simple" ;; flash_cases) opts="attention=flash" ;;
      flash_cases_tiles) opts="attention=flash attention-warps=2 attention-q-tile=6 attention-kv-tile=32" ;;
      flash_cases_sm90a) opts="attention=flash chip=sm_90a" ;; esac
    # Recompile only when the source or the compiler changed.
    lib="$out/$stem/lib$stem.so"
    if [ ! -e "$lib" ] || [ "$f" -nt "$lib" ] || [ "$build/bin/tx-opt" -nt "$lib" ] \
       || [ "$(cat "$out/$stem/options.txt" 2>/dev/null)" != "$opts" ] \
       || [ "$build/lib/libtx_cuda_runtime.so" -nt "$lib" ] \
       || [ "$root/scripts/tx-compile.sh" -nt "$lib" ]; then
      bash "$root/scripts/tx-compile.sh" "$f" "$out/$stem" $opts
      printf '%s' "$opts" > "$out/$stem/options.txt"
    fi
  done

  echo
  echo "== produced (sm_90 / sm_90a cubin inside each library; PTX in <dir>/ptx) =="
  for d in "$out"/*/; do
    stem=$(basename "$d")
    [ -e "$d/lib$stem.so" ] || continue
    nk=$(ls "$d"/ptx/*.ptx 2>/dev/null | wc -l)
    entries=$(nm -D --defined-only "$d/lib$stem.so" | awk '/ _mlir_ciface_/{sub("_mlir_ciface_","",$3); printf "%s ", $3}')
    echo "$stem: $(du -h "$d/lib$stem.so" | cut -f1) library, $nk kernels; entry points: $entries"
    if [ -s "$d/$stem.kernels.txt" ]; then
      awk '/^== /{k=$2}
           /Used/{for(i=1;i<=NF;i++){ if($(i+1)=="registers,") r=$i; if($(i+1)=="bytes" && $(i+2)=="smem") m=$i }
                  if(r>max){max=r; mk=k} if(m>smax) smax=m}
           /spill/{s+=$5+$9}
           END{printf "  ptxas -v: max %d registers/thread (%s), %d bytes spilled, max %d bytes static shared memory\n", max, mk, s, smax}' "$d/$stem.kernels.txt"
    fi
  done
fi

echo
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 \
   && python3 -c 'import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  echo "== CUDA GPU found: $(nvidia-smi -L | head -1); running harness/check.py =="
  flash=""
  [ -e "$out/flash_cases/libflash_cases.so" ] && flash="--flash"
  python3 "$root/harness/check.py" --lib-dir "$out" --out "$out/check.json" $flash
else
  echo "== no CUDA GPU (or no PyTorch with CUDA) on this machine: compiled only, check not run =="
  echo "   (to check on a GPU machine: copy this checkout and $out there and run TX_RUN_ONLY=1 scripts/main.sh)"
fi
