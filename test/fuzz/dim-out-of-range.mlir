// Fuzz finding (issue #14): `tensor.dim` of a tx.attention result with a
// constant index out of range (-5) killed tx-gpu-pipeline with a segmentation
// fault: after bufferization it is a `memref.dim` of a `memref.alloc`, and
// LLVM 22's gpu dialect canonicalization (SimplifyDimOfAllocOp, registered by
// gpu.alloc and so active whenever the gpu dialect is loaded) checks only
// `index < rank` before indexing the shape with it. tx-check-dims (first in
// both pipelines) now rejects it with a located diagnostic, also when the
// index is computed (integer range analysis); tx-opt, the plugin and every
// pipeline give the same error.
// RUN: not tx-opt %s --split-input-file --tx-gpu-pipeline="format=isa" 2>&1 | FileCheck %s
// RUN: not tx-opt %s --split-input-file --tx-gpu-pipeline="format=isa chip=sm_90a" 2>&1 | FileCheck %s
// RUN: not tx-opt %s --split-input-file --tx-cpu-pipeline 2>&1 | FileCheck %s
// RUN: not tx-opt %s --split-input-file --tx-cpu-pipeline="attention=tiled softmax=tiled" 2>&1 | FileCheck %s
// RUN: not tx-opt %s --split-input-file --tx-check-dims 2>&1 | FileCheck %s
// RUN: not mlir-opt --load-dialect-plugin=%tx_plugin %s --split-input-file --pass-pipeline="builtin.module(tx-gpu-pipeline{format=isa})" 2>&1 | FileCheck %s

func.func @attn_dyn(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> index {
  %0 = tx.attention %q, %k, %v : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  %c = arith.constant -5 : index
  // CHECK: dim-out-of-range.mlir:[[@LINE+1]]:8: error: 'tensor.dim' op index -5 is out of range for a value of rank 4; expected 0..3
  %d = tensor.dim %0, %c : tensor<?x?x?x?xf32>
  return %d : index
}

// -----

// The minimized fuzz input (static shapes, a tensor.empty operand).
func.func @f0(%q0: tensor<0x2x65x3xbf16>, %k1: tensor<0x1x65x3xbf16>) -> index {
  %t1 = tensor.empty() : tensor<0x1x65x3xbf16>
  %t2 = tx.attention %q0, %k1, %t1 : tensor<0x2x65x3xbf16>, tensor<0x1x65x3xbf16>, tensor<0x1x65x3xbf16> -> tensor<0x2x65x3xbf16>
  %t3 = arith.constant -5 : index
  // CHECK: dim-out-of-range.mlir:[[@LINE+1]]:9: error: 'tensor.dim' op index -5 is out of range for a value of rank 4; expected 0..3
  %t4 = tensor.dim %t2, %t3 : tensor<0x2x65x3xbf16>
  return %t4 : index
}

// -----

// Past the rank.
func.func @softmax_past_rank(%x: tensor<?x4xf32>) -> index {
  %c2 = arith.constant 2 : index
  %0 = tx.softmax %x dim = -1 : tensor<?x4xf32>
  // CHECK: dim-out-of-range.mlir:[[@LINE+1]]:8: error: 'tensor.dim' op index 2 is out of range for a value of rank 2; expected 0..1
  %d = tensor.dim %0, %c2 : tensor<?x4xf32>
  return %d : index
}

// -----

// An index known only by its range (upstream's integer range analysis).
func.func @computed(%x: tensor<?x4xf32>, %b: i1) -> index {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %s = arith.select %b, %c5, %c7 : index
  %i = arith.subi %c0, %s : index
  %0 = tx.softmax %x dim = -1 : tensor<?x4xf32>
  // CHECK: dim-out-of-range.mlir:[[@LINE+1]]:8: error: 'tensor.dim' op index (always in [-7, -5]) is out of range for a value of rank 2; expected 0..1
  %d = tensor.dim %0, %i : tensor<?x4xf32>
  return %d : index
}
