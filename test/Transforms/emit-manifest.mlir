// tx-emit-manifest describes the entry points (docs/Python.md): names from
// the source, roles, types, static sizes, how result shapes follow from the
// arguments, and the tx ops with their attributes. The IR is unchanged.
// RUN: tx-opt %s --tx-emit-manifest="library=libm.so pipeline='chip=sm_90a format=bin'" -o /dev/null | FileCheck %s
// RUN: tx-opt %s --tx-emit-manifest="path=%t.json" | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --input-file=%t.json
// RUN: cat %s | tx-opt --tx-emit-manifest -o /dev/null | FileCheck %s --check-prefix=STDIN
// RUN: not tx-opt %s --tx-emit-manifest="path=%t.missing/dir/m.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK:      "format": "tx-manifest",
// CHECK-NEXT: "version": 1,
// CHECK-NEXT: "source": "{{.*}}emit-manifest.mlir",

// CHECK:      "name": "gqa",
// CHECK-NEXT: "symbols": {
// CHECK-NEXT:   "sync": "_mlir_ciface_gqa",
// CHECK-NEXT:   "on_stream": "_mlir_ciface_gqa_on_stream"
// CHECK-NEXT: },
// CHECK-NEXT: "loc": "{{.*}}emit-manifest.mlir:[[@LINE+33]]:1",
// CHECK:        "index": 0,
// CHECK-NEXT:   "name": "query",
// CHECK-NEXT:   "role": "query",
// CHECK-NEXT:   "type": "tensor<?x32x?x128xf16>",
// CHECK-NEXT:   "element_type": "f16",
// CHECK-NEXT:   "rank": 4,
// CHECK-NEXT:   "shape": [null,32,null,128]
// CHECK:        "name": "kc",
// CHECK-NEXT:   "role": "key",
// CHECK:        "name": "m",
// CHECK-NEXT:   "role": "mask",
// CHECK-NEXT:   "type": "tensor<1x1x?x?xi1>",
// CHECK-NEXT:   "element_type": "i1",
// CHECK:      "results": [
// CHECK:        "name": "result",
// CHECK:        "shape": [null,32,null,128],
// CHECK-NEXT:   "shape_from": [{"arg":0,"dim":0},32,{"arg":0,"dim":2},128]
// CHECK:      "ops": [
// CHECK:        "op": "tx.attention",
// CHECK-NEXT:   "loc": "{{.*}}emit-manifest.mlir:[[@LINE+15]]:8",
// CHECK-NEXT:   "causal": true,
// CHECK-NEXT:   "scale": 0.125,
// CHECK-NEXT:   "mask": "i1",
// CHECK-NEXT:   "operands": {
// CHECK-NEXT:     "query": 0,
// CHECK-NEXT:     "key": 1,
// CHECK-NEXT:     "value": 2,
// CHECK-NEXT:     "mask": 3,
// CHECK-NEXT:     "kv_lengths": null,
// CHECK-NEXT:     "q_lengths": null
// CHECK-NEXT:   },
// CHECK-NEXT:   "results": [0]
func.func @gqa(%query: tensor<?x32x?x128xf16>, %kc: tensor<?x8x?x128xf16>,
               %vc: tensor<?x8x?x128xf16>, %m: tensor<1x1x?x?xi1>) -> tensor<?x32x?x128xf16> {
  %o = tx.attention %query, %kc, %vc mask(%m : tensor<1x1x?x?xi1>) scale = 0.125 causal
      : tensor<?x32x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x?x128xf16>
  return %o : tensor<?x32x?x128xf16>
}

