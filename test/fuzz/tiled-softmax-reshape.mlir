// Found by txfuzz.py (seed 11) after the GPU path of tx.softmax moved onto
// the tiled IR: a dynamic rank-4 softmax (here of an attention output) made
// tx-gpu-pipeline segfault in upstream expand-strided-metadata on the
// memref.expand_shape of the [R, N] result, and a static B = 0 attention
// returned with its softmax gave two identical tensor.empty results that CSE
// merged, on which upstream's buffer-results-to-out-params segfaults
// (LLVM 22.1.8). Now the softmax result is allocated in the op's shape (the
// kernels write an [R, N] view) and empty results are allocations.
// RUN: tx-opt %s --split-input-file --tx-gpu-pipeline="format=isa" | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%tx_plugin %s --split-input-file --pass-pipeline="builtin.module(tx-gpu-pipeline{format=isa})" | FileCheck %s

// CHECK-LABEL: llvm.func @rank4_dynamic
// CHECK: gpu.binary
func.func @rank4_dynamic(%q: tensor<?x?x?x?xf16>, %k: tensor<?x?x?x?xf16>, %v: tensor<?x?x?x?xf16>) -> (tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16>) attributes {llvm.emit_c_interface} {
  %t1 = tx.attention %q, %k, %v softcap = 30.0 window = [3, 3] : tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16> -> tensor<?x?x?x?xf16>
  %t2 = tx.softmax %t1 dim = -1 : tensor<?x?x?x?xf16>
  return %t1, %t2 : tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16>
}

// -----

// CHECK-LABEL: llvm.func @empty_twice
func.func @empty_twice(%q: tensor<0x3x2x?xf16>, %k: tensor<0x?x?x?xf16>, %v: tensor<0x?x?x64xf16>, %m: tensor<1x1x2x?xf16>) -> (tensor<0x3x2x64xf16>, tensor<0x3x2x64xf16>) {
  %t1 = tx.attention %q, %k, %v mask(%m : tensor<1x1x2x?xf16>) scale = 1.0e-03 causal : tensor<0x3x2x?xf16>, tensor<0x?x?x?xf16>, tensor<0x?x?x64xf16> -> tensor<0x3x2x64xf16>
  %t2 = tx.softmax %t1 dim = -1 : tensor<0x3x2x64xf16>
  return %t1, %t2 : tensor<0x3x2x64xf16>, tensor<0x3x2x64xf16>
}
