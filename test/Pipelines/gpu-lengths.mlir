// Per-sequence lengths on the GPU path (issue #19). The tiling reads the
// tile's batch lengths (clamped into range), slices K/V to keys [0, Lk) and
// gives the tile op the row limit Lq - m0; the GPU mapping finds the
// lengths tensors there and every kernel family reads its batch's lengths
// inside the kernel (no host read of device memory).
// RUN: tx-opt %s --tx-attention-strategy="sm=90 wgmma" --tx-tile-attention="from-strategy decompose=false" | FileCheck %s --check-prefix=TILED
// RUN: tx-opt %s --tx-attention-to-gpu="sm=90 wgmma" | FileCheck %s --check-prefix=WGMMA
// RUN: tx-opt %s --tx-attention-to-gpu="sm=90" | FileCheck %s --check-prefix=MMA
// RUN: tx-opt %s --tx-attention-to-gpu="sm=90 tensor-cores=false" | FileCheck %s --check-prefix=SIMT
// The whole pipeline compiles each family to PTX:
// RUN: tx-opt %s --tx-gpu-pipeline="chip=sm_90a format=isa" -o /dev/null
// RUN: tx-opt %s --tx-gpu-pipeline="chip=sm_90 format=isa" -o /dev/null

// TILED-LABEL: func.func @prefill
// TILED: scf.forall (%[[B:.*]], %{{.*}}, %[[I:.*]]) = (0, 0, 0) to (2, 4, 300) step (1, 1, {{[0-9]+}})
// TILED: %[[KL:.*]] = tensor.extract %{{.*}}[%[[B]]] : tensor<2xi32>
// TILED: %[[KLI:.*]] = arith.index_cast %[[KL]] : i32 to index
// TILED: %[[KLP:.*]] = arith.maxsi %[[KLI]], %{{.*}} : index
// TILED: %[[LK:.*]] = arith.minsi %[[KLP]], %{{.*}} : index
// TILED: tensor.extract %{{.*}}[%[[B]]] : tensor<2xi32>
// TILED: tensor.extract_slice %{{.*}}[%[[B]], %{{.*}}, 0, 0] [1, 1, %[[LK]], 128]
// TILED: scf.for
// TILED: tx.online_attention {{.*}} causal causal_offset(%{{.*}}) row_limit(%{{.*}}) outs(
// WGMMA-LABEL: func.func @prefill
// WGMMA: gpu.launch
// WGMMA: memref.load %{{.*}}[%{{.*}}] : memref<2xi32>
// WGMMA: memref.load %{{.*}}[%{{.*}}] : memref<2xi32>
// WGMMA: wgmma.mma_async.sync.aligned
// MMA-LABEL: func.func @prefill
// MMA: gpu.launch
// MMA: memref.load %{{.*}}[%{{.*}}] : memref<2xi32>
// MMA: mma.sync
// SIMT-LABEL: func.func @prefill
// SIMT: gpu.launch
// SIMT: memref.load %{{.*}}[%{{.*}}] : memref<2xi32>
// SIMT-NOT: mma.sync
// SIMT-LABEL: func.func @decode
func.func @prefill(%q: tensor<2x4x300x128xf16>, %k: tensor<2x2x300x128xf16>, %v: tensor<2x2x300x128xf16>, %kl: tensor<2xi32>, %ql: tensor<2xi32>) -> tensor<2x4x300x128xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<2xi32>) q_lengths(%ql : tensor<2xi32>) causal : tensor<2x4x300x128xf16>, tensor<2x2x300x128xf16>, tensor<2x2x300x128xf16> -> tensor<2x4x300x128xf16>
  return %o : tensor<2x4x300x128xf16>
}

// The split-KV decode kernel (grouped-query packing; f16 with 4 rows per
// K/V head: on tensor cores) reads kv_lengths[b].
// TILED-LABEL: func.func @decode
// TILED: scf.forall (%[[DB:.*]], %{{.*}}, %{{.*}}) = (0, 0, 0) to (8, 32, 1) step (1, 4, 1)
// TILED: tensor.extract %{{.*}}[%[[DB]]] : tensor<8xi32>
// WGMMA-LABEL: func.func @decode
// WGMMA: gpu.launch
// WGMMA: memref.load %{{.*}}[%{{.*}}] : memref<8xi32>
// WGMMA: nvgpu.mma.sync
// WGMMA-NOT: memref.atomic_rmw
// WGMMA: } {tx.required_chip = "sm_90"}
// WGMMA: nvvm.griddepcontrol  wait
// WGMMA: } {tx.programmatic_launch, tx.required_chip = "sm_90"}
func.func @decode(%q: tensor<8x32x1x128xf16>, %k: tensor<8x8x8192x128xf16>, %v: tensor<8x8x8192x128xf16>, %kl: tensor<8xi32>) -> tensor<8x32x1x128xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<8xi32>) causal : tensor<8x32x1x128xf16>, tensor<8x8x8192x128xf16>, tensor<8x8x8192x128xf16> -> tensor<8x32x1x128xf16>
  return %o : tensor<8x32x1x128xf16>
}
