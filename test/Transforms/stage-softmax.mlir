// tx.softmax's staging step: tx-stage-softmax copies the row tile into a
// workgroup-memory tensor where the strategy keeps rows in shared memory
// (one row per CTA, smem_row_bytes > 0), and leaves rows held in registers
// alone. tx-map-softmax-to-gpu reads it.
// RUN: tx-opt %s --split-input-file --tx-softmax-strategy="sm=90" --tx-tile-softmax="from-strategy=true" --tx-stage-softmax | FileCheck %s
// A user's tiling of one row per CTA (tile_using_forall [1, 0]) keeps the
// row in shared memory when the user stages it (promote_tensor), and
// streams it from global memory otherwise:
// RUN: tx-opt %s --split-input-file --transform-interpreter --tx-map-softmax-to-gpu="sm=90" --canonicalize | FileCheck %s --check-prefix=USER
// Diagnostics: stage-softmax-errors.mlir.

// CHECK-LABEL: func.func @vocab_rows
// CHECK: scf.forall
// CHECK: %[[ROW:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}, 0] [1, 50257]
// CHECK: %[[BUF:.*]] = bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<1x50257xf32>
// CHECK: %[[S:.*]] = bufferization.materialize_in_destination %[[ROW]] in %[[BUF]]
// CHECK: tx.softmax %[[S]] dim = 1
// CHECK: smem_row_bytes = 201024
// USER-LABEL: func.func @vocab_rows
// USER-NOT: dynamic_shared_memory_size
func.func @vocab_rows(%x: tensor<64x50257xf32>) -> tensor<64x50257xf32> {
  %y = tx.softmax %x dim = 1 : tensor<64x50257xf32>
  return %y : tensor<64x50257xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %s = transform.structured.match ops{["tx.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.structured.tile_using_forall %s tile_sizes [1, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Staged by the user: the vector kernel keeps the row (201024 bytes of
// 16-byte vectors, the head and tail elements apart) in shared memory.
// CHECK-LABEL: func.func @vocab_rows_staged
// CHECK: bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<1x50257xf32>
// CHECK-NOT: bufferization.alloc_tensor
// USER-LABEL: func.func @vocab_rows_staged
// USER: gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c512, %{{.*}} = %c1, %{{.*}} = %c1) dynamic_shared_memory_size %c229648_i32
func.func @vocab_rows_staged(%x: tensor<64x50257xf32>) -> tensor<64x50257xf32> {
  %y = tx.softmax %x dim = 1 : tensor<64x50257xf32>
  return %y : tensor<64x50257xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %s = transform.structured.match ops{["tx.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.structured.tile_using_forall %s tile_sizes [1, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %in = transform.get_operand %t[0] : (!transform.any_op) -> !transform.any_value
    %st = transform.structured.promote_tensor to #gpu.address_space<workgroup> %in : !transform.any_value
    transform.yield
  }
}

// -----

// Short rows in registers (4 rows per CTA): not staged.
// CHECK-LABEL: func.func @short_rows
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: tx.softmax %{{.*}} dim = 1 : tensor<4x1024xf16>
// CHECK: #tx.softmax_strategy<{{.*}}vector = <{{[^>]*}}unroll = {{[0-9]+}}>>
// USER-LABEL: func.func @short_rows
// USER: gpu.launch
func.func @short_rows(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  %y = tx.softmax %x dim = 1 : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %s = transform.structured.match ops{["tx.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.structured.tile_using_forall %s tile_sizes [4, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