// Results through a chain of tx ops; an additive mask; the default scale;
// a second result that is an argument (no op).
// CHECK:      "name": "chain",
// CHECK:        "name": "result0",
// CHECK:        "shape_from": [{"arg":0,"dim":0},{"arg":0,"dim":1},{"arg":0,"dim":2},{"arg":2,"dim":3}]
// CHECK:        "name": "result1",
// CHECK:        "shape_from": [{"arg":1,"dim":0},{"arg":1,"dim":1},{"arg":1,"dim":2},{"arg":1,"dim":3}]
// CHECK:        "op": "tx.attention",
// CHECK:        "causal": false,
// CHECK-NEXT:   "scale": null,
// CHECK-NEXT:   "mask": "additive",
// CHECK:        "results": []
// CHECK:        "op": "tx.softmax",
// CHECK:        "dim": 3,
// CHECK-NEXT:   "operands": {
// CHECK-NEXT:     "input": null
// CHECK-NEXT:   },
// CHECK-NEXT:   "results": [0]
func.func @chain(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>,
                 %bias: tensor<?x?x?x?xf32>) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) {
  %a = tx.attention %q, %k, %v mask(%bias : tensor<?x?x?x?xf32>)
      : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  %s = tx.softmax %a dim = -1 : tensor<?x?x?x?xf32>
  return %s, %k : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
}

// The log-sum-exp result: [B, H, Sq] from the query (not V's Dv), both
// results from one op; in either order of the returned values.
// CHECK:      "name": "lse",
// CHECK:      "results": [
// CHECK:        "name": "result0",
// CHECK-NEXT:   "type": "tensor<?x8x?x32xf16>",
// CHECK:        "shape_from": [{"arg":0,"dim":0},8,{"arg":0,"dim":2},32]
// CHECK:        "name": "result1",
// CHECK-NEXT:   "type": "tensor<?x8x?xf32>",
// CHECK-NEXT:   "element_type": "f32",
// CHECK-NEXT:   "rank": 3,
// CHECK-NEXT:   "shape": [null,8,null],
// CHECK-NEXT:   "shape_from": [{"arg":0,"dim":0},8,{"arg":0,"dim":2}]
// CHECK:        "op": "tx.attention",
// CHECK:        "results": [0,1]
func.func @lse(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x32xf16>)
    -> (tensor<?x8x?x32xf16>, tensor<?x8x?xf32>) {
  %o, %l = tx.attention %q, %k, %v causal
      : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x32xf16>
        -> tensor<?x8x?x32xf16>, tensor<?x8x?xf32>
  return %o, %l : tensor<?x8x?x32xf16>, tensor<?x8x?xf32>
}
// CHECK:      "name": "lse_first",
// CHECK:      "results": [
// CHECK:        "name": "result0",
// CHECK:        "rank": 3,
// CHECK:        "shape_from": [{"arg":0,"dim":0},{"arg":0,"dim":1},{"arg":0,"dim":2}]
// CHECK:        "name": "result1",
// CHECK:        "rank": 4,
// CHECK:        "shape_from": [{"arg":0,"dim":0},{"arg":0,"dim":1},{"arg":0,"dim":2},{"arg":2,"dim":3}]
// CHECK:        "results": [0,1]
func.func @lse_first(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?xf32>, tensor<?x?x?x?xf32>) {
  %o, %l = tx.attention %q, %k, %v
      : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
        -> tensor<?x?x?x?xf32>, tensor<?x?x?xf32>
  return %l, %o : tensor<?x?x?xf32>, tensor<?x?x?x?xf32>
}

// Private and external functions are not entry points.
// CHECK-NOT: "name": "helper"
// CHECK-NOT: "name": "ext"
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func private @ext(%x: tensor<4xf32>) -> tensor<4xf32>

// The IR is printed unchanged.
// IR: func.func @gqa(%arg0: tensor<?x32x?x128xf16>
// IR: tx.attention

// From stdin, names come from the operands the arguments feed.
// STDIN:      "name": "q",
// STDIN-NEXT: "role": "query",
// STDIN:      "name": "k",
// STDIN-NEXT: "role": "key",
// STDIN:      "name": "v",
// STDIN-NEXT: "role": "value",
// STDIN:      "name": "mask",
// STDIN-NEXT: "role": "mask",

// ERR: error: tx-emit-manifest: cannot write '{{.*}}m.json':
