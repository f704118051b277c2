// Fuzz finding (issue #14): tx-gpu-pipeline documents format=offload (LLVM
// IR) and tx-check-gpu-target accepted it, but upstream gpu-module-to-binary
// calls it "llvm" (or "offloading"): LLVM 22.1.8 printed "error: Invalid
// format specified." and still exited 0 with the gpu.module unserialized.
// The pipeline now passes upstream's name.
// RUN: tx-opt %s --tx-gpu-pipeline="format=offload" 2>&1 | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%tx_plugin %s --pass-pipeline="builtin.module(tx-gpu-pipeline{format=offload})" 2>&1 | FileCheck %s
// CHECK-NOT: error
// CHECK: gpu.binary @probs_kernel {{.*}}offload = "BC
// CHECK-NOT: error
func.func @probs(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
