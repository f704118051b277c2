// tx.online_attention's TilingInterface under upstream's generic tiling and
// fusion (transform.structured.*), independently of tx-tile-attention.
// RUN: tx-opt %s --split-input-file --transform-interpreter --canonicalize --cse | FileCheck %s

// Tiling only the keys (N, the reduction) by 8: an scf.for whose iter_args
// carry the whole state (the FlashAttention-2 loop); K/V sliced along N with
// a partial last tile (20 = 8 + 8 + 4), all K/V heads (the head dim is not
// tiled), the causal offset moved by -j.
// CHECK-LABEL: func.func @tile_keys
// CHECK-SAME: %[[K:[^:]*]]: tensor<1x2x20x8xf32>
// CHECK-SAME: %[[OFF:[^:]*]]: index
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<1x4x16x8xf32>, tensor<1x4x16xf32>, tensor<1x4x16xf32>)
// CHECK:   %[[N:.*]] = affine.min #{{.*}}(%[[J]])
// CHECK:   tensor.extract_slice %[[K]][0, 0, %[[J]], 0] [1, 2, %[[N]], 8]
// CHECK:   %[[C:.*]] = affine.apply #{{.*}}()[%[[OFF]], %[[J]]]
// CHECK:   tx.online_attention {{.*}} causal causal_offset(%[[C]]) {{.*}} : tensor<1x4x16x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32> -> tensor<1x4x16x8xf32>, tensor<1x4x16xf32>, tensor<1x4x16xf32>
// CHECK:   scf.yield
func.func @tile_keys(%q: tensor<1x4x16x8xf32>, %k: tensor<1x2x20x8xf32>, %v: tensor<1x2x20x8xf32>, %off: index,
                     %acc: tensor<1x4x16x8xf32>, %m: tensor<1x4x16xf32>, %l: tensor<1x4x16xf32>)
    -> (tensor<1x4x16x8xf32>, tensor<1x4x16xf32>, tensor<1x4x16xf32>) {
  %r:3 = tx.online_attention %q, %k, %v scale = 0.35 causal causal_offset(%off) outs(%acc, %m, %l)
      : tensor<1x4x16x8xf32>, tensor<1x2x20x8xf32>, tensor<1x2x20x8xf32>
      -> tensor<1x4x16x8xf32>, tensor<1x4x16xf32>, tensor<1x4x16xf32>
  return %r#0, %r#1, %r#2 : tensor<1x4x16x8xf32>, tensor<1x4x16xf32>, tensor<1x4x16xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["tx.online_attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %loop = transform.structured.tile_using_for %op tile_sizes [0, 0, 0, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Consumer fusion: tiling the normalization acc / sum by (1, 1, 8) rows
// fuses the state's producer into the loop (generateResultTileValue), so the
// state lives per row tile; after CSE one tx.online_attention per tile
// serves both acc and sum. A head tile of 1 reads K/V head h floordiv 2.
// CHECK-LABEL: func.func @fuse_into_normalization
// CHECK-SAME: %[[K:[^:]*]]: tensor<1x2x20x8xf32>
// CHECK: scf.for %[[H:.*]] = %{{.*}} to %{{.*}} step
// CHECK:   scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK:     %[[KH:.*]] = affine.apply #{{.*}}(%[[H]])
// CHECK:     tensor.extract_slice %[[K]][0, %[[KH]], 0, 0] [1, 1, 20, 8]
// CHECK:     linalg.fill {{.*}} -> tensor<1x1x8x8xf32>
// CHECK:     %[[ACC:.*]], %{{.*}}, %[[SUM:.*]] = tx.online_attention {{.*}} : tensor<1x1x8x8xf32>, tensor<1x1x20x8xf32>, tensor<1x1x20x8xf32> -> tensor<1x1x8x8xf32>, tensor<1x1x8xf32>, tensor<1x1x8xf32>
// CHECK-NOT: tx.online_attention
// CHECK:     linalg.generic {{.*}} ins(%[[ACC]], %[[SUM]] : tensor<1x1x8x8xf32>, tensor<1x1x8xf32>)
// CHECK-NOT: tx.online_attention
// CHECK: return
func.func @fuse_into_normalization(%q: tensor<1x4x16x8xf32>, %k: tensor<1x2x20x8xf32>, %v: tensor<1x2x20x8xf32>) -> tensor<1x4x16x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x4x16x8xf32>
  %acc = linalg.fill ins(%c0 : f32) outs(%e : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  %e2 = tensor.empty() : tensor<1x4x16xf32>
  %m = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %l = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %r:3 = tx.online_attention %q, %k, %v scale = 0.35 outs(%acc, %m, %l)
      : tensor<1x4x16x8xf32>, tensor<1x2x20x8xf32>, tensor<1x2x20x8xf32>
      -> tensor<1x4x16x8xf32>, tensor<1x4x16xf32>, tensor<1x4x16xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r#0, %r#2 : tensor<1x4x16x8xf32>, tensor<1x4x16xf32>) outs(%e : tensor<1x4x16x8xf32>) {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  } -> tensor<1x4x16x8xf32>
  return %o : tensor<1x4x16x8xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %loops:2 = transform.structured.fuse %g tile_sizes [0, 1, 8, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
