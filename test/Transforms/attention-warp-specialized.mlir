// The wgmma kernel's warp specialization (producer-warps): a producer
// warpgroup issues the K/V copies and signals them through mbarriers, the
// consumer warpgroups compute. Default on sm_90a for two consumer
// warpgroups at D = Dv = 128 with 128 keys per step, static shapes, without
// window, mask or per-sequence lengths, without causal unless capped
// (softcap), with 3 stages; the
// option forces it on (ops with a mask keep 0: the option applies to a
// whole module, while a tx.gpu_strategy asking for it on a masked op is an
// error) or off.
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-strategy{wgmma=true sm=90}))" | FileCheck %s --check-prefix=DEF
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-strategy{wgmma=true sm=90 producer-warps=0}))" | FileCheck %s --check-prefix=OFF
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-strategy{wgmma=true sm=90 producer-warps=4}))" | FileCheck %s --check-prefix=ON
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-strategy{wgmma=true sm=90 kv-tile=128}))" | FileCheck %s --check-prefix=KV128
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-strategy{wgmma=true sm=90 producer-warps=3}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{wgmma=true sm=90}),canonicalize)" | FileCheck %s --check-prefix=LAUNCH
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{wgmma=true sm=90 max-shared-memory=200000}),canonicalize)" | FileCheck %s --check-prefix=SHRINK
// Where neither 3 nor 2 stages fit at 128 keys and 8 warps, the default
// does not take the producer (its tiles would shrink to a configuration
// never measured faster).
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-attention-strategy{wgmma=true sm=90 max-shared-memory=100000}))" | FileCheck %s --check-prefix=SMALL
// SMALL-LABEL: func.func @d128
// SMALL-NOT: producer_warps
// SMALL: return

// BAD: error: tx-attention-to-gpu: producer-warps must be -1 (the strategy's choice), 0 or 4, got 3

// DEF-LABEL: func.func @d128
// DEF: tx.gpu_strategy = #tx.wgmma_strategy<warps = 8, q_tile = 128, kv_tile = 128, stages = 3, producer_warps = 4>
// OFF-LABEL: func.func @d128
// OFF: tx.gpu_strategy = #tx.wgmma_strategy<warps = 8, q_tile = 128, kv_tile = 128, stages = 2>
// ON-LABEL: func.func @d128
// ON: producer_warps = 4>
// 384 threads (8 consumer warps, 4 producer warps); shared memory 1024 +
// 2 * (128*128 + 3*128*(128+128)) + 2 mbarriers per stage * 3 * 8 = 230448.
// LAUNCH-LABEL: func.func @d128
// LAUNCH: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c384, {{.*}}) dynamic_shared_memory_size %c230448_i32
// LAUNCH-DAG: nvvm.setmaxregister decrease 24
// LAUNCH-DAG: nvvm.setmaxregister increase 240
// LAUNCH-DAG: nvvm.mbarrier.init
// LAUNCH-DAG: nvvm.mbarrier.try_wait.parity
// LAUNCH-DAG: nvvm.mbarrier.arrive
// LAUNCH-DAG: nvvm.fence.proxy
// Three stages do not fit 200000 bytes: two (1024 + 2 * (128*128 +
// 2*128*256) + 32 = 164896).
// SHRINK-LABEL: func.func @d128
// SHRINK: dynamic_shared_memory_size %c164896_i32
func.func @d128(%q: tensor<1x4x300x128xf16>, %k: tensor<1x4x300x128xf16>, %v: tensor<1x4x300x128xf16>) -> tensor<1x4x300x128xf16> {
  %0 = tx.attention %q, %k, %v : tensor<1x4x300x128xf16>, tensor<1x4x300x128xf16>, tensor<1x4x300x128xf16> -> tensor<1x4x300x128xf16>
  return %0 : tensor<1x4x300x128xf16>
}

// -----

// Causal: off by default, on when asked (3 stages).
// DEF-LABEL: func.func @d128_causal
// DEF-NOT: producer_warps
// DEF: stages = 2
// ON-LABEL: func.func @d128_causal
// ON: q_tile = 128, kv_tile = 128, stages = 3, producer_warps = 4>
// LAUNCH-LABEL: func.func @d128_causal
// LAUNCH: threads({{.*}}) in ({{.*}} = %c256, {{.*}})
// LAUNCH-NOT: nvvm.mbarrier
func.func @d128_causal(%q: tensor<1x4x300x128xf16>, %k: tensor<1x4x300x128xf16>, %v: tensor<1x4x300x128xf16>) -> tensor<1x4x300x128xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x4x300x128xf16>, tensor<1x4x300x128xf16>, tensor<1x4x300x128xf16> -> tensor<1x4x300x128xf16>
  return %0 : tensor<1x4x300x128xf16>
}

// -----

// A mask operand keeps every warp copying, even when asked (its key
// visibility flags are computed by every warp).
// DEF-LABEL: func.func @d128_mask
// DEF-NOT: producer_warps
// ON-LABEL: func.func @d128_mask
// ON-NOT: producer_warps
// ON: return
func.func @d128_mask(%q: tensor<1x4x300x128xf16>, %k: tensor<1x4x300x128xf16>, %v: tensor<1x4x300x128xf16>, %m: tensor<1x1x300x300xi1>) -> tensor<1x4x300x128xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x1x300x300xi1>) : tensor<1x4x300x128xf16>, tensor<1x4x300x128xf16>, tensor<1x4x300x128xf16> -> tensor<1x4x300x128xf16>
  return %0 : tensor<1x4x300x128xf16>
}

