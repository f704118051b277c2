// Fuzz finding (CI, seed 1, input 569): a hand-written kernel's TMA load with
// a shared::cta destination (isCTAOnly), compiled by tx-gpu-pipeline for
// sm_90a without features=+ptx86, aborted in LLVM's NVPTX backend ("LLVM
// ERROR: Cannot select: intrinsic %llvm.nvvm.cp.async.bulk.tensor.g2s.cta.
// tile.2d"). The same abort followed for other NVVM ops on a chip without
// them (nvvm.setmaxregister below sm_90a). tx-check-gpu-target, first in
// the pipeline, now checks each NVVM op of the input against the chip and
// the PTX version and reports the op with what it needs.
// RUN: not tx-opt %s --split-input-file --tx-gpu-pipeline="chip=sm_90a format=isa" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90A
// RUN: not tx-opt %s --split-input-file --tx-gpu-pipeline="chip=sm_80 format=isa" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not mlir-opt --load-dialect-plugin=%tx_plugin --load-pass-plugin=%tx_plugin %s --split-input-file --pass-pipeline="builtin.module(tx-gpu-pipeline{chip=sm_80 format=isa})" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80
// With the PTX version it needs, the TMA load compiles.
// RUN: tx-opt %s --split-input-file --tx-gpu-pipeline="chip=sm_90a format=isa features=+ptx86" 2>&1 | FileCheck %s --check-prefix=OK

// SM90A-NOT: LLVM ERROR
// SM80-NOT: LLVM ERROR

// SM90A: [[@LINE+8]]:5: error: tx-gpu-pipeline: nvvm.cp.async.bulk.tensor.shared.cluster.global with a shared::cta destination (isCTAOnly) needs PTX 8.6 or later; the target uses PTX 8.0; pass features=+ptx86
// SM80: [[@LINE+7]]:5: error: tx-gpu-pipeline: nvvm.cp.async.bulk.tensor.shared.cluster.global needs sm_90 or newer; chip is sm_80
// OK: gpu.binary @f_kernel
func.func @f(%tm: !llvm.ptr) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %z = arith.constant 0 : i32
    %smem = llvm.mlir.zero : !llvm.ptr<3>
    nvvm.cp.async.bulk.tensor.shared.cluster.global %smem, %tm, %smem, box[%z, %z] {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
    gpu.terminator
  }
  return
}

// -----

// setmaxnreg exists only on sm_90a; sm_90a compiles it.
// SM80: [[@LINE+5]]:5: error: tx-gpu-pipeline: nvvm.setmaxregister needs the architecture-specific chip sm_90a; chip is sm_80
// OK: gpu.binary @g_kernel
func.func @g() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    nvvm.setmaxregister increase 232
    gpu.terminator
  }
  return
}

// -----

// An op with upstream's RequiresSMInterface (sm_90+).
// SM80: [[@LINE+5]]:5: error: tx-gpu-pipeline: nvvm.cluster.wait needs sm_90 or newer; chip is sm_80
// OK: gpu.binary @h_kernel
func.func @h() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    nvvm.cluster.wait
    gpu.terminator
  }
  return
}
