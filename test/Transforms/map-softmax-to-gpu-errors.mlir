// tx.softmax's GPU path (tx-softmax-strategy -> tx-tile-softmax
// from-strategy=true -> tx-map-softmax-to-gpu) on inputs it must refuse or
// handle without a kernel: each diagnostic is located, never a crash.
// RUN: not tx-opt %s --split-input-file --tx-tile-softmax="from-strategy=true" --tx-map-softmax-to-gpu -o /dev/null 2>&1 | FileCheck %s
// The same strategies are refused by tx-softmax-strategy, which keeps a
// strategy already on the op (and so checks it) rather than replacing it:
// RUN: not tx-opt %s --split-input-file --tx-softmax-strategy -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRAT
// (The tiling step left out, a strategy but no row tiles:
// strategy-kept-errors.mlir; values out of any kernel's range:
// test/Dialect/gpu-strategy-invalid.mlir.)

// A strategy on a softmax along a non-innermost dimension (hand-edited).
// STRAT: map-softmax-to-gpu-errors.mlir:[[@LINE+3]]:8: error: tx-softmax-strategy: tx.gpu_strategy is for a softmax along the last dimension; this one is along dim 0 (the reference lowering takes it without a strategy) (a strategy already on the op is kept, not replaced)
// CHECK: map-softmax-to-gpu-errors.mlir:[[@LINE+2]]:8: error: tx-tile-softmax: tx.gpu_strategy on a softmax along dimension 0 of 2: the GPU kernels take the innermost dimension only
func.func @dim0(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  %y = tx.softmax %x dim = 0 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 8, grid_ctas = 0, prefetch = true, unroll = 4>>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

// A vector width wider than 16 bytes.
// STRAT: map-softmax-to-gpu-errors.mlir:[[@LINE+3]]:8: error: tx-softmax-strategy: tx.gpu_strategy: 'vector.vector_width' must be a power of two of at most 16 bytes, got 16 elements of 16 bits (a strategy already on the op is kept, not replaced)
// CHECK: map-softmax-to-gpu-errors.mlir:[[@LINE+2]]:8: error: tx-map-softmax-to-gpu: tx.gpu_strategy: 'vector.vector_width' must be a power of two of at most 16 bytes, got 16 elements of 16 bits
func.func @vw(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 8, grid_ctas = 0, prefetch = true, unroll = 4>, vector = <vector_width = 16, threads_per_row = 128, block_size = 128, cached = 1, grid_ctas = 0, prefetch = true, unroll = 4>>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}


// -----

// cp.async.bulk chunks for a kernel that keeps no row in shared memory.
// STRAT: map-softmax-to-gpu-errors.mlir:[[@LINE+3]]:8: error: tx-softmax-strategy: tx.gpu_strategy: 'vector.bulk_chunk_bytes' must be 0, or a multiple of 16 x block_size bytes (at most 1 MiB; bulk_slots chunks, at least a row's, and an 8-byte mbarrier per slot within 227 KiB) for a vector kernel of 16-byte vectors with smem_row_bytes and grid_ctas (a strategy already on the op is kept, not replaced)
// CHECK: map-softmax-to-gpu-errors.mlir:[[@LINE+2]]:8: error: tx-map-softmax-to-gpu: tx.gpu_strategy: 'vector.bulk_chunk_bytes' must be 0, or a multiple of 16 x block_size bytes (at most 1 MiB; bulk_slots chunks, at least a row's, and an 8-byte mbarrier per slot within 227 KiB) for a vector kernel of 16-byte vectors with smem_row_bytes and grid_ctas
func.func @bulk(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 8, grid_ctas = 0, prefetch = true, unroll = 4>, vector = <vector_width = 8, threads_per_row = 128, block_size = 128, cached = 1, grid_ctas = 0, prefetch = true, unroll = 4, bulk_chunk_bytes = 2048>>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}
