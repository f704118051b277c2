// The split-KV decode kernels of tx-attention-to-gpu (issue #17): few query
// rows per K/V head (G * Sq <= decode-max-rows, static) become a split-KV
// kernel (one CTA per batch, K/V head and key chunk; each warp a cp.async
// pipeline of its own over 16-key tiles, two lanes per key, or tensor
// cores for f16/bf16 with 4 or more rows; the CTA's warps
// combined in shared memory; with several splits, the last CTA of each
// (batch, K/V head) merges their parts through a device workspace with
// arrival counters (decode-cluster=0 decode-merge-kernel=0; below sm_90),
// or a second kernel, a programmatic dependent launch, merges them from the
// workspace (decode-merge-kernel, the default on sm_90+), or, the default
// on sm_90+ for short calls, they merge inside a thread-block cluster
// through distributed shared memory).
// Numerics are checked on the GPU by harness/check.py ("decode ..." rows).
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode-cluster=0 decode-merge-kernel=0}))" | FileCheck %s
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode-cluster=0}))" | FileCheck %s --check-prefix=MK
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode-merge-kernel=2}))" 2>&1 | FileCheck %s --check-prefix=MKBAD
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode-merge-kernel=1 sm=80}))" 2>&1 | FileCheck %s --check-prefix=MKSM
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu))" | FileCheck %s --check-prefix=CLUSTER
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode-cluster=4 kv-splits=3}))" | FileCheck %s --check-prefix=CL4
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{sm=80}))" | FileCheck %s --check-prefix=SM80
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{kv-splits=17 decode-merge-kernel=0}))" | FileCheck %s --check-prefix=SM80
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode-cluster=17}))" 2>&1 | FileCheck %s --check-prefix=CLBIG
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode-cluster=-2}))" 2>&1 | FileCheck %s --check-prefix=CLNEG
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode-cluster=8 sm=80}))" 2>&1 | FileCheck %s --check-prefix=CLSM
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode-cluster=8 kv-splits=9}))" 2>&1 | FileCheck %s --check-prefix=CLSPLITS
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode=false}))" | FileCheck %s --check-prefix=OFF
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{tensor-cores=false decode-cluster=0 decode-merge-kernel=0}))" | FileCheck %s --check-prefix=CC
// The CUDA-core form fits exactly where the tensor-core form would not (the
// mapping re-checks the form the strategy took, not the default).
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{tensor-cores=false max-shared-memory=51200 decode-cluster=0 decode-merge-kernel=0}))" | FileCheck %s --check-prefix=CC
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode-max-rows=2}))" | FileCheck %s --check-prefix=OFF
// Below sm_80 (no cp.async) the op takes the CUDA-core flash kernel.
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{sm=75}))" | FileCheck %s --check-prefix=OLD
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{kv-splits=7}))" | FileCheck %s --check-prefix=SPLITS
// The wgmma rule (warps in whole warpgroups) is for ops that take wgmma:
// with wgmma allowed, decode ops take 2 warps.
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{wgmma=true warps=2}))" | FileCheck %s --check-prefix=W2
// W2-LABEL: func.func @decode_gqa
// W2: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c64{{(_[0-9]+)?}},
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode-tile-keys=32 warps=2 stages=4}))" | FileCheck %s --check-prefix=T32
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode-max-rows=0}))" 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{kv-splits=-1}))" 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{num-sms=0}))" 2>&1 | FileCheck %s --check-prefix=SMS
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode-tile-keys=8}))" 2>&1 | FileCheck %s --check-prefix=TK
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{warps=32 stages=4}))" 2>&1 | FileCheck %s --check-prefix=SMEM
// Default tiles that do not fit max-shared-memory: the flash kernel instead.
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{max-shared-memory=9000}))" 2>&1 | FileCheck %s --check-prefix=FIT
// The whole pipeline compiles it (one kernel and a memset), and the options
// reach the pass; with the merge kernel two kernels, the second launched
// after a call of txRuntimeLaunchProgrammaticNext, and no memset; by
// default three kernels, the cluster merge's for short calls, and those two.
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa attention-decode-cluster=0 attention-decode-merge-kernel=0" | FileCheck %s --check-prefix=PIPE
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa attention-decode-cluster=0" | FileCheck %s --check-prefix=MKPIPE
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa" | FileCheck %s --check-prefix=CLPIPE
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa attention-decode=false" | FileCheck %s --check-prefix=PIPEOFF

