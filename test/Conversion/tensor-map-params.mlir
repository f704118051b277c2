// tx-tensor-map-params: a host llvm.alloca marked tx.tensor_map that a
// kernel takes becomes a 128-byte by-value parameter (byval, align 64,
// nvvm.grid_constant), the buffer is zeroed where it is made, and its launch
// asks the runtime to pass the bytes (txRuntimeTensorMapParamsNext with the
// parameter's bit).
// RUN: tx-opt %s --tx-tensor-map-params | FileCheck %s
// (Errors: tensor-map-params-errors.mlir.)

// CHECK-LABEL: gpu.module @k
// CHECK: llvm.func @kern(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<16 x i64>, nvvm.grid_constant}, %{{.*}}: i64)
// CHECK: llvm.func @host
// The buffer is zeroed where it is made (a map never encoded is all zero,
// which the runtime refuses to launch with):
// CHECK: %[[MAP:.*]] = llvm.alloca {{.*}} {alignment = 64 : i64, tx.tensor_map}
// CHECK-NEXT: %[[Z:.*]] = llvm.mlir.constant(0 : i8) : i8
// CHECK-NEXT: %[[N:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-NEXT: "llvm.intr.memset"(%[[MAP]], %[[Z]], %[[N]])
// CHECK: %[[MASK:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT: llvm.call @txRuntimeTensorMapParamsNext(%[[MASK]]) : (i64) -> ()
// CHECK-NEXT: gpu.launch_func @k::@kern
// Each launch has its own request (the runtime uses one up per launch).
// CHECK-NEXT: %[[MASK2:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT: llvm.call @txRuntimeTensorMapParamsNext(%[[MASK2]]) : (i64) -> ()
// CHECK-NEXT: gpu.launch_func @k::@kern
// A kernel without tensor maps (an alloca not marked tx.tensor_map):
// CHECK-NOT: txRuntimeTensorMapParamsNext
// CHECK: gpu.launch_func @k::@plain
module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @kern(%a: !llvm.ptr, %b: !llvm.ptr, %n: i64) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
    llvm.func @plain(%a: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  llvm.func @host(%p: !llvm.ptr, %n: i64) {
    %c1 = llvm.mlir.constant(1 : index) : i64
    %tm = llvm.alloca %c1 x !llvm.array<16 x i64> {alignment = 64 : i64, tx.tensor_map} : (i64) -> !llvm.ptr
    %other = llvm.alloca %c1 x !llvm.array<16 x i64> {alignment = 64 : i64} : (i64) -> !llvm.ptr
    gpu.launch_func @k::@kern blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64 args(%p : !llvm.ptr, %tm : !llvm.ptr, %n : i64)
    gpu.launch_func @k::@kern blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64 args(%p : !llvm.ptr, %tm : !llvm.ptr, %n : i64)
    gpu.launch_func @k::@plain blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64 args(%other : !llvm.ptr)
    llvm.return
  }
}

