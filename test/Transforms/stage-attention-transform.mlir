// A user stages and pipelines with the transform dialect instead of
// tx-stage-attention / tx-pipeline-attention: upstream
// transform.structured.promote_tensor puts the Q, K and V tiles of the
// tiled tx.online_attention in workgroup memory, transform.annotate sets the
// key loop's tx.pipeline_stages, and tx-map-attention-to-gpu builds that
// pipeline. wgmma, 64 query rows, 64 keys per step, D = Dv = 64, f16: shared
// memory 1024 + 2 * (64 * 64 + stages * 64 * (64 + 64)) bytes, 58368 for
// the user's 3 stages (41984 for the strategy's 2).
// RUN: tx-opt %s --split-input-file --transform-interpreter --tx-attention-strategy="sm=90 wgmma=true" --tx-map-attention-to-gpu="sm=90 wgmma=true" --canonicalize | FileCheck %s
// Diagnostics: stage-attention-errors.mlir.

// CHECK-LABEL: func.func @user_staged_3_stages
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c16, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1) dynamic_shared_memory_size %c58368_i32
// CHECK: wgmma.mma_async.sync.aligned
func.func @user_staged_3_stages(%q: tensor<2x4x128x64xf16>, %k: tensor<2x4x256x64xf16>, %v: tensor<2x4x256x64xf16>) -> tensor<2x4x128x64xf16> {
  %o = tx.attention %q, %k, %v : tensor<2x4x128x64xf16>, tensor<2x4x256x64xf16>, tensor<2x4x256x64xf16> -> tensor<2x4x128x64xf16>
  return %o : tensor<2x4x128x64xf16>
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
    %n = transform.param.constant 3 : i64 -> !transform.param<i64>
    transform.annotate %loop "tx.pipeline_stages" = %n : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}

// -----

// Without the annotation the loop gets the strategy's depth (2 here).
// CHECK-LABEL: func.func @user_staged_default_stages
// CHECK: dynamic_shared_memory_size %c41984_i32
func.func @user_staged_default_stages(%q: tensor<2x4x128x64xf16>, %k: tensor<2x4x256x64xf16>, %v: tensor<2x4x256x64xf16>) -> tensor<2x4x128x64xf16> {
  %o = tx.attention %q, %k, %v : tensor<2x4x128x64xf16>, tensor<2x4x256x64xf16>, tensor<2x4x256x64xf16> -> tensor<2x4x128x64xf16>
  return %o : tensor<2x4x128x64xf16>
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
