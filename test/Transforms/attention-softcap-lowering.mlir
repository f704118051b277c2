// Logit soft-capping (issue #19) in the lowerings: the reference lowering
// and the tiled path apply c * tanh(s / c) right after the scale; the GPU's
// flash and decode kernels do not implement it yet and leave the op to the
// reference lowering with a remark (tx-gpu-pipeline still compiles it).
// Numerics: test/Execution/attention_softcap.mlir.
// RUN: tx-opt %s --convert-tx-to-linalg | FileCheck %s --check-prefix=REF
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-tile-attention))" | FileCheck %s --check-prefix=TILED
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu))" 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa" 2>&1 | FileCheck %s --check-prefix=PIPE

// REF-LABEL: func.func @softcap
// REF: linalg.generic
// REF: %[[X:.*]] = arith.mulf %in, %{{.*}} : f32
// REF-NEXT: %[[C:.*]] = arith.constant 5.000000e+01 : f32
// REF-NEXT: %[[D:.*]] = arith.divf %[[X]], %[[C]] : f32
// REF-NEXT: %[[T:.*]] = math.tanh %[[D]] : f32
// REF-NEXT: arith.mulf %[[C]], %[[T]] : f32
// TILED-LABEL: func.func @softcap
// TILED: scf.forall
// TILED: scf.for
// TILED: math.tanh
// GPU: attention-softcap-lowering.mlir:[[@LINE+6]]:8: remark: tx-attention-to-gpu: softcap is not implemented by the flash and decode kernels yet; this op is left to the reference lowering
// GPU-LABEL: func.func @softcap
// GPU: tx.attention {{.*}} softcap = 5.000000e+01 causal
// PIPE: remark: tx-attention-to-gpu: softcap is not implemented by the flash and decode kernels yet; this op is left to the reference lowering
// PIPE: gpu.binary
func.func @softcap(%q: tensor<1x2x8x64xf16>, %k: tensor<1x1x8x64xf16>, %v: tensor<1x1x8x64xf16>) -> tensor<1x2x8x64xf16> {
  %0 = tx.attention %q, %k, %v softcap = 50.0 causal : tensor<1x2x8x64xf16>, tensor<1x1x8x64xf16>, tensor<1x1x8x64xf16> -> tensor<1x2x8x64xf16>
  return %0 : tensor<1x2x8x64xf16>
}
