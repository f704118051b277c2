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
    // ERR: tensor-map-params-errors.mlir:[[@LINE+1]]:5: error: tx-tensor-map-params: kernel @k::@kern is launched with tensor maps at different parameters (mask 0x1 and 0x2; each tensor map operand must be an tx.tensor_map buffer)
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

// -----

// A launch that passes a plain pointer where another launch of the same
// kernel passes a tensor map: the kernel would read 128 bytes from an
// 8-byte slot.
module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @kern(%a: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  llvm.func @host(%p: !llvm.ptr) {
    %c1 = llvm.mlir.constant(1 : index) : i64
    // ERR: tensor-map-params-errors.mlir:[[@LINE+1]]:5: error: tx-tensor-map-params: kernel @k::@kern is launched with tensor maps at different parameters (mask 0x1 and 0x0; each tensor map operand must be an tx.tensor_map buffer)
    gpu.launch_func @k::@kern blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64 args(%p : !llvm.ptr)
    %tm = llvm.alloca %c1 x !llvm.array<16 x i64> {alignment = 64 : i64, tx.tensor_map} : (i64) -> !llvm.ptr
    // ERR: tensor-map-params-errors.mlir:[[@LINE+1]]:5: note: the other launch
    gpu.launch_func @k::@kern blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64 args(%tm : !llvm.ptr)
    llvm.return
  }
}

// -----

// A buffer that is not 128 bytes aligned to 64.
module attributes {gpu.container_module} {
  llvm.func @host() {
    %c1 = llvm.mlir.constant(1 : index) : i64
    // ERR: tensor-map-params-errors.mlir:[[@LINE+1]]:11: error: tx-tensor-map-params: a tx.tensor_map buffer must be one '!llvm.array<16 x i64>' (128 bytes) aligned to a multiple of 64 bytes
    %tm = llvm.alloca %c1 x i64 {alignment = 8 : i64, tx.tensor_map} : (i64) -> !llvm.ptr
    llvm.return
  }
}

// -----

// ERR: tensor-map-params-errors.mlir:[[@LINE+4]]:11: error: tx-tensor-map-params: a tx.tensor_map buffer must be one '!llvm.array<16 x i64>' (128 bytes) aligned to a multiple of 64 bytes
module attributes {gpu.container_module} {
  llvm.func @host() {
    %c2 = llvm.mlir.constant(2 : index) : i64
    %tm = llvm.alloca %c2 x !llvm.array<16 x i64> {alignment = 64 : i64, tx.tensor_map} : (i64) -> !llvm.ptr
    llvm.return
  }
}

// -----

// A tensor map past the first 64 parameters.
module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @kern(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: !llvm.ptr, %a3: !llvm.ptr, %a4: !llvm.ptr, %a5: !llvm.ptr, %a6: !llvm.ptr, %a7: !llvm.ptr, %a8: !llvm.ptr, %a9: !llvm.ptr, %a10: !llvm.ptr, %a11: !llvm.ptr, %a12: !llvm.ptr, %a13: !llvm.ptr, %a14: !llvm.ptr, %a15: !llvm.ptr, %a16: !llvm.ptr, %a17: !llvm.ptr, %a18: !llvm.ptr, %a19: !llvm.ptr, %a20: !llvm.ptr, %a21: !llvm.ptr, %a22: !llvm.ptr, %a23: !llvm.ptr, %a24: !llvm.ptr, %a25: !llvm.ptr, %a26: !llvm.ptr, %a27: !llvm.ptr, %a28: !llvm.ptr, %a29: !llvm.ptr, %a30: !llvm.ptr, %a31: !llvm.ptr, %a32: !llvm.ptr, %a33: !llvm.ptr, %a34: !llvm.ptr, %a35: !llvm.ptr, %a36: !llvm.ptr, %a37: !llvm.ptr, %a38: !llvm.ptr, %a39: !llvm.ptr, %a40: !llvm.ptr, %a41: !llvm.ptr, %a42: !llvm.ptr, %a43: !llvm.ptr, %a44: !llvm.ptr, %a45: !llvm.ptr, %a46: !llvm.ptr, %a47: !llvm.ptr, %a48: !llvm.ptr, %a49: !llvm.ptr, %a50: !llvm.ptr, %a51: !llvm.ptr, %a52: !llvm.ptr, %a53: !llvm.ptr, %a54: !llvm.ptr, %a55: !llvm.ptr, %a56: !llvm.ptr, %a57: !llvm.ptr, %a58: !llvm.ptr, %a59: !llvm.ptr, %a60: !llvm.ptr, %a61: !llvm.ptr, %a62: !llvm.ptr, %a63: !llvm.ptr, %a64: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  llvm.func @host(%p: !llvm.ptr) {
    %c1 = llvm.mlir.constant(1 : index) : i64
    %tm = llvm.alloca %c1 x !llvm.array<16 x i64> {alignment = 64 : i64, tx.tensor_map} : (i64) -> !llvm.ptr
    // ERR: tensor-map-params-errors.mlir:[[@LINE+1]]:5: error: tx-tensor-map-params: kernel operand 64 is a tensor map; tensor maps must be among the first 64 parameters
    gpu.launch_func @k::@kern blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64 args(%p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %p : !llvm.ptr, %tm : !llvm.ptr)
    llvm.return
  }
}

// -----

// The runtime entry's name taken by another kind of op.
module attributes {gpu.container_module} {
  // ERR: tensor-map-params-errors.mlir:[[@LINE+1]]:3: error: tx-tensor-map-params: the symbol txRuntimeTensorMapParamsNext is taken by an op that is not an llvm.func
  func.func private @txRuntimeTensorMapParamsNext(i64)
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

// -----

// The kernel takes the tensor map's parameter as another type.
module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @kern(%a: i64) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  llvm.func @host() {
    %c1 = llvm.mlir.constant(1 : index) : i64
    %tm = llvm.alloca %c1 x !llvm.array<16 x i64> {alignment = 64 : i64, tx.tensor_map} : (i64) -> !llvm.ptr
    // ERR: tensor-map-params-errors.mlir:[[@LINE+1]]:5: error: tx-tensor-map-params: parameter 0 of kernel @k::@kern takes a tensor map but has type 'i64', not !llvm.ptr
    gpu.launch_func @k::@kern blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64 args(%tm : !llvm.ptr)
    llvm.return
  }
}
