// Logit soft-capping (issue #19) in the lowerings: the reference lowering
// and the tiled path apply c * tanh(s / c) right after the scale; on the GPU
// every kernel does too: the CUDA-core and decode kernels with math.tanh
// (libdevice's tanhf), the tensor-core kernels with PTX tanh.approx.f32:
// t = tanh(s * scale / c); without an additive mask t is the score of the
// row max and each exponent is one FFMA 2^(t * c log2e - a); with one,
// x = c log2e * t is formed before the mask and the max.
// Numerics: test/Execution/attention_softcap.mlir (CPU) and harness/check.py
// ("softcap ..." rows, H200).
// RUN: tx-opt %s --convert-tx-to-linalg | FileCheck %s --check-prefix=REF
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-tile-attention))" | FileCheck %s --check-prefix=TILED
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu))" 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa chip=sm_90a" 2>&1 | FileCheck %s --check-prefix=PIPE

// REF-LABEL: func.func @softcap_prefill
// REF: linalg.generic
// REF: %[[X:.*]] = arith.mulf %in, %{{.*}} : f32
// REF-NEXT: %[[C:.*]] = arith.constant 5.000000e+01 : f32
// REF-NEXT: %[[D:.*]] = arith.divf %[[X]], %[[C]] : f32
// REF-NEXT: %[[T:.*]] = math.tanh %[[D]] : f32
// REF-NEXT: arith.mulf %[[C]], %[[T]] : f32
// TILED-LABEL: func.func @softcap_prefill
// TILED: scf.forall
// TILED: scf.for
// TILED: math.tanh

// GPU-NOT: remark
// GPU-LABEL: func.func @softcap_prefill
// GPU: gpu.launch
// GPU: nvgpu.mma.sync
// (scale / c = 0.125 / 50 = 0.0025, c log2e = 72.13)
// GPU: %[[C:.*]] = arith.constant 72.1347
// GPU-NEXT: %[[K:.*]] = arith.constant 2.500000e-03 : f32
// GPU-NEXT: %[[Y:.*]] = llvm.call_intrinsic "llvm.nvvm.mul.rn.f"(%{{.*}}, %[[K]]) : (f32, f32) -> f32
// GPU-NEXT: %[[T:.*]] = llvm.inline_asm asm_dialect = att "tanh.approx.f32 $0, $1;", "=f,f" %[[Y]] : (f32) -> f32
// GPU: %[[A:.*]] = llvm.call_intrinsic "llvm.nvvm.mul.rn.f"(%{{.*}}, %[[C]]) : (f32, f32) -> f32
// GPU: %[[X:.*]] = math.fma %{{.*}}, %[[C]], %{{.*}} : f32
// GPU-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[X]])
// GPU: gpu.terminator
// PIPE-NOT: remark
// PIPE: gpu.binary @softcap_prefill_kernel
// PIPE-SAME: wgmma.mma_async
// PIPE-SAME: tanh.approx.f32
func.func @softcap_prefill(%q: tensor<1x2x64x64xf16>, %k: tensor<1x1x64x64xf16>, %v: tensor<1x1x64x64xf16>) -> tensor<1x2x64x64xf16> {
  %0 = tx.attention %q, %k, %v softcap = 50.0 causal : tensor<1x2x64x64xf16>, tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16> -> tensor<1x2x64x64xf16>
  return %0 : tensor<1x2x64x64xf16>
}

// The decode kernel caps its scores too (no remark).
// GPU-LABEL: func.func @softcap_decode
// GPU: gpu.launch
// GPU: nvvm.bar.warp.sync
// GPU: math.tanh
// GPU: gpu.terminator
// PIPE: gpu.binary @softcap_decode_kernel
func.func @softcap_decode(%q: tensor<?x8x1x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>) -> tensor<?x8x1x128xbf16> {
  %0 = tx.attention %q, %k, %v softcap = 30.0 : tensor<?x8x1x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x1x128xbf16>
  return %0 : tensor<?x8x1x128xbf16>
}

// With an additive mask the capped score is scaled to exp2 units before the
// mask joins it: x = round(t * c log2e) (c = 20: 28.85; scale / c = 0.00625),
// then fma(mask, log2e, x).
// GPU-LABEL: func.func @softcap_additive
// GPU: %[[CL:.*]] = arith.constant 2.88539{{[0-9]*}}e+01 : f32
// GPU-NEXT: %[[K2:.*]] = arith.constant 6.250000e-03 : f32
// GPU-NEXT: %[[Y2:.*]] = llvm.call_intrinsic "llvm.nvvm.mul.rn.f"(%{{.*}}, %[[K2]])
// GPU-NEXT: %[[T2:.*]] = llvm.inline_asm asm_dialect = att "tanh.approx.f32 $0, $1;", "=f,f" %[[Y2]]
// GPU-NEXT: llvm.call_intrinsic "llvm.nvvm.mul.rn.f"(%[[T2]], %[[CL]])
// GPU: gpu.terminator
func.func @softcap_additive(%q: tensor<1x2x64x64xf16>, %k: tensor<1x1x64x64xf16>, %v: tensor<1x1x64x64xf16>, %m: tensor<1x2x64x64xf16>) -> tensor<1x2x64x64xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x2x64x64xf16>) softcap = 20.0 : tensor<1x2x64x64xf16>, tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16> -> tensor<1x2x64x64xf16>
  return %0 : tensor<1x2x64x64xf16>
}
