// The split-KV decode kernel's cluster merge (tx-attention-strategy's
// `cluster` key, option decode-cluster): the strategy writes it on sm_90+,
// a hand-written strategy may ask for it (tx-attention-strategy keeps a
// strategy already on the op, whatever its options), and the mapping
// refuses it where it cannot run. The kernel's IR is pinned in attention-to-gpu-decode.mlir;
// numerics on the H200 by harness/check.py ("decode ..." rows).
// RUN: tx-opt %s --split-input-file --tx-attention-strategy | FileCheck %s --check-prefix=STRAT
// RUN: tx-opt %s --split-input-file --tx-attention-strategy="sm=80" | FileCheck %s --check-prefix=STRAT80
// RUN: tx-opt %s --split-input-file --tx-attention-strategy="decode-cluster=0" | FileCheck %s --check-prefix=STRAT80
// RUN: tx-opt %s --split-input-file --tx-attention-strategy="warps=8" | FileCheck %s --check-prefix=STRAT8
// RUN: not tx-opt %s --split-input-file --tx-attention-strategy="decode-cluster=16" 2>&1 | FileCheck %s --check-prefix=STRAT16
// RUN: tx-opt %s --split-input-file --tx-attention-strategy="kv-splits=4" | FileCheck %s --check-prefix=STRAT80
// RUN: not tx-opt %s --split-input-file --tx-attention-strategy="decode-cluster=8" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=DV
// RUN: not tx-opt %s --split-input-file --tx-tile-attention="from-strategy=true decompose=false" --tx-stage-attention --tx-map-attention-to-gpu="sm=80" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=MAP80
// RUN: tx-opt %s --split-input-file --tx-tile-attention="from-strategy=true decompose=false" --tx-stage-attention --tx-map-attention-to-gpu="sm=90" 2>&1 | FileCheck %s --check-prefix=MAP

// Llama-3-style GQA decode, f16, D = 128: a cluster of up to 8 CTAs for
// short calls (decided at run time); with 8 warps per CTA too.
// STRAT-LABEL: func.func @gqa
// STRAT: tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 0, num_sms = 132, stages = 3, tile_keys = 16, cluster = 8, cluster_short_only = true, merge_kernel = true>
// STRAT80-LABEL: func.func @gqa
// STRAT80-NOT: cluster
// STRAT80: #tx.decode_strategy<
// STRAT80-NOT: cluster
// A forced cluster: every call, at most 16 splits.
// STRAT16-LABEL: func.func @gqa
// STRAT16: #tx.decode_strategy<warps = 4, kv_splits = 0, num_sms = 132, stages = 3, tile_keys = 16, cluster = 16,
// STRAT8-LABEL: func.func @gqa
// STRAT8: cluster = 8, cluster_short_only = true
func.func @gqa(%q: tensor<?x32x1x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>) -> tensor<?x32x1x128xf16> {
  %o = tx.attention %q, %k, %v : tensor<?x32x1x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x1x128xf16>
  return %o : tensor<?x32x1x128xf16>
}

// -----

// Static sizes that never make a short call (B * Hkv * 8 <= num-sms / 2 =
// 66, Sk <= 2048): MHA with 32 K/V heads, or a static Sk of 4096, keep the
// workspace merge only; a static B = 1 with Sk = 2048 keeps the choice.
// STRAT-LABEL: func.func @mha
// STRAT-NOT: cluster
// STRAT-LABEL: func.func @long
// STRAT-NOT: cluster
// STRAT-LABEL: func.func @short
// STRAT: cluster = 8, cluster_short_only = true
func.func @mha(%q: tensor<?x32x1x128xf16>, %k: tensor<?x32x?x128xf16>, %v: tensor<?x32x?x128xf16>) -> tensor<?x32x1x128xf16> {
  %o = tx.attention %q, %k, %v : tensor<?x32x1x128xf16>, tensor<?x32x?x128xf16>, tensor<?x32x?x128xf16> -> tensor<?x32x1x128xf16>
  return %o : tensor<?x32x1x128xf16>
}
func.func @long(%q: tensor<?x32x1x128xf16>, %k: tensor<?x8x4096x128xf16>, %v: tensor<?x8x4096x128xf16>) -> tensor<?x32x1x128xf16> {
  %o = tx.attention %q, %k, %v : tensor<?x32x1x128xf16>, tensor<?x8x4096x128xf16>, tensor<?x8x4096x128xf16> -> tensor<?x32x1x128xf16>
  return %o : tensor<?x32x1x128xf16>
}
func.func @short(%q: tensor<1x32x1x128xf16>, %k: tensor<1x8x2048x128xf16>, %v: tensor<1x8x2048x128xf16>) -> tensor<1x32x1x128xf16> {
  %o = tx.attention %q, %k, %v : tensor<1x32x1x128xf16>, tensor<1x8x2048x128xf16>, tensor<1x8x2048x128xf16> -> tensor<1x32x1x128xf16>
  return %o : tensor<1x32x1x128xf16>
}

