// tx.attention's score_mod and mask_mod regions (issue #42): the custom
// form, the generic form and bytecode print the same custom form; the
// regions follow the clauses, score_mod first, whatever order they came in.
// RUN: tx-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: tx-opt %s --allow-unregistered-dialect --mlir-print-op-generic | tx-opt --allow-unregistered-dialect | FileCheck %s
// RUN: tx-opt %s --allow-unregistered-dialect --emit-bytecode | tx-opt --allow-unregistered-dialect | FileCheck %s
// The op is isolated from above: canonicalization and CSE keep the
// constants inside the regions (an outer equal constant is not reused).
// RUN: tx-opt %s --allow-unregistered-dialect --canonicalize --cse | FileCheck %s

// ALiBi with per-head slopes, and a document mask over packed sequences,
// with causal and GQA.
// CHECK-LABEL: func.func @alibi_document
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} causal score_mod(%{{.*}} : tensor<32xf32>) {
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %{{.*}}: index, %[[H:.*]]: index, %[[I:.*]]: index, %[[J:.*]]: index, %[[SL:.*]]: tensor<32xf32>):
// CHECK: tensor.extract %[[SL]][%[[H]]] : tensor<32xf32>
// CHECK: tx.yield %{{.*}} : f32
// CHECK-NEXT: } mask_mod(%{{.*}} : tensor<4096xi32>) {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: tensor<4096xi32>):
// CHECK: tx.yield %{{.*}} : i1
// CHECK-NEXT: } : tensor<1x32x4096x128xf16>, tensor<1x8x4096x128xf16>, tensor<1x8x4096x128xf16> -> tensor<1x32x4096x128xf16>
func.func @alibi_document(%q: tensor<1x32x4096x128xf16>, %k: tensor<1x8x4096x128xf16>,
                          %v: tensor<1x8x4096x128xf16>, %slopes: tensor<32xf32>,
                          %doc: tensor<4096xi32>) -> tensor<1x32x4096x128xf16> {
  %o = tx.attention %q, %k, %v causal
      mask_mod(%doc : tensor<4096xi32>) {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: tensor<4096xi32>):
        %di = tensor.extract %d[%i] : tensor<4096xi32>
        %dj = tensor.extract %d[%j] : tensor<4096xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        tx.yield %same : i1
      }
      score_mod(%slopes : tensor<32xf32>) {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sl: tensor<32xf32>):
        %m = tensor.extract %sl[%h] : tensor<32xf32>
        %ji = arith.index_cast %j : index to i64
        %ii = arith.index_cast %i : index to i64
        %dist = arith.subi %ji, %ii : i64
        %df = arith.sitofp %dist : i64 to f32
        %bias = arith.mulf %m, %df : f32
        %r = arith.addf %s, %bias : f32
        tx.yield %r : f32
      }
      : tensor<1x32x4096x128xf16>, tensor<1x8x4096x128xf16>, tensor<1x8x4096x128xf16> -> tensor<1x32x4096x128xf16>
  return %o : tensor<1x32x4096x128xf16>
}

// A score function without captures (softcap written as a region), the LSE
// result, dynamic shapes.
// CHECK-LABEL: func.func @softcap_region
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} score_mod {
// CHECK-NEXT: ^bb0(%[[S2:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT: %[[C:.*]] = arith.constant 3.000000e+01 : f32
// CHECK-NEXT: arith.divf %[[S2]], %[[C]] : f32
// CHECK: math.tanh
// CHECK: } : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16> -> tensor<?x?x?x64xbf16>, tensor<?x?x?xf32>
func.func @softcap_region(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>,
                          %v: tensor<?x?x?x64xbf16>) -> (tensor<?x?x?x64xbf16>, tensor<?x?x?xf32>) {
  %outer = arith.constant 30.0 : f32
  "test.use"(%outer) : (f32) -> ()
  %o, %lse = tx.attention %q, %k, %v score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %c = arith.constant 30.0 : f32
        %x = arith.divf %s, %c : f32
        %t = math.tanh %x : f32
        %r = arith.mulf %c, %t : f32
        tx.yield %r : f32
      }
      : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16> -> tensor<?x?x?x64xbf16>, tensor<?x?x?xf32>
  return %o, %lse : tensor<?x?x?x64xbf16>, tensor<?x?x?xf32>
}
