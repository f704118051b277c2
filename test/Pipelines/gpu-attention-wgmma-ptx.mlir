// REQUIRES: ptxas
// The sm_90a warpgroup-MMA flash kernel (f16 and bf16; tx-attention-to-gpu wgmma=true,
// which tx-gpu-pipeline sets for chip=sm_90a) in PTX: S = Q K^T as
// wgmma.mma_async m64nNk16 with both operands from shared-memory descriptors,
// O += P V as m64n64k16 with P in registers (f16x2) and V transposed
// (imm-trans-b = 1); K/V copied with cp.async and made visible to the async
// proxy with fence.proxy.async; no local memory and no spills reported by
// ptxas (except the warp-specialized D = 128 kernel, whose producers spill
// a few bytes at 24 registers: WS below). The same op for chip=sm_90 takes
// the mma.sync kernel, and
// attention-wgmma=false keeps sm_90a on mma.sync too.
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa chip=sm_90a" | %python %tx_src/scripts/extract_ptx.py %t.ptx
// RUN: FileCheck %s --check-prefix=D64 < %t.ptx/f16_d64_causal_kernel.ptx
// RUN: FileCheck %s --check-prefix=D128 < %t.ptx/f16_d128_kernel.ptx
// RUN: FileCheck %s --check-prefix=MMA < %t.ptx/f16_d80_kernel.ptx
// RUN: FileCheck %s --check-prefix=BF16 < %t.ptx/bf16_d64_kernel.ptx
// A mask operand above head dim 64 takes 64 keys per step (128 spill).
// RUN: FileCheck %s --check-prefix=MASK < %t.ptx/f16_d128_mask_kernel.ptx
// RUN: %cuda_toolkit/bin/ptxas -arch=sm_90a -v %t.ptx/f16_d128_mask_kernel.ptx -o %t.4.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// MASK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// RUN: %cuda_toolkit/bin/ptxas -arch=sm_90a -v %t.ptx/bf16_d64_kernel.ptx -o %t.3.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %cuda_toolkit/bin/ptxas -arch=sm_90a -v %t.ptx/f16_d64_causal_kernel.ptx -o %t.1.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %cuda_toolkit/bin/ptxas -arch=sm_90a -v %t.ptx/f16_d128_kernel.ptx -o %t.2.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS-WS
// attention-stages=3: the step loop waits for all but the newest cp.async
// group (wait_group 1; with 2 stages it waits for all: 0).
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa chip=sm_90a attention-stages=3" | %python %tx_src/scripts/extract_ptx.py %t.s3.ptx
// RUN: FileCheck %s --check-prefix=STAGES3 < %t.s3.ptx/f16_d64_causal_kernel.ptx
// RUN: FileCheck %s --check-prefix=STAGES2 < %t.ptx/f16_d64_causal_kernel.ptx
// STAGES3: cp.async.wait_group 1;
// STAGES2-NOT: cp.async.wait_group 1;
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa chip=sm_90" | %python %tx_src/scripts/extract_ptx.py %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=MMA < %t.sm90.ptx/f16_d64_causal_kernel.ptx
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa chip=sm_90a attention-wgmma=false" | %python %tx_src/scripts/extract_ptx.py %t.off.ptx
// RUN: FileCheck %s --check-prefix=MMA < %t.off.ptx/f16_d128_kernel.ptx
// Copies of whole tiles (every row below the limit) are one cp.async each at
// constant offsets, without the zero-fill size operand; the last tile of a
// row range keeps the predicated, zero-filling form.
// RUN: FileCheck %s --check-prefix=COPIES < %t.ptx/f16_d128_kernel.ptx
// COPIES-DAG: cp.async.cg.shared.global [%rd{{[0-9]+}}+{{[0-9]+}}], [%rd{{[0-9]+}}+{{[0-9]+}}], 16;
// COPIES-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, %r{{[0-9]+}};
// D64: .target sm_90a
// D64-NOT: .local
// D64-DAG: cp.async.cg.shared.global
// D64-DAG: fence.proxy.async.shared::cta
// D64-DAG: wgmma.fence.sync.aligned
// D64-DAG: wgmma.commit_group.sync.aligned
// D64-DAG: wgmma.wait_group.sync.aligned 0
// D64-DAG: cvt.rn.f16x2.f32
// D64-DAG: ex2.approx.ftz.f32
// The exponent is 2^(x - a) with x = s * scale * log2(e) and a = max x,
// each product rounded on its own (mul.rn, then add.rn: never one FFMA,
// whose unrounded product made huge equal logits or a huge finite mask give
// inf, then NaN; CASES.md H2/H3).
// D64-DAG: mul.rn.f32
// D64-DAG: add.rn.f32
// The two warpgroup roles meet at two barrier instructions: barrier.sync
// (non-aligned), never bar.sync (CASES.md H4).
// RUN: FileCheck %s --check-prefix=BARRIER < %t.ptx/f16_d128_kernel.ptx
// BARRIER-NOT: {{^[[:space:]]*}}bar.sync
// BARRIER: barrier.sync 0;
// BARRIER-NOT: {{^[[:space:]]*}}bar.sync
// With a mask, the keys hidden from every row of a CTA are never read: a
// per-tile visibility byte per (key, thread group) in shared memory, read
// as one word per key by the K/V copies (zero-fill).
// MASK-DAG: st.shared.b8
// MASK-DAG: ld.shared.b32
// Each warpgroup runs the K/V steps with three asm statements (S + P V, S
// alone in the first step, P V alone in the last), each ending in commit +
// wait 0. With two warpgroups per CTA (D = 128) the second runs the steps in
// the opposite phase (its softmax while the first one's products run) from
// its own copy of the loop: six statements.
// D = 64 (defaults: 128 keys per step, one warpgroup per CTA, so the second
// loop is folded away): S = Q K^T in 4 k16 steps, the first overwriting the
// accumulators (scale-d p = false); O += P V in 8:
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {.*}, %rd[0-9]*, %rd[0-9]*, p, 1, 1, 0, 0;" %t.ptx/f16_d64_causal_kernel.ptx | FileCheck %s --check-prefix=N2
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {.*}, %rd[0-9]*, %rd[0-9]*, q, 1, 1, 0, 0;" %t.ptx/f16_d64_causal_kernel.ptx | FileCheck %s --check-prefix=N6
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {.*}, {%r[0-9]*, %r[0-9]*, %r[0-9]*, %r[0-9]*}, %rd[0-9]*, q, 1, 1, 1;" %t.ptx/f16_d64_causal_kernel.ptx | FileCheck %s --check-prefix=N16
// RUN: grep -c "wgmma.wait_group.sync.aligned 0;" %t.ptx/f16_d64_causal_kernel.ptx | FileCheck %s --check-prefix=N3
// D = 128 (128 keys, two warpgroups): S in 8 k16 steps (two 64-column
// blocks of Q and K), O in two 64-column halves per k16 step of P V:
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {.*}, %rd[0-9]*, %rd[0-9]*, p, 1, 1, 0, 0;" %t.ptx/f16_d128_kernel.ptx | FileCheck %s --check-prefix=N4
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {.*}, %rd[0-9]*, %rd[0-9]*, q, 1, 1, 0, 0;" %t.ptx/f16_d128_kernel.ptx | FileCheck %s --check-prefix=N28
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {.*}, {%r[0-9]*, %r[0-9]*, %r[0-9]*, %r[0-9]*}, %rd[0-9]*, q, 1, 1, 1;" %t.ptx/f16_d128_kernel.ptx | FileCheck %s --check-prefix=N64
// RUN: grep -c "wgmma.wait_group.sync.aligned 0;" %t.ptx/f16_d128_kernel.ptx | FileCheck %s --check-prefix=N6
// D = 128 without causal, window or mask is warp-specialized by default
// (3 stages): 8 consumer warps and a producer warpgroup (384 threads) that
// gives registers to the consumers (setmaxnreg), K/V slots handed over
// through mbarriers; the consumers keep their ping-pong phases with a
// named barrier of their 256 threads. producer-warps=0 gives the kernel
// where every warp copies.
// RUN: FileCheck %s --check-prefix=WS < %t.ptx/f16_d128_kernel.ptx
// WS: .maxntid 384, 1, 1
// WS-DAG: mbarrier.init.shared.b64
// WS-DAG: setmaxnreg.dec.sync.aligned.u32 24;
// WS-DAG: setmaxnreg.inc.sync.aligned.u32 240;
// WS-DAG: mbarrier.try_wait.parity.shared.b64
// WS-DAG: mbarrier.arrive.shared.b64
// WS-DAG: barrier.sync 1, 256;
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa chip=sm_90a attention-producer-warps=0" | %python %tx_src/scripts/extract_ptx.py %t.nows.ptx
// RUN: FileCheck %s --check-prefix=NOWS < %t.nows.ptx/f16_d128_kernel.ptx
// RUN: FileCheck %s --check-prefix=BARRIER < %t.nows.ptx/f16_d128_kernel.ptx
// RUN: %cuda_toolkit/bin/ptxas -arch=sm_90a -v %t.nows.ptx/f16_d128_kernel.ptx -o %t.5.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// The warp-specialized kernel launches at 168 registers per thread (384
// threads); 256 * 240 + 128 * 24 fits in what the CTA holds, so
// setmaxnreg.inc never waits forever. (The producers' 24 registers spill a
// few bytes in the predicated tail-tile copies.)
// PTXAS-WS: Used 168 registers
// NOWS: .maxntid 256, 1, 1
// NOWS-NOT: mbarrier
// NOWS-NOT: setmaxnreg
// N2: {{^}}2{{$}}
// N3: {{^}}3{{$}}
// N16: {{^}}16{{$}}
// N64: {{^}}64{{$}}
// N4: {{^}}4{{$}}
// N6: {{^}}6{{$}}
// N28: {{^}}28{{$}}
// D128: .target sm_90a
// D128-NOT: .local
// D128: wgmma.fence.sync.aligned
// bf16 takes the same kernel with bf16 operands (P packed by cvt.rn.bf16x2).
// BF16-NOT: .local
// BF16-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// BF16-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, q, 1, 1, 1;
// BF16-DAG: cvt.rn.bf16x2.f32
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// D = 80 is not a whole swizzle atom: the mma.sync kernel.
// MMA-NOT: wgmma
// MMA: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
func.func @f16_d64_causal(%q: tensor<2x8x200x64xf16>, %k: tensor<2x2x300x64xf16>, %v: tensor<2x2x300x64xf16>) -> tensor<2x8x200x64xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<2x8x200x64xf16>, tensor<2x2x300x64xf16>, tensor<2x2x300x64xf16> -> tensor<2x8x200x64xf16>
  return %0 : tensor<2x8x200x64xf16>
}
func.func @f16_d128(%q: tensor<1x4x100x128xf16>, %k: tensor<1x4x300x128xf16>, %v: tensor<1x4x300x128xf16>) -> tensor<1x4x100x128xf16> {
  %0 = tx.attention %q, %k, %v : tensor<1x4x100x128xf16>, tensor<1x4x300x128xf16>, tensor<1x4x300x128xf16> -> tensor<1x4x100x128xf16>
  return %0 : tensor<1x4x100x128xf16>
}
func.func @f16_d80(%q: tensor<1x4x100x80xf16>, %k: tensor<1x4x77x80xf16>, %v: tensor<1x4x77x80xf16>) -> tensor<1x4x100x80xf16> {
  %0 = tx.attention %q, %k, %v : tensor<1x4x100x80xf16>, tensor<1x4x77x80xf16>, tensor<1x4x77x80xf16> -> tensor<1x4x100x80xf16>
  return %0 : tensor<1x4x100x80xf16>
}
func.func @bf16_d64(%q: tensor<1x4x100x64xbf16>, %k: tensor<1x4x300x64xbf16>, %v: tensor<1x4x300x64xbf16>) -> tensor<1x4x100x64xbf16> {
  %0 = tx.attention %q, %k, %v : tensor<1x4x100x64xbf16>, tensor<1x4x300x64xbf16>, tensor<1x4x300x64xbf16> -> tensor<1x4x100x64xbf16>
  return %0 : tensor<1x4x100x64xbf16>
}
func.func @f16_d128_mask(%q: tensor<1x2x130x128xf16>, %k: tensor<1x2x257x128xf16>, %v: tensor<1x2x257x64xf16>, %m: tensor<1x1x130x257xi1>) -> tensor<1x2x130x64xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x1x130x257xi1>) : tensor<1x2x130x128xf16>, tensor<1x2x257x128xf16>, tensor<1x2x257x64xf16> -> tensor<1x2x130x64xf16>
  return %0 : tensor<1x2x130x64xf16>
}
