// Result shapes of tx ops are reified from their operands for dynamic dims.
// RUN: tx-opt %s --resolve-ranked-shaped-type-result-dims | FileCheck %s

// CHECK-LABEL: func.func @softmax_dim
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>)
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %[[C1]]
// CHECK: return %[[D]]
func.func @softmax_dim(%x: tensor<?x?xf32>) -> index {
  %c1 = arith.constant 1 : index
  %0 = tx.softmax %x dim = 1 : tensor<?x?xf32>
  %d = tensor.dim %0, %c1 : tensor<?x?xf32>
  return %d : index
}

// Dim 3 of the result is Dv, read from V (not D from Q).
// CHECK-LABEL: func.func @attention_dims
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<?x?x?x?xf16>, %[[K:[^:]*]]: tensor<?x?x?x?xf16>, %[[V:[^:]*]]: tensor<?x?x?x?xf16>)
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[SQ:.*]] = tensor.dim %[[Q]], %[[C2]]
// CHECK-DAG: %[[DV:.*]] = tensor.dim %[[V]], %[[C3]]
// CHECK: return %[[SQ]], %[[DV]]
func.func @attention_dims(%q: tensor<?x?x?x?xf16>, %k: tensor<?x?x?x?xf16>, %v: tensor<?x?x?x?xf16>) -> (index, index) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %0 = tx.attention %q, %k, %v scale = 1.0 : tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16> -> tensor<?x?x?x?xf16>
  %sq = tensor.dim %0, %c2 : tensor<?x?x?x?xf16>
  %dv = tensor.dim %0, %c3 : tensor<?x?x?x?xf16>
  return %sq, %dv : index, index
}
