// A tx.gpu_strategy written by hand (or by a tuner) on tx.attention, taken by
// tx-tile-attention from-strategy=true and tx-map-attention-to-gpu: a
// strategy whose values are in range (the attribute's verifier checks those,
// test/Dialect/gpu-strategy-invalid.mlir) but that no kernel can run for
// this op is refused with a located error.
// RUN: not tx-opt %s --split-input-file --tx-tile-attention="from-strategy=true decompose=false" --tx-stage-attention --tx-map-attention-to-gpu="sm=90" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// The same strategies are refused by tx-attention-strategy, which keeps a
// strategy already on the op (and so checks it) rather than replacing it:
// RUN: not tx-opt %s --split-input-file --tx-attention-strategy --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRAT

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'producer_warps' = 4 does not take a mask operand (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'producer_warps' = 4 does not take a mask operand
func.func @wgmma_producer_mask(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>, %m: tensor<1x1x64x128xi1>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v mask(%m : tensor<1x1x64x128xi1>) {tx.gpu_strategy = #tx.wgmma_strategy<warps = 4, q_tile = 64, kv_tile = 64, stages = 2, producer_warps = 4>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: the decode family needs static H, Hkv and Sq (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-tile-attention: the strategy packs the query heads of a K/V head and needs static H, Hkv and Sq (>= 1), got 'tensor<1x8x?x64xf16>' and 'tensor<1x2x128x64xf16>'
func.func @decode_dynamic(%q: tensor<1x8x?x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x8x?x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 2, num_sms = 132, stages = 3, tile_keys = 16>} : tensor<1x8x?x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x8x?x64xf16>
  return %o : tensor<1x8x?x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'cluster' needs Dv <= 128, got Dv = 256 (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'cluster' needs Dv <= 128, got Dv = 256
func.func @decode_cluster_dv(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x256xf16>) -> tensor<1x8x1x256xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 0, num_sms = 132, stages = 3, tile_keys = 16, cluster = 4>} : tensor<1x8x1x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x256xf16> -> tensor<1x8x1x256xf16>
  return %o : tensor<1x8x1x256xf16>
}

// -----

// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy has no kernel for this problem on this chip: the tiles need 790528 bytes of shared memory (q_tile = 128, kv_tile = 256, D 256, Dv 256), more than max-shared-memory = 232448 (remove the tx.gpu_strategy, or change it to what tx-attention-strategy writes for this chip on an op without one)
func.func @too_big(%q: tensor<1x8x512x256xf32>, %k: tensor<1x8x512x256xf32>, %v: tensor<1x8x512x256xf32>) -> tensor<1x8x512x256xf32> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.simt_strategy<warps = 8, q_tile = 128, kv_tile = 256>} : tensor<1x8x512x256xf32>, tensor<1x8x512x256xf32>, tensor<1x8x512x256xf32> -> tensor<1x8x512x256xf32>
  return %o : tensor<1x8x512x256xf32>
}

// -----

// A well-formed strategy that is no kernel of this op (mma on f32): the
// strategy step keeps it, so the hint is to remove or change it.
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy has no kernel for this problem on this chip: the mma family takes f16 or bf16, got f32 (remove the tx.gpu_strategy, or change it to what tx-attention-strategy writes for this chip on an op without one)
func.func @mma_f32(%q: tensor<1x2x128x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.mma_strategy<warps = 4, q_tile = 64, kv_tile = 64, m_tiles = 1>} : tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x2x128x64xf32>
  return %o : tensor<1x2x128x64xf32>
}

// -----

// A softmax strategy on a tx.attention.
// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy must be an attention strategy, got #tx.softmax_strategy<
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-tile-attention: tx.gpu_strategy must be an attention strategy, got #tx.softmax_strategy<
func.func @softmax_strategy(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4>>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'kv_splits' = 2 needs Dv a multiple of 32 (the merge's lanes take Dv / 32 columns each), got Dv = 48 (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'kv_splits' = 2 needs Dv a multiple of 32 (the merge's lanes take Dv / 32 columns each), got Dv = 48
func.func @mma_splits_dv48(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x1024x64xf16>, %v: tensor<1x2x1024x48xf16>) -> tensor<1x2x64x48xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.mma_strategy<warps = 4, q_tile = 64, kv_tile = 64, m_tiles = 1, kv_splits = 2>} : tensor<1x2x64x64xf16>, tensor<1x2x1024x64xf16>, tensor<1x2x1024x48xf16> -> tensor<1x2x64x48xf16>
  return %o : tensor<1x2x64x48xf16>
}
