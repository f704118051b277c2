// tx.online_attention with score_mod / mask_mod regions (issue #42): what
// tx-tile-attention makes of a tx.attention with regions. The custom form,
// the generic form and bytecode print the same custom form.
// RUN: tx-opt %s | FileCheck %s
// RUN: tx-opt %s --mlir-print-op-generic | tx-opt | FileCheck %s
// RUN: tx-opt %s --emit-bytecode | tx-opt | FileCheck %s
// RUN: tx-opt %s --canonicalize --cse | FileCheck %s

// CHECK-LABEL: func.func @alibi_document
// CHECK-SAME: %[[B0:[^:]*]]: index, %[[H0:[^:]*]]: index, %[[I0:[^:]*]]: index, %[[J0:[^:]*]]: index
// CHECK: tx.online_attention %{{.*}}, %{{.*}}, %{{.*}} scale = 1.250000e-01 mod_offsets(%[[B0]], %[[H0]], %[[I0]], %[[J0]]) score_mod(%{{.*}} : tensor<8xf32>) {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: index, %[[H:.*]]: index, %{{.*}}: index, %{{.*}}: index, %[[SL:.*]]: tensor<8xf32>):
// CHECK: tensor.extract %[[SL]][%[[H]]] : tensor<8xf32>
// CHECK: tx.yield %{{.*}} : f32
// CHECK-NEXT: } mask_mod(%{{.*}} : tensor<64xi32>) {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: tensor<64xi32>):
// CHECK: arith.cmpi eq
// CHECK: tx.yield %{{.*}} : i1
// CHECK-NEXT: } outs(%{{.*}}, %{{.*}}, %{{.*}}) : tensor<1x2x16x8xf32>, tensor<1x2x32x8xf32>, tensor<1x2x32x8xf32> -> tensor<1x2x16x8xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>
func.func @alibi_document(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x32x8xf32>, %v: tensor<1x2x32x8xf32>,
                          %slopes: tensor<8xf32>, %doc: tensor<64xi32>,
                          %b0: index, %h0: index, %i0: index, %j0: index,
                          %acc: tensor<1x2x16x8xf32>, %m: tensor<1x2x16xf32>, %l: tensor<1x2x16xf32>)
    -> tensor<1x2x16x8xf32> {
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 mod_offsets(%b0, %h0, %i0, %j0)
      score_mod(%slopes : tensor<8xf32>) {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sl: tensor<8xf32>):
        %slope = tensor.extract %sl[%h] : tensor<8xf32>
        %d = arith.subi %j, %i : index
        %di = arith.index_cast %d : index to i64
        %df = arith.sitofp %di : i64 to f32
        %bias = arith.mulf %slope, %df : f32
        %r = arith.addf %s, %bias : f32
        tx.yield %r : f32
      }
      mask_mod(%doc : tensor<64xi32>) {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: tensor<64xi32>):
        %di = tensor.extract %d[%i] : tensor<64xi32>
        %dj = tensor.extract %d[%j] : tensor<64xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        tx.yield %same : i1
      }
      outs(%acc, %m, %l)
      : tensor<1x2x16x8xf32>, tensor<1x2x32x8xf32>, tensor<1x2x32x8xf32>
      -> tensor<1x2x16x8xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>
  return %0#0 : tensor<1x2x16x8xf32>
}

// A mask function alone, with causal (the regions follow row_limit).
// CHECK-LABEL: func.func @mask_only
// CHECK: tx.online_attention {{.*}} causal causal_offset(%{{.*}}) row_limit(%{{.*}}) mod_offsets(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) mask_mod {
func.func @mask_only(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x32x8xf32>, %v: tensor<1x2x32x8xf32>,
                     %c: index, %r: index, %z: index,
                     %acc: tensor<1x2x16x8xf32>, %m: tensor<1x2x16xf32>, %l: tensor<1x2x16xf32>)
    -> tensor<1x2x16x8xf32> {
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 causal causal_offset(%c) row_limit(%r)
      mod_offsets(%z, %z, %z, %z)
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c6 = arith.constant 6 : index
        %t = arith.cmpi ult, %j, %c6 : index
        tx.yield %t : i1
      }
      outs(%acc, %m, %l)
      : tensor<1x2x16x8xf32>, tensor<1x2x32x8xf32>, tensor<1x2x32x8xf32>
      -> tensor<1x2x16x8xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>
  return %0#0 : tensor<1x2x16x8xf32>
}
