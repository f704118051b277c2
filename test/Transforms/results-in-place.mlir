// tx-results-in-place: a result buffer the function allocates becomes its
// out-parameter, after a run-time size check per dynamic dimension.
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-results-in-place))" | FileCheck %s

// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME: %[[IN:[a-z0-9]+]]: memref<?x?xf32>, %[[OUT:[a-z0-9]+]]: memref<?x?xf32>)
// CHECK-NOT: bufferize.result
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[R:.*]] = memref.dim %[[IN]], %[[C0]]
// CHECK: %[[N:.*]] = memref.dim %[[IN]], %[[C1]]
// The op's own check comes first, then the out-parameter's sizes.
// CHECK: cf.assert %{{.*}}, "op rule"
// CHECK: %[[OR:.*]] = memref.dim %[[OUT]], %[[C0]]
// CHECK: %[[EQ0:.*]] = arith.cmpi eq, %[[OR]], %[[R]]
// CHECK: cf.assert %[[EQ0]], "result #0 has size %lld in dim 0, but the computation produces %lld" {tx.message_format}
// CHECK: %[[ON:.*]] = memref.dim %[[OUT]], %[[C1]]
// CHECK: %[[EQ1:.*]] = arith.cmpi eq, %[[ON]], %[[N]]
// CHECK: cf.assert %[[EQ1]], "result #0 has size %lld in dim 1, but the computation produces %lld" {tx.message_format}
// A temporary allocated before the result comes after the checks.
// CHECK: memref.alloc(%[[R]])
// CHECK-NOT: memref.alloc
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[OUT]] : memref<?x?xf32>)
// CHECK-NOT: memref.copy
// CHECK-NOT: memref.dealloc %[[OUT]]
// CHECK: return
func.func @dynamic(%arg0: memref<?x?xf32>, %arg1: memref<?x?xf32> {bufferize.result}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %r = memref.dim %arg0, %c0 : memref<?x?xf32>
  %n = memref.dim %arg0, %c1 : memref<?x?xf32>
  %ok = arith.cmpi sgt, %n, %c0 : index
  cf.assert %ok, "op rule"
  %tmp = memref.alloc(%r) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%tmp : memref<?xf32>)
  %a = memref.alloc(%r, %n) : memref<?x?xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<?x?xf32>)
  memref.copy %a, %arg1 : memref<?x?xf32> to memref<?x?xf32>
  memref.dealloc %a : memref<?x?xf32>
  return
}

// -----

// Static buffer behind a cast, dynamic out-parameter: the out-parameter is
// cast to the buffer's type; the static sizes are compared with constants.
// CHECK-LABEL: func.func @cast(
// CHECK-SAME: %[[IN:[a-z0-9]+]]: memref<4x?xf32>, %[[OUT:[a-z0-9]+]]: memref<?x128xf32>)
// CHECK: %[[N:.*]] = memref.dim %[[IN]]
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[D0:.*]] = memref.dim %[[OUT]], %{{.*}} : memref<?x128xf32>
// CHECK: arith.cmpi eq, %[[D0]], %[[C4]]
// CHECK: cf.assert {{.*}} "result #0 has size %lld in dim 0, but the computation produces %lld"
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: arith.cmpi eq, %[[C128]], %[[N]]
// CHECK: cf.assert {{.*}} "result #0 has size %lld in dim 1, but the computation produces %lld"
// CHECK: %[[V:.*]] = memref.cast %[[OUT]] : memref<?x128xf32> to memref<4x?xf32>
// CHECK: linalg.fill {{.*}} outs(%[[V]] : memref<4x?xf32>)
// CHECK-NOT: memref.copy
func.func @cast(%arg0: memref<4x?xf32>, %arg1: memref<?x128xf32> {bufferize.result}) {
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %n = memref.dim %arg0, %c1 : memref<4x?xf32>
  %a = memref.alloc(%n) : memref<4x?xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<4x?xf32>)
  %c = memref.cast %a : memref<4x?xf32> to memref<?x128xf32>
  memref.copy %c, %arg1 : memref<?x128xf32> to memref<?x128xf32>
  return
}

// -----

// One buffer returned twice, and an input returned: the first out-parameter
// takes the buffer, the other results stay copies (of the first result and
// of the input). Results are numbered among the out-parameters.
// CHECK-LABEL: func.func @twice(
// CHECK-SAME: %[[IN:[a-z0-9]+]]: memref<?xf32>, %[[O0:[a-z0-9]+]]: memref<?xf32>, %[[O1:[a-z0-9]+]]: memref<?xf32>, %[[O2:[a-z0-9]+]]: memref<?xf32>)
// CHECK: cf.assert {{.*}} "result #0 has size
// CHECK-NOT: memref.alloc
// CHECK: linalg.fill {{.*}} outs(%[[O0]]
// CHECK: memref.copy %[[O0]], %[[O1]]
// CHECK: memref.copy %[[IN]], %[[O2]]
func.func @twice(%arg0: memref<?xf32>, %arg1: memref<?xf32> {bufferize.result}, %arg2: memref<?xf32> {bufferize.result}, %arg3: memref<?xf32> {bufferize.result}) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %n = memref.dim %arg0, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<?xf32>)
  memref.copy %a, %arg1 : memref<?xf32> to memref<?xf32>
  memref.copy %a, %arg2 : memref<?xf32> to memref<?xf32>
  memref.copy %arg0, %arg3 : memref<?xf32> to memref<?xf32>
  return
}

// -----

// A buffer written after its copy keeps its copy; so does a buffer made in
// a nested region, and a private function's.
// CHECK-LABEL: func.func @written_after(
// CHECK-NOT: cf.assert
// CHECK: memref.alloc
// CHECK: memref.copy
// CHECK: linalg.fill
// CHECK-LABEL: func.func @nested(
// CHECK-NOT: cf.assert
// CHECK: memref.copy
// CHECK-LABEL: func.func private @private_fn(
// CHECK-NOT: cf.assert
// CHECK: memref.alloc
// CHECK: memref.copy
func.func @written_after(%arg0: memref<?xf32>, %arg1: memref<?xf32> {bufferize.result}) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %n = memref.dim %arg0, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  memref.copy %a, %arg1 : memref<?xf32> to memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<?xf32>)
  return
}
func.func @nested(%arg0: memref<?xf32>, %arg1: memref<?xf32> {bufferize.result}, %p: i1) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %arg0, %c0 : memref<?xf32>
  scf.if %p {
    %a = memref.alloc(%n) : memref<?xf32>
    memref.copy %a, %arg1 : memref<?xf32> to memref<?xf32>
  }
  return
}
func.func private @private_fn(%arg0: memref<?xf32>, %arg1: memref<?xf32> {bufferize.result}) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %arg0, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  memref.copy %a, %arg1 : memref<?xf32> to memref<?xf32>
  return
}

// -----

// Without the bufferize.result marks an out-parameter is named by position.
// CHECK-LABEL: func.func @unmarked(
// CHECK: "out-parameter (argument #1) has size %lld in dim 0, but the computation produces %lld"
func.func @unmarked(%arg0: memref<?xf32>, %arg1: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %arg0, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  memref.copy %a, %arg1 : memref<?xf32> to memref<?xf32>
  return
}
