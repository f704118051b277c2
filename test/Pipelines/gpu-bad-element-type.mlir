// An unsupported element type reaching the GPU pipeline is a located
// diagnostic and a non-zero exit, not a crash or a partial module.
// RUN: not tx-opt %s --tx-gpu-pipeline="format=isa" -o %t 2>&1 | FileCheck %s
// RUN: not test -s %t
// CHECK: gpu-bad-element-type.mlir:[[@LINE+3]]:8: error: 'tx.softmax' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<4x8xf64>'
// CHECK-NOT: Stack dump
func.func @f(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %0 = tx.softmax %x dim = 1 : tensor<4x8xf64>
  return %0 : tensor<4x8xf64>
}
