// Split-KV for the prefill tensor-core kernels (issue #38): where B * H *
// query tiles leave SMs idle, tx-attention-strategy cuts every query tile's
// keys into chunks (kv_splits on #tx.mma_strategy / #tx.wgmma_strategy: at
// compile time when B, H, Sq and Sk are static, else 0 = at run time from
// num_sms; 512 to 4096 keys per chunk), and tx-map-attention-to-gpu launches the kernel over the chunks,
// each writing its part (O, max, sum; f32) to a workspace, then a merge
// kernel as a programmatic dependent launch. Numerics: harness/check.py
// ("drift" and "split" rows, on the GPU).
// RUN: tx-opt %s --tx-attention-strategy="sm=90" | FileCheck %s --check-prefix=MMA
// RUN: tx-opt %s --tx-attention-strategy="sm=90 wgmma=true" | FileCheck %s --check-prefix=WG
// RUN: tx-opt %s --tx-attention-strategy="sm=90 num-sms=16" | FileCheck %s --check-prefix=SMS
// RUN: tx-opt %s --tx-attention-strategy="sm=80" | FileCheck %s --check-prefix=SM80
// RUN: tx-opt %s --tx-attention-to-gpu | FileCheck %s --check-prefix=MAP
// RUN: not tx-opt %s --tx-attention-to-gpu="sm=80" 2>&1 | FileCheck %s --check-prefix=OLD

