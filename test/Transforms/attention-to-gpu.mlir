// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{warps=2 q-tile=4 kv-tile=32 tensor-cores=false}),canonicalize)" 2>/dev/null | FileCheck %s
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{warps=2 kv-tile=32 mma-row-tiles=1}),canonicalize)" 2>/dev/null | FileCheck %s --check-prefix=MMA
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{kv-tile=32}),canonicalize)" 2>/dev/null | FileCheck %s --check-prefix=MMA2
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{tensor-cores=false}),canonicalize)" 2>/dev/null | FileCheck %s --check-prefix=DEF
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{warps=33}))" 2>&1 | FileCheck %s --check-prefix=BAD-WARPS
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{kv-tile=48}))" 2>&1 | FileCheck %s --check-prefix=BAD-KV
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{mma-row-tiles=3}))" 2>&1 | FileCheck %s --check-prefix=BAD-MT
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{warps=2 q-tile=5}))" 2>&1 | FileCheck %s --check-prefix=BAD-Q
// RUN: not tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{kv-tile=64 max-shared-memory=1000}))" 2>&1 | FileCheck %s --check-prefix=BAD-SMEM
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{max-shared-memory=1000}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMALL-SMEM
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{wgmma=true sm=80}))" 2>&1 | FileCheck %s --check-prefix=BAD-WG-SM
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{wgmma=true warps=6}))" 2>&1 | FileCheck %s --check-prefix=BAD-WG-WARPS
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{wgmma=true stages=5}))" 2>&1 | FileCheck %s --check-prefix=BAD-STAGES
// BAD-STAGES: error: tx-attention-to-gpu: stages must be 0 (the kernel's default) or in [2, 4], got 5
// Three stages: 1024 + 2 * (64*64 + 3*128*(64+64)) = 107520 bytes.
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{wgmma=true stages=3}),canonicalize)" 2>/dev/null | FileCheck %s --check-prefix=WG3
// WG3-LABEL: func.func @causal_gqa
// WG3: gpu.launch blocks({{.*}}) in ({{.*}} = %c8, {{.*}}) threads({{.*}}) in ({{.*}} = %c128, {{.*}}) dynamic_shared_memory_size %c107520_i32
// WG3: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// RUN: not tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{wgmma=true stages=4 kv-tile=128 max-shared-memory=100000}))" 2>&1 | FileCheck %s --check-prefix=BAD-WG-SMEM
// BAD-WG-SMEM: error: tx-attention-to-gpu: the tiles need 140288 bytes of shared memory (q-tile 64, kv-tile 128, D 64, Dv 64, stages 4), more than max-shared-memory = 100000
// Default wgmma tiles that do not fit halve the keys per step: 1024 +
// 2 * (64*64 + 2*64*128) = 41984 bytes <= 50000.
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{wgmma=true max-shared-memory=50000}),canonicalize)" 2>/dev/null | FileCheck %s --check-prefix=WG-SHRINK
// WG-SHRINK-LABEL: func.func @causal_gqa
// WG-SHRINK: dynamic_shared_memory_size %c41984_i32
// BAD-WG-SM: error: tx-attention-to-gpu: wgmma needs sm = 90 (an sm_90a chip), got sm = 80
// BAD-WG-WARPS: attention-to-gpu.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tx-attention-to-gpu: warps must be a multiple of 4 (whole warpgroups) with wgmma, got 6 (this op takes the wgmma kernel)
// The sm_90a warpgroup kernel for f16 D = 64: one warpgroup per CTA (64
// query rows: 1 x 8 x ceil(16 / 64) = 8 CTAs of 128 threads), 128 keys per
// step; shared memory 1024 + 2 * (64*64 + 2*128*(64+64)) = 74752 bytes,
// addressed from the first 1 KiB boundary; wgmma as inline PTX.
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{wgmma=true}),canonicalize)" 2>/dev/null | FileCheck %s --check-prefix=WG
// WG-LABEL: func.func @causal_gqa
// WG: gpu.launch blocks({{.*}}) in ({{.*}} = %c8, {{.*}}) threads({{.*}}) in ({{.*}} = %c128, {{.*}}) dynamic_shared_memory_size %c74752_i32
// WG: memref.extract_aligned_pointer_as_index
// WG: nvgpu.device_async_copy
// WG: scf.for
// WG: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// The two warpgroup roles run two copies of the loop: the per-step CTA
// barrier is the non-aligned barrier.sync (CASES.md H4: synccheck).
// WG: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.all"
// WG: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p, q;{{.*}}wgmma.fence.sync.aligned;{{.*}}wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// WG: scf.for
// WG-LABEL: func.func
// Default tensor-core tiles that do not fit shrink: 32 keys (46080 bytes),
// then 4 warps (27648 bytes <= 40000).
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{max-shared-memory=40000}),canonicalize)" 2>/dev/null | FileCheck %s --check-prefix=SHRINK
// SHRINK-LABEL: func.func @causal_gqa
// SHRINK: gpu.launch blocks({{.*}}) in ({{.*}} = %c8, {{.*}}) threads({{.*}}) in ({{.*}} = %c128, {{.*}}) dynamic_shared_memory_size %c27648_i32

