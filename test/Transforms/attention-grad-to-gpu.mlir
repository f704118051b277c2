// The backward's GPU path: tx-attention-grad-strategy marks the ops the
// mma.sync kernels take, tx-tile-attention-grad from-strategy=true tiles
// only those (with the marked tiles), tx-map-attention-grad-to-gpu turns
// each forall into one gpu.launch. The values are checked on a GPU by
// harness/check_autograd.py.
// RUN: tx-opt %s --split-input-file --tx-attention-grad-strategy | FileCheck %s --check-prefix=MARK
// RUN: tx-opt %s --split-input-file --tx-attention-grad-strategy="sm=75" | FileCheck %s --check-prefix=SM75
// RUN: tx-opt %s --split-input-file --tx-attention-grad-strategy --tx-tile-attention-grad="from-strategy=true decompose=false" --tx-map-attention-grad-to-gpu | FileCheck %s --check-prefix=MAP
// sm_90a: the one-pass wgmma kernel (dQ by f32 reductions); deterministic=true
// keeps the mma.sync pair's marks.
// RUN: tx-opt %s --split-input-file --tx-attention-grad-strategy="wgmma=true" | FileCheck %s --check-prefix=MARK90A
// RUN: tx-opt %s --split-input-file --tx-attention-grad-strategy="wgmma=true deterministic=true" | FileCheck %s --check-prefix=MARK
// RUN: tx-opt %s --split-input-file --tx-attention-grad-strategy="wgmma=true" --tx-tile-attention-grad="from-strategy=true decompose=false" --tx-map-attention-grad-to-gpu | FileCheck %s --check-prefix=WG

// Causal GQA 8/2, f16, D = 64: tiles (64, 64).
// MARK-LABEL: func.func @causal_gqa
// MARK: tx.attention_grad {{.*}} causal {tx.grad_tiles = array<i64: 64, 64>}
// SM75-LABEL: func.func @causal_gqa
// SM75-NOT: tx.grad_tiles
// Δ stays a linalg.generic (lowered by the generic path); dK/dV: a grid of
// B * Hkv * ceil(Sk / 64) CTAs of 4 warps (the key tile's 64 keys, 16 per
// warp), cp.async staging, mma.sync; dQ: B * H * ceil(Sq / 64) CTAs.
// MAP-LABEL: func.func @causal_gqa
// The one-pass kernel: dQ zeroed, then one launch of B * Hkv * ceil(Sk / 128)
// CTAs of two warpgroups: Sᵀ and dPᵀ from shared memory (K-major), dV and
// dK with A in registers (B MN-major), dSᵀ through shared memory (async
// proxy fence, warpgroup barrier), dQ = dS·K (A and B MN-major), each
// warpgroup's f32 tile bulk-reduced into dQ; the last reductions waited for.
// MARK90A-LABEL: func.func @causal_gqa
// MARK90A: tx.attention_grad {{.*}} causal {tx.grad_dq_reduce, tx.grad_tiles = array<i64: 64, 128>}
// WG-LABEL: func.func @causal_gqa
// WG-NOT: scf.forall
// WG: gpu.memset
// WG: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256
// WG: nvgpu.device_async_copy
// WG: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 0;
// WG: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, {$
// WG: nvvm.fence.proxy
// WG: nvvm.barrier id = {{.*}} number_of_threads = %c128_i32
// WG: wgmma.mma_async{{.*}}, p, 1, 1, 1, 1;
// WG: nvvm.cp.async.bulk.wait_group 0 {read}
// WG: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32
// WG: nvvm.cp.async.bulk.commit.group
// WG: nvvm.cp.async.bulk.wait_group 0
// WG: tx.required_chip = "sm_90a"
// WG-NOT: gpu.launch
// WG: return
// MAP-NOT: scf.forall
// MAP: linalg.generic
// MAP: gpu.launch blocks({{.*}}) in ({{.*}}) threads({{.*}}) in (%{{.*}} = %c128{{.*}}) dynamic_shared_memory_size
// MAP: nvgpu.device_async_copy
// MAP: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// MAP: nvgpu.mma.sync
// MAP: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// MAP: vector.store
// MAP: tx.required_chip = "sm_80"
// MAP: gpu.launch
// MAP: tx.required_chip = "sm_80"
// MAP-NOT: tx.attention_d
// MAP: return
func.func @causal_gqa(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>,
                      %o: tensor<?x8x?x64xf16>, %do: tensor<?x8x?x64xf16>, %lse: tensor<?x8x?xf32>)
    -> (tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>) {
  %dq, %dk, %dv = tx.attention_grad %q, %k, %v, %o, %do, %lse causal
      : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x8x?x64xf16>,
        tensor<?x8x?x64xf16>, tensor<?x8x?xf32>
      -> tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>
  return %dq, %dk, %dv : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>
}

