// tx.attention_dq and tx.attention_dkdv (the tiled backward's block ops):
// custom form -> custom form, through the generic form and bytecode.
// RUN: tx-opt %s | FileCheck %s
// RUN: tx-opt %s --mlir-print-op-generic | tx-opt | FileCheck %s
// RUN: tx-opt %s --emit-bytecode | tx-opt | FileCheck %s

// CHECK-LABEL: func.func @dq_plain
// CHECK: tx.attention_dq %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} scale = 1.250000e-01 outs(%{{.*}}) : tensor<2x4x16x64xf16>, tensor<2x2x32x64xf16>, tensor<2x2x32x32xf16>, tensor<2x4x16x32xf16>, tensor<2x4x16xf32> -> tensor<2x4x16x64xf32>
func.func @dq_plain(%q: tensor<2x4x16x64xf16>, %k: tensor<2x2x32x64xf16>, %v: tensor<2x2x32x32xf16>,
                    %do: tensor<2x4x16x32xf16>, %lse: tensor<2x4x16xf32>, %delta: tensor<2x4x16xf32>,
                    %dq: tensor<2x4x16x64xf32>) -> tensor<2x4x16x64xf32> {
  %0 = tx.attention_dq %q, %k, %v, %do, %lse, %delta scale = 0.125 outs(%dq)
      : tensor<2x4x16x64xf16>, tensor<2x2x32x64xf16>, tensor<2x2x32x32xf16>,
        tensor<2x4x16x32xf16>, tensor<2x4x16xf32> -> tensor<2x4x16x64xf32>
  return %0 : tensor<2x4x16x64xf32>
}

// Every clause: an additive mask broadcast over B, softcap, window, causal,
// the diagonal and both limits; dynamic sizes.
// CHECK-LABEL: func.func @dkdv_all
// CHECK: %{{.*}}, %{{.*}} = tx.attention_dkdv %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<1x?x?x?xbf16>) scale = 5.000000e-01 softcap = 3.000000e+01 window = [4, 0] causal causal_offset(%{{.*}}) row_limit(%{{.*}}) key_limit(%{{.*}}) outs(%{{.*}}, %{{.*}}) : tensor<?x?x?x8xbf16>, tensor<?x?x?x8xbf16>, tensor<?x?x?x8xbf16>, tensor<?x?x?x8xbf16>, tensor<?x?x?xf32> -> tensor<?x?x?x8xf32>, tensor<?x?x?x8xf32>
func.func @dkdv_all(%q: tensor<?x?x?x8xbf16>, %k: tensor<?x?x?x8xbf16>, %v: tensor<?x?x?x8xbf16>,
                    %do: tensor<?x?x?x8xbf16>, %lse: tensor<?x?x?xf32>, %delta: tensor<?x?x?xf32>,
                    %mask: tensor<1x?x?x?xbf16>, %c: index, %r: index, %kl: index,
                    %dk: tensor<?x?x?x8xf32>, %dv: tensor<?x?x?x8xf32>)
    -> (tensor<?x?x?x8xf32>, tensor<?x?x?x8xf32>) {
  %0:2 = tx.attention_dkdv %q, %k, %v, %do, %lse, %delta mask(%mask : tensor<1x?x?x?xbf16>)
      scale = 0.5 softcap = 30.0 window = [4, 0] causal causal_offset(%c) row_limit(%r) key_limit(%kl)
      outs(%dk, %dv)
      : tensor<?x?x?x8xbf16>, tensor<?x?x?x8xbf16>, tensor<?x?x?x8xbf16>, tensor<?x?x?x8xbf16>,
        tensor<?x?x?xf32> -> tensor<?x?x?x8xf32>, tensor<?x?x?x8xf32>
  return %0#0, %0#1 : tensor<?x?x?x8xf32>, tensor<?x?x?x8xf32>
}

// dQ with the block's dS as a second result (an additive mask's gradient).
// CHECK-LABEL: func.func @dq_scores
// CHECK: %{{.*}}, %{{.*}} = tx.attention_dq %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<1x2x4x6xf32>) scale = 5.000000e-01 outs(%{{.*}}, %{{.*}}) : tensor<1x2x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4xf32> -> tensor<1x2x4x8xf32>, tensor<1x2x4x6xf32>
func.func @dq_scores(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x6x8xf32>, %l: tensor<1x2x4xf32>,
                     %m: tensor<1x2x4x6xf32>, %dq: tensor<1x2x4x8xf32>, %ds: tensor<1x2x4x6xf32>)
    -> (tensor<1x2x4x8xf32>, tensor<1x2x4x6xf32>) {
  %0:2 = tx.attention_dq %q, %k, %k, %q, %l, %l mask(%m : tensor<1x2x4x6xf32>) scale = 0.5 outs(%dq, %ds)
      : tensor<1x2x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x4x8xf32>,
        tensor<1x2x4xf32> -> tensor<1x2x4x8xf32>, tensor<1x2x4x6xf32>
  return %0#0, %0#1 : tensor<1x2x4x8xf32>, tensor<1x2x4x6xf32>
}
