// A tensor map made on the host (an llvm.alloca marked tx.tensor_map, filled
// by txRuntimeEncodeTensorMap) and used by a kernel's cp.async.bulk.tensor
// reaches the PTX as a 128-byte by-value parameter read in place, and its
// launch asks the runtime to pass the bytes (tx-tensor-map-params in
// tx-gpu-pipeline). The shared::cta form of the bulk tensor copy needs PTX
// 8.6 in LLVM 22.
// RUN: tx-opt %s --tx-gpu-pipeline="chip=sm_90 format=isa features=+ptx86" | FileCheck %s

// The map is parameter 0: mask 1 (constants are hoisted and merged).
// CHECK: %[[ONE:[0-9]+]] = llvm.mlir.constant(1 : i64) : i64
// CHECK: "llvm.intr.memset"(%[[MAP:[0-9]+]],
// CHECK: llvm.call @txRuntimeEncodeTensorMap(%[[MAP]],
// CHECK: llvm.call @txRuntimeTensorMapParamsNext(%[[ONE]]) : (i64) -> ()
// CHECK-NEXT: gpu.launch_func {{.*}}@f_kernel::@f_kernel {{.*}} args(%[[MAP]] : !llvm.ptr,
// CHECK: gpu.binary @f_kernel
// CHECK-SAME: .param .align 64 .b8 f_kernel_param_0[128]
// CHECK-SAME: cvta.param.u64
// CHECK-SAME: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
func.func private @txRuntimeEncodeTensorMap(!llvm.ptr, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
func.func @f(%x: memref<8x64xf16>, %y: memref<8x64xf16>) {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i64
  %tm = llvm.alloca %one x !llvm.array<16 x i64> {alignment = 64 : i64, tx.tensor_map} : (i64) -> !llvm.ptr
  %c0i = arith.constant 0 : i64
  %c6 = arith.constant 6 : i64
  %c2 = arith.constant 2 : i64
  %c8 = arith.constant 8 : i64
  %c64 = arith.constant 64 : i64
  %c128 = arith.constant 128 : i64
  %c3 = arith.constant 3 : i64
  %base = memref.extract_aligned_pointer_as_index %x : memref<8x64xf16> -> index
  %bi = arith.index_cast %base : index to i64
  %bp = llvm.inttoptr %bi : i64 to !llvm.ptr
  func.call @txRuntimeEncodeTensorMap(%tm, %c6, %c2, %bp, %c64, %c8, %one, %one, %one, %c128, %c0i, %c0i, %c0i, %c64, %c8, %one, %one, %one, %c3) : (!llvm.ptr, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %z = arith.constant 0 : i32
    %smem = llvm.mlir.zero : !llvm.ptr<3>
    %bar = llvm.mlir.zero : !llvm.ptr<3>
    nvvm.cp.async.bulk.tensor.shared.cluster.global %smem, %tm, %bar, box[%z, %z] {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
    %v = memref.load %x[%c1, %c1] : memref<8x64xf16>
    memref.store %v, %y[%c1, %c1] : memref<8x64xf16>
    gpu.terminator
  }
  return
}
