// A softmax strategy kept from a run for another chip (or written by hand)
// is checked against the chip it is mapped for: sm_90's cp.async.bulk rows
// on sm_80 (was an LLVM instruction-selection abort), and sm_80's 196 KiB
// shared-memory rows on sm_86 (99 KiB; was a kernel that cannot launch).
// RUN: not tx-opt %s --split-input-file --tx-gpu-pipeline="chip=sm_80 format=isa" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not tx-opt %s --split-input-file --tx-gpu-pipeline="chip=sm_86 format=isa" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM86
// On sm_90 both run (the sm_80 plan is a kernel sm_90 has too):
// RUN: tx-opt %s --split-input-file --tx-gpu-pipeline="chip=sm_90 format=isa" -o /dev/null

// SM80: strategy-kept-chip.mlir:[[@LINE+3]]:8: error: tx-map-softmax-to-gpu: its tx.gpu_strategy copies rows by cp.async.bulk ('vector.bulk_chunk_bytes' = 16384), which needs sm_90 or newer (this mapping targets sm = 80)
// SM86: strategy-kept-chip.mlir:[[@LINE+2]]:8: error: tx-map-softmax-to-gpu: its tx.gpu_strategy copies rows by cp.async.bulk ('vector.bulk_chunk_bytes' = 16384), which needs sm_90 or newer (this mapping targets sm = 86)
func.func @vocab_sm90(%x: tensor<64x50257xf32>) -> tensor<64x50257xf32> {
  %y = tx.softmax %x dim = 1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 512, block_size = 512, cached = 0, grid_ctas = 0, prefetch = true, unroll = 4>, vector = <vector_width = 4, threads_per_row = 512, block_size = 512, cached = 0, peel = true, grid_ctas = 132, prefetch = true, unroll = 4, smem_row_bytes = 201024, bulk_chunk_bytes = 16384, bulk_slots = 14>>} : tensor<64x50257xf32>
  return %y : tensor<64x50257xf32>
}

// -----

// SM86: strategy-kept-chip.mlir:[[@LINE+2]]:8: error: tx-map-softmax-to-gpu: its tx.gpu_strategy's vector kernel needs 201168 bytes of dynamic shared memory ('vector.smem_row_bytes' = 201024), more than max-shared-memory = 101376
func.func @vocab_sm80(%x: tensor<64x50257xf32>) -> tensor<64x50257xf32> {
  %y = tx.softmax %x dim = 1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 512, block_size = 512, cached = 0, grid_ctas = 0, prefetch = true, unroll = 4>, vector = <vector_width = 4, threads_per_row = 512, block_size = 512, cached = 0, peel = true, grid_ctas = 0, prefetch = true, unroll = 4, smem_row_bytes = 201024>>} : tensor<64x50257xf32>
  return %y : tensor<64x50257xf32>
}
