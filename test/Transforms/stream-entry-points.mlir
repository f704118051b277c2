// tx-stream-entry-points: <f>_on_stream(args..., stream) -> i32 beside every
// public function with a C interface.
// RUN: tx-opt %s --split-input-file --tx-stream-entry-points --verify-diagnostics | FileCheck %s

// CHECK-DAG: llvm.func @txRuntimeBeginCall(!llvm.ptr)
// CHECK-DAG: llvm.func @txRuntimeEndCall() -> i32
// CHECK-LABEL: func.func @f(
// CHECK-LABEL: func.func @f_on_stream(
// CHECK-SAME: %[[X:.*]]: memref<?x?xf32>, %[[Y:.*]]: memref<?x?xf32>, %[[S:.*]]: !llvm.ptr) -> i32 attributes {llvm.emit_c_interface}
// CHECK-NEXT: llvm.call @txRuntimeBeginCall(%[[S]]) : (!llvm.ptr) -> ()
// CHECK-NEXT: call @f(%[[X]], %[[Y]]) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
// CHECK-NEXT: %[[RC:.*]] = llvm.call @txRuntimeEndCall() : () -> i32
// CHECK-NEXT: return %[[RC]] : i32
// Neither without a C interface nor for a private function.
// CHECK-NOT: func.func @g_on_stream
// CHECK-NOT: func.func @h_on_stream
func.func @f(%x: memref<?x?xf32>, %y: memref<?x?xf32>) attributes {llvm.emit_c_interface} {
  return
}
func.func @g(%x: memref<?x?xf32>) {
  return
}
func.func private @h(%x: memref<?x?xf32>) attributes {llvm.emit_c_interface} {
  return
}

// -----

// expected-warning @+1 {{no _on_stream entry point for a function with results that are not buffers}}
func.func @scalar(%x: memref<?xf32>) -> i32 attributes {llvm.emit_c_interface} {
  %c = arith.constant 0 : i32
  return %c : i32
}

// -----

// expected-error @+1 {{cannot add 'k_on_stream': the symbol exists}}
func.func @k(%x: memref<?xf32>) attributes {llvm.emit_c_interface} {
  return
}
func.func @k_on_stream() {
  return
}
