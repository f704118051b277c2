// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu))" | FileCheck %s
// RUN: not tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{block-size=100}))" 2>&1 | FileCheck %s --check-prefix=BAD

// One warp per query row (4 rows per CTA of 128), q pre-scaled by
// scale * log2(e) = 0.125 * 1.4427, a single pass over the keys with the
// online softmax (running max, rescale by exp2(m_old - m_new), fma into the
// accumulator), causal rows stopping at j < min(Sk, i + Sk - Sq + 1), GQA
// K/V head h / (H / Hkv), zeros for rows with no visible key. No Sq x Sk
// buffer: the only allocation is the output.
// BAD: error: tx-attention-to-gpu: block-size must be a multiple of 32 in [32, 1024], got 100
// CHECK-LABEL: func.func @causal_gqa
// CHECK-COUNT-1: memref.alloc() : memref<1x8x16x64xf16>
// CHECK-NOT: memref.alloc
// CHECK: arith.constant 0.180336{{[0-9]*}} : f32
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128
// CHECK: %[[END:.*]] = arith.minsi
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[END]]
// CHECK:   memref.load %{{.*}}[%{{.*}}, %{{.*}}, %[[J]], %{{.*}}] : memref<1x2x16x64xf16>
// CHECK:   math.fma
// CHECK:   gpu.shuffle  xor
// CHECK:   arith.maximumf
// CHECK:   math.exp2
// CHECK:   math.exp2
// CHECK:   scf.yield
// CHECK: arith.divf
// CHECK: arith.truncf
// CHECK: memref.store
// CHECK-NOT: tx.attention
func.func @causal_gqa(%q: tensor<1x8x16x64xf16>, %k: tensor<1x2x16x64xf16>, %v: tensor<1x2x16x64xf16>) -> tensor<1x8x16x64xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x8x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16> -> tensor<1x8x16x64xf16>
  return %0 : tensor<1x8x16x64xf16>
}

// -----

// Head dims that are not multiples of 32 stay with the reference lowering.
// CHECK-LABEL: func.func @small_head_dim
// CHECK: tx.attention
// CHECK-NOT: gpu.launch
func.func @small_head_dim(%q: tensor<1x1x3x2xf32>, %k: tensor<1x1x4x2xf32>, %v: tensor<1x1x4x2xf32>) -> tensor<1x1x3x2xf32> {
  %0 = tx.attention %q, %k, %v : tensor<1x1x3x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32> -> tensor<1x1x3x2xf32>
  return %0 : tensor<1x1x3x2xf32>
}
