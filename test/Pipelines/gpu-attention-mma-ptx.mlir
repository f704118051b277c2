// REQUIRES: ptxas
// The tensor-core flash kernel (tx-attention-to-gpu, tensor-cores=true, the
// default for f16 with head dims multiples of 16 up to 128) in PTX:
// mma.sync m16n8k16 with f32 accumulators for S = Q K^T and O += P V,
// ldmatrix x4 (Q and K fragments; .trans for V), ex2.approx.ftz for exp, cp.async global->shared
// copies, P converted to f16 pairs in registers; no local memory and no
// spills reported by ptxas. With tensor-cores=false the same op takes the
// CUDA-core kernel (no mma).
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa" | %python %tx_src/scripts/extract_ptx.py %t.ptx
// RUN: FileCheck %s --check-prefix=F16 < %t.ptx/f16_d64_causal_kernel.ptx
// RUN: FileCheck %s --check-prefix=D128 < %t.ptx/f16_d128_kernel.ptx
// RUN: FileCheck %s --check-prefix=BF16 < %t.ptx/bf16_d64_kernel.ptx
// RUN: %cuda_toolkit/bin/ptxas -arch=sm_90 -v %t.ptx/bf16_d64_kernel.ptx -o %t.4.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %cuda_toolkit/bin/ptxas -arch=sm_90 -v %t.ptx/f16_d64_causal_kernel.ptx -o %t.1.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %cuda_toolkit/bin/ptxas -arch=sm_90 -v %t.ptx/f16_d128_kernel.ptx -o %t.2.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa attention-tensor-cores=false" | %python %tx_src/scripts/extract_ptx.py %t.cc.ptx
// RUN: FileCheck %s --check-prefix=CUDACORE < %t.cc.ptx/f16_d64_causal_kernel.ptx
// Below sm_80 (no mma.sync f16 m16n8k16, no cp.async) the CUDA-core kernel is
// chosen; this used to abort in LLVM's instruction selection.
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa chip=sm_75" | %python %tx_src/scripts/extract_ptx.py %t.sm75.ptx
// RUN: FileCheck %s --check-prefix=SM75 < %t.sm75.ptx/f16_d64_causal_kernel.ptx
// SM75-NOT: mma.sync
// SM75-NOT: cp.async
// SM75: .target sm_75
// F16-NOT: .local
// F16-DAG: cp.async.cg.shared.global
// Whole tiles: one unpredicated cp.async per 16 bytes at constant offsets;
// the last tile of a row range: the predicated, zero-filling form.
// D128-DAG: cp.async.cg.shared.global [%rd{{[0-9]+}}+{{[0-9]+}}], [%rd{{[0-9]+}}+{{[0-9]+}}], 16;
// D128-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, %r{{[0-9]+}};
// F16-DAG: cp.async.wait
// F16-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// F16-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// F16-DAG: shfl.sync.bfly.b32
// F16-DAG: ex2.approx.ftz.f32
// F16-DAG: cvt.rn.f16x2.f32
// F16-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// F16-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// The exponent 2^(x - a), x = s * scale * log2(e) and a = max x, each
// product rounded on its own (never one FFMA: CASES.md H2/H3).
// F16-DAG: mul.rn.f32
// F16-DAG: add.rn.f32
// With a mask: per-tile key visibility flags (bytes written, words read by
// the copies), so keys hidden from every row of the CTA are never read.
// RUN: FileCheck %s --check-prefix=MASK < %t.ptx/f16_d64_mask_kernel.ptx
// RUN: %cuda_toolkit/bin/ptxas -arch=sm_90 -v %t.ptx/f16_d64_mask_kernel.ptx -o %t.3.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// MASK-NOT: .local
// MASK-DAG: st.shared.b8
// MASK-DAG: ld.shared.b32
// MASK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// D128-NOT: .local
// D128-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// D128-DAG: cvt.rn.f16x2.f32
// D128-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// bf16 takes the same kernel through nvvm.mma.sync (upstream's
// nvgpu.mma.sync lowering does not type bf16 operands in LLVM 22): P is
// converted to bf16 pairs.
// BF16-NOT: .local
// BF16-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BF16-DAG: cvt.rn.bf16x2.f32
// BF16-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CUDACORE-NOT: mma.sync
// CUDACORE: fma.rn.f32
func.func @f16_d64_causal(%q: tensor<2x8x200x64xf16>, %k: tensor<2x2x200x64xf16>, %v: tensor<2x2x200x64xf16>) -> tensor<2x8x200x64xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<2x8x200x64xf16>, tensor<2x2x200x64xf16>, tensor<2x2x200x64xf16> -> tensor<2x8x200x64xf16>
  return %0 : tensor<2x8x200x64xf16>
}
func.func @f16_d128(%q: tensor<1x4x100x128xf16>, %k: tensor<1x4x77x128xf16>, %v: tensor<1x4x77x128xf16>) -> tensor<1x4x100x128xf16> {
  %0 = tx.attention %q, %k, %v : tensor<1x4x100x128xf16>, tensor<1x4x77x128xf16>, tensor<1x4x77x128xf16> -> tensor<1x4x100x128xf16>
  return %0 : tensor<1x4x100x128xf16>
}
func.func @bf16_d64(%q: tensor<1x4x100x64xbf16>, %k: tensor<1x4x77x64xbf16>, %v: tensor<1x4x77x64xbf16>) -> tensor<1x4x100x64xbf16> {
  %0 = tx.attention %q, %k, %v : tensor<1x4x100x64xbf16>, tensor<1x4x77x64xbf16>, tensor<1x4x77x64xbf16> -> tensor<1x4x100x64xbf16>
  return %0 : tensor<1x4x100x64xbf16>
}
func.func @f16_d64_mask(%q: tensor<1x2x130x64xf16>, %k: tensor<1x2x257x64xf16>, %v: tensor<1x2x257x64xf16>, %m: tensor<1x2x130x257xi1>) -> tensor<1x2x130x64xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x2x130x257xi1>) : tensor<1x2x130x64xf16>, tensor<1x2x257x64xf16>, tensor<1x2x257x64xf16> -> tensor<1x2x130x64xf16>
  return %0 : tensor<1x2x130x64xf16>
}
