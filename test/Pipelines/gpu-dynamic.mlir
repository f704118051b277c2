// Case A6: fully dynamic attention (and GQA with dynamic head counts)
// compiles through the GPU pipeline without a crash, host code checking the
// run-time shape rules: a failed rule reports through txRuntimeFail and
// returns, it never aborts (docs/ABI.md).
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa" -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: not grep -E "@abort|@puts" %t.mlir
// CHECK-DAG: llvm.func @_mlir_ciface_attn_dyn(
// CHECK-DAG: llvm.func @_mlir_ciface_attn_mask_causal_dyn(
// CHECK-DAG: gpu.binary @attn_dyn_kernel
// CHECK-DAG: llvm.call @txRuntimeFail(
// CHECK-DAG: "attn_mask_causal_dyn: tx.attention: mask key length differs from Sk: %lld vs %lld\00"
func.func @attn_dyn(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %0 = tx.attention %q, %k, %v : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}
func.func @attn_mask_causal_dyn(%q: tensor<?x?x?x?xf16>, %k: tensor<?x?x?x?xf16>, %v: tensor<?x?x?x?xf16>, %m: tensor<?x?x?x?xi1>) -> tensor<?x?x?x?xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xi1>) causal : tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16> -> tensor<?x?x?x?xf16>
  return %0 : tensor<?x?x?x?xf16>
}
