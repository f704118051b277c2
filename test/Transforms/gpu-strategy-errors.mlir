// A tx.gpu_strategy written by hand (or by a tuner) on tx.attention, taken by
// tx-tile-attention from-strategy=true and tx-map-attention-to-gpu: every
// dictionary no kernel can run is refused with a located error naming the
// missing or inconsistent key.
// RUN: not tx-opt %s --split-input-file --tx-tile-attention="from-strategy=true decompose=false" --tx-stage-attention --tx-map-attention-to-gpu="sm=90" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// The same dictionaries are refused by tx-attention-strategy, which keeps a
// strategy already on the op (and so checks it) rather than replacing it:
// RUN: not tx-opt %s --split-input-file --tx-attention-strategy --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRAT

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: missing 'family' (simt, mma, wgmma or decode) (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: missing 'family' (simt, mma, wgmma or decode)
func.func @no_family(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {kv_tile = 64 : i64, q_tile = 64 : i64, warps = 4 : i64}} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: unknown family 'tma'; expected simt, mma, wgmma or decode (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: unknown family 'tma'; expected simt, mma, wgmma or decode
func.func @bad_family(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "tma", kv_tile = 64 : i64, q_tile = 64 : i64, warps = 4 : i64}} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: the mma family needs m_tiles (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: the mma family needs m_tiles
func.func @mma_no_m_tiles(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "mma", kv_tile = 64 : i64, q_tile = 64 : i64, warps = 4 : i64}} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: the wgmma family needs stages (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: the wgmma family needs stages
func.func @wgmma_no_stages(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "wgmma", kv_tile = 64 : i64, q_tile = 64 : i64, warps = 4 : i64}} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'producer_warps' must be the integer 0 or 4, got 2 : i64 (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'producer_warps' must be the integer 0 or 4, got 2 : i64
func.func @wgmma_producer_warps(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "wgmma", kv_tile = 64 : i64, q_tile = 64 : i64, warps = 4 : i64, stages = 2 : i64, producer_warps = 2 : i64}} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'producer_warps' must be the integer 0 or 4, got "4" (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'producer_warps' must be the integer 0 or 4, got "4"
func.func @wgmma_producer_warps_string(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "wgmma", kv_tile = 64 : i64, q_tile = 64 : i64, warps = 4 : i64, stages = 2 : i64, producer_warps = "4"}} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'producer_warps' applies to the wgmma family only, not mma (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'producer_warps' applies to the wgmma family only, not mma
func.func @mma_producer_warps(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "mma", kv_tile = 64 : i64, q_tile = 128 : i64, warps = 4 : i64, m_tiles = 2 : i64, producer_warps = 4 : i64}} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'producer_warps' = 4 does not take a mask operand (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'producer_warps' = 4 does not take a mask operand
func.func @wgmma_producer_mask(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>, %m: tensor<1x1x64x128xi1>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v mask(%m : tensor<1x1x64x128xi1>) {tx.gpu_strategy = {family = "wgmma", kv_tile = 64 : i64, q_tile = 64 : i64, warps = 4 : i64, stages = 2 : i64, producer_warps = 4 : i64}} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: q_tile must be 16 * m_tiles * warps (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: q_tile must be 16 * m_tiles * warps
func.func @mma_q_tile(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "mma", kv_tile = 64 : i64, q_tile = 64 : i64, warps = 4 : i64, m_tiles = 2 : i64}} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: q_tile must be a multiple of warps, at most 16 rows each (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: q_tile must be a multiple of warps, at most 16 rows each
func.func @simt_rows(%q: tensor<1x2x64x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x2x64x64xf32> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "simt", kv_tile = 64 : i64, q_tile = 64 : i64, warps = 2 : i64}} : tensor<1x2x64x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x2x64x64xf32>
  return %o : tensor<1x2x64x64xf32>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'q_tile' (>= 1) and 'kv_tile' (a multiple of 32) are needed (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'q_tile' (>= 1) and 'kv_tile' (a multiple of 32) are needed
func.func @kv_tile(%q: tensor<1x2x64x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x2x64x64xf32> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "simt", kv_tile = 48 : i64, q_tile = 32 : i64, warps = 4 : i64}} : tensor<1x2x64x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x2x64x64xf32>
  return %o : tensor<1x2x64x64xf32>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: the decode family needs kv_splits, num_sms, stages and tile_keys (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-tile-attention: the decode strategy needs 'tile_keys' (>= 1), the keys per step
func.func @decode_keys(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x8x1x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "decode", warps = 4 : i64}} : tensor<1x8x1x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x8x1x64xf16>
  return %o : tensor<1x8x1x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: the decode family needs static H, Hkv and Sq (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-tile-attention: the decode strategy needs static H, Hkv and Sq (>= 1), got 'tensor<1x8x?x64xf16>' and 'tensor<1x2x128x64xf16>'
func.func @decode_dynamic(%q: tensor<1x8x?x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x8x?x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "decode", warps = 4 : i64, kv_splits = 2 : i64, num_sms = 132 : i64, stages = 3 : i64, tile_keys = 16 : i64}} : tensor<1x8x?x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x8x?x64xf16>
  return %o : tensor<1x8x?x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'tensor_cores' must be a bool (true or false), got 1 : i64 (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'tensor_cores' must be a bool (true or false), got 1 : i64
func.func @decode_tc_flag(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x8x1x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "decode", warps = 4 : i64, kv_splits = 2 : i64, num_sms = 132 : i64, stages = 3 : i64, tile_keys = 16 : i64, tensor_cores = 1 : i64}} : tensor<1x8x1x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x8x1x64xf16>
  return %o : tensor<1x8x1x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'cluster' must be an integer in [0, 16] (0 = the workspace merge) (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'cluster' must be an integer in [0, 16] (0 = the workspace merge)
func.func @decode_cluster_range(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x8x1x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "decode", warps = 4 : i64, kv_splits = 2 : i64, num_sms = 132 : i64, stages = 3 : i64, tile_keys = 16 : i64, cluster = 17 : i64}} : tensor<1x8x1x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x8x1x64xf16>
  return %o : tensor<1x8x1x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'kv_splits' = 8 is more than 'cluster' = 4 (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'kv_splits' = 8 is more than 'cluster' = 4
func.func @decode_cluster_splits(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x8x1x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "decode", warps = 4 : i64, kv_splits = 8 : i64, num_sms = 132 : i64, stages = 3 : i64, tile_keys = 16 : i64, cluster = 4 : i64}} : tensor<1x8x1x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x8x1x64xf16>
  return %o : tensor<1x8x1x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'cluster_short_only' must be a bool, true only with 'cluster' > 0 (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'cluster_short_only' must be a bool, true only with 'cluster' > 0
func.func @decode_cluster_short(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x8x1x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "decode", warps = 4 : i64, kv_splits = 0 : i64, num_sms = 132 : i64, stages = 3 : i64, tile_keys = 16 : i64, cluster_short_only = true}} : tensor<1x8x1x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x8x1x64xf16>
  return %o : tensor<1x8x1x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'cluster' applies to the decode family only, not mma (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'cluster' applies to the decode family only, not mma
func.func @mma_cluster(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "mma", kv_tile = 64 : i64, q_tile = 128 : i64, m_tiles = 2 : i64, warps = 4 : i64, cluster = 4 : i64}} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'cluster' needs Dv <= 128, got Dv = 256 (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'cluster' needs Dv <= 128, got Dv = 256
func.func @decode_cluster_dv(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x256xf16>) -> tensor<1x8x1x256xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "decode", warps = 4 : i64, kv_splits = 0 : i64, num_sms = 132 : i64, stages = 3 : i64, tile_keys = 16 : i64, cluster = 4 : i64}} : tensor<1x8x1x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x256xf16> -> tensor<1x8x1x256xf16>
  return %o : tensor<1x8x1x256xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'merge_kernel' must be a bool (true or false) (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'merge_kernel' must be a bool (true or false)
func.func @decode_merge_kernel_type(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x8x1x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "decode", warps = 4 : i64, kv_splits = 2 : i64, num_sms = 132 : i64, stages = 3 : i64, tile_keys = 16 : i64, merge_kernel = 1 : i64}} : tensor<1x8x1x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x8x1x64xf16>
  return %o : tensor<1x8x1x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'merge_kernel' applies to the decode family only, not wgmma (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'merge_kernel' applies to the decode family only, not wgmma
func.func @wgmma_merge_kernel(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "wgmma", kv_tile = 128 : i64, q_tile = 64 : i64, stages = 2 : i64, warps = 4 : i64, merge_kernel = true}} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// Out-of-range keys: the messages name the strategy's keys, not the pass
// options that set the same choices.
// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'kv_tile' must be a multiple of 32 in [32, 256], got 512 (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'kv_tile' must be a multiple of 32 in [32, 256], got 512
func.func @kv_tile_512(%q: tensor<1x2x64x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x2x64x64xf32> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "simt", kv_tile = 512 : i64, q_tile = 16 : i64, warps = 4 : i64}} : tensor<1x2x64x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x2x64x64xf32>
  return %o : tensor<1x2x64x64xf32>
}

