// The rules tx-map-attention-to-gpu checks a strategy's kernel with
// (checkStrategyAdmits, GPU/Strategy/StrategyAdmission.cpp): hand-written
// strategies, well-formed for their attribute, on problems or chips their
// family does not take. Each is refused at the op with the rule it breaks.
// (tx-attention-strategy keeps a strategy already on an op; the same rules
// check each strategy it chooses itself: map-attention-to-gpu-errors.mlir.)
// RUN: not tx-opt %s --split-input-file --tx-tile-attention="from-strategy=true decompose=false" --tx-stage-attention --tx-map-attention-to-gpu="sm=90" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// The wgmma cases on sm_90a, then on an sm_80 target that claims wgmma:
// RUN: not tx-opt %s --split-input-file --tx-tile-attention="from-strategy=true decompose=false" --tx-stage-attention --tx-map-attention-to-gpu="sm=90 wgmma=true" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=WG
// RUN: not tx-opt %s --split-input-file --tx-tile-attention="from-strategy=true decompose=false" --tx-stage-attention --tx-map-attention-to-gpu="sm=80 wgmma=true" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80

// A decode strategy on an op with a sliding window.
// CHECK: strategy-admission.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy has no kernel for this problem on this chip: the decode family takes no sliding window (the flash kernels skip the key tiles outside it) (remove the tx.gpu_strategy, or change it to what tx-attention-strategy writes for this chip on an op without one)
func.func @decode_window(%q: tensor<1x8x1x128xf16>, %k: tensor<1x2x1024x128xf16>, %v: tensor<1x2x1024x128xf16>) -> tensor<1x8x1x128xf16> {
  %o = tx.attention %q, %k, %v window = [16, 0] {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 0, num_sms = 132, stages = 3, tile_keys = 16, tensor_cores = true, cluster = 0, merge_kernel = true>} : tensor<1x8x1x128xf16>, tensor<1x2x1024x128xf16>, tensor<1x2x1024x128xf16> -> tensor<1x8x1x128xf16>
  return %o : tensor<1x8x1x128xf16>
}

// -----

// A decode strategy on 64 rows per K/V head (G = 8, Sq = 8).
// CHECK: strategy-admission.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy has no kernel for this problem on this chip: the decode family packs G * Sq <= 32 query rows of a K/V head, got G = H / Hkv = 8, Sq = 8 (remove the tx.gpu_strategy, or change it to what tx-attention-strategy writes for this chip on an op without one)
func.func @decode_rows(%q: tensor<1x8x8x128xf16>, %k: tensor<1x1x1024x128xf16>, %v: tensor<1x1x1024x128xf16>) -> tensor<1x8x8x128xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 0, num_sms = 132, stages = 3, tile_keys = 16, tensor_cores = true, cluster = 0, merge_kernel = true>} : tensor<1x8x8x128xf16>, tensor<1x1x1024x128xf16>, tensor<1x1x1024x128xf16> -> tensor<1x8x8x128xf16>
  return %o : tensor<1x8x8x128xf16>
}

// -----

// A decode strategy with Dv = 48.
// CHECK: strategy-admission.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy has no kernel for this problem on this chip: the decode family needs D a multiple of 8 (whole 16-byte loads) up to 256 and Dv in {32, 64, 128, 256}, got D = 64, Dv = 48 (remove the tx.gpu_strategy, or change it to what tx-attention-strategy writes for this chip on an op without one)
func.func @decode_dv48(%q: tensor<1x4x1x64xf16>, %k: tensor<1x1x1024x64xf16>, %v: tensor<1x1x1024x48xf16>) -> tensor<1x4x1x48xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 0, num_sms = 132, stages = 3, tile_keys = 16, tensor_cores = false, cluster = 0, merge_kernel = true>} : tensor<1x4x1x64xf16>, tensor<1x1x1024x64xf16>, tensor<1x1x1024x48xf16> -> tensor<1x4x1x48xf16>
  return %o : tensor<1x4x1x48xf16>
}

// -----

// tile_keys = 16 with D = 40 (f16: two lanes take 20 elements each, not whole 16-byte loads).
// CHECK: strategy-admission.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy has no kernel for this problem on this chip: 'tile_keys' = 16 splits D over two lanes and needs D to be a multiple of 16, got D = 40 (remove the tx.gpu_strategy, or change it to what tx-attention-strategy writes for this chip on an op without one)
func.func @decode_tile_keys(%q: tensor<1x4x1x40xf16>, %k: tensor<1x1x1024x40xf16>, %v: tensor<1x1x1024x64xf16>) -> tensor<1x4x1x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 0, num_sms = 132, stages = 3, tile_keys = 16, tensor_cores = false, cluster = 0, merge_kernel = true>} : tensor<1x4x1x40xf16>, tensor<1x1x1024x40xf16>, tensor<1x1x1024x64xf16> -> tensor<1x4x1x64xf16>
  return %o : tensor<1x4x1x64xf16>
}

// -----

