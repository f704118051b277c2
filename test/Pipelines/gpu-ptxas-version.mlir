// REQUIRES: ptxas
// Case G4: a PTX version newer than the installed ptxas accepts is one error
// naming both versions (CUDA 13.0's ptxas accepts PTX up to 9.0).
// RUN: not tx-opt %s --tx-gpu-pipeline="format=bin features=+ptx99 toolkit=%cuda_toolkit" 2>&1 | FileCheck %s
// Old chips that CUDA 13's ptxas dropped are refused up front, not in ptxas.
// RUN: not tx-opt %s --tx-gpu-pipeline="format=bin chip=sm_70 toolkit=%cuda_toolkit" 2>&1 | FileCheck %s --check-prefix=OLD
// CHECK: error: tx-gpu-pipeline: PTX 9.9 was requested but the installed {{.*}}/bin/ptxas accepts at most PTX {{[0-9]+\.[0-9]}}
// CHECK-NOT: error
// OLD: error: tx-gpu-pipeline: the installed {{.*}}ptxas (CUDA 13 or later) no longer compiles for sm_70 (sm_75 or newer needed); use format=isa or an older toolkit

func.func @sm(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tx.softmax %x dim = 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
