// tx.softmax_grad and tx.attention_grad: custom form -> custom form, generic
// form -> custom form, and through MLIR bytecode all print the same custom
// form (every clause of tx.attention, the optional mask gradient).
// RUN: tx-opt %s | FileCheck %s
// RUN: tx-opt %s --mlir-print-op-generic | tx-opt | FileCheck %s
// RUN: tx-opt %s --emit-bytecode | tx-opt | FileCheck %s
// RUN: tx-opt %s | tx-opt | FileCheck %s

// CHECK-LABEL: func.func @softmax_grad
// CHECK: tx.softmax_grad %{{.*}}, %{{.*}} dim = -1 : tensor<4x?xbf16>
func.func @softmax_grad(%y: tensor<4x?xbf16>, %dy: tensor<4x?xbf16>) -> tensor<4x?xbf16> {
  %0 = tx.softmax_grad %y, %dy dim = -1 : tensor<4x?xbf16>
  return %0 : tensor<4x?xbf16>
}

// CHECK-LABEL: func.func @attention_grad_causal_gqa
// CHECK: tx.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} causal : tensor<1x8x16x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x64xf16>, tensor<1x8x16x64xf16>, tensor<1x8x16x64xf16>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x64xf16>
func.func @attention_grad_causal_gqa(%q: tensor<1x8x16x64xf16>, %k: tensor<1x2x32x64xf16>,
    %v: tensor<1x2x32x64xf16>, %o: tensor<1x8x16x64xf16>, %do: tensor<1x8x16x64xf16>,
    %lse: tensor<1x8x16xf32>) -> (tensor<1x8x16x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x64xf16>) {
  %dq, %dk, %dv = tx.attention_grad %q, %k, %v, %o, %do, %lse causal
      : tensor<1x8x16x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x64xf16>,
        tensor<1x8x16x64xf16>, tensor<1x8x16x64xf16>, tensor<1x8x16xf32>
      -> tensor<1x8x16x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x64xf16>
  return %dq, %dk, %dv : tensor<1x8x16x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x64xf16>
}

// Every clause, in another order than the printer's, and the mask's gradient.
// CHECK-LABEL: func.func @attention_grad_all_clauses
// CHECK: tx.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<2x1x4x6xf32>) kv_lengths(%{{.*}} : tensor<2xi32>) q_lengths(%{{.*}} : tensor<2xi32>) scale = 5.000000e-01 softcap = 3.000000e+01 window = [2, -1] causal : {{.*}} -> tensor<2x4x4x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x4xf32>, tensor<2x1x4x6xf32>
func.func @attention_grad_all_clauses(%q: tensor<2x4x4x8xf32>, %k: tensor<2x2x6x8xf32>,
    %v: tensor<2x2x6x4xf32>, %o: tensor<2x4x4x4xf32>, %do: tensor<2x4x4x4xf32>,
    %lse: tensor<2x4x4xf32>, %m: tensor<2x1x4x6xf32>, %kl: tensor<2xi32>, %ql: tensor<2xi32>)
    -> (tensor<2x4x4x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x4xf32>, tensor<2x1x4x6xf32>) {
  %dq, %dk, %dv, %dm = tx.attention_grad %q, %k, %v, %o, %do, %lse causal window = [2, -1]
      softcap = 30.0 q_lengths(%ql : tensor<2xi32>) scale = 0.5 kv_lengths(%kl : tensor<2xi32>)
      mask(%m : tensor<2x1x4x6xf32>)
      : tensor<2x4x4x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x4xf32>,
        tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>, tensor<2x4x4xf32>
      -> tensor<2x4x4x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x4xf32>, tensor<2x1x4x6xf32>
  return %dq, %dk, %dv, %dm : tensor<2x4x4x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x4xf32>, tensor<2x1x4x6xf32>
}

// Dynamic sizes and an i1 keep-mask (no mask gradient).
// CHECK-LABEL: func.func @attention_grad_dynamic
// CHECK: tx.attention_grad {{.*}} mask(%{{.*}} : tensor<?x?x?x?xi1>) : tensor<?x?x?x?xbf16>
func.func @attention_grad_dynamic(%q: tensor<?x?x?x?xbf16>, %k: tensor<?x?x?x?xbf16>,
    %v: tensor<?x?x?x?xbf16>, %o: tensor<?x?x?x?xbf16>, %do: tensor<?x?x?x?xbf16>,
    %lse: tensor<?x?x?xf32>, %m: tensor<?x?x?x?xi1>)
    -> (tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>) {
  %dq, %dk, %dv = tx.attention_grad %q, %k, %v, %o, %do, %lse mask(%m : tensor<?x?x?x?xi1>)
      : tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>,
        tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>, tensor<?x?x?xf32>
      -> tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>
  return %dq, %dk, %dv : tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>
}

// Score and mask functions (the forward's regions, with captured operands).
// CHECK-LABEL: func.func @attention_grad_mods
// CHECK: tx.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} causal score_mod(%{{.*}} : tensor<4xf32>) {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: index, %[[H:.*]]: index, %{{.*}}: index, %{{.*}}: index, %[[SL:.*]]: tensor<4xf32>):
// CHECK-NEXT: %[[M:.*]] = tensor.extract %[[SL]][%[[H]]] : tensor<4xf32>
// CHECK: tx.yield %{{.*}} : f32
// CHECK-NEXT: } mask_mod {
// CHECK: tx.yield %{{.*}} : i1
// CHECK-NEXT: } : tensor<1x4x8x16xf32>
func.func @attention_grad_mods(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>,
    %v: tensor<1x4x8x16xf32>, %o: tensor<1x4x8x16xf32>, %do: tensor<1x4x8x16xf32>,
    %lse: tensor<1x4x8xf32>, %slopes: tensor<4xf32>)
    -> (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) {
  %dq, %dk, %dv = tx.attention_grad %q, %k, %v, %o, %do, %lse
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c1 = arith.constant 1 : index
        %r = arith.remui %j, %c1 : index
        %c0 = arith.constant 0 : index
        %vis = arith.cmpi eq, %r, %c0 : index
        tx.yield %vis : i1
      }
      causal
      score_mod(%slopes : tensor<4xf32>) {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sl: tensor<4xf32>):
        %m = tensor.extract %sl[%h] : tensor<4xf32>
        %t = math.tanh %s : f32
        %r = arith.addf %t, %m : f32
        tx.yield %r : f32
      }
      : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>,
        tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8xf32>
      -> tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
  return %dq, %dk, %dv : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
}
