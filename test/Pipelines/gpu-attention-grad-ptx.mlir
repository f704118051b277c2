// REQUIRES: ptxas
// The backward's mma.sync kernels (tx-gpu-pipeline attention-grad-kernels, default true:
// tx-attention-grad-strategy,
// tx-tile-attention-grad from-strategy=true, tx-map-attention-grad-to-gpu) in
// PTX: per tx.attention_grad, the Δ kernel and the shape checks of the generic
// path, then the dK/dV kernel and the dQ kernel (mma.sync m16n8k16 with f32
// accumulators, ldmatrix x4 with and without .trans, cp.async staging,
// ex2.approx.ftz; the next tile's cp.async in flight while a tile computes:
// one wait_group 1 per step), then the roundings of the f32 gradients.
// ptxas reports no spills for the dQ kernels and the D = 128 dK/dV kernel
// (the D = 64 dK/dV kernel: 8 bytes). On sm_90a the pair is the
// deterministic choice (attention-grad-deterministic=true).
// A masked op keeps the reference lowering (no mma.sync). With
// attention-grad-kernels=false (the default is true since the check harness
// passed on them, session 33) no backward op takes them.
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa chip=sm_90a attention-grad-kernels=false" | %python %tx_src/scripts/extract_ptx.py %t.ref.ptx
// RUN: cat %t.ref.ptx/*.ptx | FileCheck %s --check-prefix=MASKED
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa chip=sm_90a attention-grad-kernels=true attention-grad-deterministic=true" | %python %tx_src/scripts/extract_ptx.py %t.ptx
// RUN: FileCheck %s --check-prefix=DKDV < %t.ptx/f16_d64_causal_gqa_kernel_1.ptx
// RUN: FileCheck %s --check-prefix=DQ < %t.ptx/f16_d64_causal_gqa_kernel_2.ptx
// RUN: FileCheck %s --check-prefix=BF16 < %t.ptx/bf16_d128_kernel_7.ptx
// RUN: FileCheck %s --check-prefix=BF16 < %t.ptx/bf16_d128_kernel_8.ptx
// RUN: cat %t.ptx/masked_*.ptx | FileCheck %s --check-prefix=MASKED
// RUN: %cuda_toolkit/bin/ptxas -arch=sm_90a -v %t.ptx/f16_d64_causal_gqa_kernel_1.ptx -o %t.1.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS8
// RUN: %cuda_toolkit/bin/ptxas -arch=sm_90a -v %t.ptx/f16_d64_causal_gqa_kernel_2.ptx -o %t.2.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %cuda_toolkit/bin/ptxas -arch=sm_90a -v %t.ptx/bf16_d128_kernel_7.ptx -o %t.3.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %cuda_toolkit/bin/ptxas -arch=sm_90a -v %t.ptx/bf16_d128_kernel_8.ptx -o %t.4.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// DKDV-NOT: .local
// DKDV-DAG: cp.async.cg.shared.global
// DKDV-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// DKDV-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// DKDV-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// DKDV-DAG: ex2.approx.ftz.f32
// DKDV-DAG: bar.sync
// DQ-NOT: .local
// DQ-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// DQ-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// MASKED-NOT: mma.sync
// sm_90a without attention-grad-deterministic: one kernel per op (the one-pass
// wgmma kernel, dQ by one bulk reduction per warpgroup and step) instead of the
// pair; ptxas: no spills at D = 64, 224 bytes at D = 128 (255 registers).
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa chip=sm_90a attention-grad-kernels=true" | %python %tx_src/scripts/extract_ptx.py %t.wg
// RUN: FileCheck %s --check-prefix=WG < %t.wg/f16_d64_causal_gqa_kernel_1.ptx
// RUN: FileCheck %s --check-prefix=WG-BF16 < %t.wg/bf16_d128_kernel_6.ptx
// RUN: %cuda_toolkit/bin/ptxas -arch=sm_90a -v %t.wg/f16_d64_causal_gqa_kernel_1.ptx -o %t.5.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %cuda_toolkit/bin/ptxas -arch=sm_90a -v %t.wg/bf16_d128_kernel_6.ptx -o %t.6.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS8
// WG-DAG: cp.async.cg.shared.global
// WG-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// WG-DAG: wgmma.fence.sync.aligned
// WG-DAG: fence.proxy.async.shared::cta
// WG-DAG: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32
// WG-DAG: cp.async.bulk.commit_group
// WG-DAG: cp.async.bulk.wait_group.read 0
// WG-DAG: ex2.approx.ftz.f32
// WG-NOT: mma.sync
// WG-BF16-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// WG-BF16-DAG: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS8: {{[0-9]+}} bytes spill stores
// DKDV-DAG: cp.async.wait_group 1;
// DQ-DAG: cp.async.wait_group 1;
func.func @f16_d64_causal_gqa(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>,
                              %o: tensor<?x8x?x64xf16>, %do: tensor<?x8x?x64xf16>, %lse: tensor<?x8x?xf32>)
    -> (tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>) {
  %dq, %dk, %dv = tx.attention_grad %q, %k, %v, %o, %do, %lse causal
      : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x8x?x64xf16>,
        tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
      -> tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>
  return %dq, %dk, %dv : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>
}

func.func @bf16_d128(%q: tensor<2x4x100x128xbf16>, %k: tensor<2x4x70x128xbf16>, %v: tensor<2x4x70x128xbf16>,
                     %o: tensor<2x4x100x128xbf16>, %do: tensor<2x4x100x128xbf16>, %lse: tensor<2x4x100xf32>)
    -> (tensor<2x4x100x128xbf16>, tensor<2x4x70x128xbf16>, tensor<2x4x70x128xbf16>) {
  %dq, %dk, %dv = tx.attention_grad %q, %k, %v, %o, %do, %lse
      : tensor<2x4x100x128xbf16>, tensor<2x4x70x128xbf16>, tensor<2x4x70x128xbf16>, tensor<2x4x100x128xbf16>,
        tensor<2x4x100x128xbf16>, tensor<2x4x100xf32>
      -> tensor<2x4x100x128xbf16>, tensor<2x4x70x128xbf16>, tensor<2x4x70x128xbf16>
  return %dq, %dk, %dv : tensor<2x4x100x128xbf16>, tensor<2x4x70x128xbf16>, tensor<2x4x70x128xbf16>
}

func.func @masked(%q: tensor<1x2x16x64xf16>, %o: tensor<1x2x16x64xf16>, %lse: tensor<1x2x16xf32>,
                  %m: tensor<1x1x16x16xi1>) -> tensor<1x2x16x64xf16> {
  %dq, %dk, %dv = tx.attention_grad %q, %q, %q, %o, %o, %lse mask(%m : tensor<1x1x16x16xi1>)
      : tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>,
        tensor<1x2x16x64xf16>, tensor<1x2x16xf32>
      -> tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>
  return %dq : tensor<1x2x16x64xf16>
}
