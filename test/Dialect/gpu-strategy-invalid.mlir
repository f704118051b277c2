// The typed GPU strategies (#tx.simt_strategy, #tx.mma_strategy,
// #tx.wgmma_strategy, #tx.decode_strategy, #tx.softmax_strategy; TxAttrs.td)
// refuse at parse time, with a located error, every value outside the
// ranges their kernels take; a `tx.gpu_strategy` that is not one of them
// (the old dictionary form included) is refused by the dialect. The checks
// that depend on the problem (element type, head dims, static sizes, a
// mask) are pinned in test/Transforms/gpu-strategy-errors.mlir and
// map-softmax-to-gpu-errors.mlir.
// RUN: tx-opt %s --split-input-file --verify-diagnostics

func.func @dictionary(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'tx.gpu_strategy' must be a strategy attribute (#tx.simt_strategy, #tx.mma_strategy, #tx.wgmma_strategy,}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = {kv_tile = 64 : i64, q_tile = 64 : i64, warps = 4 : i64}} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @unknown_family(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{unknown attribute `tma_strategy` in dialect `tx`}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.tma_strategy<warps = 4, q_tile = 64, kv_tile = 64>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @mma_no_m_tiles(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{struct is missing required parameter: m_tiles}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.mma_strategy<warps = 4, q_tile = 64, kv_tile = 64>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @wgmma_no_stages(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{struct is missing required parameter: stages}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.wgmma_strategy<warps = 4, q_tile = 64, kv_tile = 64>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @wgmma_producer_2(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'producer_warps' must be 0 or 4, got 2}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.wgmma_strategy<warps = 4, q_tile = 64, kv_tile = 64, stages = 2, producer_warps = 2>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @wgmma_producer_string(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{expected integer value}}
  // expected-error @below {{failed to parse Tx_WgmmaStrategyAttr parameter 'producer_warps' which is to be a `int64_t`}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.wgmma_strategy<warps = 4, q_tile = 64, kv_tile = 64, stages = 2, producer_warps = "4">} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @mma_producer(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{duplicate or unknown struct parameter name: producer_warps}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.mma_strategy<warps = 4, q_tile = 128, kv_tile = 64, m_tiles = 2, producer_warps = 4>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @mma_q_tile(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'q_tile' must be 16 * m_tiles * warps = 128, got 64}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.mma_strategy<warps = 4, q_tile = 64, kv_tile = 64, m_tiles = 2>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @simt_rows(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'q_tile' must be a multiple of 'warps', at most 16 rows each, got q_tile = 64, warps = 2}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.simt_strategy<warps = 2, q_tile = 64, kv_tile = 64>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @kv_tile_48(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'kv_tile' must be a multiple of 32 in [32, 256], got 48}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.simt_strategy<warps = 4, q_tile = 32, kv_tile = 48>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @kv_tile_512(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'kv_tile' must be a multiple of 32 in [32, 256], got 512}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.simt_strategy<warps = 4, q_tile = 16, kv_tile = 512>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @q_tile_8192(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'q_tile' must be in [1, 4096], got 8192}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.simt_strategy<warps = 4, q_tile = 8192, kv_tile = 64>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @decode_missing(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{struct is missing required parameter: kv_splits}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @decode_tc_int(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{expected true or false}}
  // expected-error @below {{failed to parse Tx_DecodeStrategyAttr parameter 'tensor_cores' which is to be a `bool`}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 2, num_sms = 132, stages = 3, tile_keys = 16, tensor_cores = 1>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @decode_cluster_17(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'cluster' must be in [0, 16], got 17}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 2, num_sms = 132, stages = 3, tile_keys = 16, cluster = 17>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @decode_cluster_splits(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'kv_splits' = 8 is more than 'cluster' = 4}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 8, num_sms = 132, stages = 3, tile_keys = 16, cluster = 4>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @decode_cluster_short(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'cluster_short_only' needs 'cluster' > 0}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 0, num_sms = 132, stages = 3, tile_keys = 16, cluster_short_only = true>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @mma_cluster(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{duplicate or unknown struct parameter name: cluster}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.mma_strategy<warps = 4, q_tile = 128, kv_tile = 64, m_tiles = 2, cluster = 4>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @decode_merge_int(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{expected true or false}}
  // expected-error @below {{failed to parse Tx_DecodeStrategyAttr parameter 'merge_kernel' which is to be a `bool`}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 2, num_sms = 132, stages = 3, tile_keys = 16, merge_kernel = 1>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @wgmma_merge(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{duplicate or unknown struct parameter name: merge_kernel}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.wgmma_strategy<warps = 4, q_tile = 64, kv_tile = 128, stages = 2, merge_kernel = true>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @num_sms_0(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'num_sms' must be in [1, 4096], got 0}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 2, num_sms = 0, stages = 3, tile_keys = 16>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @decode_stages_5(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'stages' must be in [2, 4], got 5}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 2, num_sms = 132, stages = 5, tile_keys = 16>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @tile_keys_8(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'tile_keys' must be 16 or 32, got 8}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 2, num_sms = 132, stages = 3, tile_keys = 8>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @kv_splits_neg(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'kv_splits' must be in [0, 65536], got -1}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = -1, num_sms = 132, stages = 3, tile_keys = 16>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @wgmma_stages_0(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'stages' must be in [2, 4], got 0}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.wgmma_strategy<warps = 4, q_tile = 64, kv_tile = 128, stages = 0>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @wgmma_warps_2(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'warps' must be a multiple of 4 (whole warpgroups), got 2}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.wgmma_strategy<warps = 2, q_tile = 32, kv_tile = 128, stages = 2>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @m_tiles_huge(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'m_tiles' must be 1 or 2, got 1152921504606846977}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.mma_strategy<warps = 1, q_tile = 16, kv_tile = 64, m_tiles = 1152921504606846977>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @warps_i128(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{integer value too large}}
  // expected-error @below {{failed to parse Tx_SimtStrategyAttr parameter 'warps' which is to be a `int64_t`}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.simt_strategy<warps = 18446744073709551620, q_tile = 16, kv_tile = 64>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @duplicate(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{duplicate or unknown struct parameter name: warps}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.simt_strategy<warps = 4, warps = 4, q_tile = 16, kv_tile = 64>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}


// -----

func.func @scalar_width(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  // expected-error @below {{'scalar.vector_width' must be 1, got 2}}
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 2, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4>>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

func.func @vector_width_1(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  // expected-error @below {{'vector.vector_width' must be at least 2, got 1}}
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4>, vector = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4>>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

func.func @vector_width_3(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  // expected-error @below {{'vector_width' must be a power of two in [1, 16] (elements, at most 16 bytes), got 3}}
  // expected-error @below {{failed to parse Tx_SoftmaxStrategyAttr parameter 'vector' which is to be a `SoftmaxKernelAttr`}}
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4>, vector = <vector_width = 3, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4>>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

func.func @block_size_48(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  // expected-error @below {{'block_size' must be a power of two in [32, 1024], got 48}}
  // expected-error @below {{failed to parse Tx_SoftmaxStrategyAttr parameter 'scalar' which is to be a `SoftmaxKernelAttr`}}
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 48, block_size = 48, cached = 0, grid_ctas = 0, unroll = 4>>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

func.func @threads_per_row_64(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  // expected-error @below {{'threads_per_row' must be a power of two in [2, 32] or block_size, got 64}}
  // expected-error @below {{failed to parse Tx_SoftmaxStrategyAttr parameter 'scalar' which is to be a `SoftmaxKernelAttr`}}
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 2, scalar = <vector_width = 1, threads_per_row = 64, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4>>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

func.func @cached_65(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  // expected-error @below {{'cached' must be in [0, 64], got 65}}
  // expected-error @below {{failed to parse Tx_SoftmaxStrategyAttr parameter 'scalar' which is to be a `SoftmaxKernelAttr`}}
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 65, grid_ctas = 0, unroll = 4>>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

func.func @unroll_0(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  // expected-error @below {{'unroll' must be in [1, 16], got 0}}
  // expected-error @below {{failed to parse Tx_SoftmaxStrategyAttr parameter 'scalar' which is to be a `SoftmaxKernelAttr`}}
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = 0, unroll = 0>>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

func.func @grid_ctas_neg(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  // expected-error @below {{'grid_ctas' must be in [0, 2147483647], got -1}}
  // expected-error @below {{failed to parse Tx_SoftmaxStrategyAttr parameter 'scalar' which is to be a `SoftmaxKernelAttr`}}
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = -1, unroll = 4>>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

func.func @bulk_chunk_huge(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  // expected-error @below {{'bulk_chunk_bytes' must be in [0, 1048576], got 2097152}}
  // expected-error @below {{failed to parse Tx_SoftmaxStrategyAttr parameter 'vector' which is to be a `SoftmaxKernelAttr`}}
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4>, vector = <vector_width = 8, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4, bulk_chunk_bytes = 2097152>>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

func.func @bulk_slots_5000(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  // expected-error @below {{'bulk_slots' must be in [0, 4096], got 5000}}
  // expected-error @below {{failed to parse Tx_SoftmaxStrategyAttr parameter 'vector' which is to be a `SoftmaxKernelAttr`}}
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4>, vector = <vector_width = 8, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4, bulk_slots = 5000>>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

func.func @rows_per_cta(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  // expected-error @below {{'rows_per_cta' must be 1 (block_size / threads_per_row of the scalar kernel), got 8}}
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 8, scalar = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4>>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

func.func @rows_per_cta_vector(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  // expected-error @below {{'rows_per_cta' must be 4 (block_size / threads_per_row of the vector kernel), got 1}}
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4>, vector = <vector_width = 8, threads_per_row = 32, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4>>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

func.func @no_scalar(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  // expected-error @below {{struct is missing required parameter: scalar}}
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

func.func @bulk_chunk_string(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  // expected-error @below {{expected integer value}}
  // expected-error @below {{failed to parse Tx_SoftmaxKernelAttr parameter 'bulk_chunk_bytes' which is to be a `int64_t`}}
  // expected-error @below {{failed to parse Tx_SoftmaxStrategyAttr parameter 'vector' which is to be a `SoftmaxKernelAttr`}}
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4>, vector = <vector_width = 8, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4, bulk_chunk_bytes = "x">>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

func.func @block_size_i128(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  // expected-error @below {{integer value too large}}
  // expected-error @below {{failed to parse Tx_SoftmaxKernelAttr parameter 'block_size' which is to be a `int64_t`}}
  // expected-error @below {{failed to parse Tx_SoftmaxStrategyAttr parameter 'vector' which is to be a `SoftmaxKernelAttr`}}
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4>, vector = <vector_width = 8, threads_per_row = 128, block_size = 18446744073709551744, cached = 0, grid_ctas = 0, unroll = 4>>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

func.func @peel_int(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  // expected-error @below {{expected true or false}}
  // expected-error @below {{failed to parse Tx_SoftmaxKernelAttr parameter 'peel' which is to be a `bool`}}
  // expected-error @below {{failed to parse Tx_SoftmaxStrategyAttr parameter 'scalar' which is to be a `SoftmaxKernelAttr`}}
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4, peel = 1>>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

func.func @softmax_dictionary(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  // expected-error @below {{'tx.gpu_strategy' must be a strategy attribute (#tx.simt_strategy, #tx.mma_strategy, #tx.wgmma_strategy,}}
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = {family = "softmax", rows_per_cta = 1 : i64}} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

func.func @mma_splits_negative(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'kv_splits' must be in [0, 65536], got -1}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.mma_strategy<warps = 4, q_tile = 128, kv_tile = 64, m_tiles = 2, kv_splits = -1>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @wgmma_splits_big(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'kv_splits' must be in [0, 65536], got 65537}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.wgmma_strategy<warps = 4, q_tile = 64, kv_tile = 64, stages = 2, kv_splits = 65537>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @wgmma_splits_auto_no_sms(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'kv_splits' = 0 (chosen at run time) needs 'num_sms' >= 1}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.wgmma_strategy<warps = 4, q_tile = 64, kv_tile = 64, stages = 2, kv_splits = 0>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

func.func @mma_sms_big(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{'num_sms' must be in [0, 4096], got 5000}}
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.mma_strategy<warps = 4, q_tile = 128, kv_tile = 64, m_tiles = 2, kv_splits = 0, num_sms = 5000>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}
