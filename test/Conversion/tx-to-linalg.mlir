// RUN: tx-opt %s --split-input-file --convert-tx-to-linalg | FileCheck %s

// f16 softmax: extended to f32, upstream linalg.softmax, truncated once.
// CHECK-LABEL: func.func @softmax_f16
// CHECK: %[[EXT:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x77xf16>) outs(%{{.*}} : tensor<4x77xf32>)
// CHECK:   arith.extf
// CHECK: %[[SM:.*]] = linalg.softmax dimension(1) ins(%[[EXT]] : tensor<4x77xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[SM]] : tensor<4x77xf32>) outs(%{{.*}} : tensor<4x77xf16>)
// CHECK:   arith.truncf
// CHECK-NOT: tx.softmax
func.func @softmax_f16(%x: tensor<4x77xf16>) -> tensor<4x77xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<4x77xf16>
  return %0 : tensor<4x77xf16>
}

// -----

// f32 softmax along a non-innermost dim, dynamic shape: no conversion ops.
// CHECK-LABEL: func.func @softmax_f32_dim0
// CHECK-NOT: arith.extf
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?xf32>
// CHECK: linalg.softmax dimension(0) ins(%{{.*}} : tensor<?x?xf32>) outs(%[[E]] : tensor<?x?xf32>)
func.func @softmax_f32_dim0(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = tx.softmax %x dim = 0 : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Plain attention, static: Q grouped as [B, Hkv, G, Sq, D], scores in f32,
// scale 1/sqrt(64) = 0.125, max from -inf, guarded exp, sum, P.V, guarded
// division, truncation, and the heads collapsed back.
// The maps: Q5 (b,k,g,i,d), K (b,k,j,d), V (b,k,j,e) with dims (b,k,g,i,j|e,d|j).
// CHECK: affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d5)>
// CHECK: affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5)>
// CHECK: affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d5, d4)>
// CHECK-LABEL: func.func @attention_f16
// CHECK-NOT: cf.assert
// CHECK: %[[Q:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 4, 1, 16, 64] : tensor<2x4x16x64xf16> into tensor<2x4x1x16x64xf16>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[Q]], %{{.*}} : tensor<2x4x1x16x64xf16>, tensor<2x4x32x64xf16>) outs(%{{.*}} : tensor<2x4x1x16x32xf32>)
// CHECK:   arith.extf
// CHECK:   arith.mulf
// CHECK:   arith.addf
// CHECK: arith.constant 1.250000e-01 : f32
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.generic
// CHECK:   arith.mulf
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4x1x16xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK:   arith.maximumf
// CHECK: linalg.generic
// CHECK:   math.exp
// CHECK:   arith.cmpf oeq, %{{.*}}, %[[NINF]]
// CHECK:   arith.select
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK:   arith.addf
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x4x1x16x32xf32>, tensor<2x4x32x64xf16>) outs(%{{.*}} : tensor<2x4x1x16x64xf32>)
// CHECK: linalg.generic
// CHECK:   arith.divf
// CHECK:   arith.cmpf oeq
// CHECK:   arith.select
// CHECK:   arith.truncf {{.*}} : f32 to f16
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] : tensor<2x4x1x16x64xf16> into tensor<2x4x16x64xf16>
func.func @attention_f16(%q: tensor<2x4x16x64xf16>, %k: tensor<2x4x32x64xf16>, %v: tensor<2x4x32x64xf16>) -> tensor<2x4x16x64xf16> {
  %0 = tx.attention %q, %k, %v : tensor<2x4x16x64xf16>, tensor<2x4x32x64xf16>, tensor<2x4x32x64xf16> -> tensor<2x4x16x64xf16>
  return %0 : tensor<2x4x16x64xf16>
}

// -----

// GQA (H = 4 * Hkv): K/V are read in place through the grouped view of Q.
// Causal, bottom-right: visible iff j - (i + (Sk - Sq)) <= 0, Sk - Sq = 16.
// CHECK-LABEL: func.func @attention_gqa_causal
// CHECK: tensor.expand_shape %{{.*}} output_shape [1, 2, 4, 16, 64] : tensor<1x8x16x64xf32> into tensor<1x2x4x16x64xf32>
// CHECK-NOT: tensor.expand_shape %arg1
// CHECK: %[[OFF:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: linalg.generic
// CHECK:   %[[I:.*]] = linalg.index 3 : index
// CHECK:   %[[J:.*]] = linalg.index 4 : index
// CHECK:   %[[DIAG:.*]] = arith.addi %[[I]], %[[OFF]] : index
// CHECK:   %[[D:.*]] = arith.subi %[[J]], %[[DIAG]] : index
// CHECK:   %[[VIS:.*]] = arith.cmpi sle, %[[D]], %{{.*}} : index
// CHECK:   arith.select %[[VIS]]
// CHECK: tensor.collapse_shape {{.*}} : tensor<1x2x4x16x64xf32> into tensor<1x8x16x64xf32>
func.func @attention_gqa_causal(%q: tensor<1x8x16x64xf32>, %k: tensor<1x2x32x64xf32>, %v: tensor<1x2x32x64xf32>) -> tensor<1x8x16x64xf32> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x8x16x64xf32>, tensor<1x2x32x64xf32>, tensor<1x2x32x64xf32> -> tensor<1x8x16x64xf32>
  return %0 : tensor<1x8x16x64xf32>
}

