// tx-emit-manifest after tx-derive-gradients: the `gradient` entry of a
// differentiable function (its derived entry points and differentiable
// arguments), of a function without backward (why), and of the derived
// functions; the backward's added arguments are named by their tx.name and
// have roles; its results' shapes follow from Q, K, V and the mask; the
// backward op is listed with its operands.
// RUN: tx-opt %s --tx-derive-gradients --tx-emit-manifest -o /dev/null | FileCheck %s

// CHECK:      "name": "bias",
// CHECK:      "gradient": {
// CHECK-NEXT:   "forward": "bias__tx_fwd",
// CHECK-NEXT:   "backward": "bias__tx_bwd",
// CHECK-NEXT:   "arguments": [0,1,2,3]
// CHECK-NEXT: }
func.func @bias(%q: tensor<?x4x?x32xf32>, %k: tensor<?x2x?x32xf32>, %v: tensor<?x2x?x16xf32>, %m: tensor<1x1x?x?xf32>) -> tensor<?x4x?x16xf32> {
  %o = tx.attention %q, %k, %v mask(%m : tensor<1x1x?x?xf32>) causal : tensor<?x4x?x32xf32>, tensor<?x2x?x32xf32>, tensor<?x2x?x16xf32> -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// CHECK:      "name": "bias__tx_fwd",
// CHECK:        "name": "result1",
// CHECK:        "shape_from": [{"arg":0,"dim":0},4,{"arg":0,"dim":2}]
// CHECK:      "gradient": {
// CHECK-NEXT:   "derived": "forward"
// CHECK-NEXT: }

// CHECK:      "name": "bias__tx_bwd",
// CHECK:        "index": 4,
// CHECK-NEXT:   "name": "output",
// CHECK-NEXT:   "role": "output",
// CHECK:        "index": 5,
// CHECK-NEXT:   "name": "lse",
// CHECK-NEXT:   "role": "lse",
// CHECK:        "index": 6,
// CHECK-NEXT:   "name": "grad_output",
// CHECK-NEXT:   "role": "grad_output",
// CHECK:      "results": [
// CHECK:        "shape_from": [{"arg":0,"dim":0},4,{"arg":0,"dim":2},32]
// CHECK:        "shape_from": [{"arg":1,"dim":0},2,{"arg":1,"dim":2},32]
// CHECK:        "shape_from": [{"arg":2,"dim":0},2,{"arg":2,"dim":2},16]
// CHECK:        "shape_from": [1,1,{"arg":3,"dim":2},{"arg":3,"dim":3}]
// CHECK:      "ops": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "op": "tx.attention_grad",
// CHECK:          "causal": true,
// CHECK:          "mask": "additive",
// CHECK-NEXT:     "operands": {
// CHECK-NEXT:       "query": 0,
// CHECK-NEXT:       "key": 1,
// CHECK-NEXT:       "value": 2,
// CHECK-NEXT:       "mask": 3,
// CHECK-NEXT:       "kv_lengths": null,
// CHECK-NEXT:       "q_lengths": null,
// CHECK-NEXT:       "output": 4,
// CHECK-NEXT:       "grad_output": 6,
// CHECK-NEXT:       "lse": 5
// CHECK-NEXT:     },
// CHECK-NEXT:     "results": [0,1,2,3]
// CHECK:      "gradient": {
// CHECK-NEXT:   "derived": "backward"
// CHECK-NEXT: }

// CHECK:      "name": "copy",
// CHECK:      "gradient": {
// CHECK-NEXT:   "none": "result 0 is not computed by a tx.attention or tx.softmax"
// CHECK-NEXT: }
func.func @copy(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

