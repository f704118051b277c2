// tx-tensor-map-params: the launches and kernels it refuses, each with a
// located error.
// RUN: not tx-opt %s --split-input-file --tx-tensor-map-params -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR

// One kernel, tensor maps at two different parameters.
module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @kern(%a: !llvm.ptr, %b: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  llvm.func @host(%p: !llvm.ptr) {
    %c1 = llvm.mlir.constant(1 : index) : i64
    %tm = llvm.alloca %c1 x !llvm.array<16 x i64> {alignment = 64 : i64, tx.tensor_map} : (i64) -> !llvm.ptr
    gpu.launch_func @k::@kern blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64 args(%tm : !llvm.ptr, %p : !llvm.ptr)
    // ERR: tensor-map-params-errors.mlir:[[@LINE+1]]:5: error: tx-tensor-map-params: kernel @k::@kern is launched with tensor maps at different parameters (mask 0x1 and 0x2)
    gpu.launch_func @k::@kern blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64 args(%p : !llvm.ptr, %tm : !llvm.ptr)
    llvm.return
  }
}

// -----

// Before the kernels are lowered (a gpu.func, not an llvm.func).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @kern(%a: !llvm.ptr) kernel {
      gpu.return
    }
  }
  llvm.func @host() {
    %c1 = llvm.mlir.constant(1 : index) : i64
    %tm = llvm.alloca %c1 x !llvm.array<16 x i64> {alignment = 64 : i64, tx.tensor_map} : (i64) -> !llvm.ptr
    // ERR: tensor-map-params-errors.mlir:[[@LINE+1]]:5: error: tx-tensor-map-params: the launch passes a tensor map, but its kernel @k::@kern is not an llvm.func with one parameter per operand (run the pass after convert-gpu-to-nvvm and gpu-to-llvm)
    gpu.launch_func @k::@kern blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64 args(%tm : !llvm.ptr)
    llvm.return
  }
}

// -----

module attributes {gpu.container_module} {
  // ERR: tensor-map-params-errors.mlir:[[@LINE+1]]:3: error: tx-tensor-map-params: txRuntimeTensorMapParamsNext must have the type '!llvm.func<void (i64)>', got '!llvm.func<void (i32)>'
  llvm.func @txRuntimeTensorMapParamsNext(i32)
  gpu.module @k {
    llvm.func @kern(%a: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  llvm.func @host() {
    %c1 = llvm.mlir.constant(1 : index) : i64
    %tm = llvm.alloca %c1 x !llvm.array<16 x i64> {alignment = 64 : i64, tx.tensor_map} : (i64) -> !llvm.ptr
    gpu.launch_func @k::@kern blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64 args(%tm : !llvm.ptr)
    llvm.return
  }
}