// 2 CTAs over 4096 keys: min(132 / 2, 4096 / 512) = 8 chunks of 512 keys.
// MMA-LABEL: func.func @small
// MMA: #tx.mma_strategy<warps = 8, q_tile = 256, kv_tile = 64, m_tiles = 2, kv_splits = 8>
// WG-LABEL: func.func @small
// WG: #tx.wgmma_strategy<warps = 4, q_tile = 64, kv_tile = 128, stages = 2, kv_splits = 8>
// With 16 SMs: 16 / 2 = 8 as well.
// SMS-LABEL: func.func @small
// SMS: kv_splits = 8>
// SM80-LABEL: func.func @small
// SM80: #tx.mma_strategy<warps = 8, q_tile = 256, kv_tile = 64, m_tiles = 2>
// MAP-LABEL: func.func @small
// MAP-COUNT-2: memref.alloc({{.*}}) : memref<?xf32>
// MAP: gpu.launch
// MAP: } {tx.required_chip = "sm_80"}
// MAP: gpu.launch
// MAP: nvvm.griddepcontrol wait
// MAP: } {tx.programmatic_launch, tx.required_chip = "sm_90"}
func.func @small(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x4096x64xf16>, %v: tensor<1x2x4096x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v causal : tensor<1x2x64x64xf16>, tensor<1x2x4096x64xf16>, tensor<1x2x4096x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// Rounded to whole key tiles: 4 CTAs, 33 chunks wanted of 1000 keys but at
// most ceil(1000 / 512) = 2: 512 keys (8 tiles of 64), then 488.
// MMA-LABEL: func.func @rounded
// MMA: kv_splits = 2>
// SMS-LABEL: func.func @rounded
// SMS: kv_splits = 2>
func.func @rounded(%q: tensor<2x2x64x64xbf16>, %k: tensor<2x2x1000x64xbf16>, %v: tensor<2x2x1000x64xbf16>) -> tensor<2x2x64x64xbf16> {
  %o = tx.attention %q, %k, %v : tensor<2x2x64x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16> -> tensor<2x2x64x64xbf16>
  return %o : tensor<2x2x64x64xbf16>
}

// At most 4096 keys per chunk once a call splits: 40 CTAs over 65536 keys
// want 132 / 40 = 3 chunks but take 16 (more than one wave).
// MMA-LABEL: func.func @long
// MMA: #tx.mma_strategy<warps = 8, q_tile = 256, kv_tile = 64, m_tiles = 2, kv_splits = 16>
func.func @long(%q: tensor<1x40x64x64xf16>, %k: tensor<1x40x65536x64xf16>, %v: tensor<1x40x65536x64xf16>) -> tensor<1x40x64x64xf16> {
  %o = tx.attention %q, %k, %v : tensor<1x40x64x64xf16>, tensor<1x40x65536x64xf16>, tensor<1x40x65536x64xf16> -> tensor<1x40x64x64xf16>
  return %o : tensor<1x40x64x64xf16>
}

// A grid of more than half the CTA slots (mma.sync: 68 > 132 / 2; with
// 16 SMs 68 > 8; wgmma, two CTAs of 4 warps per SM: 272 > 264): no split.
// MMA-LABEL: func.func @wide
// MMA: #tx.mma_strategy<warps = 8, q_tile = 256, kv_tile = 64, m_tiles = 2>
// SMS-LABEL: func.func @wide
// SMS: #tx.mma_strategy<warps = 8, q_tile = 256, kv_tile = 64, m_tiles = 2>
func.func @wide(%q: tensor<2x34x256x64xf16>, %k: tensor<2x34x8192x64xf16>, %v: tensor<2x34x8192x64xf16>) -> tensor<2x34x256x64xf16> {
  %o = tx.attention %q, %k, %v : tensor<2x34x256x64xf16>, tensor<2x34x8192x64xf16>, tensor<2x34x8192x64xf16> -> tensor<2x34x256x64xf16>
  return %o : tensor<2x34x256x64xf16>
}

// Dynamic sizes: decided at run time (and the kernel without splits kept
// for the calls that take one chunk).
// MMA-LABEL: func.func @dynamic
// MMA: #tx.mma_strategy<warps = 8, q_tile = 256, kv_tile = 64, m_tiles = 2, kv_splits = 0, num_sms = 132>
// SMS-LABEL: func.func @dynamic
// SMS: kv_splits = 0, num_sms = 16>
// MAP-LABEL: func.func @dynamic
// MAP: scf.if
// MAP-COUNT-2: memref.alloc({{.*}}) : memref<?xf32>
// MAP: gpu.launch
// MAP: gpu.launch
// MAP: } {tx.programmatic_launch, tx.required_chip = "sm_90"}
// MAP: } else {
// MAP-NOT: memref.alloc
// MAP: gpu.launch
func.func @dynamic(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>) -> tensor<?x?x?x64xf16> {
  %o = tx.attention %q, %k, %v : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>
  return %o : tensor<?x?x?x64xf16>
}

// Dv not a multiple of 32 (the merge's lanes take Dv / 32 columns): no split.
// MMA-LABEL: func.func @dv48
// MMA: #tx.mma_strategy<warps = 8, q_tile = 256, kv_tile = 64, m_tiles = 2>
func.func @dv48(%q: tensor<1x1x64x64xf16>, %k: tensor<1x1x4096x64xf16>, %v: tensor<1x1x4096x48xf16>) -> tensor<1x1x64x48xf16> {
  %o = tx.attention %q, %k, %v : tensor<1x1x64x64xf16>, tensor<1x1x4096x64xf16>, tensor<1x1x4096x48xf16> -> tensor<1x1x64x48xf16>
  return %o : tensor<1x1x64x48xf16>
}

// A hand-written split count is kept (and needs sm_90 for its merge).
// MMA-LABEL: func.func @forced
// MMA: #tx.mma_strategy<warps = 4, q_tile = 64, kv_tile = 64, m_tiles = 1, kv_splits = 3>
// OLD: prefill-split-kv.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy asks for split-KV ('kv_splits' = 3), whose merge kernel needs sm_90 or newer (this mapping targets sm = 80)
func.func @forced(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x4096x64xf16>, %v: tensor<1x2x4096x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.mma_strategy<warps = 4, q_tile = 64, kv_tile = 64, m_tiles = 1, kv_splits = 3>} : tensor<1x2x64x64xf16>, tensor<1x2x4096x64xf16>, tensor<1x2x4096x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}
