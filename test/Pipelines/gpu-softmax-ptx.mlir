// REQUIRES: ptxas
// The fast softmax in PTX: 128-bit global loads and stores (ld.global.v4 for
// 4 x f32 and for 8 x f16 as 4 x b32), shfl.sync reductions, exp as
// ex2.approx.ftz (one MUFU.EX2; never the non-ftz form, which ptxas expands
// with a range test and scalings), and no local-memory spills in ptxas -v.
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa" | %python %tx_src/scripts/extract_ptx.py %t.ptx
// RUN: FileCheck %s --check-prefix=F32 < %t.ptx/f32_kernel.ptx
// RUN: FileCheck %s --check-prefix=F16 < %t.ptx/f16_kernel.ptx
// RUN: %cuda_toolkit/bin/ptxas -arch=sm_90 -v %t.ptx/f32_kernel.ptx -o %t.f32.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %cuda_toolkit/bin/ptxas -arch=sm_90 -v %t.ptx/f16_kernel.ptx -o %t.f16.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// F32: ld.global.v4.b32
// F32: shfl.sync.bfly.b32
// F32-NOT: ex2.approx.f32
// F32: ex2.approx.ftz.f32
// F32-NOT: ex2.approx.f32
// F32: st.global.v4.b32
// F16: ld.global.v4.b32
// F16: cvt.f32.f16
// F16: ex2.approx.ftz.f32
// F16: shfl.sync.bfly.b32
// F16: st.global.v4.b32
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @f32(%x: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<256x1024xf32>
  return %0 : tensor<256x1024xf32>
}
func.func @f16(%x: tensor<64x4096xf16>) -> tensor<64x4096xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<64x4096xf16>
  return %0 : tensor<64x4096xf16>
}
