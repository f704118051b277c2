// Fuzz finding (issue #14), the part tx-check-dims cannot see: a memref.dim
// whose index becomes a negative constant only while canonicalize folds (or
// any canonicalize run on such IR once the gpu dialect is loaded) hit the
// same out-of-bounds read in LLVM 22's gpu SimplifyDimOfAllocOp. tx loads
// itself with the gpu dialect and its canonicalization replaces the dim (UB)
// by ub.poison first: no crash, in tx-opt and in mlir-opt with the plugin.
// RUN: tx-opt %s --canonicalize --gpu-launch-sink-index-computations | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%tx_plugin %s --pass-pipeline="builtin.module(canonicalize,gpu-launch-sink-index-computations)" | FileCheck %s

// CHECK-LABEL: func.func @folded_later
// CHECK: %[[P:.*]] = ub.poison : index
// CHECK: return %[[P]]
func.func @folded_later(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %i = affine.apply affine_map<(d0) -> (d0 - 5)>(%c0)
  %a = memref.alloc(%n) : memref<?xf32>
  %d = memref.dim %a, %i : memref<?xf32>
  return %d : index
}

// An index in range is still folded by upstream's patterns.
// CHECK-LABEL: func.func @in_range
// CHECK-SAME: (%[[N:.*]]: index)
// CHECK: return %[[N]]
func.func @in_range(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %a = gpu.alloc(%n) : memref<?xf32>
  %d = memref.dim %a, %c0 : memref<?xf32>
  return %d : index
}
