// The staging and software-pipelining steps of tx.attention's GPU path, on
// the tiled IR between tx-tile-attention and tx-map-attention-to-gpu:
// tx-stage-attention copies the Q tile (once per CTA, before the key loop)
// and the K and V tiles (per key step) into tensors in workgroup memory
// (upstream's promote_tensor form); tx-pipeline-attention puts the
// family's pipeline depth on the key loop (tx.pipeline_stages).
// RUN: tx-opt %s --split-input-file --tx-attention-strategy="sm=90 wgmma=true" --tx-tile-attention="from-strategy=true decompose=false" --tx-stage-attention --tx-pipeline-attention | FileCheck %s
// Idempotent: staged tiles and annotated loops are left alone.
// RUN: tx-opt %s --split-input-file --tx-attention-strategy="sm=90 wgmma=true" --tx-tile-attention="from-strategy=true decompose=false" --tx-stage-attention --tx-pipeline-attention --tx-stage-attention --tx-pipeline-attention | FileCheck %s
// On sm_90 without wgmma, f16 takes mma.sync: one K and one V buffer.
// RUN: tx-opt %s --split-input-file --tx-attention-strategy="sm=90" --tx-tile-attention="from-strategy=true decompose=false" --tx-stage-attention --tx-pipeline-attention | FileCheck %s --check-prefix=MMA
// tx-gpu-pipeline runs both between the tiling and the mapping:
// RUN: tx-opt %s --split-input-file --tx-gpu-pipeline="chip=sm_90a format=isa" -o /dev/null --mlir-disable-threading --mlir-print-ir-after=tx-pipeline-attention 2>&1 | FileCheck %s --check-prefix=PIPE

// CHECK-LABEL: func.func @wgmma_f16
// CHECK: scf.forall (%[[B:.*]], %[[H:.*]], %[[I:.*]]) = (0, 0, 0) to (2, 4, 100) step (1, 1, 64)
// CHECK:   %[[QT:.*]] = tensor.extract_slice %{{.*}}[%[[B]], %[[H]], %[[I]], 0] [1, 1, %[[N:.*]], 64]
// CHECK:   %[[QB:.*]] = bufferization.alloc_tensor(%[[N]]) {memory_space = #gpu.address_space<workgroup>} : tensor<1x1x?x64xf16>
// CHECK:   %[[QS:.*]] = bufferization.materialize_in_destination %[[QT]] in %[[QB]]
// CHECK:   scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c128
// CHECK:     %[[Q:.*]] = tensor.extract_slice %[[QS]][0, 0, 0, 0]
// CHECK:     %[[KT:.*]] = tensor.extract_slice %{{.*}}[0, 0, %[[J]], 0] [1, 1, %[[M:.*]], 64]
// CHECK:     %[[VT:.*]] = tensor.extract_slice %{{.*}}[0, 0, %[[J]], 0] [1, 1, %[[M]], 64]
// CHECK:     %[[KB:.*]] = bufferization.alloc_tensor(%[[M]]) {memory_space = #gpu.address_space<workgroup>}
// CHECK:     %[[KS:.*]] = bufferization.materialize_in_destination %[[KT]] in %[[KB]]
// CHECK:     %[[VB:.*]] = bufferization.alloc_tensor(%[[M]]) {memory_space = #gpu.address_space<workgroup>}
// CHECK:     %[[VS:.*]] = bufferization.materialize_in_destination %[[VT]] in %[[VB]]
// CHECK-NOT: bufferization.alloc_tensor
// CHECK:     tx.online_attention %[[Q]], %[[KS]], %[[VS]] scale
// CHECK:   } {tx.pipeline_stages = 2 : i64}
// CHECK: } {tx.gpu_strategy = #tx.wgmma_strategy<warps = 4, q_tile = 64, kv_tile = 128, stages = 2>}
// MMA-LABEL: func.func @wgmma_f16
// MMA:   } {tx.pipeline_stages = 1 : i64}
// MMA: } {tx.gpu_strategy = #tx.mma_strategy<
// PIPE-LABEL: func.func @wgmma_f16
// PIPE: bufferization.materialize_in_destination
// PIPE: } {tx.pipeline_stages = 2 : i64}
func.func @wgmma_f16(%q: tensor<2x4x100x64xf16>, %k: tensor<2x2x200x64xf16>, %v: tensor<2x2x200x64xf16>) -> tensor<2x4x100x64xf16> {
  %o = tx.attention %q, %k, %v causal : tensor<2x4x100x64xf16>, tensor<2x2x200x64xf16>, tensor<2x2x200x64xf16> -> tensor<2x4x100x64xf16>
  return %o : tensor<2x4x100x64xf16>
}

// -----

// The mask tile is not staged (read from global memory per key tile).
// f32 takes the CUDA-core family: one stage.
// CHECK-LABEL: func.func @simt_f32_mask
// CHECK-COUNT-3: bufferization.alloc_tensor
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: tx.online_attention %{{.*}}, %{{.*}}, %{{.*}} mask(%[[MASK:[a-z_0-9]+]] :
// CHECK: } {tx.pipeline_stages = 1 : i64}
// CHECK: #tx.simt_strategy<
// MMA-LABEL: func.func @simt_f32_mask
// MMA: } {tx.pipeline_stages = 1 : i64}
func.func @simt_f32_mask(%q: tensor<1x2x40x16xf32>, %k: tensor<1x2x50x16xf32>, %v: tensor<1x2x50x16xf32>, %m: tensor<1x2x40x50xi1>) -> tensor<1x2x40x16xf32> {
  %o = tx.attention %q, %k, %v mask(%m : tensor<1x2x40x50xi1>) : tensor<1x2x40x16xf32>, tensor<1x2x50x16xf32>, tensor<1x2x50x16xf32> -> tensor<1x2x40x16xf32>
  return %o : tensor<1x2x40x16xf32>
}

// -----

// Split-KV decode (the 4 query heads of one K/V head and its one query
// row per tile): 3 stages per warp.
// CHECK-LABEL: func.func @decode_gqa
// CHECK: scf.forall {{.*}} step (1, 4, 1)
// CHECK: bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<1x4x1x128xf16>
// CHECK: scf.for
// CHECK-COUNT-2: bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<1x1x16x128xf16>
// CHECK: } {tx.pipeline_stages = 3 : i64}
// CHECK: #tx.decode_strategy<
func.func @decode_gqa(%q: tensor<2x32x1x128xf16>, %k: tensor<2x8x4096x128xf16>, %v: tensor<2x8x4096x128xf16>) -> tensor<2x32x1x128xf16> {
  %o = tx.attention %q, %k, %v : tensor<2x32x1x128xf16>, tensor<2x8x4096x128xf16>, tensor<2x8x4096x128xf16> -> tensor<2x32x1x128xf16>
  return %o : tensor<2x32x1x128xf16>
}
