// tx.softmax's GPU path (tx-softmax-strategy -> tx-tile-softmax
// from-strategy=true -> tx-map-softmax-to-gpu) on inputs it must refuse or
// handle without a kernel: each diagnostic is located, never a crash.
// RUN: not tx-opt %s --split-input-file --tx-tile-softmax="from-strategy=true" --tx-map-softmax-to-gpu -o /dev/null 2>&1 | FileCheck %s
// The same strategies are refused by tx-softmax-strategy, which keeps a
// strategy already on the op (and so checks it) rather than replacing it:
// RUN: not tx-opt %s --split-input-file --tx-softmax-strategy -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRAT
// (The tiling step left out, a strategy but no row tiles:
// strategy-kept-errors.mlir.)

// A strategy on a softmax along a non-innermost dimension (hand-edited).
// STRAT: map-softmax-to-gpu-errors.mlir:[[@LINE+3]]:8: error: tx-softmax-strategy: tx.gpu_strategy is for a softmax along the last dimension; this one is along dim 0 (the reference lowering takes it without a strategy) (a strategy already on the op is kept, not replaced)
// CHECK: map-softmax-to-gpu-errors.mlir:[[@LINE+2]]:8: error: tx-tile-softmax: tx.gpu_strategy on a softmax along dimension 0 of 2: the GPU kernels take the innermost dimension only
func.func @dim0(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  %y = tx.softmax %x dim = 0 {tx.gpu_strategy = {family = "softmax", rows_per_cta = 1 : i64, scalar = {block_size = 128 : i64, cached = 8 : i64, grid_ctas = 0 : i64, peel = false, prefetch = true, smem_row_bytes = 0 : i64, threads_per_row = 128 : i64, unroll = 4 : i64, vector_width = 1 : i64}}} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

// rows_per_cta that is not the kernel's block_size / threads_per_row.
// STRAT: map-softmax-to-gpu-errors.mlir:[[@LINE+3]]:8: error: tx-softmax-strategy: tx.gpu_strategy: 'rows_per_cta' must be 1 (block_size / threads_per_row of the scalar kernel) (a strategy already on the op is kept, not replaced)
// CHECK: map-softmax-to-gpu-errors.mlir:[[@LINE+2]]:8: error: tx-map-softmax-to-gpu: tx.gpu_strategy: 'rows_per_cta' must be 1 (block_size / threads_per_row of the scalar kernel)
func.func @rows(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = {family = "softmax", rows_per_cta = 8 : i64, scalar = {block_size = 128 : i64, cached = 8 : i64, grid_ctas = 0 : i64, peel = false, prefetch = true, smem_row_bytes = 0 : i64, threads_per_row = 128 : i64, unroll = 4 : i64, vector_width = 1 : i64}}} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

// A vector width wider than 16 bytes.
// STRAT: map-softmax-to-gpu-errors.mlir:[[@LINE+3]]:8: error: tx-softmax-strategy: tx.gpu_strategy: 'vector.vector_width' must be a power of two of at most 16 bytes (a strategy already on the op is kept, not replaced)
// CHECK: map-softmax-to-gpu-errors.mlir:[[@LINE+2]]:8: error: tx-map-softmax-to-gpu: tx.gpu_strategy: 'vector.vector_width' must be a power of two of at most 16 bytes
func.func @vw(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = {family = "softmax", rows_per_cta = 1 : i64, scalar = {block_size = 128 : i64, cached = 8 : i64, grid_ctas = 0 : i64, peel = false, prefetch = true, smem_row_bytes = 0 : i64, threads_per_row = 128 : i64, unroll = 4 : i64, vector_width = 1 : i64}, vector = {block_size = 128 : i64, cached = 1 : i64, grid_ctas = 0 : i64, peel = false, prefetch = true, smem_row_bytes = 0 : i64, threads_per_row = 128 : i64, unroll = 4 : i64, vector_width = 16 : i64}}} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}


// -----

