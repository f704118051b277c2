// tx-host-checks-to-errors: a host cf.assert reports through txRuntimeFail
// and returns early, freeing what the call has allocated so far; it never
// aborts.
// RUN: tx-opt %s --split-input-file --tx-host-checks-to-errors --verify-diagnostics | FileCheck %s

// CHECK-DAG: llvm.mlir.global internal constant @__tx_check_msg{{.*}}("plain: tx.attention: batch size of query and key differ\00")
// CHECK-DAG: llvm.func @txRuntimeFail(!llvm.ptr)
// CHECK-LABEL: func.func @plain(
// CHECK-SAME: %[[A:.*]]: index, %[[B:.*]]: index)
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[A]], %[[B]]
// CHECK: cf.cond_br %[[EQ]], ^[[OK:.*]], ^[[FAIL:.*]]
// CHECK: ^[[OK]]:
// CHECK-NEXT: return
// CHECK: ^[[FAIL]]:
// CHECK-NEXT: %[[MSG:.*]] = llvm.mlir.addressof @__tx_check_msg
// CHECK-NEXT: llvm.call @txRuntimeFail(%[[MSG]])
// CHECK-NEXT: return
// CHECK-NOT: abort
func.func @plain(%a: index, %b: index) {
  %eq = arith.cmpi eq, %a, %b : index
  cf.assert %eq, "tx.attention: batch size of query and key differ"
  return
}

// -----

// A size check of tx-results-in-place: the message (after the function's
// name) is formatted with the two sizes compared.
// CHECK-DAG: llvm.mlir.global internal constant @__tx_check_msg{{.*}}("sizes: result #0 has size %lld in dim 1, but the computation produces %lld\00")
// CHECK-DAG: llvm.func @snprintf(!llvm.ptr, i64, !llvm.ptr, ...) -> i32
// CHECK-LABEL: func.func @sizes(
// CHECK-SAME: %[[A:.*]]: index, %[[B:.*]]: index)
// CHECK: cf.cond_br
// CHECK-DAG: %[[X:.*]] = arith.index_cast %[[A]] : index to i64
// CHECK-DAG: %[[Y:.*]] = arith.index_cast %[[B]] : index to i64
// CHECK-DAG: llvm.alloca {{.*}} x !llvm.array<512 x i8>
// CHECK-DAG: %[[FMT:.*]] = llvm.mlir.addressof @__tx_check_msg
// CHECK: llvm.call @snprintf(%[[BUF:.*]], %{{.*}}, %[[FMT]], %[[X]], %[[Y]]) vararg(!llvm.func<i32 (ptr, i64, ptr, ...)>)
// CHECK: llvm.call @txRuntimeFail(%[[BUF]])
func.func @sizes(%a: index, %b: index) {
  %eq = arith.cmpi eq, %a, %b : index
  cf.assert %eq, "result #0 has size %lld in dim 1, but the computation produces %lld" {tx.message_format}
  return
}

// -----

// The failure path frees the buffers allocated on the way (not those freed
// already, not those allocated later), in their own form; a scalar result
// is returned as zero.
// CHECK-LABEL: func.func @frees(
// CHECK: %[[T:.*]] = gpu.wait async
// CHECK: %[[LIVE:.*]], %{{.*}} = gpu.alloc async [%[[T]]] (%{{.*}}) : memref<?xf32>
// CHECK: %[[DONE:.*]], %{{.*}} = gpu.alloc async
// CHECK: gpu.dealloc async [%{{.*}}] %[[DONE]]
// CHECK: %[[HOST:.*]] = memref.alloc(%{{.*}}) : memref<?xi32>
// CHECK: cf.cond_br %{{.*}}, ^[[OK:.*]], ^[[FAIL:.*]]
// CHECK: ^[[OK]]:
// CHECK: gpu.alloc async
// CHECK: return %{{.*}} : i32
// CHECK: ^[[FAIL]]:
// CHECK: llvm.call @txRuntimeFail
// CHECK-NEXT: memref.dealloc %[[HOST]]
// CHECK-NEXT: %[[W:.*]] = gpu.wait async
// CHECK-NEXT: %[[D:.*]] = gpu.dealloc async [%[[W]]] %[[LIVE]]
// CHECK-NEXT: gpu.wait [%[[D]]]
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: return %[[Z]] : i32
func.func @frees(%n: index, %ok: i1) -> i32 {
  %t0 = gpu.wait async
  %live, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
  gpu.wait [%t1]
  %t2 = gpu.wait async
  %done, %t3 = gpu.alloc async [%t2] (%n) : memref<?xf32>
  %t4 = gpu.dealloc async [%t3] %done : memref<?xf32>
  gpu.wait [%t4]
  %host = memref.alloc(%n) : memref<?xi32>
  cf.assert %ok, "rule"
  %t5 = gpu.wait async
  %later, %t6 = gpu.alloc async [%t5] (%n) : memref<?xf32>
  gpu.wait [%t6]
  %c1 = arith.constant 1 : i32
  return %c1 : i32
}

// -----

// A check inside a structured op cannot return early: an error.
func.func @nested(%p: i1, %ok: i1) {
  scf.if %p {
    // expected-error @+1 {{this run-time check is nested in 'scf.if'}}
    cf.assert %ok, "rule"
  }
  return
}