// -----

// An i1 keep-mask broadcast over B and H selects -inf where false; scale 0.5.
// CHECK: affine_map<(d0, d1, d2, d3, d4) -> (0, 0, d3, d4)>
// CHECK-LABEL: func.func @attention_keep_mask
// CHECK: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x2x1x3x4xf32>, tensor<1x1x3x4xi1>)
// CHECK:   ^bb0(%[[S:.*]]: f32, %[[KEEP:.*]]: i1, %{{.*}}: f32):
// CHECK:   %[[X:.*]] = arith.mulf %[[S]], %[[HALF]] : f32
// CHECK:   arith.select %[[KEEP]], %[[X]], %[[NINF]] : f32
func.func @attention_keep_mask(%q: tensor<2x2x3x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>, %m: tensor<1x1x3x4xi1>) -> tensor<2x2x3x8xf32> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x1x3x4xi1>) scale = 0.5 : tensor<2x2x3x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32> -> tensor<2x2x3x8xf32>
  return %0 : tensor<2x2x3x8xf32>
}

// -----

// An additive per-head mask is grouped like Q and added in f32.
// CHECK-LABEL: func.func @attention_additive_mask
// CHECK: %[[M5:.*]] = tensor.expand_shape %{{.*}} output_shape [2, 1, 4, 3, 4] : tensor<2x4x3x4xbf16> into tensor<2x1x4x3x4xbf16>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[M5]] : tensor<2x1x4x3x4xf32>, tensor<2x1x4x3x4xbf16>)
// CHECK:   %[[E:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK:   arith.addf %{{.*}}, %[[E]] : f32
func.func @attention_additive_mask(%q: tensor<2x4x3x8xbf16>, %k: tensor<2x1x4x8xbf16>, %v: tensor<2x1x4x8xbf16>, %m: tensor<2x4x3x4xbf16>) -> tensor<2x4x3x8xbf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<2x4x3x4xbf16>) : tensor<2x4x3x8xbf16>, tensor<2x1x4x8xbf16>, tensor<2x1x4x8xbf16> -> tensor<2x4x3x8xbf16>
  return %0 : tensor<2x4x3x8xbf16>
}

// -----

// Dynamic shapes: sizes come from tensor.dim, G = H / Hkv at run time,
// the scale is rsqrt(D) at run time, and what the verifier could not check
// is asserted at run time (case A6). With G dynamic the heads stay flat
// [B, H, ...] and K/V head h / G is read with tensor.extract (no
// expand_shape: upstream expand-strided-metadata crashes on a group with two
// dynamic sizes).
// CHECK-LABEL: func.func @attention_dynamic
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<?x?x?x?xf32>, %[[K:[^:]*]]: tensor<?x?x?x?xf32>, %[[V:[^:]*]]: tensor<?x?x?x?xf32>)
// CHECK: cf.assert %{{.*}}, "tx.attention: batch size of query and key differ: %lld vs %lld" {tx.message_format}
// CHECK: cf.assert %{{.*}}, "tx.attention: head dimension D of query and key differ: %lld vs %lld" {tx.message_format}
// CHECK: cf.assert %{{.*}}, "tx.attention: key lengths Sk of key and value differ: %lld vs %lld" {tx.message_format}
// CHECK: cf.assert %{{.*}}, "tx.attention: K/V head count Hkv is 0 but H > 0"
// CHECK: cf.assert %{{.*}}, "tx.attention: query heads H are not a multiple of K/V heads Hkv"
// CHECK: %[[G:.*]] = arith.divui
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[Q]] : tensor<?x?x?x?xf32>) outs(%{{.*}} : tensor<?x?x?x?xf32>)
// CHECK:   %[[H:.*]] = linalg.index 1 : index
// CHECK:   %[[KH:.*]] = arith.divui %[[H]], %[[G]] : index
// CHECK:   tensor.extract %[[K]][%{{.*}}, %[[KH]], %{{.*}}, %{{.*}}] : tensor<?x?x?x?xf32>
// CHECK: %[[DI:.*]] = arith.index_castui
// CHECK: %[[DF:.*]] = arith.uitofp %[[DI]] : i64 to f32
// CHECK: math.rsqrt %[[DF]] : f32
// CHECK: tensor.extract %[[V]]
// CHECK-NOT: tensor.collapse_shape
// CHECK: return
func.func @attention_dynamic(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %0 = tx.attention %q, %k, %v : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// Static H and Hkv with other dims dynamic keep the grouped layout.
// CHECK-LABEL: func.func @attention_dynamic_static_heads
// CHECK: tensor.expand_shape %{{.*}} output_shape [%{{.*}}, 2, 4, %{{.*}}, 64] : tensor<?x8x?x64xf16> into tensor<?x2x4x?x64xf16>
func.func @attention_dynamic_static_heads(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>) -> tensor<?x8x?x64xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> tensor<?x8x?x64xf16>
  return %0 : tensor<?x8x?x64xf16>
}