// BAD-WARPS: error: tx-attention-to-gpu: warps must be 0 (from the kernel) or in [1, 32], got 33
// BAD-MT: error: tx-attention-to-gpu: mma-row-tiles must be 0 (from the head dim), 1 or 2, got 3
// BAD-KV: error: tx-attention-to-gpu: kv-tile must be 0 (from the head dim) or a multiple of 32 in [32, 256], got 48
// BAD-Q: error: tx-attention-to-gpu: q-tile must be 0 (8 rows per warp) or a multiple of warps (2) with at most 16 rows per warp, got 5
// SMALL-SMEM: remark: tx-attention-to-gpu: the smallest default tiles need 27648 bytes of shared memory, more than 1000; this op is left to the reference lowering
// BAD-SMEM: attention-to-gpu.mlir:[[@LINE+89]]:8: error: tx-attention-to-gpu: the tiles need 36864 bytes of shared memory (q-tile 128, kv-tile 64, D 64, Dv 64), more than max-shared-memory = 1000

// One CTA per (b, h, query tile): 1 x 8 x ceil(16 / 4) = 32 CTAs of 2 warps,
// each warp 2 query rows. Dynamic shared memory, 16-byte aligned views:
// Q 4x64 floats, K 32x(64+4), V 32x64, P 4x32 = 18432 bytes. Q staged once,
// pre-scaled by scale = 0.125 with 16-byte (8 x f16)
// loads; causal CTAs stop after their last visible K/V tile; each K/V tile
// staged between barriers, K/V head h / (H / Hkv) = h / 4 (GQA, no copy);
// scores per lane (key lane), the causal/tail predicate only in tiles that
// cross the diagonal, one max all-reduce per row, P through shared memory,
// O += P V over the tile. No Sq x Sk buffer: the only allocation is O.
// CHECK-LABEL: func.func @causal_gqa
// CHECK-DAG: %[[SCALE:.*]] = arith.constant dense<1.250000e-01> : vector<8xf32>
// CHECK-DAG: %[[GRID:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[SMEM:.*]] = arith.constant 18432 : i32
// CHECK: memref.alloc() : memref<1x8x16x64xf16>
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[GRID]], {{.*}}) threads({{.*}}) in ({{.*}} = %c64, {{.*}}) dynamic_shared_memory_size %[[SMEM]]
// CHECK: %[[HEAD:.*]] = arith.remui %{{.*}}, %c8 : index
// CHECK: %[[KVHEAD:.*]] = arith.divui %[[HEAD]], %c4 : index
// CHECK: gpu.dynamic_shared_memory
// CHECK: %[[NKT:.*]] = arith.ceildivui %{{.*}}, %c32 : index
// CHECK: memref.view {{.*}} to memref<256xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<2176xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: vector.load {{.*}} : memref<1x8x16x64xf16>, vector<8xf16>
// CHECK: arith.mulf {{.*}}, %[[SCALE]] : vector<8xf32>
// CHECK: scf.for %{{.*}} = %c0 to %[[NKT]] step %c1 iter_args(
// CHECK:   gpu.barrier
// CHECK:   vector.load %{{.*}}[%{{.*}}, %[[KVHEAD]], %{{.*}}, %{{.*}}] {{.*}} : memref<1x2x16x64xf16>, vector<8xf16>
// CHECK:   vector.load %{{.*}}[%{{.*}}, %[[KVHEAD]], %{{.*}}, %{{.*}}] {{.*}} : memref<1x2x16x64xf16>, vector<8xf16>
// CHECK:   gpu.barrier
// CHECK:   scf.for %{{.*}} = %c0 to %c64 step %c4
// CHECK:     vector.load {{.*}} : memref<2176xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK:     math.fma
// CHECK:   scf.if
// CHECK:     arith.cmpi sle
// CHECK:     arith.select
// CHECK:   gpu.shuffle  xor
// CHECK:   arith.maximumf
// CHECK:   math.exp2
// CHECK:   memref.store {{.*}} : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK:   gpu.barrier
// CHECK:   scf.for %{{.*}} = %c0 to %c32 step %c4
// CHECK:     math.fma
// CHECK: gpu.shuffle  xor
// CHECK: arith.divf
// CHECK: arith.truncf
// CHECK: memref.store {{.*}} : memref<1x8x16x64xf16>
// CHECK-NOT: tx.attention
// Tensor cores (the default for f16): 2 warps x 16 rows per CTA,
// 1 x 8 x ceil(16 / 32) = 8 CTAs; Q/K/V tiles in f16 with rows padded by 8
// elements: (32 + 32 + 32) x 72 x 2 bytes = 13824. cp.async copies (K and V
// of the next tile in flight while this one is used), Q and K fragments by
// ldmatrix x4, S = Q K^T and O += P V by mma.sync m16n8k16, quad (xor 1, 2)
// row reductions, exp via ex2.approx.ftz, V fragments by ldmatrix x4 .trans.
// MMA-LABEL: func.func @causal_gqa
// MMA: gpu.launch blocks({{.*}}) in ({{.*}} = %c8, {{.*}}) threads({{.*}}) in ({{.*}} = %c64, {{.*}}) dynamic_shared_memory_size %c13824_i32
// MMA: memref.view {{.*}} to memref<32x72xf16, #gpu.address_space<workgroup>>
// MMA: nvgpu.device_async_copy {{.*}} : memref<1x8x16x64xf16> to memref<32x72xf16, #gpu.address_space<workgroup>>
// MMA: nvgpu.device_async_create_group
// MMA: nvgpu.device_async_wait {{.*}} {numGroups = 0 : i32}
// MMA: nvgpu.device_async_copy {{.*}} : memref<1x2x16x64xf16> to memref<32x72xf16, #gpu.address_space<workgroup>>
// MMA: scf.for
// MMA:   nvgpu.device_async_wait {{.*}} {numGroups = 2 : i32}
// MMA:   nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<32x72xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// MMA:   nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// MMA:   gpu.shuffle  xor %{{.*}}, %c1_i32
// MMA:   gpu.shuffle  xor %{{.*}}, %c2_i32
// MMA:   llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// MMA:   arith.truncf {{.*}} : vector<2xf32> to vector<2xf16>
// MMA:   nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// MMA:   nvgpu.mma.sync
// MMA: vector.store {{.*}} : memref<1x8x16x64xf16>, vector<2xf16>
// Default: 8 warps x 2 m16 tiles = 256 rows per CTA (1 x 8 x ceil(16 /
// 256) = 8 CTAs); shared memory 2 * (256 * 72 + 32 * 72 + 32 * 72) bytes;
// each K fragment (ldmatrix x4) feeds two mma.sync, one per m16 tile.
// MMA2-LABEL: func.func @causal_gqa
// MMA2: gpu.launch blocks({{.*}}) in ({{.*}} = %c8, {{.*}}) threads({{.*}}) in ({{.*}} = %c256, {{.*}}) dynamic_shared_memory_size %c46080_i32
// MMA2: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// MMA2: nvgpu.mma.sync
// MMA2-NEXT: nvgpu.mma.sync
// MMA2-NEXT: nvgpu.mma.sync
// MMA2-NEXT: nvgpu.mma.sync
// CUDA-core defaults: 4 warps x 8 rows, 64 keys per step.
// DEF-LABEL: func.func @causal_gqa
// DEF: gpu.launch blocks({{.*}}) in ({{.*}} = %c8, {{.*}}) threads({{.*}}) in ({{.*}} = %c128, {{.*}}) dynamic_shared_memory_size %c50176_i32
func.func @causal_gqa(%q: tensor<1x8x16x64xf16>, %k: tensor<1x2x16x64xf16>, %v: tensor<1x2x16x64xf16>) -> tensor<1x8x16x64xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x8x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16> -> tensor<1x8x16x64xf16>
  return %0 : tensor<1x8x16x64xf16>
}

