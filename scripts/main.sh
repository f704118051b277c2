#!/usr/bin/env bash
# The main job: build tx if needed, compile the bundled examples (and the GPU
# check cases) to sm_90 GPU code, report what was produced, and run the
# numerical check against PyTorch when a CUDA GPU is present.
#
# The bundled examples (examples/*.mlir) are compiled for chip=$TX_CHIP
# (default sm_90a: H100/H200, where f16 attention takes the warpgroup-MMA
# kernel). The check cases (about 640 kernels) are compiled where they will
# run, i.e. when this machine has a CUDA GPU, or on request
# (TX_CHECK_CASES=1; TX_CHECK_CASES=0 never): for sm_90 (mma.sync kernel),
# plus flash_cases_sm90a for sm_90a and flash_cases_ws for sm_90a with the
# wgmma kernel's producer warpgroup; the kernels of context-parallel
# attention (bench/ring_attention.mlir: tx.distributed) for sm_90a. One
# library per job on all cores (TX_JOBS=N sets the number).
#
# The compile report has one line per library (entry points, kernels, the
# largest register count, spills, ptxas "Potential Performance Loss" warnings
# such as serialized wgmma), each distinct tx-opt remark once with the
# functions it concerns (e.g. ops left to the reference lowering, and why),
# and one line per kernel (ptxas -v). TX_VERBOSE=1 adds tx-opt's remarks as
# printed.
#
#   scripts/main.sh                  # build + compile + (check if GPU)
#   TX_CHECK_CASES=1 scripts/main.sh # ... and the check cases without a GPU
#   TX_VERBOSE=1 scripts/main.sh     # ... with the full remarks
#   TX_RUN_ONLY=1 scripts/main.sh    # on a GPU machine without LLVM: only run
#                                    # the check on already-compiled libraries
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TX_BUILD_DIR:-$root/build}
out="$build/examples"
chip=${TX_CHIP:-sm_90a}
jobs=${TX_JOBS:-$(nproc 2>/dev/null || echo 2)}

# A CUDA GPU that PyTorch can use: the check runs here.
have_gpu() {
  command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 \
    && python3 -c 'import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null
}

# compile_lib SRC OPTS: SRC's library in $out/<stem>, unless it is newer than
# the source, the compiler, the runtime and tx-compile.sh, has its manifest
# (which harness/check.py reads through python/tx) and was built with OPTS.
compile_lib() {
  local f=$1 opts=$2 stem lib
  stem=$(basename "$f" .mlir)
  lib="$out/$stem/lib$stem.so"
  if [ ! -e "$lib" ] || [ ! -e "$out/$stem/lib$stem.json" ] || [ "$f" -nt "$lib" ] \
     || [ "$build/bin/tx-opt" -nt "$lib" ] \
     || [ "$(cat "$out/$stem/options.txt" 2>/dev/null)" != "$opts" ] \
     || [ "$build/lib/libtx_cuda_runtime.so" -nt "$lib" ] \
     || [ "$root/scripts/tx-compile.sh" -nt "$lib" ]; then
    echo "compiling $stem${opts:+ ($opts)}"
    # The examples get their backward entry points (autograd in python/tx);
    # the check cases check the forward kernels only (TX_GRADIENTS=0).
    local grads=0
    case "$f" in "$root"/examples/*) grads=${TX_GRADIENTS:-1} ;; esac
    # shellcheck disable=SC2086  # $opts: one pipeline option per word
    TX_GRADIENTS=$grads TX_QUIET=1 bash "$root/scripts/tx-compile.sh" "$f" "$out/$stem" $opts
    printf '%s' "$opts" > "$out/$stem/options.txt"
  fi
}

if [ "${TX_RUN_ONLY:-0}" != 1 ]; then
  bash "$root/scripts/deps.sh"
  if [ ! -f "$build/build.ninja" ]; then
    cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
  fi
  ninja -C "$build"
  mkdir -p "$out/src"
  # What to compile: SRC|OPTIONS, one per line. The examples always; the
  # check cases (about 640 kernels) only where they will run, i.e. with a
  # GPU here, or on request (TX_CHECK_CASES=1, to carry them to a GPU
  # machine without LLVM).
  todo=()
  for f in "$root"/examples/*.mlir; do todo+=("$f|chip=$chip"); done
  cases=${TX_CHECK_CASES:-}
  if [ -z "$cases" ]; then
    if have_gpu; then cases=1; else cases=0; fi
  fi
  if [ "$cases" = 1 ]; then
    # The attention examples also with attention=simple (the reference
    # path), as <stem>_simple, and the flash cases in four builds: default
    # tiles, small odd tiles (3 rows per warp, 32 keys per step), sm_90a
    # (the wgmma kernel for f16 at head dims 64/128) and sm_90a with the
    # wgmma kernel's producer warpgroup wherever it can run (every op
    # without a mask; the default takes it only for static non-causal
    # D = 128).
    for f in "$root"/examples/*attention*.mlir; do
      s="$out/src/$(basename "$f" .mlir)_simple.mlir"
      cmp -s "$f" "$s" || cp "$f" "$s"
      todo+=("$s|attention=simple")
    done
    for v in "flash_cases|attention=flash" \
             "flash_cases_tiles|attention=flash attention-warps=2 attention-q-tile=6 attention-kv-tile=32" \
             "flash_cases_sm90a|attention=flash chip=sm_90a" \
             "flash_cases_ws|attention=flash chip=sm_90a attention-producer-warps=4"; do
      s="$out/src/${v%%|*}.mlir"
      cmp -s "$root/harness/flash_cases.mlir" "$s" || cp "$root/harness/flash_cases.mlir" "$s"
      todo+=("$s|${v#*|}")
    done
    todo+=("$root/harness/cases.mlir|")
    # The kernels of context-parallel attention (tx.distributed).
    todo+=("$root/bench/ring_attention.mlir|attention=flash chip=sm_90a")
  else
    echo "(no CUDA GPU here: only the examples are compiled; TX_CHECK_CASES=1 also" \
         "compiles the check cases, to carry build/examples to a GPU machine)"
  fi

  # All cores: one library per job. Each job says "compiling <stem>" when
  # it starts; a failed job's errors are printed at the end.
  logs=$(mktemp -d)
  trap 'rm -rf "$logs"' EXIT
  pids=()
  i=0
  for t in "${todo[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    compile_lib "${t%%|*}" "${t#*|}" 2> "$logs/$i.log" &
    pids+=($!)
    i=$((i + 1))
  done
  fail=0
  for i in "${!pids[@]}"; do
    if ! wait "${pids[$i]}"; then
      fail=1
      cat "$logs/$i.log" >&2
    fi
  done
  [ "$fail" = 0 ] || { echo "main: compiling failed (the errors are above)" >&2; exit 1; }

  echo
  echo "== compiled into $out (PTX in <stem>/ptx; TX_VERBOSE=1 for tx-opt's remarks) =="
  report_opts="--kernels"
  [ "${TX_VERBOSE:-0}" = 1 ] && report_opts="--kernels --verbose"
  python3 "$root/scripts/compile_report.py" --all $report_opts "$out"
fi

echo
if have_gpu; then
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
  echo "   (to check on a GPU machine without LLVM: TX_CHECK_CASES=1 scripts/main.sh here, then copy"
  echo "   this checkout and $out there and run TX_RUN_ONLY=1 scripts/main.sh)"
fi
