// Diagnostics of the staging of tiled tx.softmax (what tx-map-softmax-to-gpu
// requires of it): the staging must match the kernel, in workgroup memory.
// RUN: not tx-opt %s --split-input-file --transform-interpreter --tx-map-softmax-to-gpu="sm=90" -o /dev/null 2>&1 | FileCheck %s
// A strategy that keeps rows in shared memory needs the staging step:
// RUN: not tx-opt %s --split-input-file --tx-softmax-strategy="sm=90" --tx-tile-softmax="from-strategy=true" --tx-map-softmax-to-gpu="sm=90" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNSTAGED

// UNSTAGED: stage-softmax-errors.mlir:[[@LINE+2]]:8: error: tx-map-softmax-to-gpu: its tx.gpu_strategy keeps each row in shared memory between the kernel's two passes (smem_row_bytes = 201024): stage the row tile (run tx-stage-softmax, or transform.structured.promote_tensor to #gpu.address_space<workgroup> on the tx.softmax's input)
func.func @vocab_unstaged(%x: tensor<64x50257xf32>) -> tensor<64x50257xf32> {
  %y = tx.softmax %x dim = 1 : tensor<64x50257xf32>
  return %y : tensor<64x50257xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.yield
  }
}

// -----

// Staged where the strategy's kernel holds its 4 rows in registers.
// CHECK: stage-softmax-errors.mlir:[[@LINE+3]]:8: error: tx-map-softmax-to-gpu: the row tile is staged in shared memory, but the strategy's kernel holds rows in registers or streams them from global memory (smem_row_bytes = 0)
func.func @short_rows_staged(%arg0: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  %0 = tensor.empty() : tensor<64x1024xf16>
  %1 = scf.forall (%arg1) = (0) to (64) step (4) shared_outs(%arg2 = %0) -> (tensor<64x1024xf16>) {
    %s = tensor.extract_slice %arg0[%arg1, 0] [4, 1024] [1, 1] : tensor<64x1024xf16> to tensor<4x1024xf16>
    %buf = bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<4x1024xf16>
    %st = bufferization.materialize_in_destination %s in %buf : (tensor<4x1024xf16>, tensor<4x1024xf16>) -> tensor<4x1024xf16>
    %2 = tx.softmax %st dim = 1 : tensor<4x1024xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %2 into %arg2[%arg1, 0] [4, 1024] [1, 1] : tensor<4x1024xf16> into tensor<64x1024xf16>
    }
  } {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 4, scalar = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 8, grid_ctas = 0, prefetch = true, unroll = 4>, vector = <vector_width = 8, threads_per_row = 32, block_size = 128, cached = 4, grid_ctas = 0, prefetch = true, unroll = 4>>}
  return %1 : tensor<64x1024xf16>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.yield
  }
}

// -----

// Shared memory only.
// CHECK: stage-softmax-errors.mlir:[[@LINE+2]]:8: error: tx-map-softmax-to-gpu: the row tile is staged in #gpu.address_space<global>; the kernels keep rows in shared memory (#gpu.address_space<workgroup>)
func.func @row_global(%x: tensor<64x50257xf32>) -> tensor<64x50257xf32> {
  %y = tx.softmax %x dim = 1 : tensor<64x50257xf32>
  return %y : tensor<64x50257xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %s = transform.structured.match ops{["tx.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.structured.tile_using_forall %s tile_sizes [1, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %in = transform.get_operand %t[0] : (!transform.any_op) -> !transform.any_value
    %st = transform.structured.promote_tensor to #gpu.address_space<global> %in : !transform.any_value
    transform.yield
  }
}

// -----

// A user's tile of 8 rows runs a warp per row: no kernel keeps it in
// shared memory.
// CHECK: stage-softmax-errors.mlir:[[@LINE+2]]:8: error: tx-map-softmax-to-gpu: the row tile is staged in shared memory, but no kernel keeps a tile of 8 rows in shared memory (one row per CTA of a row length whose 16-byte vectors fit in max-shared-memory); leave it unstaged
func.func @eight_rows_staged(%x: tensor<64x4096xf32>) -> tensor<64x4096xf32> {
  %y = tx.softmax %x dim = 1 : tensor<64x4096xf32>
  return %y : tensor<64x4096xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %s = transform.structured.match ops{["tx.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.structured.tile_using_forall %s tile_sizes [8, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %in = transform.get_operand %t[0] : (!transform.any_op) -> !transform.any_value
    %st = transform.structured.promote_tensor to #gpu.address_space<workgroup> %in : !transform.any_value
    transform.yield
  }
}

// -----

// Staged twice (a copy of the copy).
// CHECK: stage-softmax-errors.mlir:[[@LINE+2]]:8: error: tx-map-softmax-to-gpu: the row tile is staged in shared memory more than once; the kernels stage it once
func.func @row_twice(%x: tensor<64x50257xf32>) -> tensor<64x50257xf32> {
  %y = tx.softmax %x dim = 1 : tensor<64x50257xf32>
  return %y : tensor<64x50257xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %s = transform.structured.match ops{["tx.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.structured.tile_using_forall %s tile_sizes [1, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %in = transform.get_operand %t[0] : (!transform.any_op) -> !transform.any_value
    %st = transform.structured.promote_tensor to #gpu.address_space<workgroup> %in : !transform.any_value
    %st2 = transform.structured.promote_tensor to #gpu.address_space<workgroup> %st : !transform.any_value
    transform.yield
  }
}

// -----

// The whole input staged before the tiling (a copy on the host).
// CHECK: stage-softmax-errors.mlir:[[@LINE+2]]:8: error: tx-map-softmax-to-gpu: the whole input is staged in shared memory (a copy outside the forall, on the host); stage the row tile inside the forall instead
func.func @whole_input(%x: tensor<64x50257xf32>) -> tensor<64x50257xf32> {
  %y = tx.softmax %x dim = 1 : tensor<64x50257xf32>
  return %y : tensor<64x50257xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %s = transform.structured.match ops{["tx.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %in = transform.get_operand %s[0] : (!transform.any_op) -> !transform.any_value
    %st = transform.structured.promote_tensor to #gpu.address_space<workgroup> %in : !transform.any_value
    %s2 = transform.structured.match ops{["tx.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.structured.tile_using_forall %s2 tile_sizes [1, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
