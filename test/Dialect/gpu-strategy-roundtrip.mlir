// The typed GPU strategies print as they parse (parameters in declaration
// order, those at their default left out), survive the generic form and
// bytecode, and load through the mlir-opt plugin too.
// RUN: tx-opt %s | FileCheck %s
// RUN: tx-opt %s --mlir-print-op-generic | tx-opt | FileCheck %s
// RUN: tx-opt %s --emit-bytecode | tx-opt | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%tx_plugin %s | FileCheck %s

// CHECK-LABEL: func.func @attention
// CHECK: #tx.simt_strategy<warps = 4, q_tile = 32, kv_tile = 64>
// CHECK: #tx.mma_strategy<warps = 4, q_tile = 128, kv_tile = 64, m_tiles = 2>
// CHECK: #tx.wgmma_strategy<warps = 8, q_tile = 128, kv_tile = 128, stages = 3, producer_warps = 4>
// CHECK: #tx.wgmma_strategy<warps = 4, q_tile = 64, kv_tile = 128, stages = 2>}
// CHECK: #tx.decode_strategy<warps = 4, kv_splits = 0, num_sms = 132, stages = 3, tile_keys = 16, tensor_cores = false, cluster = 8, cluster_short_only = true, merge_kernel = true>
// CHECK: #tx.decode_strategy<warps = 8, kv_splits = 4, num_sms = 114, stages = 2, tile_keys = 32>}
func.func @attention(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  %0 = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.simt_strategy<kv_tile = 64, q_tile = 32, warps = 4>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  %1 = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.mma_strategy<warps = 4, q_tile = 128, kv_tile = 64, m_tiles = 2>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  %2 = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.wgmma_strategy<warps = 8, q_tile = 128, kv_tile = 128, stages = 3, producer_warps = 4>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  // An explicit default is left out when printed.
  %3 = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.wgmma_strategy<warps = 4, q_tile = 64, kv_tile = 128, stages = 2, producer_warps = 0>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  %4 = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 0, num_sms = 132, stages = 3, tile_keys = 16, tensor_cores = false, cluster = 8, cluster_short_only = true, merge_kernel = true>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  %5 = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 8, kv_splits = 4, num_sms = 114, stages = 2, tile_keys = 32, tensor_cores = true, merge_kernel = false>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %5 : tensor<1x2x64x64xf16>
}

// CHECK-LABEL: func.func @softmax
// CHECK: #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 1024, block_size = 1024, cached = 0, grid_ctas = 0, unroll = 4>, vector = <vector_width = 8, threads_per_row = 1024, block_size = 1024, cached = 0, peel = true, grid_ctas = 132, prefetch = true, unroll = 2, smem_row_bytes = 100512, bulk_chunk_bytes = 16384, bulk_slots = 7>>
// CHECK: #tx.softmax_strategy<rows_per_cta = 4, scalar = <vector_width = 1, threads_per_row = 32, block_size = 128, cached = 8, grid_ctas = 0, prefetch = true, unroll = 4>>}
func.func @softmax(%x: tensor<4x50257xf16>, %y: tensor<4x256xf32>) -> (tensor<4x50257xf16>, tensor<4x256xf32>) {
  %0 = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 1024, block_size = 1024, cached = 0, grid_ctas = 0, unroll = 4>, vector = <vector_width = 8, threads_per_row = 1024, block_size = 1024, cached = 0, peel = true, grid_ctas = 132, prefetch = true, unroll = 2, smem_row_bytes = 100512, bulk_chunk_bytes = 16384, bulk_slots = 7>>} : tensor<4x50257xf16>
  %1 = tx.softmax %y dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 4, scalar = <vector_width = 1, threads_per_row = 32, block_size = 128, cached = 8, grid_ctas = 0, prefetch = true, unroll = 4>>} : tensor<4x256xf32>
  return %0, %1 : tensor<4x50257xf16>, tensor<4x256xf32>
}
