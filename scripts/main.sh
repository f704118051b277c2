#!/usr/bin/env bash
# The main job: build tx if needed, compile the bundled examples (and the GPU
# check cases) to sm_90 GPU code, report what was produced, and run the
# numerical check against PyTorch when a CUDA GPU is present.
#
# The bundled examples (examples/*.mlir) are compiled for chip=$TX_CHIP
# (default sm_90a: H100/H200, where f16 attention takes the warpgroup-MMA
# kernel); the check cases for sm_90 (mma.sync kernel), plus
# flash_cases_sm90a for sm_90a and flash_cases_ws for sm_90a with the wgmma
# kernel's producer warpgroup; the kernels of context-parallel attention
# (bench/ring_attention.mlir: tx.distributed) for sm_90a.
#
# The compile report has one line per library (entry points, kernels, the
# largest register count, spills, ptxas "Potential Performance Loss" warnings
# such as serialized wgmma), each distinct tx-opt remark once with the
# functions it concerns (e.g. ops left to the reference lowering, and why),
# and one line per kernel (ptxas -v). TX_VERBOSE=1 adds tx-opt's remarks as
# printed.
#
#   scripts/main.sh                  # build + compile + (check if GPU)
#   TX_VERBOSE=1 scripts/main.sh     # ... with the full remarks
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
  # And sm_90a with the wgmma kernel's producer warpgroup wherever it can run
  # (every op without a mask; the default takes it only for static
  # non-causal D = 128).
  cmp -s "$root/harness/flash_cases.mlir" "$out/src/flash_cases_ws.mlir" || cp "$root/harness/flash_cases.mlir" "$out/src/flash_cases_ws.mlir"
  for f in "$root"/examples/*.mlir "$root/harness/cases.mlir" "$out"/src/*.mlir \
           "$root/bench/ring_attention.mlir"; do
    stem=$(basename "$f" .mlir)
    opts=""
    [ "$(dirname "$f")" = "$root/examples" ] && opts="chip=$chip"
    case "$stem" in *_simple) opts="attention=simple" ;; flash_cases) opts="attention=flash" ;;
      flash_cases_tiles) opts="attention=flash attention-warps=2 attention-q-tile=6 attention-kv-tile=32" ;;
      flash_cases_sm90a|ring_attention) opts="attention=flash chip=sm_90a" ;;
      flash_cases_ws) opts="attention=flash chip=sm_90a attention-producer-warps=4" ;; esac
    # Recompile only when the source or the compiler changed, or the
    # manifest that harness/check.py reads (through python/tx) is missing.
    lib="$out/$stem/lib$stem.so"
    if [ ! -e "$lib" ] || [ ! -e "$out/$stem/lib$stem.json" ] || [ "$f" -nt "$lib" ] \
       || [ "$build/bin/tx-opt" -nt "$lib" ] \
       || [ "$(cat "$out/$stem/options.txt" 2>/dev/null)" != "$opts" ] \
       || [ "$build/lib/libtx_cuda_runtime.so" -nt "$lib" ] \
       || [ "$root/scripts/tx-compile.sh" -nt "$lib" ]; then
      echo "compiling $stem${opts:+ ($opts)}"
      TX_QUIET=1 bash "$root/scripts/tx-compile.sh" "$f" "$out/$stem" $opts
      printf '%s' "$opts" > "$out/$stem/options.txt"
    fi
  done

  echo
  echo "== compiled into $out (PTX in <stem>/ptx; TX_VERBOSE=1 for tx-opt's remarks) =="
  report_opts="--kernels"
  [ "${TX_VERBOSE:-0}" = 1 ] && report_opts="--kernels --verbose"
  python3 "$root/scripts/compile_report.py" --all $report_opts "$out"
fi

echo
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 \
   && python3 -c 'import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  echo "== CUDA GPU found: $(nvidia-smi -L | head -1); running harness/check.py =="
  flash=""
  [ -e "$out/flash_cases/libflash_cases.so" ] && flash="--flash"
  python3 "$root/harness/check.py" --lib-dir "$out" --out "$out/check.json" $flash
  # Context-parallel attention over every GPU of this host (NCCL; NVLink
  # multicast stays off), checked against single-GPU tx attention.
  ngpu=$(nvidia-smi -L | wc -l)
  ring="$out/ring_attention/libring_attention.so"
  if [ "$ngpu" -ge 2 ] && [ -e "$ring" ] && command -v torchrun >/dev/null 2>&1; then
    echo
    echo "== $ngpu GPUs: tx.distributed ring attention check (torchrun, bench/ring_attention.py --check) =="
    NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0} PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" \
      torchrun --standalone --nproc-per-node="$ngpu" "$root/bench/ring_attention.py" --lib "$ring" --check
  else
    echo "(the tx.distributed ring attention check needs 2+ GPUs and torchrun: not run)"
  fi
else
  echo "== no CUDA GPU (or no PyTorch with CUDA) on this machine: compiled only, check not run =="
  echo "   (to check on a GPU machine: copy this checkout and $out there and run TX_RUN_ONLY=1 scripts/main.sh)"
fi
