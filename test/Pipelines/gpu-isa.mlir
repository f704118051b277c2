// The GPU pipeline compiles softmax and attention (the bundled examples and a
// dynamic-shape case) to PTX for sm_90: one .entry per gpu.binary, no device
// malloc or memrefCopy calls, host code fully in the LLVM dialect.
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa" -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: grep "gpu.binary @" %t.mlir | not grep -v "visible .entry"
// RUN: grep "gpu.binary @" %t.mlir | not grep "entry.*\.entry"
// RUN: grep "gpu.binary @" %t.mlir | not grep -v "target sm_90"
// RUN: grep -c "gpu.binary @" %t.mlir | FileCheck %s --check-prefix=NBIN
// RUN: not grep -E "malloc|memrefCopy|\bfree\b" %t.mlir
// RUN: tx-opt %tx_src/examples/softmax.mlir --tx-gpu-pipeline="format=isa" | FileCheck %s --check-prefix=EXAMPLE
// RUN: tx-opt %tx_src/examples/gpt2_attention.mlir --tx-gpu-pipeline="format=isa" | FileCheck %s --check-prefix=EXAMPLE
// RUN: tx-opt %tx_src/examples/llama3_gqa_attention.mlir --tx-gpu-pipeline="format=isa" | FileCheck %s --check-prefix=EXAMPLE
// The PTX version follows the chip: sm_90a needs PTX 8.0, sm_80 gets +ptx80.
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa chip=sm_90a" | FileCheck %s --check-prefix=SM90A
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa chip=sm_80 features=+ptx81" | FileCheck %s --check-prefix=SM80

// CHECK-NOT: tx.
// CHECK-NOT: linalg.
// CHECK-NOT: scf.
// CHECK-NOT: func.func
// CHECK-DAG: gpu.binary @softmax_dyn_kernel {{.*}}#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">{{.*}}assembly = "{{.*}}.version 8.0{{.*}}.target sm_90
// CHECK-DAG: gpu.binary @attention_kernel
// CHECK-DAG: llvm.func @softmax_dyn(
// CHECK-DAG: gpu.launch_func <%{{.*}} : !llvm.ptr> @softmax_dyn_kernel{{.*}}::@softmax_dyn_kernel blocks in
// CHECK-DAG: llvm.func @_mlir_ciface_softmax_dyn
// CHECK-DAG: llvm.func @attention(
// CHECK-DAG: gpu.launch_func <%{{.*}} : !llvm.ptr> @attention_kernel

// Two kernels for the fast softmax (vector and scalar fallback), one for the
// flash attention (D = 64); attention=simple gives one per parallel loop nest
// of the reference lowering (11).
// NBIN: 3
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa attention=simple" | grep -c "gpu.binary @attention_kernel" | FileCheck %s --check-prefix=NSIMPLE
// NSIMPLE: 11
// EXAMPLE: gpu.binary
// EXAMPLE: llvm.func @_mlir_ciface_
// SM90A: chip = "sm_90a", features = "+ptx80"{{.*}}.target sm_90a
// SM80: chip = "sm_80", features = "+ptx81"{{.*}}.version 8.1{{.*}}.target sm_80

func.func @softmax_dyn(%x: tensor<?x?xf16>) -> tensor<?x?xf16> attributes {llvm.emit_c_interface} {
  %0 = tx.softmax %x dim = -1 : tensor<?x?xf16>
  return %0 : tensor<?x?xf16>
}
func.func @attention(%q: tensor<2x8x33x64xbf16>, %k: tensor<2x2x77x64xbf16>, %v: tensor<2x2x77x64xbf16>, %m: tensor<2x1x33x77xi1>) -> tensor<2x8x33x64xbf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<2x1x33x77xi1>) causal : tensor<2x8x33x64xbf16>, tensor<2x2x77x64xbf16>, tensor<2x2x77x64xbf16> -> tensor<2x8x33x64xbf16>
  return %0 : tensor<2x8x33x64xbf16>
}
