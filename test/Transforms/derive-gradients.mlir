// tx-derive-gradients: the forward-with-LSE and backward entry points of
// each function whose results are tx.attention / tx.softmax of its
// arguments, and the reason recorded for each function that has none.
// RUN: tx-opt %s --tx-derive-gradients | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: tx-opt %s --tx-derive-gradients > %t.1.mlir
// RUN: tx-opt %t.1.mlir --tx-derive-gradients > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// The derived functions verify and round-trip through the generic form.
// RUN: tx-opt %t.1.mlir --mlir-print-op-generic | tx-opt | diff %t.1.mlir -

// CHECK-LABEL: func.func @attn(
// CHECK-SAME: tx.gradient = {arguments = array<i64: 0, 1, 2>, backward = @attn__tx_bwd, forward = @attn__tx_fwd}
// CHECK:      func.func @attn__tx_fwd(%[[Q:.*]]: tensor<1x8x16x64xf16>, %[[K:.*]]: tensor<1x2x16x64xf16>, %[[V:.*]]: tensor<1x2x16x64xf16>) -> (tensor<1x8x16x64xf16>, tensor<1x8x16xf32>)
// CHECK-SAME: tx.derived = "forward"
// CHECK:        %[[O:.*]], %[[L:.*]] = tx.attention %[[Q]], %[[K]], %[[V]] causal {{.*}} -> tensor<1x8x16x64xf16>, tensor<1x8x16xf32>
// CHECK:        return %[[O]], %[[L]]
// CHECK:      func.func @attn__tx_bwd(%[[Q:.*]]: tensor<1x8x16x64xf16>, %[[K:.*]]: tensor<1x2x16x64xf16>, %[[V:.*]]: tensor<1x2x16x64xf16>, %[[O:.*]]: tensor<1x8x16x64xf16> {tx.name = "output"}, %[[L:.*]]: tensor<1x8x16xf32> {tx.name = "lse"}, %[[G:.*]]: tensor<1x8x16x64xf16> {tx.name = "grad_output"}) -> (tensor<1x8x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>)
// CHECK-SAME: tx.derived = "backward"
// CHECK:        %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = tx.attention_grad %[[Q]], %[[K]], %[[V]], %[[O]], %[[G]], %[[L]] causal
// CHECK:        return %[[DQ]], %[[DK]], %[[DV]] :
func.func @attn(%q: tensor<1x8x16x64xf16>, %k: tensor<1x2x16x64xf16>, %v: tensor<1x2x16x64xf16>) -> tensor<1x8x16x64xf16> {
  %o = tx.attention %q, %k, %v causal : tensor<1x8x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16> -> tensor<1x8x16x64xf16>
  return %o : tensor<1x8x16x64xf16>
}