// A decode strategy whose buffers do not fit (32 warps, 4 stages, f32, D = Dv = 256).
// CHECK: strategy-admission.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy has no kernel for this problem on this chip: the decode kernel needs 8552448 bytes of shared memory (warps 32, stages 4, tile_keys = 32, G * Sq 32, D 256, Dv 256), more than max-shared-memory = 232448 (remove the tx.gpu_strategy, or change it to what tx-attention-strategy writes for this chip on an op without one)
func.func @decode_smem(%q: tensor<1x32x1x256xf32>, %k: tensor<1x1x1024x256xf32>, %v: tensor<1x1x1024x256xf32>) -> tensor<1x32x1x256xf32> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 32, kv_splits = 0, num_sms = 132, stages = 4, tile_keys = 32, tensor_cores = false, cluster = 0, merge_kernel = true>} : tensor<1x32x1x256xf32>, tensor<1x1x1024x256xf32>, tensor<1x1x1024x256xf32> -> tensor<1x32x1x256xf32>
  return %o : tensor<1x32x1x256xf32>
}

// -----

// A decode strategy with D = 20 (f16: not whole 16-byte loads).
// CHECK: strategy-admission.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy has no kernel for this problem on this chip: the decode family needs D a multiple of 8 (whole 16-byte loads) up to 256 and Dv in {32, 64, 128, 256}, got D = 20, Dv = 64 (remove the tx.gpu_strategy, or change it to what tx-attention-strategy writes for this chip on an op without one)
func.func @decode_d20(%q: tensor<1x4x1x20xf16>, %k: tensor<1x1x1024x20xf16>, %v: tensor<1x1x1024x64xf16>) -> tensor<1x4x1x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 0, num_sms = 132, stages = 3, tile_keys = 32, tensor_cores = false, cluster = 0, merge_kernel = true>} : tensor<1x4x1x20xf16>, tensor<1x1x1024x20xf16>, tensor<1x1x1024x64xf16> -> tensor<1x4x1x64xf16>
  return %o : tensor<1x4x1x64xf16>
}

// -----

// An mma.sync strategy with D = 40.
// CHECK: strategy-admission.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy has no kernel for this problem on this chip: the mma family needs D and Dv multiples of 16 up to 128, got D = 40, Dv = 40 (remove the tx.gpu_strategy, or change it to what tx-attention-strategy writes for this chip on an op without one)
func.func @mma_d40(%q: tensor<1x2x128x40xf16>, %k: tensor<1x2x128x40xf16>, %v: tensor<1x2x128x40xf16>) -> tensor<1x2x128x40xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.mma_strategy<warps = 4, q_tile = 64, kv_tile = 64, m_tiles = 1>} : tensor<1x2x128x40xf16>, tensor<1x2x128x40xf16>, tensor<1x2x128x40xf16> -> tensor<1x2x128x40xf16>
  return %o : tensor<1x2x128x40xf16>
}

// -----

// An mma.sync strategy with 32 warps (a 1024-thread CTA the kernel does not take).
// CHECK: strategy-admission.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy has no kernel for this problem on this chip: the mma family takes at most 16 warps, got 'warps' = 32 (remove the tx.gpu_strategy, or change it to what tx-attention-strategy writes for this chip on an op without one)
func.func @mma_32_warps(%q: tensor<1x2x1024x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x1024x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.mma_strategy<warps = 32, q_tile = 512, kv_tile = 32, m_tiles = 1>} : tensor<1x2x1024x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x1024x64xf16>
  return %o : tensor<1x2x1024x64xf16>
}

// -----

// A wgmma strategy with D = 96.
// SM80: strategy-admission.mlir:[[@LINE+3]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy has no kernel for this problem on this chip: the wgmma family needs an sm_90a chip (sm = 90 with wgmma), got sm = 80 (remove the tx.gpu_strategy, or change it to what tx-attention-strategy writes for this chip on an op without one)
// WG: strategy-admission.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy has no kernel for this problem on this chip: the wgmma family needs D and Dv in {64, 128}, got D = 96, Dv = 96 (remove the tx.gpu_strategy, or change it to what tx-attention-strategy writes for this chip on an op without one)
func.func @wgmma_d96(%q: tensor<1x2x128x96xf16>, %k: tensor<1x2x128x96xf16>, %v: tensor<1x2x128x96xf16>) -> tensor<1x2x128x96xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.wgmma_strategy<warps = 4, q_tile = 64, kv_tile = 64, stages = 2>} : tensor<1x2x128x96xf16>, tensor<1x2x128x96xf16>, tensor<1x2x128x96xf16> -> tensor<1x2x128x96xf16>
  return %o : tensor<1x2x128x96xf16>
}

// -----

// A wgmma strategy with three consumer warpgroups.
// SM80: strategy-admission.mlir:[[@LINE+3]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy has no kernel for this problem on this chip: the wgmma family needs an sm_90a chip (sm = 90 with wgmma), got sm = 80 (remove the tx.gpu_strategy, or change it to what tx-attention-strategy writes for this chip on an op without one)
// WG: strategy-admission.mlir:[[@LINE+2]]:8: error: tx-map-attention-to-gpu: its tx.gpu_strategy has no kernel for this problem on this chip: the wgmma family takes one or two consumer warpgroups ('q_tile' 64 or 128), got 'q_tile' = 192 (remove the tx.gpu_strategy, or change it to what tx-attention-strategy writes for this chip on an op without one)
func.func @wgmma_three_warpgroups(%q: tensor<1x2x384x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x384x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.wgmma_strategy<warps = 12, q_tile = 192, kv_tile = 64, stages = 2>} : tensor<1x2x384x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x384x64xf16>
  return %o : tensor<1x2x384x64xf16>
}
