// Fuzz finding (issue #14): tx-cpu-pipeline on a module that already holds GPU
// code (here from tx-softmax-to-gpu: gpu.launch, workgroup buffers, shuffles)
// printed "error: conversion of memref memory space ... failed" from an
// upstream type conversion, left the GPU ops in its output and exited 0.
// tx-check-lowered, the last pass of both pipelines, now fails the run and
// names what was left.
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-softmax-to-gpu),tx-cpu-pipeline)" 2>&1 | FileCheck %s
// RUN: not mlir-opt --load-dialect-plugin=%tx_plugin %s --pass-pipeline="builtin.module(func.func(tx-softmax-to-gpu),tx-cpu-pipeline)" 2>&1 | FileCheck %s
// RUN: not tx-opt %s --tx-check-lowered 2>&1 | FileCheck %s --check-prefix=RAW
// CHECK: cpu-pipeline-gpu-input.mlir:[[@LINE+3]]:9: error: tx-cpu-pipeline: 'gpu.launch' was not lowered (the output must be the LLVM dialect only): an earlier error, or an op this pipeline does not compile, left it; also left: {{.*}}gpu.shuffle
// RAW: cpu-pipeline-gpu-input.mlir:[[@LINE+1]]:1: error: the pipeline: 'func.func' was not lowered (the output must be the LLVM dialect only)
func.func @f0(%x0: tensor<33xf32>, %x1: tensor<?xbf16>) -> (tensor<33xf32>, tensor<?xbf16>) attributes {llvm.emit_c_interface} {
  %t1 = tx.softmax %x0 dim = -1 : tensor<33xf32>
  %t2 = tx.softmax %x1 dim = 0 : tensor<?xbf16>
  return %t1, %t2 : tensor<33xf32>, tensor<?xbf16>
}