// -----

// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy: the tiles need 790528 bytes of shared memory (q_tile = 128, kv_tile = 256, D 256, Dv 256), more than max-shared-memory = 232448
func.func @too_big(%q: tensor<1x8x512x256xf32>, %k: tensor<1x8x512x256xf32>, %v: tensor<1x8x512x256xf32>) -> tensor<1x8x512x256xf32> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "simt", kv_tile = 256 : i64, q_tile = 128 : i64, warps = 8 : i64}} : tensor<1x8x512x256xf32>, tensor<1x8x512x256xf32>, tensor<1x8x512x256xf32> -> tensor<1x8x512x256xf32>
  return %o : tensor<1x8x512x256xf32>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'num_sms' must be in [1, 4096], got 0 (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'num_sms' must be in [1, 4096], got 0
func.func @num_sms_0(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x8x1x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "decode", warps = 4 : i64, kv_splits = 2 : i64, num_sms = 0 : i64, stages = 3 : i64, tile_keys = 16 : i64}} : tensor<1x8x1x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x8x1x64xf16>
  return %o : tensor<1x8x1x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'stages' must be in [2, 4], got 5 (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'stages' must be in [2, 4], got 5
func.func @decode_stages_5(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x8x1x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "decode", warps = 4 : i64, kv_splits = 2 : i64, num_sms = 132 : i64, stages = 5 : i64, tile_keys = 16 : i64}} : tensor<1x8x1x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x8x1x64xf16>
  return %o : tensor<1x8x1x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'tile_keys' must be 16 or 32, got 8 (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'tile_keys' must be 16 or 32, got 8
func.func @tile_keys_8(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x8x1x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "decode", warps = 4 : i64, kv_splits = 2 : i64, num_sms = 132 : i64, stages = 3 : i64, tile_keys = 8 : i64}} : tensor<1x8x1x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x8x1x64xf16>
  return %o : tensor<1x8x1x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'kv_splits' must be 0 (from 'num_sms') or in [1, 65536], got -1 (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'kv_splits' must be 0 (from 'num_sms') or in [1, 65536], got -1
func.func @kv_splits_neg(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x8x1x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "decode", warps = 4 : i64, kv_splits = -1 : i64, num_sms = 132 : i64, stages = 3 : i64, tile_keys = 16 : i64}} : tensor<1x8x1x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x8x1x64xf16>
  return %o : tensor<1x8x1x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'stages' must be in [2, 4], got 0 (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'stages' must be in [2, 4], got 0
func.func @wgmma_stages_0(%q: tensor<1x2x128x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x128x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "wgmma", kv_tile = 128 : i64, q_tile = 64 : i64, stages = 0 : i64, warps = 4 : i64}} : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x128x64xf16>
  return %o : tensor<1x2x128x64xf16>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'warps' must be a multiple of 4 (whole warpgroups) in the wgmma family, got 2 (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'warps' must be a multiple of 4 (whole warpgroups) in the wgmma family, got 2
func.func @wgmma_warps_2(%q: tensor<1x2x128x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x128x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "wgmma", kv_tile = 128 : i64, q_tile = 32 : i64, stages = 2 : i64, warps = 2 : i64}} : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x128x64xf16>
  return %o : tensor<1x2x128x64xf16>
}