// -----

// Dv = 256: the workspace merge (the cluster merge holds every split's O
// row in registers); forcing a cluster is an error at the op.
// STRAT-LABEL: func.func @dv256
// STRAT-NOT: cluster
// STRAT: return
// DV: decode-cluster.mlir:[[@LINE+2]]:8: error: tx-attention-to-gpu: decode-cluster = 8 needs Dv <= 128 (the cluster merge holds every split's O row in registers), got Dv = 256; decode-cluster = 0 merges through a workspace
func.func @dv256(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x300x64xf16>, %v: tensor<1x2x300x256xf16>) -> tensor<1x8x1x256xf16> {
  %o = tx.attention %q, %k, %v : tensor<1x8x1x64xf16>, tensor<1x2x300x64xf16>, tensor<1x2x300x256xf16> -> tensor<1x8x1x256xf16>
  return %o : tensor<1x8x1x256xf16>
}

// -----

// A hand-written strategy with the cluster merge: kept by the strategy
// step whatever its options, mapped on sm_90, refused on sm_80.
// STRAT-LABEL: func.func @hand
// STRAT: tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 2, num_sms = 132, stages = 3, tile_keys = 16, cluster = 4>
// STRAT80-LABEL: func.func @hand
// STRAT80: tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 2, num_sms = 132, stages = 3, tile_keys = 16, cluster = 4>
// MAP80: decode-cluster.mlir:[[@LINE+5]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy asks for the cluster merge of the decode family ('cluster' = 4), which needs sm_90 or newer (this mapping targets sm = 80)
// MAP-LABEL: func.func @hand
// MAP: gpu.launch clusters
// MAP: } {tx.required_chip = "sm_90"}
func.func @hand(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x8x1x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 2, num_sms = 132, stages = 3, tile_keys = 16, cluster = 4>} : tensor<1x8x1x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x8x1x64xf16>
  return %o : tensor<1x8x1x64xf16>
}

// -----

// Per-sequence lengths with a hand-written short-call cluster strategy:
// each of the two kernels reads its own batch's length (the first kernel's
// Sk does not leak into the second; was "operand #0 does not dominate this
// use").
// MAP-LABEL: func.func @hand_lengths
// MAP: gpu.launch clusters
// MAP: } {tx.required_chip = "sm_90"}
// MAP: } else {
// MAP: gpu.launch blocks
// MAP: } {tx.required_chip = "sm_80"}
func.func @hand_lengths(%q: tensor<1x2x1x64xf16>, %k: tensor<1x1x64x64xf16>, %v: tensor<1x1x64x64xf16>, %kl: tensor<1xi32>) -> tensor<1x2x1x64xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<1xi32>) {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 0, num_sms = 132, stages = 3, tile_keys = 16, cluster = 2, cluster_short_only = true>} : tensor<1x2x1x64xf16>, tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16> -> tensor<1x2x1x64xf16>
  return %o : tensor<1x2x1x64xf16>
}

// -----

// A hand-written strategy with the merge kernel (`merge_kernel`): mapped on
// sm_90 (a split kernel, then a programmatic-dependent merge kernel),
// refused on sm_80; without the key the last CTA merges (counters).
// MAP80: decode-cluster.mlir:[[@LINE+12]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy asks for the merge kernel of the decode family ('merge_kernel'), which needs sm_90 or newer (this mapping targets sm = 80)
// MAP-LABEL: func.func @hand_merge_kernel
// MAP-NOT: gpu.memset
// MAP: nvvm.griddepcontrol  launch_dependents
// MAP: } {tx.required_chip = "sm_90"}
// MAP: nvvm.griddepcontrol  wait
// MAP: } {tx.programmatic_launch, tx.required_chip = "sm_90"}
// MAP-LABEL: func.func @hand_ticket
// MAP: gpu.memset
// MAP: memref.atomic_rmw addi
// MAP: } {tx.required_chip = "sm_80"}
func.func @hand_merge_kernel(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x8x1x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 2, num_sms = 132, stages = 3, tile_keys = 16, merge_kernel = true>} : tensor<1x8x1x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x8x1x64xf16>
  return %o : tensor<1x8x1x64xf16>
}
func.func @hand_ticket(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x8x1x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 2, num_sms = 132, stages = 3, tile_keys = 16>} : tensor<1x8x1x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x8x1x64xf16>
  return %o : tensor<1x8x1x64xf16>
}
