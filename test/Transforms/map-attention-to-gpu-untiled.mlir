// tx-map-attention-to-gpu on tiled IR that has no GPU kernel: keys split
// across an scf.forall (tx-tile-attention kv-splits > 1: the tiled CPU
// path's split-KV), and a tx.online_attention with no forall of query tiles
// around it. Both are refused with a located error.
// RUN: not tx-opt %s --split-input-file --tx-tile-attention="kv-splits=2 decompose=false" --tx-map-attention-to-gpu="sm=90" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s

// One error for the split forall, though it holds two tx.online_attention.
// CHECK: map-attention-to-gpu-untiled.mlir:[[@LINE+3]]:8: error: tx-map-attention-to-gpu: a tx.online_attention in nested scf.foralls (split-KV tiling, tx-tile-attention kv-splits > 1, or a second tiling of the tile) has no GPU kernel; the decode family splits the keys itself
// CHECK-NOT: split-KV tiling
func.func @split(%q: tensor<1x2x64x32xf32>, %k: tensor<1x2x256x32xf32>, %v: tensor<1x2x256x32xf32>) -> tensor<1x2x64x32xf32> {
  %o = tx.attention %q, %k, %v : tensor<1x2x64x32xf32>, tensor<1x2x256x32xf32>, tensor<1x2x256x32xf32> -> tensor<1x2x64x32xf32>
  return %o : tensor<1x2x64x32xf32>
}

// -----

// CHECK: map-attention-to-gpu-untiled.mlir:[[@LINE+4]]:10: error: tx-map-attention-to-gpu: a tx.online_attention outside an scf.forall of query tiles has no GPU kernel (tile tx.attention with tx-tile-attention)
func.func @bare(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x64xf32>,
                %acc: tensor<2x4x16x64xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>)
    -> (tensor<2x4x16x64xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>) {
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 outs(%acc, %m, %l)
      : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x64xf32>
      -> tensor<2x4x16x64xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return %0#0, %0#1, %0#2 : tensor<2x4x16x64xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
}
