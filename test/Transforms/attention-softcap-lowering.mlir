// Logit soft-capping (issue #19) in the lowerings: the reference lowering
// and the tiled path apply c * tanh(s / c) right after the scale; on the GPU
// every kernel does too: the CUDA-core and decode kernels with math.tanh
// (libdevice's tanhf), the tensor-core kernels with
// tanh(y) = 1 - 2 / (2^(2y log2 e) + 1) (ex2.approx and rcp.approx) folded
// into the exp2 exponent: x = c log2e - 2 c log2e / (2^(s * 2 scale log2e / c) + 1).
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
// (c = 50, c log2e = 72.13, 2 c log2e = 144.27)
// GPU: %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// GPU: %[[E1:.*]] = arith.addf %[[E]], %{{.*}} : f32
// GPU: %[[R:.*]] = llvm.call_intrinsic "llvm.nvvm.rcp.approx.ftz.f"(%[[E1]])
// GPU: arith.constant 72.1347
// GPU: arith.constant -144.2695
// GPU: math.fma %{{.*}}, %[[R]], %{{.*}} : f32
// GPU: math.fma
// GPU: gpu.terminator
// PIPE-NOT: remark
// PIPE: wgmma.mma_async
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