// -----

// bf16, D = 128: tiles (32, 64); the dQ kernel's CTA has 2 warps.
// MARK-LABEL: func.func @bf16_d128
// MARK: tx.grad_tiles = array<i64: 32, 64>
// MAP-LABEL: func.func @bf16_d128
// MARK90A-LABEL: func.func @bf16_d128
// MARK90A: tx.grad_dq_reduce, tx.grad_tiles = array<i64: 64, 128>
// WG-LABEL: func.func @bf16_d128
// WG: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256
// WG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// WG-NOT: gpu.launch
// WG: return
// MAP: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c128
// MAP: nvvm.mma.sync
// MAP: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c64
// MAP: nvvm.mma.sync
func.func @bf16_d128(%q: tensor<2x4x100x128xbf16>, %k: tensor<2x4x70x128xbf16>, %v: tensor<2x4x70x128xbf16>,
                     %o: tensor<2x4x100x128xbf16>, %do: tensor<2x4x100x128xbf16>, %lse: tensor<2x4x100xf32>)
    -> (tensor<2x4x100x128xbf16>, tensor<2x4x70x128xbf16>, tensor<2x4x70x128xbf16>) {
  %dq, %dk, %dv = tx.attention_grad %q, %k, %v, %o, %do, %lse
      : tensor<2x4x100x128xbf16>, tensor<2x4x70x128xbf16>, tensor<2x4x70x128xbf16>, tensor<2x4x100x128xbf16>,
        tensor<2x4x100x128xbf16>, tensor<2x4x100xf32>
      -> tensor<2x4x100x128xbf16>, tensor<2x4x70x128xbf16>, tensor<2x4x70x128xbf16>
  return %dq, %dk, %dv : tensor<2x4x100x128xbf16>, tensor<2x4x70x128xbf16>, tensor<2x4x70x128xbf16>
}

// -----

// What the kernels do not take keeps the reference lowering: a mask, f32,
// D = 32, a soft cap.
// MARK-LABEL: func.func @reference
// MARK-NOT: tx.grad_tiles
// MARK: return
// MAP-LABEL: func.func @reference
// MARK90A-LABEL: func.func @reference
// MARK90A-NOT: tx.grad_tiles
// MARK90A: return
// WG-LABEL: func.func @reference
// WG-NOT: gpu.launch
// WG: return
// MAP-NOT: gpu.launch
// MAP-COUNT-4: tx.attention_grad
// MAP-NOT: gpu.launch
// MAP: return
func.func @reference(%q: tensor<1x2x16x64xf16>, %k: tensor<1x2x16x64xf16>, %v: tensor<1x2x16x64xf16>,
                     %o: tensor<1x2x16x64xf16>, %do: tensor<1x2x16x64xf16>, %lse: tensor<1x2x16xf32>,
                     %m: tensor<1x1x16x16xi1>,
                     %q32: tensor<1x2x16x64xf32>, %o32: tensor<1x2x16x64xf32>,
                     %qs: tensor<1x2x16x32xf16>, %os: tensor<1x2x16x32xf16>)
    -> (tensor<1x2x16x64xf16>, tensor<1x2x16x64xf32>, tensor<1x2x16x32xf16>, tensor<1x2x16x64xf16>) {
  %a:3 = tx.attention_grad %q, %k, %v, %o, %do, %lse mask(%m : tensor<1x1x16x16xi1>)
      : tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>,
        tensor<1x2x16x64xf16>, tensor<1x2x16xf32>
      -> tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>
  %b:3 = tx.attention_grad %q32, %q32, %q32, %o32, %o32, %lse
      : tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>,
        tensor<1x2x16x64xf32>, tensor<1x2x16xf32>
      -> tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>
  %c:3 = tx.attention_grad %qs, %qs, %qs, %os, %os, %lse
      : tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16>,
        tensor<1x2x16x32xf16>, tensor<1x2x16xf32>
      -> tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16>
  %d:3 = tx.attention_grad %q, %k, %v, %o, %do, %lse softcap = 30.0
      : tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>,
        tensor<1x2x16x64xf16>, tensor<1x2x16xf32>
      -> tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>
  return %a#0, %b#0, %c#0, %d#0 : tensor<1x2x16x64xf16>, tensor<1x2x16x64xf32>, tensor<1x2x16x32xf16>, tensor<1x2x16x64xf16>
}
