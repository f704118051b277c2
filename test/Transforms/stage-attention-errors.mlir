// Diagnostics of the staging and pipelining of tiled tx.attention (what
// tx-map-attention-to-gpu requires of them; the pipeline depth and the
// grid are already read by tx-attention-strategy, which gives the user's
// tiling its strategy), on a user's transform script:
// tile_using_forall [1, 1, 64], tile_using_for [0, 0, 0, 64] and the
// script's own promote_tensor / annotate. Each is an error with the
// forall's (staging) or the key loop's (pipeline) location.
// RUN: not tx-opt %s --split-input-file --transform-interpreter --tx-attention-strategy="sm=90 wgmma=true" --tx-map-attention-to-gpu="sm=90 wgmma=true" -o /dev/null 2>&1 | FileCheck %s
// mma.sync (sm_90 without wgmma) keeps one K and one V buffer:
// RUN: not tx-opt %s --split-input-file --transform-interpreter --tx-attention-strategy="sm=90" --tx-map-attention-to-gpu="sm=90" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MMA

// The Q, K and V tiles must be staged in shared memory (Q first).
// CHECK: stage-attention-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: the Q tile is not staged in shared memory; every kernel family reads Q from shared memory (run tx-stage-attention, or transform.structured.promote_tensor to #gpu.address_space<workgroup> on it)
func.func @unstaged(%q: tensor<2x4x128x64xf16>, %k: tensor<2x4x256x64xf16>, %v: tensor<2x4x256x64xf16>) -> tensor<2x4x128x64xf16> {
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
    transform.yield
  }
}

// -----

// CHECK: stage-attention-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: the V tile is not staged in shared memory; every kernel family reads K and V tiles from shared memory (run tx-stage-attention, or transform.structured.promote_tensor to #gpu.address_space<workgroup> on it)
func.func @v_unstaged(%q: tensor<2x4x128x64xf16>, %k: tensor<2x4x256x64xf16>, %v: tensor<2x4x256x64xf16>) -> tensor<2x4x128x64xf16> {
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
    %qts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %qt : !transform.any_value
    %kts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %kt : !transform.any_value
    transform.yield
  }
}

// -----

// Shared memory only.
// CHECK: stage-attention-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: the K tile is staged in #gpu.address_space<global>; the kernels stage tiles in shared memory (#gpu.address_space<workgroup>)
func.func @k_global(%q: tensor<2x4x128x64xf16>, %k: tensor<2x4x256x64xf16>, %v: tensor<2x4x256x64xf16>) -> tensor<2x4x128x64xf16> {
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
    %qts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %qt : !transform.any_value
    %kts = transform.structured.promote_tensor to #gpu.address_space<global> %kt : !transform.any_value
    %vts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %vt : !transform.any_value
    transform.yield
  }
}

// -----

// CHECK: stage-attention-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: the Q tile is staged 2 times; the kernels stage it once per CTA
func.func @q_twice(%q: tensor<2x4x128x64xf16>, %k: tensor<2x4x256x64xf16>, %v: tensor<2x4x256x64xf16>) -> tensor<2x4x128x64xf16> {
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
    %qts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %qt : !transform.any_value
    %qtss = transform.structured.promote_tensor to #gpu.address_space<workgroup> %qts : !transform.any_value
    %kts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %kt : !transform.any_value
    %vts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %vt : !transform.any_value
    transform.yield
  }
}

// -----

// The K tile staged before the key loop (all 256 keys at once).
// CHECK: stage-attention-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: the K tile is staged outside the key loop (all of its keys at once); the kernels stage one key tile per step, once: stage only the tx.online_attention's K operand
func.func @k_outside(%q: tensor<2x4x128x64xf16>, %k: tensor<2x4x256x64xf16>, %v: tensor<2x4x256x64xf16>) -> tensor<2x4x128x64xf16> {
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
    %qts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %qt : !transform.any_value
    %kp = transform.get_producer_of_operand %t2[1] : (!transform.any_op) -> !transform.any_op
    %kall = transform.get_operand %kp[0] : (!transform.any_op) -> !transform.any_value
    %kalls = transform.structured.promote_tensor to #gpu.address_space<workgroup> %kall : !transform.any_value
    %vts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %vt : !transform.any_value
    transform.yield
  }
}

// -----