// -----

// A dynamic head dim stays with the reference lowering, with a remark.
// REMARK: attention-to-gpu.mlir:[[@LINE+5]]:8: remark: tx-attention-to-gpu: head dims D and Dv must be static and in [1, 256] for the flash kernel; this op is left to the reference lowering
// CHECK-LABEL: func.func @dynamic_head_dim
// CHECK: tx.attention
// CHECK-NOT: gpu.launch
func.func @dynamic_head_dim(%q: tensor<1x1x3x?xf32>, %k: tensor<1x1x4x?xf32>, %v: tensor<1x1x4x?xf32>) -> tensor<1x1x3x?xf32> {
  %0 = tx.attention %q, %k, %v : tensor<1x1x3x?xf32>, tensor<1x1x4x?xf32>, tensor<1x1x4x?xf32> -> tensor<1x1x3x?xf32>
  return %0 : tensor<1x1x3x?xf32>
}

// -----

// A sliding window takes the flash kernel: the band's sides appear as the
// bounds of the key-tile range and of the per-key predicate (d >= -2,
// d <= 0 with d = j - (i + Sk - Sq)), and no score buffer is allocated.
// CHECK-LABEL: func.func @sliding_window
// CHECK-NOT: tx.attention
// CHECK-DAG: arith.constant -2 : index
// CHECK: gpu.launch
// CHECK: arith.cmpi sge, %{{.*}}, %c-2
// CHECK: gpu.terminator
func.func @sliding_window(%q: tensor<1x1x3x64xf16>, %k: tensor<1x1x4x64xf16>, %v: tensor<1x1x4x64xf16>) -> tensor<1x1x3x64xf16> {
  %0 = tx.attention %q, %k, %v window = [2, 0] : tensor<1x1x3x64xf16>, tensor<1x1x4x64xf16>, tensor<1x1x4x64xf16> -> tensor<1x1x3x64xf16>
  return %0 : tensor<1x1x3x64xf16>
}

// -----

// Head dim 512 > 256: reference lowering, with a remark.
// REMARK: attention-to-gpu.mlir:[[@LINE+4]]:8: remark: tx-attention-to-gpu: head dims D and Dv must be static and in [1, 256]
// CHECK-LABEL: func.func @wide_head_dim
// CHECK: tx.attention
func.func @wide_head_dim(%q: tensor<1x1x3x512xf32>, %k: tensor<1x1x4x512xf32>, %v: tensor<1x1x4x512xf32>) -> tensor<1x1x3x512xf32> {
  %0 = tx.attention %q, %k, %v : tensor<1x1x3x512xf32>, tensor<1x1x4x512xf32>, tensor<1x1x4x512xf32> -> tensor<1x1x3x512xf32>
  return %0 : tensor<1x1x3x512xf32>
}
