// tx.check_shapes: a user's tiling (a transform script) of a tx.attention
// with dynamic sizes has no run-time shape checks (tx-tile-attention emits
// them only for the tilings it makes), so tx-attention-strategy marks its
// forall tx.check_shapes and tx-map-attention-to-gpu emits the checks of
// AttentionShapes.h with the kernel. tx-tile-attention's own tiling is not
// marked (check-shapes-own-tiling.mlir).
// RUN: tx-opt %s --transform-interpreter --tx-attention-strategy="sm=90" | FileCheck %s --check-prefix=MARK
// RUN: tx-opt %s --transform-interpreter --tx-attention-strategy="sm=90" --tx-map-attention-to-gpu="sm=90" | FileCheck %s --check-prefix=MAP

// MARK-LABEL: func.func @user_tiling_dynamic_batch
// MARK: scf.forall
// MARK: } {tx.check_shapes, tx.gpu_strategy = #tx.mma_strategy
// MAP-LABEL: func.func @user_tiling_dynamic_batch
// MAP: cf.assert {{.*}} "tx.attention: batch size of query and key differ: %lld vs %lld"
// MAP: cf.assert {{.*}} "tx.attention: batch size of query and value differ: %lld vs %lld"
// MAP: gpu.launch
// MAP-NOT: tx.check_shapes
func.func @user_tiling_dynamic_batch(%q: tensor<?x4x128x64xf16>, %k: tensor<?x4x256x64xf16>, %v: tensor<?x4x256x64xf16>) -> tensor<?x4x128x64xf16> {
  %o = tx.attention %q, %k, %v : tensor<?x4x128x64xf16>, tensor<?x4x256x64xf16>, tensor<?x4x256x64xf16> -> tensor<?x4x128x64xf16>
  return %o : tensor<?x4x128x64xf16>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["tx.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %a tile_sizes [1, 1, 64]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %step = transform.structured.match ops{["tx.online_attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t2, %loop = transform.structured.tile_using_for %step tile_sizes [0, 0, 0, 64]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %qt = transform.get_operand %t2[0] : (!transform.any_op) -> !transform.any_value
    %kt = transform.get_operand %t2[1] : (!transform.any_op) -> !transform.any_value
    %vt = transform.get_operand %t2[2] : (!transform.any_op) -> !transform.any_value
    %qs = transform.structured.promote_tensor to #gpu.address_space<workgroup> %qt : !transform.any_value
    %ks = transform.structured.promote_tensor to #gpu.address_space<workgroup> %kt : !transform.any_value
    %vs = transform.structured.promote_tensor to #gpu.address_space<workgroup> %vt : !transform.any_value
    transform.yield
  }
}