// The mask is read from global memory per key tile.
// CHECK: stage-attention-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: the mask tile is staged; the kernels read the mask from global memory, one key tile at a time (stage Q, K and V only)
func.func @mask_staged(%q: tensor<2x4x128x64xf16>, %k: tensor<2x4x256x64xf16>, %v: tensor<2x4x256x64xf16>, %m: tensor<2x4x128x256xi1>) -> tensor<2x4x128x64xf16> {
  %o = tx.attention %q, %k, %v mask(%m : tensor<2x4x128x256xi1>) : tensor<2x4x128x64xf16>, tensor<2x4x256x64xf16>, tensor<2x4x256x64xf16> -> tensor<2x4x128x64xf16>
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
    %qts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %qt : !transform.any_value
    %kts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %kt : !transform.any_value
    %vts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %vt : !transform.any_value
    %mt = transform.get_operand %t2[3] : (!transform.any_op) -> !transform.any_value
    %mts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %mt : !transform.any_value
    transform.yield
  }
}

// -----

// The pipeline depth: an integer in [1, 4] ...
// CHECK: stage-attention-errors.mlir:[[@LINE+2]]:8: error: tx-attention-strategy: tx.pipeline_stages must be an integer in [1, 4] (K/V tiles resident in shared memory), got 7 : i64
func.func @stages_7(%q: tensor<2x4x128x64xf16>, %k: tensor<2x4x256x64xf16>, %v: tensor<2x4x256x64xf16>) -> tensor<2x4x128x64xf16> {
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
    %qts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %qt : !transform.any_value
    %kts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %kt : !transform.any_value
    %vts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %vt : !transform.any_value
    %n = transform.param.constant 7 : i64 -> !transform.param<i64>
    transform.annotate %loop "tx.pipeline_stages" = %n : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}

// -----

// CHECK: stage-attention-errors.mlir:[[@LINE+2]]:8: error: tx-attention-strategy: tx.pipeline_stages must be an integer in [1, 4] (K/V tiles resident in shared memory), got "two"
func.func @stages_string(%q: tensor<2x4x128x64xf16>, %k: tensor<2x4x256x64xf16>, %v: tensor<2x4x256x64xf16>) -> tensor<2x4x128x64xf16> {
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
    %qts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %qt : !transform.any_value
    %kts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %kt : !transform.any_value
    %vts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %vt : !transform.any_value
    %n = transform.param.constant "two" -> !transform.any_param
    transform.annotate %loop "tx.pipeline_stages" = %n : !transform.any_op, !transform.any_param
    transform.yield
  }
}

// -----

// ... that the family can run: wgmma pipelines 2 to 4 tiles ...
// CHECK: stage-attention-errors.mlir:[[@LINE+2]]:8: error: tx-attention-strategy: the wgmma family pipelines 2 to 4 K/V tiles: tx.pipeline_stages must be in [2, 4], got 1
func.func @wgmma_1(%q: tensor<2x4x128x64xf16>, %k: tensor<2x4x256x64xf16>, %v: tensor<2x4x256x64xf16>) -> tensor<2x4x128x64xf16> {
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
    %qts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %qt : !transform.any_value
    %kts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %kt : !transform.any_value
    %vts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %vt : !transform.any_value
    %n = transform.param.constant 1 : i64 -> !transform.param<i64>
    transform.annotate %loop "tx.pipeline_stages" = %n : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}

// -----

// ... and mma.sync only 1 (one K and one V buffer).
// MMA: stage-attention-errors.mlir:[[@LINE+2]]:8: error: tx-attention-strategy: the mma family keeps one K and one V tile in shared memory: tx.pipeline_stages must be 1, got 2
func.func @mma_2(%q: tensor<2x4x128x64xf16>, %k: tensor<2x4x256x64xf16>, %v: tensor<2x4x256x64xf16>) -> tensor<2x4x128x64xf16> {
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
    %qts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %qt : !transform.any_value
    %kts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %kt : !transform.any_value
    %vts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %vt : !transform.any_value
    %n = transform.param.constant 2 : i64 -> !transform.param<i64>
    transform.annotate %loop "tx.pipeline_stages" = %n : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}

// -----

