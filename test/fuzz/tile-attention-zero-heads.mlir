// Fuzz finding (session 17, seed 17, input 423): tiling a tx.attention
// with H = 0 query heads and Hkv = 4 K/V heads (the verifier allows it: 0 is
// a multiple of 4) made the static group H / Hkv = 0, and the K/V head
// index map h floordiv 0 crashed the tiling (signal 11 in
// tensor.extract_slice's builder). The group is now at least 1 (H = 0 has
// an empty iteration space); tiling succeeds.
// RUN: tx-opt %s --transform-interpreter | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%tx_plugin %s --pass-pipeline="builtin.module(transform-interpreter)" | FileCheck %s
// CHECK-LABEL: func.func @f0
// CHECK: scf.for
// CHECK: tx.online_attention {{.*}} : tensor<?x0x?x129xf32>, tensor<?x0x4x129xf32>, tensor<?x0x4x255xf32> -> tensor<?x0x?x255xf32>, tensor<?x0x?xf32>, tensor<?x0x?xf32>
func.func @f0(%q0: tensor<1x0x77x129xf32>, %k1: tensor<1x4x4x129xf32>, %v2: tensor<1x4x4x255xf32>, %m3: tensor<1x0x77x4xf32>) -> tensor<1x0x77x255xf32> {
  %t1 = tx.attention %q0, %k1, %v2 mask(%m3 : tensor<1x0x77x4xf32>) window = [1, 1] : tensor<1x0x77x129xf32>, tensor<1x4x4x129xf32>, tensor<1x4x4x255xf32> -> tensor<1x0x77x255xf32>
  return %t1 : tensor<1x0x77x255xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["tx.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l0, %l1 = transform.structured.tile_using_for %op tile_sizes [1099511627776, 0, 3] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
