// tx-stage-attention stages Q's tile through Q's own chain of slices only:
// here the mask is the same tensor as Q, and after CSE the mask tile and the
// Q tile are one tensor.extract_slice; the mask must stay in global memory
// (not read from Q's shared-memory copy), and the mapping accepts the IR.
// RUN: tx-opt %s --tx-attention-strategy="sm=90 wgmma=true" --tx-tile-attention="from-strategy=true decompose=false" --cse --tx-stage-attention | FileCheck %s --check-prefix=STAGED
// RUN: tx-opt %s --tx-attention-strategy="sm=90 wgmma=true" --tx-tile-attention="from-strategy=true decompose=false" --cse --tx-stage-attention --tx-pipeline-attention --tx-map-attention-to-gpu="sm=90 wgmma=true" | FileCheck %s
// STAGED: %[[QT:.*]] = tensor.extract_slice %arg0
// STAGED: %[[QS:.*]] = bufferization.materialize_in_destination %[[QT]] in
// STAGED: scf.for
// STAGED: tx.online_attention %{{.*}}, %{{.*}}, %{{.*}} mask(%[[M:.*]] :
// STAGED-NOT: mask(%[[QS]]
// CHECK-LABEL: func.func @q_is_mask
// CHECK-NOT: tx.online_attention
// CHECK: gpu.launch
func.func @q_is_mask(%x: tensor<2x4x128x128xf16>, %k: tensor<2x4x128x128xf16>, %v: tensor<2x4x128x128xf16>) -> tensor<2x4x128x128xf16> {
  %o = tx.attention %x, %k, %v mask(%x : tensor<2x4x128x128xf16>) : tensor<2x4x128x128xf16>, tensor<2x4x128x128xf16>, tensor<2x4x128x128xf16> -> tensor<2x4x128x128xf16>
  return %o : tensor<2x4x128x128xf16>
}