// ... and whose buffers fit: 4 stages of 128-key K/V tiles at D = 128 need
// 1024 + 2 * (64 * 128 + 4 * 128 * 256) bytes.
// CHECK: stage-attention-errors.mlir:[[@LINE+2]]:8: error: tx-attention-strategy: tx.pipeline_stages = 4 needs 279552 bytes of shared memory for the wgmma family's tiles, more than max-shared-memory = 232448
func.func @stages_too_big(%q: tensor<2x4x128x128xf16>, %k: tensor<2x4x256x128xf16>, %v: tensor<2x4x256x128xf16>) -> tensor<2x4x128x128xf16> {
  %o = tx.attention %q, %k, %v : tensor<2x4x128x128xf16>, tensor<2x4x256x128xf16>, tensor<2x4x256x128xf16> -> tensor<2x4x128x128xf16>
  return %o : tensor<2x4x128x128xf16>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["tx.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %a tile_sizes [1, 1, 64]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %step = transform.structured.match ops{["tx.online_attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t2, %loop = transform.structured.tile_using_for %step tile_sizes [0, 0, 0, 128]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %qt = transform.get_operand %t2[0] : (!transform.any_op) -> !transform.any_value
    %kt = transform.get_operand %t2[1] : (!transform.any_op) -> !transform.any_value
    %vt = transform.get_operand %t2[2] : (!transform.any_op) -> !transform.any_value
    %qs = transform.structured.promote_tensor to #gpu.address_space<workgroup> %qt : !transform.any_value
    %ks = transform.structured.promote_tensor to #gpu.address_space<workgroup> %kt : !transform.any_value
    %vs = transform.structured.promote_tensor to #gpu.address_space<workgroup> %vt : !transform.any_value
    %n = transform.param.constant 4 : i64 -> !transform.param<i64>
    transform.annotate %loop "tx.pipeline_stages" = %n : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}

// -----

// K staged twice (a copy of the copy).
// CHECK: stage-attention-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: the K tile is staged 2 times; the kernels stage one key tile per step, once: stage only the tx.online_attention's K operand
func.func @k_twice(%q: tensor<2x4x128x64xf16>, %k: tensor<2x4x256x64xf16>, %v: tensor<2x4x256x64xf16>) -> tensor<2x4x128x64xf16> {
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
    %qts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %qt : !transform.any_value
    %kts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %kt : !transform.any_value
    %ktss = transform.structured.promote_tensor to #gpu.address_space<workgroup> %kts : !transform.any_value
    %vts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %vt : !transform.any_value
    transform.yield
  }
}

// -----

// A global-memory copy under the workgroup one.
// CHECK: stage-attention-errors.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: the V tile is staged in #gpu.address_space<global>; the kernels stage tiles in shared memory (#gpu.address_space<workgroup>)
func.func @v_global_then_workgroup(%q: tensor<2x4x128x64xf16>, %k: tensor<2x4x256x64xf16>, %v: tensor<2x4x256x64xf16>) -> tensor<2x4x128x64xf16> {
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
    %qts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %qt : !transform.any_value
    %kts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %kt : !transform.any_value
    %vts = transform.structured.promote_tensor to #gpu.address_space<global> %vt : !transform.any_value
    %vtss = transform.structured.promote_tensor to #gpu.address_space<workgroup> %vts : !transform.any_value
    transform.yield
  }
}

// -----

// Q staged as a whole before the tiling (a copy on the host).
// CHECK: stage-attention-errors.mlir:[[@LINE+2]]:8: error: tx-attention-strategy: the whole Q is staged in shared memory (a copy outside the forall, on the host); stage its tile inside the forall instead
func.func @whole_q(%q: tensor<2x4x128x64xf16>, %k: tensor<2x4x256x64xf16>, %v: tensor<2x4x256x64xf16>) -> tensor<2x4x128x64xf16> {
  %o = tx.attention %q, %k, %v : tensor<2x4x128x64xf16>, tensor<2x4x256x64xf16>, tensor<2x4x256x64xf16> -> tensor<2x4x128x64xf16>
  return %o : tensor<2x4x128x64xf16>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["tx.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %q = transform.get_operand %a[0] : (!transform.any_op) -> !transform.any_value
    %qs = transform.structured.promote_tensor to #gpu.address_space<workgroup> %q : !transform.any_value
    %a2 = transform.structured.match ops{["tx.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %a2 tile_sizes [1, 1, 64]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %step = transform.structured.match ops{["tx.online_attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t2, %loop = transform.structured.tile_using_for %step tile_sizes [0, 0, 0, 64]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %qt = transform.get_operand %t2[0] : (!transform.any_op) -> !transform.any_value
    %kt = transform.get_operand %t2[1] : (!transform.any_op) -> !transform.any_value
    %vt = transform.get_operand %t2[2] : (!transform.any_op) -> !transform.any_value
    %qts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %qt : !transform.any_value
    %kts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %kt : !transform.any_value
    %vts = transform.structured.promote_tensor to #gpu.address_space<workgroup> %vt : !transform.any_value
    transform.yield
  }
}