// -----

// (16 * m_tiles * warps would overflow)
// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'm_tiles' must be 1 or 2, got 1152921504606846977 (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'm_tiles' must be 1 or 2, got 1152921504606846977
func.func @m_tiles_huge(%q: tensor<1x2x128x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x128x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "mma", kv_tile = 64 : i64, m_tiles = 1152921504606846977 : i64, q_tile = 16 : i64, warps = 1 : i64}} : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x128x64xf16>
  return %o : tensor<1x2x128x64xf16>
}

// -----

// A well-formed strategy that is no kernel of this op (mma on f32): the
// strategy step keeps it, so the hint is to remove or change it.
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy is not a kernel of this problem (element type, head dims, mask, window) on this chip; the strategy makes family simt with these choices (remove the tx.gpu_strategy, or change it to what tx-attention-strategy writes for this chip on an op without one)
func.func @mma_f32(%q: tensor<1x2x128x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "mma", kv_tile = 64 : i64, m_tiles = 1 : i64, q_tile = 64 : i64, warps = 4 : i64}} : tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x2x128x64xf32>
  return %o : tensor<1x2x128x64xf32>
}

// -----

// STRAT: gpu-strategy-errors.mlir:[[@LINE+3]]:8: error: tx-attention-strategy: tx.gpu_strategy: 'q_tile' must be at most 4096, got 8192 (a strategy already on the op is kept, not replaced)
// CHECK: gpu-strategy-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: tx.gpu_strategy: 'q_tile' must be at most 4096, got 8192
func.func @q_tile_8192(%q: tensor<1x2x64x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x2x64x64xf32> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {family = "simt", kv_tile = 64 : i64, q_tile = 8192 : i64, warps = 4 : i64}} : tensor<1x2x64x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x2x64x64xf32>
  return %o : tensor<1x2x64x64xf32>
}
