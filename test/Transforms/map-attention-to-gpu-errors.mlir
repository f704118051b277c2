// Diagnostics of a user's tiling (transform dialect) that no kernel can
// run: tx-attention-strategy, which gives a user's tiling the strategy of
// its tiles, refuses it. Each names the tile and is reported at the tiled
// op's location. (Then the mapping's own diagnostics.)
// RUN: not tx-opt %s --split-input-file --transform-interpreter --tx-stage-attention --tx-attention-strategy="sm=90" --tx-map-attention-to-gpu="sm=90" -o /dev/null 2>&1 | FileCheck %s

// CHECK: map-attention-to-gpu-errors.mlir:[[@LINE+2]]:8: error: tx-attention-strategy: the kernels take one batch and one head (or, for the split-KV decode kernel, the H / Hkv heads of one K/V head) per CTA: tile sizes [1, 1, q_tile] or [1, H / Hkv, Sq]
func.func @two_batches(%q: tensor<2x2x64x64xf16>, %k: tensor<2x2x64x64xf16>, %v: tensor<2x2x64x64xf16>) -> tensor<2x2x64x64xf16> {
  %o = tx.attention %q, %k, %v : tensor<2x2x64x64xf16>, tensor<2x2x64x64xf16>, tensor<2x2x64x64xf16> -> tensor<2x2x64x64xf16>
  return %o : tensor<2x2x64x64xf16>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["tx.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %a tile_sizes [2, 1, 32]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// CHECK: map-attention-to-gpu-errors.mlir:[[@LINE+2]]:8: error: tx-attention-strategy: the key loop's step 48 has no kernel: the kernels take a multiple of 32 in [32, 256] keys per step
func.func @odd_key_step(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x96x64xf16>, %v: tensor<1x2x96x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v : tensor<1x2x64x64xf16>, tensor<1x2x96x64xf16>, tensor<1x2x96x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["tx.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %a tile_sizes [1, 1, 32]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %step = transform.structured.match ops{["tx.online_attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t2, %loop = transform.structured.tile_using_for %step tile_sizes [0, 0, 0, 48]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// CHECK: map-attention-to-gpu-errors.mlir:[[@LINE+2]]:8: error: tx-attention-strategy: no kernel takes a query tile of 100 rows
func.func @huge_rows(%q: tensor<1x1x200x32xf32>, %k: tensor<1x1x64x32xf32>, %v: tensor<1x1x64x32xf32>) -> tensor<1x1x200x32xf32> {
  %o = tx.attention %q, %k, %v : tensor<1x1x200x32xf32>, tensor<1x1x64x32xf32>, tensor<1x1x64x32xf32> -> tensor<1x1x200x32xf32>
  return %o : tensor<1x1x200x32xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["tx.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %a tile_sizes [1, 1, 100]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// CHECK: map-attention-to-gpu-errors.mlir:[[@LINE+2]]:8: error: tx-attention-strategy: a tile of 4 heads needs the split-KV decode kernel: the H / Hkv heads of one K/V head and all Sq rows, with static H, Hkv and Sq and G * Sq <= 16
func.func @heads_without_all_rows(%q: tensor<1x8x8x64xf16>, %k: tensor<1x2x64x64xf16>, %v: tensor<1x2x64x64xf16>) -> tensor<1x8x8x64xf16> {
  %o = tx.attention %q, %k, %v : tensor<1x8x8x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x8x8x64xf16>
  return %o : tensor<1x8x8x64xf16>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["tx.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %a tile_sizes [1, 4, 4]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A strategy made for sm_90a (wgmma) mapped for a chip without wgmma.
// RUN: not tx-opt %s --split-input-file --tx-attention-strategy="sm=90 wgmma=true" --tx-tile-attention="from-strategy=true decompose=false" --tx-stage-attention --tx-map-attention-to-gpu="sm=90" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: map-attention-to-gpu-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy asks for the wgmma family, which needs an sm_90a chip (wgmma=true; this mapping targets sm = 90 without wgmma)
func.func @stale_chip(%q: tensor<1x2x256x64xf16>, %k: tensor<1x2x256x64xf16>, %v: tensor<1x2x256x64xf16>) -> tensor<1x2x256x64xf16> {
  %o = tx.attention %q, %k, %v causal : tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16> -> tensor<1x2x256x64xf16>
  return %o : tensor<1x2x256x64xf16>
}

// -----

// The tiles decomposed into linalg (decompose=true) before the mapping.
// RUN: not tx-opt %s --split-input-file --tx-attention-strategy="sm=90" --tx-tile-attention="from-strategy=true decompose=true" --tx-map-attention-to-gpu="sm=90" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DECOMP
// DECOMP: map-attention-to-gpu-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: this scf.forall carries a tx.gpu_strategy but holds no tx.online_attention (decomposed? tile with tx-tile-attention decompose=false for the GPU)
func.func @decomposed(%q: tensor<1x2x64x32xf32>, %k: tensor<1x2x64x32xf32>, %v: tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32> {
  %o = tx.attention %q, %k, %v : tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32> -> tensor<1x2x64x32xf32>
  return %o : tensor<1x2x64x32xf32>
}

// -----

// Option ranges.
// RUN: not tx-opt %s --split-input-file --tx-map-attention-to-gpu="sm=1000" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM
// RUN: not tx-opt %s --split-input-file --tx-attention-strategy="sm=-3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMS
// SM: error: tx-map-attention-to-gpu: sm must be a compute capability in [50, 130] and max-shared-memory positive, got sm = 1000, max-shared-memory = 232448
// SMS: error: tx-attention-to-gpu: sm must be a compute capability in [50, 130] (sm_90 -> 90), got -3
// RUN: not tx-opt %s --split-input-file --tx-attention-strategy="max-shared-memory=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMEM
// SMEM: error: tx-attention-to-gpu: max-shared-memory must be positive, got 0
func.func @options(%q: tensor<1x1x8x32xf32>, %k: tensor<1x1x8x32xf32>, %v: tensor<1x1x8x32xf32>) -> tensor<1x1x8x32xf32> {
  %o = tx.attention %q, %k, %v : tensor<1x1x8x32xf32>, tensor<1x1x8x32xf32>, tensor<1x1x8x32xf32> -> tensor<1x1x8x32xf32>
  return %o : tensor<1x1x8x32xf32>
}

// -----

// Per-sequence lengths: a tile reads the lengths of its one batch, so the
// tiling itself refuses a batch tile of 2.
// CHECK: map-attention-to-gpu-errors.mlir:[[@LINE+2]]:8: error: 'tx.attention' op tiling a tx.attention with kv_lengths or q_lengths needs a batch tile of 1 (each tile reads the lengths of its batch)
func.func @lengths_two_batches(%q: tensor<2x2x64x64xf16>, %k: tensor<2x2x64x64xf16>, %v: tensor<2x2x64x64xf16>, %kl: tensor<2xi32>) -> tensor<2x2x64x64xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<2xi32>) : tensor<2x2x64x64xf16>, tensor<2x2x64x64xf16>, tensor<2x2x64x64xf16> -> tensor<2x2x64x64xf16>
  return %o : tensor<2x2x64x64xf16>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["tx.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %a tile_sizes [2, 1, 32]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A user's tiling mapped without tx-attention-strategy: the mapping does
// not choose a kernel, it asks for the strategy step.
// RUN: not tx-opt %s --split-input-file --transform-interpreter --tx-stage-attention --tx-map-attention-to-gpu="sm=90" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSTRAT
// NOSTRAT: map-attention-to-gpu-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: this tiled tx.attention has no tx.gpu_strategy; run tx-attention-strategy (with this mapping's sm, wgmma and max-shared-memory) after the tiling: it gives a user's tiling the kernel of its tiles
func.func @user_tiling_without_strategy(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x64x64xf16>, %v: tensor<1x2x64x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["tx.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %a tile_sizes [1, 1, 32]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Options whose table choice no kernel takes (32 warps of mma.sync): the
// strategy step says so, with the strategy and the rule.
// RUN: not tx-opt %s --split-input-file --tx-attention-strategy="sm=90 warps=32" -o /dev/null 2>&1 | FileCheck %s --check-prefix=W32
// W32: map-attention-to-gpu-errors.mlir:[[@LINE+2]]:8: error: tx-attention-strategy: the strategy the options give, #tx.mma_strategy<warps = 32, q_tile = 1024, kv_tile = 64, m_tiles = 2, kv_splits = 2>, has no kernel for this op: the mma family takes at most 16 warps, got 'warps' = 32
func.func @mma_32_warps(%q: tensor<1x2x1024x64xf16>, %k: tensor<1x2x1024x64xf16>, %v: tensor<1x2x1024x64xf16>) -> tensor<1x2x1024x64xf16> {
  %o = tx.attention %q, %k, %v : tensor<1x2x1024x64xf16>, tensor<1x2x1024x64xf16>, tensor<1x2x1024x64xf16> -> tensor<1x2x1024x64xf16>
  return %o : tensor<1x2x1024x64xf16>
}