// cp.async.bulk chunks for a kernel that keeps no row in shared memory.
// STRAT: map-softmax-to-gpu-errors.mlir:[[@LINE+3]]:8: error: tx-softmax-strategy: tx.gpu_strategy: 'vector.bulk_chunk_bytes' must be 0, or a multiple of 16 x block_size bytes (at most 1 MiB; bulk_slots chunks, at least a row's, and an 8-byte mbarrier per slot within 227 KiB) for a vector kernel of 16-byte vectors with smem_row_bytes and grid_ctas (a strategy already on the op is kept, not replaced)
// CHECK: map-softmax-to-gpu-errors.mlir:[[@LINE+2]]:8: error: tx-map-softmax-to-gpu: tx.gpu_strategy: 'vector.bulk_chunk_bytes' must be 0, or a multiple of 16 x block_size bytes (at most 1 MiB; bulk_slots chunks, at least a row's, and an 8-byte mbarrier per slot within 227 KiB) for a vector kernel of 16-byte vectors with smem_row_bytes and grid_ctas
func.func @bulk(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = {family = "softmax", rows_per_cta = 1 : i64, scalar = {block_size = 128 : i64, cached = 8 : i64, grid_ctas = 0 : i64, peel = false, prefetch = true, smem_row_bytes = 0 : i64, threads_per_row = 128 : i64, unroll = 4 : i64, vector_width = 1 : i64}, vector = {block_size = 128 : i64, bulk_chunk_bytes = 2048 : i64, cached = 1 : i64, grid_ctas = 0 : i64, peel = false, prefetch = true, smem_row_bytes = 0 : i64, threads_per_row = 128 : i64, unroll = 4 : i64, vector_width = 8 : i64}}} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

// STRAT: map-softmax-to-gpu-errors.mlir:[[@LINE+3]]:8: error: tx-softmax-strategy: tx.gpu_strategy: 'vector.bulk_chunk_bytes' must be an integer (a strategy already on the op is kept, not replaced)
// CHECK: map-softmax-to-gpu-errors.mlir:[[@LINE+2]]:8: error: tx-map-softmax-to-gpu: tx.gpu_strategy: 'vector.bulk_chunk_bytes' must be an integer
func.func @bulk_chunk_bytes_type(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = {family = "softmax", rows_per_cta = 1 : i64, scalar = {block_size = 128 : i64, cached = 8 : i64, grid_ctas = 0 : i64, peel = false, prefetch = true, smem_row_bytes = 0 : i64, threads_per_row = 128 : i64, unroll = 4 : i64, vector_width = 1 : i64}, vector = {block_size = 128 : i64, bulk_chunk_bytes = "x", cached = 1 : i64, grid_ctas = 0 : i64, peel = false, prefetch = true, smem_row_bytes = 0 : i64, threads_per_row = 128 : i64, unroll = 4 : i64, vector_width = 8 : i64}}} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

// An integer past 64 bits is refused, not truncated.
// STRAT: map-softmax-to-gpu-errors.mlir:[[@LINE+3]]:8: error: tx-softmax-strategy: tx.gpu_strategy: 'vector.block_size' does not fit in 64 bits (a strategy already on the op is kept, not replaced)
// CHECK: map-softmax-to-gpu-errors.mlir:[[@LINE+2]]:8: error: tx-map-softmax-to-gpu: tx.gpu_strategy: 'vector.block_size' does not fit in 64 bits
func.func @block_size_i128(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = {family = "softmax", rows_per_cta = 1 : i64, scalar = {block_size = 128 : i64, cached = 8 : i64, grid_ctas = 0 : i64, peel = false, prefetch = true, smem_row_bytes = 0 : i64, threads_per_row = 128 : i64, unroll = 4 : i64, vector_width = 1 : i64}, vector = {block_size = 18446744073709551744 : i128, cached = 1 : i64, grid_ctas = 0 : i64, peel = false, prefetch = true, smem_row_bytes = 0 : i64, threads_per_row = 128 : i64, unroll = 4 : i64, vector_width = 8 : i64}}} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

// STRAT: map-softmax-to-gpu-errors.mlir:[[@LINE+3]]:8: error: tx-softmax-strategy: tx.gpu_strategy: 'vector.bulk_slots' must be an integer (a strategy already on the op is kept, not replaced)
// CHECK: map-softmax-to-gpu-errors.mlir:[[@LINE+2]]:8: error: tx-map-softmax-to-gpu: tx.gpu_strategy: 'vector.bulk_slots' must be an integer
func.func @bulk_slots_type(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  %y = tx.softmax %x dim = -1 {tx.gpu_strategy = {family = "softmax", rows_per_cta = 1 : i64, scalar = {block_size = 128 : i64, cached = 8 : i64, grid_ctas = 0 : i64, peel = false, prefetch = true, smem_row_bytes = 0 : i64, threads_per_row = 128 : i64, unroll = 4 : i64, vector_width = 1 : i64}, vector = {block_size = 128 : i64, bulk_slots = "x", cached = 1 : i64, grid_ctas = 0 : i64, peel = false, prefetch = true, smem_row_bytes = 0 : i64, threads_per_row = 128 : i64, unroll = 4 : i64, vector_width = 8 : i64}}} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}
