// A transform script cannot tile a tx.attention with a score_mod /
// mask_mod region yet (issue #42): AttentionOp's TilingInterface refuses it
// with a located error.
// RUN: tx-opt %s --transform-interpreter --verify-diagnostics

func.func @tile(%q: tensor<1x2x64x64xf32>, %k: tensor<1x2x64x64xf32>, %v: tensor<1x2x64x64xf32>) -> tensor<1x2x64x64xf32> {
  // expected-error @below {{'tx.attention' op with a score_mod or mask_mod region cannot be tiled yet (issue #42); it has the reference lowering only}}
  // expected-error @below {{faild to tile operation}}
  // expected-error @below {{failed to generate tiling loops}}
  // expected-note @below {{when applied to this op}}
  %o = tx.attention %q, %k, %v mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %t = arith.cmpi ule, %j, %i : index
        tx.yield %t : i1
      }
      : tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32>, tensor<1x2x64x64xf32> -> tensor<1x2x64x64xf32>
  return %o : tensor<1x2x64x64xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["tx.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{transform.structured.tile_using_forall failed to apply}}
    %tiled, %forall = transform.structured.tile_using_forall %a tile_sizes [1, 1, 32]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
