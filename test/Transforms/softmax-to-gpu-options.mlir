// Options are checked even when the input has no tx.softmax.
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-softmax-to-gpu{block-size=33}))" 2>&1 | FileCheck %s
// RUN: not tx-opt %s --tx-gpu-pipeline="softmax-block-size=33 format=isa" 2>&1 | FileCheck %s
// CHECK: error: tx-softmax-to-gpu: block-size must be 0 or a power of two in [32, 1024], got 33
// CHECK-NOT: see current operation
func.func @no_softmax(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