// CHECK-LABEL: func.func @decode_gqa
// CHECK-COUNT-2: memref.alloc({{.*}}) : memref<?xf32>
// Arrival counters, zeroed when there are several splits.
// CHECK: memref.alloc({{.*}}) : memref<?xi32>
// CHECK: gpu.memset async [%{{.*}}] %{{.*}}, %c0_i32 : memref<?xi32>, i32
// bf16 with G = 4 rows: tensor cores (nvvm.mma.sync: nvgpu.mma.sync has no
// bf16 form). Q as 16 rows of 72 bf16 (2304 bytes), then 4 warps, each 16 *
// 4 bytes of P and 3 stages of 16 K rows and 16 V rows of 64 bf16, stored
// as the rows' bytes with 16-byte chunks XOR-permuted (1-D views):
// 2304 + 4 * (256 + 3 * (2048 + 2048)) = 52480 bytes.
// CHECK: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c128{{(_[0-9]+)?}}, {{.*}} dynamic_shared_memory_size %c52480_i32
// CHECK: arith.xori
// CHECK: nvgpu.device_async_copy {{.*}} to memref<1024xbf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy {{.*}} to memref<1024xbf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_create_group
// CHECK: scf.for
// CHECK: nvvm.bar.warp.sync
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// CHECK: nvvm.bar.warp.sync
// CHECK: nvgpu.ldmatrix %{{.*}}[%{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<1024xbf16
// CHECK: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>
// CHECK: nvgpu.ldmatrix %{{.*}}[%{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<1024xbf16
// The last CTA of a (batch, K/V head) merges the splits: no second kernel.
// CHECK: nvvm.memory.barrier <gpu>
// CHECK: memref.atomic_rmw addi
// CHECK: nvvm.memory.barrier <gpu>
// With tensor-cores=false the CUDA-core form: Q as 4 rows of 64 f32 (1024
// bytes), K tiles XOR-permuted as above, V rows in order:
// 1024 + 4 * (256 + 3 * (2048 + 2048)) = 51200 bytes.
// CC-LABEL: func.func @decode_gqa
// CC: gpu.launch {{.*}} dynamic_shared_memory_size %c51200_i32
// CC: nvgpu.device_async_copy {{.*}} to memref<1024xbf16, #gpu.address_space<workgroup>>
// CC: nvgpu.device_async_copy {{.*}} to memref<16x64xbf16, #gpu.address_space<workgroup>>
// CC: scf.for
// CC-NOT: mma.sync
// The two lanes of a key add their halves of Q K^T.
// CC: gpu.shuffle  xor %{{.*}}, %c16_i32
// CC: memref.atomic_rmw addi
// CHECK: gpu.terminator
// CHECK-NEXT: } {tx.required_chip = "sm_80"}
// CHECK-NOT: gpu.launch
// CHECK-NOT: tx.attention
// (The flash kernels' split-KV workspace is a memref<?xf32> too: the
// decode kernel is told by its per-warp barriers.)
// OFF-LABEL: func.func @decode_gqa
// OFF-NOT: nvvm.bar.warp.sync
// OFF: nvgpu.device_async_copy
// OFF: {tx.required_chip = "sm_80"}
// FIT-NOT: nvvm.bar.warp.sync
// OLD-LABEL: func.func @decode_gqa
// OLD-NOT: memref<?xf32>
// OLD-NOT: nvgpu.device_async_copy
// OLD: gpu.launch
// SPLITS: %[[SEVEN:.*]] = arith.constant 7 : index
// SPLITS: arith.ceildivui %{{.*}}, %[[SEVEN]] : index
// 2 warps, 4 stages of 32 keys (CUDA cores: tensor cores take 16-key
// tiles): 1024 + 2 * (512 + 4 * (4096 + 4096)), plus the cluster merge's
// part of the CTA (1152).
// T32: dynamic_shared_memory_size %c68736_i32
// T32: nvgpu.device_async_copy {{.*}} to memref<2048xbf16, #gpu.address_space<workgroup>>
// T32: nvgpu.device_async_wait %{{.*}} {numGroups = 3 : i32}
// T32: gpu.terminator
// ROWS: error: tx-attention-to-gpu: decode-max-rows must be in [1, 32], got 0
// NEG: error: tx-attention-to-gpu: kv-splits must be 0 (from num-sms) or in [1, 65536], got -1
// SMS: error: tx-attention-to-gpu: num-sms must be in [1, 4096], got 0
// TK: error: tx-attention-to-gpu: decode-tile-keys must be 0 (from D), 16 or 32, got 8
// SMEM: attention-to-gpu-decode.mlir:{{[0-9]+}}:8: error: tx-attention-to-gpu: the decode kernel needs 534784 bytes of shared memory (warps 32, stages 4, decode-tile-keys 16, G * Sq 4, D 64, Dv 64), more than max-shared-memory = 232448
// PIPE: llvm.call @mgpuMemset32
// PIPE: gpu.binary @decode_gqa_kernel
// PIPE-NOT: gpu.binary @decode_gqa_kernel_0
// PIPEOFF: gpu.binary @decode_gqa_kernel
// CLPIPE: gpu.launch_func {{.*}} @decode_gqa_kernel::@decode_gqa_kernel clusters in
// CLPIPE-NOT: llvm.call @mgpuMemset32
// CLPIPE: gpu.launch_func {{.*}} @decode_gqa_kernel_0::@decode_gqa_kernel blocks
// CLPIPE-NOT: gpu.launch_func
// CLPIPE: llvm.call @txRuntimeLaunchProgrammaticNext() : () -> ()
// CLPIPE-NEXT: gpu.launch_func {{.*}} @decode_gqa_kernel_1::@decode_gqa_kernel blocks
// CLPIPE: gpu.binary @decode_gqa_kernel
// CLPIPE-SAME: barrier.cluster.arrive.aligned;
// CLPIPE-SAME: mapa.shared::cluster.u32
// CLPIPE-SAME: ld.shared::cluster.v2.f32
// CLPIPE: gpu.binary @decode_gqa_kernel_0
// CLPIPE-SAME: griddepcontrol.launch_dependents;
// CLPIPE-NOT: atom.global
// CLPIPE: gpu.binary @decode_gqa_kernel_1
// CLPIPE-SAME: griddepcontrol.wait;
// MKPIPE: llvm.func @txRuntimeLaunchProgrammaticNext()
// MKPIPE-NOT: llvm.call @mgpuMemset32
// MKPIPE: gpu.launch_func {{.*}} @decode_gqa_kernel::@decode_gqa_kernel blocks
// MKPIPE-NOT: gpu.launch_func
// MKPIPE: llvm.call @txRuntimeLaunchProgrammaticNext() : () -> ()
// MKPIPE-NEXT: gpu.launch_func {{.*}} @decode_gqa_kernel_0::@decode_gqa_kernel blocks
// MKPIPE: gpu.binary @decode_gqa_kernel
// MKPIPE-NOT: membar.gl
// MKPIPE-SAME: griddepcontrol.launch_dependents;
// MKPIPE: gpu.binary @decode_gqa_kernel_0
// MKPIPE-SAME: griddepcontrol.wait;
//
// The cluster merge (the default on sm_90+, for short calls: B * Hkv * 8
// <= num-sms / 2 = 66 and Sk <= 2048, tested at run time): no workspace,
// no counters, at most 8 splits, the CTAs of one (batch, K/V head) one
// cluster; each CTA's part (4 rows x (64 + 2) f32 = 1056 bytes, 1152
// aligned) after the warps' regions: 52480 + 1152 = 53632 bytes. Other
// calls take the workspace merge's kernel, as with decode-cluster=0.
// CLUSTER-LABEL: func.func @decode_gqa
// CLUSTER: arith.cmpi ule, %{{.*}}, %c66 : index
// CLUSTER: arith.cmpi ule, %{{.*}}, %c2048 : index
// CLUSTER: scf.if
// CLUSTER-NOT: memref<?xf32>
// CLUSTER-NOT: gpu.memset
// CLUSTER: arith.minsi %{{.*}}, %c8{{(_[0-9]+)?}} : index
// CLUSTER: gpu.launch clusters({{.*}}) in (%{{.*}} = %[[NS:.*]], %{{.*}} = %c1{{(_[0-9]+)?}}, %{{.*}} = %c1{{(_[0-9]+)?}}) blocks({{.*}}) in (%{{.*}} = %{{.*}}, {{.*}} dynamic_shared_memory_size %c53632_i32
// CLUSTER: nvvm.mma.sync
// CLUSTER-NOT: memref.atomic_rmw
// CLUSTER: memref.store {{.*}} : memref<264xf32, #gpu.address_space<workgroup>>
// CLUSTER: nvvm.cluster.arrive {aligned}
// CLUSTER-NEXT: nvvm.cluster.wait {aligned}
// CLUSTER: llvm.inline_asm asm_dialect = att "mapa.shared::cluster.u32 $0, $1, $2;"
// CLUSTER: llvm.inline_asm has_side_effects asm_dialect = att "ld.shared::cluster.f32 $0, [$1];"
// CLUSTER-COUNT-8: llvm.inline_asm has_side_effects asm_dialect = att "ld.shared::cluster.v2.f32 {$0, $1}, [$2];"
// CLUSTER-NOT: ld.shared::cluster.v2.f32
// CLUSTER: nvvm.cluster.arrive {aligned}
// CLUSTER-NEXT: nvvm.cluster.wait {aligned}
// CLUSTER-NOT: memref.atomic_rmw
// CLUSTER: } {tx.required_chip = "sm_90"}
// CLUSTER-NEXT: }
// CLUSTER-NEXT: } else {
// CLUSTER-NOT: memref<?xi32>
// CLUSTER-NOT: gpu.memset
// CLUSTER: gpu.launch blocks({{.*}} dynamic_shared_memory_size %c52480_i32
// CLUSTER-NOT: nvvm.cluster
// CLUSTER: nvvm.griddepcontrol  launch_dependents
// CLUSTER-NOT: memref.atomic_rmw
// CLUSTER: } {tx.required_chip = "sm_90"}
// CLUSTER: gpu.launch blocks({{.*}} dynamic_shared_memory_size %c0_i32
// CLUSTER: nvvm.griddepcontrol  wait
// CLUSTER: } {tx.programmatic_launch, tx.required_chip = "sm_90"}
//
// The merge kernel (decode-merge-kernel, the default on sm_90+ for calls
// the cluster merge does not take): the split kernel writes its part to
// the workspace and then lets its dependents start, no counters, memset,
// fence or ticket; the merge kernel, one warp per query row (4 per CTA of
// 128 threads, no shared memory), waits for it (griddepcontrol.wait), then
// loads up to 32 parts of its row in one round trip.
// At most 32 splits where B * Hkv * 32 >= num-sms (one round trip per
// merged row).
// MK-LABEL: func.func @decode_gqa
// MK: %[[CAP:.*]] = arith.minsi %[[NS0:.*]], %c32 : index
// MK: %[[ENOUGH:.*]] = arith.cmpi uge, %{{.*}}, %c132 : index
// MK: arith.select %[[ENOUGH]], %[[CAP]], %[[NS0]] : index
// MK-COUNT-2: memref.alloc({{.*}}) : memref<?xf32>
// MK-NOT: memref<?xi32>
// MK-NOT: gpu.memset
// MK: gpu.launch blocks({{.*}} dynamic_shared_memory_size %c52480_i32
// MK-NOT: nvvm.griddepcontrol
// MK-NOT: nvvm.memory.barrier
// MK-NOT: memref.atomic_rmw
// MK: nvvm.griddepcontrol  launch_dependents
// MK-NEXT: gpu.terminator
// MK-NEXT: } {tx.required_chip = "sm_90"}
// MK: arith.ceildivui %{{.*}}, %c4{{(_[0-9]+)?}} : index
// MK: gpu.launch blocks({{.*}} threads({{.*}}) in (%{{.*}} = %c128{{(_[0-9]+)?}}, {{.*}} dynamic_shared_memory_size %c0_i32
// MK-NEXT: nvvm.griddepcontrol  wait
// MK-COUNT-32: vector.load %{{.*}} : memref<?xf32>, vector<2xf32>
// MK: } {tx.programmatic_launch, tx.required_chip = "sm_90"}
// MK-LABEL: func.func @decode_gqa_tc
// MKBAD: error: tx-attention-to-gpu: decode-merge-kernel must be -1 (the strategy's choice), 0 (the last CTA merges) or 1 (a merge kernel), got 2
// MKSM: error: tx-attention-to-gpu: decode-merge-kernel = 1 needs programmatic dependent launches (griddepcontrol, sm >= 90), got sm = 80
// A forced cluster of 4 with 3 splits: each merging lane reads 4 O rows
// (the fourth re-reads the third, with weight 0).
// CL4-LABEL: func.func @decode_gqa
// CL4: gpu.launch clusters
// CL4-COUNT-4: llvm.inline_asm has_side_effects asm_dialect = att "ld.shared::cluster.v2.f32
// CL4-NOT: llvm.inline_asm has_side_effects asm_dialect = att "ld.shared::cluster.v2.f32
// CL4: nvvm.cluster.arrive
// Below sm_90, or more splits forced than a cluster takes: the workspace.
// SM80-LABEL: func.func @decode_gqa
// SM80: gpu.memset
// SM80-NOT: clusters
// SM80: memref.atomic_rmw addi
// CLBIG: error: tx-attention-to-gpu: decode-cluster must be -1 (the strategy's choice), 0 (the workspace merge) or in [1, 16], got 17
// CLNEG: error: tx-attention-to-gpu: decode-cluster must be -1 (the strategy's choice), 0 (the workspace merge) or in [1, 16], got -2
// CLSM: error: tx-attention-to-gpu: decode-cluster = 8 needs thread-block clusters (sm >= 90), got sm = 80
// CLSPLITS: error: tx-attention-to-gpu: kv-splits = 9 is more than decode-cluster = 8 (the cluster merge takes at most decode-cluster splits; decode-cluster = 0 merges any number through a workspace)
// Without the decode kernel: the flash kernel over key chunks, its merge
// kernel and the flash kernel without chunks (split-KV decided on the
// host), no warp-level barrier of the decode kernel.
// PIPEOFF-NOT: bar.warp.sync
// PIPEOFF: gpu.binary @decode_gqa_kernel_0
// PIPEOFF-NOT: bar.warp.sync
// PIPEOFF: gpu.binary @decode_gqa_kernel_1
// PIPEOFF-NOT: bar.warp.sync
// PIPEOFF-NOT: gpu.binary @decode_gqa_kernel_2
func.func @decode_gqa(%q: tensor<?x8x1x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x8x1x64xbf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x8x1x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x1x64xbf16>
  return %0 : tensor<?x8x1x64xbf16>
}

