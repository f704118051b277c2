// A transform script tiles a tx.attention with score_mod / mask_mod
// regions (issue #42): AttentionOp's TilingInterface gives each tile a
// tx.online_attention carrying the regions, with mod_offsets = the tile's
// (b, h, first row, key 0); tiling that op's keys adds the key tile's
// offset.
// RUN: tx-opt %s --transform-interpreter --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @tile
// CHECK: scf.forall (%[[B:.*]], %[[H:.*]], %[[T:.*]]) in (2, 2, 2)
// CHECK: scf.for %[[J:[^ ]*]] =
// CHECK: %[[I:.*]] = affine.apply #map(%[[T]])
// CHECK: tx.online_attention {{.*}} mod_offsets(%[[B]], %[[H]], %[[I]], %[[J]]) mask_mod {
// CHECK-NEXT: ^bb0(%[[BB:.*]]: index, %[[HH:.*]]: index, %[[II:.*]]: index, %[[JJ:.*]]: index):
// CHECK-NEXT: %[[T:.*]] = arith.cmpi ule, %[[JJ]], %[[II]] : index
// CHECK-NEXT: tx.yield %[[T]] : i1
func.func @tile(%q: tensor<2x2x64x64xf32>, %k: tensor<2x2x64x64xf32>, %v: tensor<2x2x64x64xf32>) -> tensor<2x2x64x64xf32> {
  %o = tx.attention %q, %k, %v mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %t = arith.cmpi ule, %j, %i : index
        tx.yield %t : i1
      }
      : tensor<2x2x64x64xf32>, tensor<2x2x64x64xf32>, tensor<2x2x64x64xf32> -> tensor<2x2x64x64xf32>
  return %o : tensor<2x2x64x64xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["tx.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %a tile_sizes [1, 1, 32]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %step = transform.structured.match ops{["tx.online_attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t2, %loop = transform.structured.tile_using_for %step tile_sizes [0, 0, 0, 16]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
