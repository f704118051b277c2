// tx.attention with a page table, and tx.merge_attention_states: custom
// form, generic form and bytecode print the same custom form.
// RUN: tx-opt %s | FileCheck %s
// RUN: tx-opt %s --mlir-print-op-generic | tx-opt | FileCheck %s
// RUN: tx-opt %s --emit-bytecode | tx-opt | FileCheck %s

// CHECK-LABEL: func.func @paged_decode
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} kv_lengths(%{{.*}} : tensor<8xi32>) page_table(%{{.*}} : tensor<8x512xi32>) causal : tensor<8x32x1x128xf16>, tensor<4096x16x8x128xf16>, tensor<4096x16x8x128xf16> -> tensor<8x32x1x128xf16>, tensor<8x32x1xf32>
func.func @paged_decode(%q: tensor<8x32x1x128xf16>, %k: tensor<4096x16x8x128xf16>,
                        %v: tensor<4096x16x8x128xf16>, %pt: tensor<8x512xi32>,
                        %lens: tensor<8xi32>) -> (tensor<8x32x1x128xf16>, tensor<8x32x1xf32>) {
  %o, %lse = tx.attention %q, %k, %v causal page_table(%pt : tensor<8x512xi32>)
      kv_lengths(%lens : tensor<8xi32>)
      : tensor<8x32x1x128xf16>, tensor<4096x16x8x128xf16>, tensor<4096x16x8x128xf16>
        -> tensor<8x32x1x128xf16>, tensor<8x32x1xf32>
  return %o, %lse : tensor<8x32x1x128xf16>, tensor<8x32x1xf32>
}

// Dynamic pools, table and page size; every other clause.
// CHECK-LABEL: func.func @paged_dynamic
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<?x1x?x?xbf16>) q_lengths(%{{.*}} : tensor<?xi32>) page_table(%{{.*}} : tensor<?x?xi32>) scale = 1.250000e-01 softcap = 3.000000e+01 window = [64, 0] : tensor<?x8x?x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x8x?x64xbf16>
func.func @paged_dynamic(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x?x2x64xbf16>,
                         %v: tensor<?x?x2x64xbf16>, %pt: tensor<?x?xi32>,
                         %m: tensor<?x1x?x?xbf16>, %ql: tensor<?xi32>) -> tensor<?x8x?x64xbf16> {
  %o = tx.attention %q, %k, %v window = [64, 0] page_table(%pt : tensor<?x?xi32>)
      mask(%m : tensor<?x1x?x?xbf16>) softcap = 30.0 q_lengths(%ql : tensor<?xi32>)
      scale = 0.125
      : tensor<?x8x?x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>
        -> tensor<?x8x?x64xbf16>
  return %o : tensor<?x8x?x64xbf16>
}

// CHECK-LABEL: func.func @merge
// CHECK: tx.merge_attention_states %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x32x1x128xf16>, tensor<8x32x1xf32>
// CHECK: tx.merge_attention_states %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x4x?xf32>, tensor<?x4xf32>
func.func @merge(%a: tensor<8x32x1x128xf16>, %la: tensor<8x32x1xf32>,
                 %b: tensor<8x32x1x128xf16>, %lb: tensor<8x32x1xf32>,
                 %c: tensor<?x4x?xf32>, %lc: tensor<?x4xf32>)
    -> (tensor<8x32x1x128xf16>, tensor<8x32x1xf32>, tensor<?x4x?xf32>) {
  %o, %lse = tx.merge_attention_states %a, %la, %b, %lb
      : tensor<8x32x1x128xf16>, tensor<8x32x1xf32>
  %o2, %lse2 = tx.merge_attention_states %c, %lc, %c, %lc
      : tensor<?x4x?xf32>, tensor<?x4xf32>
  return %o, %lse, %o2 : tensor<8x32x1x128xf16>, tensor<8x32x1xf32>, tensor<?x4x?xf32>
}
