// Case A6: fully dynamic attention (and GQA with dynamic head counts)
// compiles through the GPU pipeline without a crash, host code asserting the
// run-time shape rules.
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa" | FileCheck %s
// CHECK-DAG: llvm.func @_mlir_ciface_attn_dyn(
// CHECK-DAG: llvm.func @_mlir_ciface_attn_mask_causal_dyn(
// CHECK-DAG: gpu.binary @attn_dyn_kernel
// CHECK-DAG: llvm.call @abort()
func.func @attn_dyn(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %0 = tx.attention %q, %k, %v : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}
func.func @attn_mask_causal_dyn(%q: tensor<?x?x?x?xf16>, %k: tensor<?x?x?x?xf16>, %v: tensor<?x?x?x?xf16>, %m: tensor<?x?x?x?xi1>) -> tensor<?x?x?x?xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xi1>) causal : tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16> -> tensor<?x?x?x?xf16>
  return %0 : tensor<?x?x?x?xf16>
}
