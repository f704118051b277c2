// tx.online_attention: custom form -> custom form, through the generic form
// and through bytecode; all must print the same custom form.
// RUN: tx-opt %s | FileCheck %s
// RUN: tx-opt %s --mlir-print-op-generic | tx-opt | FileCheck %s
// RUN: tx-opt %s --emit-bytecode | tx-opt | FileCheck %s
// RUN: tx-opt %s | tx-opt | FileCheck %s

// CHECK-LABEL: func.func @plain
// CHECK: %{{.*}}, %{{.*}}, %{{.*}} = tx.online_attention %{{.*}}, %{{.*}}, %{{.*}} scale = 1.250000e-01 outs(%{{.*}}, %{{.*}}, %{{.*}}) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x64xf32> -> tensor<2x4x16x64xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
func.func @plain(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x64xf32>,
                 %acc: tensor<2x4x16x64xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>)
    -> (tensor<2x4x16x64xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>) {
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 outs(%acc, %m, %l)
      : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x64xf32>
      -> tensor<2x4x16x64xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return %0#0, %0#1, %0#2 : tensor<2x4x16x64xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
}

// GQA (H = 8, Hkv = 2), f16, i1 keep-mask broadcast over B and H, causal.
// CHECK-LABEL: func.func @gqa_keep_causal
// CHECK-SAME: %[[OFF:[^:]*]]: index
// CHECK: tx.online_attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<1x1x64x32xi1>) scale = 1.250000e-01 causal causal_offset(%[[OFF]]) outs(%{{.*}}, %{{.*}}, %{{.*}}) : tensor<1x8x64x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x16xf16> -> tensor<1x8x64x16xf32>, tensor<1x8x64xf32>, tensor<1x8x64xf32>
func.func @gqa_keep_causal(%q: tensor<1x8x64x64xf16>, %k: tensor<1x2x32x64xf16>, %v: tensor<1x2x32x16xf16>,
                           %mask: tensor<1x1x64x32xi1>, %off: index,
                           %acc: tensor<1x8x64x16xf32>, %m: tensor<1x8x64xf32>, %l: tensor<1x8x64xf32>)
    -> tensor<1x8x64x16xf32> {
  %0:3 = tx.online_attention %q, %k, %v mask(%mask : tensor<1x1x64x32xi1>) scale = 0.125 causal causal_offset(%off)
      outs(%acc, %m, %l)
      : tensor<1x8x64x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x16xf16>
      -> tensor<1x8x64x16xf32>, tensor<1x8x64xf32>, tensor<1x8x64xf32>
  return %0#0 : tensor<1x8x64x16xf32>
}

// Dynamic shapes, bf16, additive mask.
// CHECK-LABEL: func.func @dynamic_additive
// CHECK: tx.online_attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<?x1x?x?xbf16>) scale = 5.000000e-01 outs(%{{.*}}, %{{.*}}, %{{.*}}) : tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16> -> tensor<?x?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>
func.func @dynamic_additive(%q: tensor<?x?x?x?xbf16>, %k: tensor<?x?x?x?xbf16>, %v: tensor<?x?x?x?xbf16>,
                            %mask: tensor<?x1x?x?xbf16>,
                            %acc: tensor<?x?x?x?xf32>, %m: tensor<?x?x?xf32>, %l: tensor<?x?x?xf32>)
    -> tensor<?x?x?xf32> {
  %0:3 = tx.online_attention %q, %k, %v mask(%mask : tensor<?x1x?x?xbf16>) scale = 0.5
      outs(%acc, %m, %l)
      : tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>
      -> tensor<?x?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>
  return %0#2 : tensor<?x?x?xf32>
}

// row_limit: rows >= the limit see no key (tx.attention's q_lengths).
// CHECK-LABEL: func.func @row_limit
// CHECK: tx.online_attention %{{.*}}, %{{.*}}, %{{.*}} scale = 1.250000e-01 causal causal_offset(%{{.*}}) row_limit(%{{.*}}) outs(
func.func @row_limit(%q: tensor<1x2x4x8xf16>, %k: tensor<1x1x6x8xf16>, %v: tensor<1x1x6x8xf16>, %acc: tensor<1x2x4x8xf32>, %mx: tensor<1x2x4xf32>, %sm: tensor<1x2x4xf32>, %c: index, %r: index) -> tensor<1x2x4x8xf32> {
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 causal causal_offset(%c) row_limit(%r) outs(%acc, %mx, %sm)
      : tensor<1x2x4x8xf16>, tensor<1x1x6x8xf16>, tensor<1x1x6x8xf16>
      -> tensor<1x2x4x8xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>
  return %0#0 : tensor<1x2x4x8xf32>
}
