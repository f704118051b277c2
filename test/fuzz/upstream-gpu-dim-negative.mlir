// The upstream half of the issue #14 crash (LLVM 22.1.8): with the gpu
// dialect loaded, canonicalize segfaults on a memref.dim of an alloc whose
// constant index is negative (gpu's SimplifyDimOfAllocOp checks only
// index < rank). Debian's mlir-opt alone crashes; tx-opt and mlir-opt with
// TxPlugin.so do not (tx's canonicalization pattern, TxDialect.cpp; see
// dim-negative-canonicalize.mlir). This test fails once a new LLVM fixes it.
// UNSUPPORTED: tx-sanitize
// RUN: not --crash mlir-opt %s --canonicalize --gpu-launch-sink-index-computations 2>&1 | FileCheck %s
// RUN: tx-opt %s --canonicalize --gpu-launch-sink-index-computations | FileCheck %s --check-prefix=TX
// RUN: mlir-opt --load-dialect-plugin=%tx_plugin %s --canonicalize --gpu-launch-sink-index-computations | FileCheck %s --check-prefix=TX
// CHECK: PLEASE submit a bug report
// TX: ub.poison : index
func.func @f(%n: index) -> index {
  %c = arith.constant -5 : index
  %a = memref.alloc(%n) : memref<?xf32>
  %d = memref.dim %a, %c : memref<?xf32>
  return %d : index
}