// Every clause is carried over; an additive mask gets its gradient, in
// argument order (the mask is argument 0 here); the lengths get none.
// CHECK-LABEL: func.func @bias(
// CHECK-SAME: tx.gradient = {arguments = array<i64: 0, 1, 2, 3>, backward = @bias__tx_bwd, forward = @bias__tx_fwd}
// CHECK:      func.func @bias__tx_fwd({{.*}}) -> (tensor<?x?x?x32xf32>, tensor<?x?x?xf32>)
// CHECK:        tx.attention {{.*}} mask({{.*}} : tensor<1x1x?x?xf32>) kv_lengths({{.*}} : tensor<?xi32>) scale = 5.000000e-01 softcap = 3.000000e+01 window = [8, 0]
// CHECK:      func.func @bias__tx_bwd(%[[M:.*]]: tensor<1x1x?x?xf32>, %[[Q:.*]]: tensor<?x?x?x32xf32>, %[[K:.*]]: tensor<?x?x?x32xf32>, %[[V:.*]]: tensor<?x?x?x32xf32>, %[[N:.*]]: tensor<?xi32>, %[[O:.*]]: tensor<?x?x?x32xf32> {tx.name = "output"}, %[[L:.*]]: tensor<?x?x?xf32> {tx.name = "lse"}, %[[G:.*]]: tensor<?x?x?x32xf32> {tx.name = "grad_output"}) -> (tensor<1x1x?x?xf32>, tensor<?x?x?x32xf32>, tensor<?x?x?x32xf32>, tensor<?x?x?x32xf32>)
// CHECK:        %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]], %[[DM:.*]] = tx.attention_grad %[[Q]], %[[K]], %[[V]], %[[O]], %[[G]], %[[L]] mask(%[[M]] : tensor<1x1x?x?xf32>) kv_lengths(%[[N]] : tensor<?xi32>) scale = 5.000000e-01 softcap = 3.000000e+01 window = [8, 0] causal
// CHECK:        return %[[DM]], %[[DQ]], %[[DK]], %[[DV]] :
func.func @bias(%m: tensor<1x1x?x?xf32>, %q: tensor<?x?x?x32xf32>, %k: tensor<?x?x?x32xf32>, %v: tensor<?x?x?x32xf32>, %n: tensor<?xi32>) -> tensor<?x?x?x32xf32> {
  %o = tx.attention %q, %k, %v mask(%m : tensor<1x1x?x?xf32>) kv_lengths(%n : tensor<?xi32>) scale = 0.5 softcap = 30.0 window = [8, 0] causal : tensor<?x?x?x32xf32>, tensor<?x?x?x32xf32>, tensor<?x?x?x32xf32> -> tensor<?x?x?x32xf32>
  return %o : tensor<?x?x?x32xf32>
}

// An i1 mask has no gradient.
// CHECK-LABEL: func.func @keep(
// CHECK-SAME: arguments = array<i64: 0, 1, 2>
// CHECK:      func.func @keep__tx_bwd(
// CHECK:        %{{.*}}, %{{.*}}, %{{.*}} = tx.attention_grad {{.*}} mask(%{{.*}} : tensor<1x1x4x4xi1>) :
// CHECK-SAME:   -> tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>{{$}}
func.func @keep(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x8xf32>, %keep: tensor<1x1x4x4xi1>) -> tensor<1x1x4x8xf32> {
  %o = tx.attention %q, %k, %v mask(%keep : tensor<1x1x4x4xi1>) : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32> -> tensor<1x1x4x8xf32>
  return %o : tensor<1x1x4x8xf32>
}

// Two results: a softmax and an attention; the added arguments are
// suffixed by the result number, one LSE (result 1's).
// CHECK-LABEL: func.func @two(
// CHECK-SAME: arguments = array<i64: 0, 1, 2, 3>
// CHECK:      func.func @two__tx_fwd({{.*}}) -> (tensor<4x9xbf16>, tensor<1x1x4x8xf32>, tensor<1x1x4xf32>)
// CHECK:      func.func @two__tx_bwd(%[[X:.*]]: tensor<4x9xbf16>, %{{.*}}, %{{.*}}, %{{.*}}, %[[Y:.*]]: tensor<4x9xbf16> {tx.name = "output0"}, %[[O:.*]]: tensor<1x1x4x8xf32> {tx.name = "output1"}, %[[L:.*]]: tensor<1x1x4xf32> {tx.name = "lse1"}, %[[DY:.*]]: tensor<4x9xbf16> {tx.name = "grad_output0"}, %[[DO:.*]]: tensor<1x1x4x8xf32> {tx.name = "grad_output1"})
// CHECK:        %[[DX:.*]] = tx.softmax_grad %[[Y]], %[[DY]] dim = 0 : tensor<4x9xbf16>
// CHECK:        %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = tx.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %[[O]], %[[DO]], %[[L]] :
// CHECK:        return %[[DX]], %[[DQ]], %[[DK]], %[[DV]] :
func.func @two(%x: tensor<4x9xbf16>, %q: tensor<1x1x4x8xf32>, %k: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x8xf32>) -> (tensor<4x9xbf16>, tensor<1x1x4x8xf32>) {
  %y = tx.softmax %x dim = 0 : tensor<4x9xbf16>
  %o = tx.attention %q, %k, %v : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32> -> tensor<1x1x4x8xf32>
  return %y, %o : tensor<4x9xbf16>, tensor<1x1x4x8xf32>
}