// -----

// D = 64 (one consumer warpgroup, 256 threads): on only when asked, without
// setmaxnreg (every thread has 255 registers).
// DEF-LABEL: func.func @d64
// DEF-NOT: producer_warps
// ON-LABEL: func.func @d64
// ON: producer_warps = 4>
func.func @d64(%q: tensor<1x4x300x64xf16>, %k: tensor<1x4x300x64xf16>, %v: tensor<1x4x300x64xf16>) -> tensor<1x4x300x64xf16> {
  %0 = tx.attention %q, %k, %v : tensor<1x4x300x64xf16>, tensor<1x4x300x64xf16>, tensor<1x4x300x64xf16> -> tensor<1x4x300x64xf16>
  return %0 : tensor<1x4x300x64xf16>
}

// -----

// Softcap with causal: on by default at D = 128, unlike the uncapped op
// (H200: 1.01-1.08x, session 18); at D = 64, 64 keys per step (four CTAs
// per SM; 1.03-1.09x). The options override both.
// DEF-LABEL: func.func @d128_softcap_causal
// DEF: q_tile = 128, kv_tile = 128, stages = 3, producer_warps = 4>
// OFF-LABEL: func.func @d128_softcap_causal
// OFF-NOT: producer_warps
// OFF: return
// LAUNCH-LABEL: func.func @d128_softcap_causal
// LAUNCH: threads({{.*}}) in ({{.*}} = %c384, {{.*}})
// LAUNCH: nvvm.mbarrier.init
func.func @d128_softcap_causal(%q: tensor<1x4x300x128xf16>, %k: tensor<1x4x300x128xf16>, %v: tensor<1x4x300x128xf16>) -> tensor<1x4x300x128xf16> {
  %0 = tx.attention %q, %k, %v softcap = 30.0 causal : tensor<1x4x300x128xf16>, tensor<1x4x300x128xf16>, tensor<1x4x300x128xf16> -> tensor<1x4x300x128xf16>
  return %0 : tensor<1x4x300x128xf16>
}

// -----

// DEF-LABEL: func.func @d64_softcap_causal
// DEF: #tx.wgmma_strategy<warps = 4, q_tile = 64, kv_tile = 64,
// DEF-NOT: producer_warps
// KV128-LABEL: func.func @d64_softcap_causal
// KV128: #tx.wgmma_strategy<warps = {{[0-9]+}}, q_tile = {{[0-9]+}}, kv_tile = 128,
func.func @d64_softcap_causal(%q: tensor<1x4x300x64xf16>, %k: tensor<1x4x300x64xf16>, %v: tensor<1x4x300x64xf16>) -> tensor<1x4x300x64xf16> {
  %0 = tx.attention %q, %k, %v softcap = 30.0 causal : tensor<1x4x300x64xf16>, tensor<1x4x300x64xf16>, tensor<1x4x300x64xf16> -> tensor<1x4x300x64xf16>
  return %0 : tensor<1x4x300x64xf16>
}

// -----

// DEF-LABEL: func.func @d64_softcap
// DEF: #tx.wgmma_strategy<warps = 4, q_tile = 64, kv_tile = 128,
func.func @d64_softcap(%q: tensor<1x4x300x64xf16>, %k: tensor<1x4x300x64xf16>, %v: tensor<1x4x300x64xf16>) -> tensor<1x4x300x64xf16> {
  %0 = tx.attention %q, %k, %v softcap = 30.0 : tensor<1x4x300x64xf16>, tensor<1x4x300x64xf16>, tensor<1x4x300x64xf16> -> tensor<1x4x300x64xf16>
  return %0 : tensor<1x4x300x64xf16>
}

// -----

// Softcap: on by default like the uncapped op (H200: 1.05-1.07x, session 16).
// DEF-LABEL: func.func @d128_softcap
// DEF: producer_warps = 4>
// ON-LABEL: func.func @d128_softcap
// ON: producer_warps = 4>
// LAUNCH-LABEL: func.func @d128_softcap
// LAUNCH: threads({{.*}}) in ({{.*}} = %c384, {{.*}})
// LAUNCH: nvvm.mbarrier.init
func.func @d128_softcap(%q: tensor<1x4x300x128xf16>, %k: tensor<1x4x300x128xf16>, %v: tensor<1x4x300x128xf16>) -> tensor<1x4x300x128xf16> {
  %0 = tx.attention %q, %k, %v softcap = 30.0 : tensor<1x4x300x128xf16>, tensor<1x4x300x128xf16>, tensor<1x4x300x128xf16> -> tensor<1x4x300x128xf16>
  return %0 : tensor<1x4x300x128xf16>
}

// -----

// DEF-LABEL: func.func @d128_dynamic
// DEF-NOT: producer_warps
// DEF: return
func.func @d128_dynamic(%q: tensor<?x4x?x128xf16>, %k: tensor<?x4x?x128xf16>, %v: tensor<?x4x?x128xf16>) -> tensor<?x4x?x128xf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x4x?x128xf16>, tensor<?x4x?x128xf16>, tensor<?x4x?x128xf16> -> tensor<?x4x?x128xf16>
  return %0 : tensor<?x4x?x128xf16>
}