// f16 with G * Sq >= 4 rows: Q K^T and P V on tensor cores (mma.sync
// m16n8k16, the 4 packed rows of the M tile, 12 of 16 zero). Q as 16 rows
// of 72 f16 (2304 bytes), K and V tiles XOR-permuted as for bf16 above:
// 2304 + 4 * (256 + 3 * (2048 + 2048)) = 52480 bytes.
// CHECK-LABEL: func.func @decode_gqa_tc
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %c52480_i32
// CHECK: nvgpu.device_async_copy {{.*}} to memref<1024xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy {{.*}} to memref<1024xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.ldmatrix
// CHECK: scf.for
// CHECK: nvgpu.mma.sync
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK: nvgpu.mma.sync
// CHECK: memref.atomic_rmw addi
// CHECK: } {tx.required_chip = "sm_80"}
// A mask operand keeps the CUDA-core form (the two lanes of a key).
// CHECK-LABEL: func.func @decode_gqa_keep
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32
// CHECK-NOT: nvgpu.mma.sync
// CHECK: } {tx.required_chip = "sm_80"}
func.func @decode_gqa_tc(%q: tensor<?x8x1x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>) -> tensor<?x8x1x64xf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x8x1x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> tensor<?x8x1x64xf16>
  return %0 : tensor<?x8x1x64xf16>
}
func.func @decode_gqa_keep(%q: tensor<?x8x1x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %m: tensor<?x8x1x?xi1>) -> tensor<?x8x1x64xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x8x1x?xi1>) : tensor<?x8x1x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> tensor<?x8x1x64xf16>
  return %0 : tensor<?x8x1x64xf16>
}
