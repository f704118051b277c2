// REQUIRES: ptxas
// format=bin embeds a cubin (ELF) assembled by the toolkit's ptxas; fatbin a
// fat binary. Both translate to LLVM IR that loads the image with
// mgpuModuleLoad (no JIT).
// RUN: tx-opt %s --tx-gpu-pipeline="format=bin toolkit=%cuda_toolkit" -o %t.bin.mlir
// RUN: FileCheck %s --check-prefix=BIN < %t.bin.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.bin.mlir | FileCheck %s --check-prefix=LLVM
// RUN: tx-opt %s --tx-gpu-pipeline="format=fatbin toolkit=%cuda_toolkit" | FileCheck %s --check-prefix=FATBIN

// BIN: gpu.binary @sm_kernel {{.*}}chip = "sm_90"{{.*}}bin = "\7FELF
// FATBIN: gpu.binary @sm_kernel {{.*}}chip = "sm_90"{{.*}}"P\EDU\BA
// LLVM-DAG: declare ptr @mgpuModuleLoad(ptr, i64)
// LLVM-DAG: declare void @mgpuLaunchKernel(ptr, i64, i64, i64, i64, i64, i64, i32, ptr, ptr, ptr, i64)
// LLVM-DAG: define void @_mlir_ciface_sm(ptr {{.*}}, ptr {{.*}})
// LLVM-DAG: @llvm.global_ctors

func.func @sm(%x: tensor<64x77xf32>) -> tensor<64x77xf32> attributes {llvm.emit_c_interface} {
  %0 = tx.softmax %x dim = 1 : tensor<64x77xf32>
  return %0 : tensor<64x77xf32>
}
