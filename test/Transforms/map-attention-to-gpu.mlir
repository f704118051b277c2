// tx's GPU mapping of tiled attention (tx-map-attention-to-gpu) after a
// user's own tiling with the transform dialect: upstream
// transform.structured.tile_using_forall on tx.attention (its
// TilingInterface: tiles of query rows) and tile_using_for on the resulting
// tx.online_attention (the key loop). The user's sizes reach the kernel:
// the grid is one CTA per user tile and the CTA's warps are sized for it.
// RUN: tx-opt %s --split-input-file --transform-interpreter --tx-stage-attention --tx-attention-strategy="sm=90" --tx-map-attention-to-gpu="sm=90" --canonicalize | FileCheck %s
// Without the user's tiling the strategy's tiles are used instead (the
// mma.sync family's 256 query rows per CTA: one CTA per (batch, head)):
// RUN: tx-opt %s --split-input-file --tx-attention-to-gpu="sm=90" --canonicalize | FileCheck %s --check-prefix=DEFAULT
// Diagnostics: map-attention-to-gpu-errors.mlir.

// 32 query rows per tile, 64 keys per step, f16 on sm_90 (mma.sync):
// 2 * 4 * 128 / 32 = 32 CTAs of one warp (32 rows = 2 m16 tiles), shared
// memory 2 * (32 * 72 + 64 * 72 + 64 * 72) bytes.
// CHECK-LABEL: func.func @user_tiles
// CHECK-NOT: scf.forall
// CHECK-NOT: tx.online_attention
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c1, %{{.*}} = %c1) dynamic_shared_memory_size %c23040_i32
// CHECK: nvgpu.mma.sync
// DEFAULT-LABEL: func.func @user_tiles
// DEFAULT: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c8, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1)
func.func @user_tiles(%q: tensor<2x4x128x64xf16>, %k: tensor<2x4x256x64xf16>, %v: tensor<2x4x256x64xf16>) -> tensor<2x4x128x64xf16> {
  %o = tx.attention %q, %k, %v causal : tensor<2x4x128x64xf16>, tensor<2x4x256x64xf16>, tensor<2x4x256x64xf16> -> tensor<2x4x128x64xf16>
  return %o : tensor<2x4x128x64xf16>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["tx.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %a tile_sizes [1, 1, 32]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %step = transform.structured.match ops{["tx.online_attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t2, %loop = transform.structured.tile_using_for %step tile_sizes [0, 0, 0, 64]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// f32 (CUDA cores), 8 query rows per tile, no key loop (the family's 64
// keys per step), with the log-sum-exp result: 1 * 2 * 40 / 8 = 10 CTAs of
// 4 warps (2 rows each).
// CHECK-LABEL: func.func @user_rows_lse
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c10, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK: return %{{.*}}, %{{.*}} : tensor<1x2x40x16xf32>, tensor<1x2x40xf32>
// DEFAULT-LABEL: func.func @user_rows_lse
// DEFAULT: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1)
func.func @user_rows_lse(%q: tensor<1x2x40x16xf32>, %k: tensor<1x2x50x16xf32>, %v: tensor<1x2x50x16xf32>) -> (tensor<1x2x40x16xf32>, tensor<1x2x40xf32>) {
  %o, %l = tx.attention %q, %k, %v scale = 0.5 : tensor<1x2x40x16xf32>, tensor<1x2x50x16xf32>, tensor<1x2x50x16xf32> -> tensor<1x2x40x16xf32>, tensor<1x2x40xf32>
  return %o, %l : tensor<1x2x40x16xf32>, tensor<1x2x40xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["tx.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %a tile_sizes [1, 1, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Grouped-query packing: a tile of the H / Hkv = 4 query heads of one K/V
// head and all Sq = 1 rows is the split-KV decode kernel's tile; the user's
// 32 keys per step reach its shared memory (Q 2048 bytes + 4 warps x (P 512
// + 3 stages x (K 32 x 128 x 2 + V 32 x 128 x 2)) = 200704 bytes. The
// strategy's own 16 keys per step take the tensor-core form: Q as 16 rows
// of 136 f16: 4352 + 4 x (256 + 3 x (4096 + 4096)) = 103680).
// (On sm_90 the splits are merged by a second kernel: no counters, no
// memset.)
// CHECK-LABEL: func.func @user_decode
// CHECK-NOT: gpu.memset
// CHECK: gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1) dynamic_shared_memory_size %c200704_i32
// CHECK: nvvm.griddepcontrol  launch_dependents
// DEFAULT-LABEL: func.func @user_decode
// DEFAULT: gpu.launch {{.*}} dynamic_shared_memory_size %c103680_i32
func.func @user_decode(%q: tensor<2x32x1x128xf16>, %k: tensor<2x8x4096x128xf16>, %v: tensor<2x8x4096x128xf16>) -> tensor<2x32x1x128xf16> {
  %o = tx.attention %q, %k, %v : tensor<2x32x1x128xf16>, tensor<2x8x4096x128xf16>, tensor<2x8x4096x128xf16> -> tensor<2x32x1x128xf16>
  return %o : tensor<2x32x1x128xf16>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["tx.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %a tile_sizes [1, 4, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %step = transform.structured.match ops{["tx.online_attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t2, %loop = transform.structured.tile_using_for %step tile_sizes [0, 0, 0, 32]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Per-sequence lengths through a user's tiling: the kernel reads both
// lengths of its batch inside the launch (32 rows, 64 keys per step,
// mma.sync; the canonicalizer folds the buffer loads into tensor.extract).
// CHECK-LABEL: func.func @user_tiles_lengths
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK: tensor.extract %{{.*}}[%{{.*}}] : tensor<2xi32>
// CHECK: tensor.extract %{{.*}}[%{{.*}}] : tensor<2xi32>
// CHECK: nvgpu.mma.sync
// DEFAULT-LABEL: func.func @user_tiles_lengths
// DEFAULT: gpu.launch
// DEFAULT: tensor.extract %{{.*}}[%{{.*}}] : tensor<2xi32>
func.func @user_tiles_lengths(%q: tensor<2x4x128x64xf16>, %k: tensor<2x4x256x64xf16>, %v: tensor<2x4x256x64xf16>, %kl: tensor<2xi32>, %ql: tensor<2xi32>) -> tensor<2x4x128x64xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<2xi32>) q_lengths(%ql : tensor<2xi32>) causal : tensor<2x4x128x64xf16>, tensor<2x4x256x64xf16>, tensor<2x4x256x64xf16> -> tensor<2x4x128x64xf16>
  return %o : tensor<2x4x128x64xf16>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["tx.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %a tile_sizes [1, 1, 32]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %step = transform.structured.match ops{["tx.online_attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t2, %loop = transform.structured.tile_using_for %step tile_sizes [0, 0, 0, 64]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