// No gradient, each with its reason.
// CHECK-LABEL: func.func @returns_lse(
// CHECK-SAME: tx.no_gradient = "result 1 is a tx.attention's log-sum-exp (no gradient through the LSE)"
func.func @returns_lse(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x8xf32>) -> (tensor<1x1x4x8xf32>, tensor<1x1x4xf32>) {
  %o, %l = tx.attention %q, %k, %v : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32> -> tensor<1x1x4x8xf32>, tensor<1x1x4xf32>
  return %o, %l : tensor<1x1x4x8xf32>, tensor<1x1x4xf32>
}

// CHECK-LABEL: func.func @not_an_argument(
// CHECK-SAME: tx.no_gradient = "an operand of the tx.softmax of result 0 is not a function argument (no gradient through other ops)"
func.func @not_an_argument(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tx.softmax %x dim = 1 : tensor<4x8xf32>
  %z = tx.softmax %y dim = 1 : tensor<4x8xf32>
  return %z : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @self_attention(
// CHECK-SAME: tx.no_gradient = "argument 0 feeds several differentiated operands (their gradients are not summed yet)"
func.func @self_attention(%x: tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32> {
  %o = tx.attention %x, %x, %x : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32> -> tensor<1x1x4x8xf32>
  return %o : tensor<1x1x4x8xf32>
}

// CHECK-LABEL: func.func @twice(
// CHECK-SAME: tx.no_gradient = "it returns one op's value twice"
func.func @twice(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %y = tx.softmax %x dim = 1 : tensor<4x8xf32>
  return %y, %y : tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @other_op(
// CHECK-SAME: tx.no_gradient = "result 0 is not computed by a tx.attention or tx.softmax"
func.func @other_op(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @no_results(
// CHECK-SAME: tx.no_gradient = "it is not one block returning values"
func.func @no_results(%x: tensor<4x8xf32>) {
  return
}

// CHECK-LABEL: func.func @taken(
// CHECK-SAME: tx.no_gradient = "the name taken__tx_bwd is taken (only a declaration of type (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> may use it)"
func.func @taken(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tx.softmax %x dim = 1 : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
func.func @taken__tx_bwd(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

// Private functions and declarations are left alone.
// CHECK-LABEL: func.func private @helper(
// CHECK-NOT:  tx.gradient
// CHECK-NOT:  tx.no_gradient
// CHECK-NOT:  @helper__tx_fwd
func.func private @helper(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tx.softmax %x dim = 1 : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// A declaration of a derived function (to call it from the module) is
// replaced by its definition; the call verifies.
// CHECK-LABEL: func.func @declared(
// CHECK-SAME: tx.gradient
// CHECK:      func.func @declared__tx_fwd(%{{.*}}: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {tx.derived = "forward"} {
// CHECK:      func.func @declared__tx_bwd(
// CHECK-NOT:  func.func private @declared__tx_fwd
// CHECK:      call @declared__tx_fwd
func.func @declared(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tx.softmax %x dim = 1 : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
func.func private @declared__tx_fwd(tensor<4x8xf32>) -> tensor<4x8xf32>
func.func private @user(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = call @declared__tx_fwd(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// An LSE computed but not returned is the forward's LSE too.
// CHECK-LABEL: func.func @unused_lse(
// CHECK-SAME: tx.gradient
// CHECK:      func.func @unused_lse__tx_fwd(
// CHECK:        %[[O:.*]], %[[L:.*]] = tx.attention
// CHECK:        tensor.dim %[[L]]
// CHECK:        return %[[O]], %[[L]]
func.func @unused_lse(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32> {
  %o, %l = tx.attention %q, %k, %v : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32> -> tensor<1x1x4x8xf32>, tensor<1x1x4xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %l, %c0 : tensor<1x1x4xf32>
  return %o : tensor<1x1x4x8xf32>
}
