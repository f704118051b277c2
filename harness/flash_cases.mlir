// Static-head-dim attention cases for the flash path (tx-gpu-pipeline
// attention=flash, tx-attention-to-gpu): scripts/main.sh compiles them with
// that option and harness/check.py --flash runs them.
func.func @flash_causal_gqa_f16(%q: tensor<2x8x77x64xf16>, %k: tensor<2x2x77x64xf16>, %v: tensor<2x2x77x64xf16>) -> tensor<2x8x77x64xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<2x8x77x64xf16>, tensor<2x2x77x64xf16>, tensor<2x2x77x64xf16> -> tensor<2x8x77x64xf16>
  return %0 : tensor<2x8x77x64xf16>
}
func.func @flash_causal_sq_lt_sk_f32(%q: tensor<1x2x5x32xf32>, %k: tensor<1x2x9x32xf32>, %v: tensor<1x2x9x32xf32>) -> tensor<1x2x5x32xf32> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x2x5x32xf32>, tensor<1x2x9x32xf32>, tensor<1x2x9x32xf32> -> tensor<1x2x5x32xf32>
  return %0 : tensor<1x2x5x32xf32>
}
func.func @flash_causal_sq_gt_sk_f32(%q: tensor<1x2x9x32xf32>, %k: tensor<1x2x5x32xf32>, %v: tensor<1x2x5x32xf32>) -> tensor<1x2x9x32xf32> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x2x9x32xf32>, tensor<1x2x5x32xf32>, tensor<1x2x5x32xf32> -> tensor<1x2x9x32xf32>
  return %0 : tensor<1x2x9x32xf32>
}
func.func @flash_keep_mask_f32(%q: tensor<2x4x33x64xf32>, %k: tensor<2x4x65x64xf32>, %v: tensor<2x4x65x64xf32>, %m: tensor<1x1x33x65xi1>) -> tensor<2x4x33x64xf32> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x1x33x65xi1>) : tensor<2x4x33x64xf32>, tensor<2x4x65x64xf32>, tensor<2x4x65x64xf32> -> tensor<2x4x33x64xf32>
  return %0 : tensor<2x4x33x64xf32>
}
func.func @flash_add_mask_f16(%q: tensor<2x4x33x64xf16>, %k: tensor<2x4x65x64xf16>, %v: tensor<2x4x65x64xf16>, %m: tensor<2x4x33x65xf16>) -> tensor<2x4x33x64xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<2x4x33x65xf16>) scale = 0.2 : tensor<2x4x33x64xf16>, tensor<2x4x65x64xf16>, tensor<2x4x65x64xf16> -> tensor<2x4x33x64xf16>
  return %0 : tensor<2x4x33x64xf16>
}
func.func @flash_dv32_f32(%q: tensor<1x2x16x64xf32>, %k: tensor<1x2x40x64xf32>, %v: tensor<1x2x40x32xf32>) -> tensor<1x2x16x32xf32> {
  %0 = tx.attention %q, %k, %v : tensor<1x2x16x64xf32>, tensor<1x2x40x64xf32>, tensor<1x2x40x32xf32> -> tensor<1x2x16x32xf32>
  return %0 : tensor<1x2x16x32xf32>
}
func.func @flash_sk0_f32(%q: tensor<1x2x4x64xf32>, %k: tensor<1x2x0x64xf32>, %v: tensor<1x2x0x64xf32>) -> tensor<1x2x4x64xf32> {
  %0 = tx.attention %q, %k, %v : tensor<1x2x4x64xf32>, tensor<1x2x0x64xf32>, tensor<1x2x0x64xf32> -> tensor<1x2x4x64xf32>
  return %0 : tensor<1x2x4x64xf32>
}
func.func @flash_dyn_f16(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>) -> tensor<?x?x?x64xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>
  return %0 : tensor<?x?x?x64xf16>
}
func.func @flash_long_f16(%q: tensor<1x32x16384x128xf16>, %k: tensor<1x8x16384x128xf16>, %v: tensor<1x8x16384x128xf16>) -> tensor<1x32x16384x128xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x32x16384x128xf16>, tensor<1x8x16384x128xf16>, tensor<1x8x16384x128xf16> -> tensor<1x32x16384x128xf16>
  return %0 : tensor<1x32x16384x128xf16>
}

// Head dims 32/80/96/128/256, bf16, Sq = 1, Sk = 1, and a head dim that is
// not a multiple of 4 (scalar staging) with Dv != D.
func.func @flash_d32_bf16_causal(%q: tensor<1x2x50x32xbf16>, %k: tensor<1x2x70x32xbf16>, %v: tensor<1x2x70x32xbf16>) -> tensor<1x2x50x32xbf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x2x50x32xbf16>, tensor<1x2x70x32xbf16>, tensor<1x2x70x32xbf16> -> tensor<1x2x50x32xbf16>
  return %0 : tensor<1x2x50x32xbf16>
}
func.func @flash_d80_f16(%q: tensor<2x3x100x80xf16>, %k: tensor<2x1x100x80xf16>, %v: tensor<2x1x100x80xf16>) -> tensor<2x3x100x80xf16> {
  %0 = tx.attention %q, %k, %v : tensor<2x3x100x80xf16>, tensor<2x1x100x80xf16>, tensor<2x1x100x80xf16> -> tensor<2x3x100x80xf16>
  return %0 : tensor<2x3x100x80xf16>
}
func.func @flash_d96_f32_causal(%q: tensor<1x2x65x96xf32>, %k: tensor<1x2x129x96xf32>, %v: tensor<1x2x129x96xf32>) -> tensor<1x2x65x96xf32> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x2x65x96xf32>, tensor<1x2x129x96xf32>, tensor<1x2x129x96xf32> -> tensor<1x2x65x96xf32>
  return %0 : tensor<1x2x65x96xf32>
}
func.func @flash_d128_bf16_causal(%q: tensor<1x4x200x128xbf16>, %k: tensor<1x2x200x128xbf16>, %v: tensor<1x2x200x128xbf16>) -> tensor<1x4x200x128xbf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x4x200x128xbf16>, tensor<1x2x200x128xbf16>, tensor<1x2x200x128xbf16> -> tensor<1x4x200x128xbf16>
  return %0 : tensor<1x4x200x128xbf16>
}
func.func @flash_d256_f32(%q: tensor<1x2x40x256xf32>, %k: tensor<1x1x90x256xf32>, %v: tensor<1x1x90x256xf32>) -> tensor<1x2x40x256xf32> {
  %0 = tx.attention %q, %k, %v : tensor<1x2x40x256xf32>, tensor<1x1x90x256xf32>, tensor<1x1x90x256xf32> -> tensor<1x2x40x256xf32>
  return %0 : tensor<1x2x40x256xf32>
}
func.func @flash_d256_f16_causal(%q: tensor<1x2x70x256xf16>, %k: tensor<1x2x70x256xf16>, %v: tensor<1x2x70x256xf16>) -> tensor<1x2x70x256xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x2x70x256xf16>, tensor<1x2x70x256xf16>, tensor<1x2x70x256xf16> -> tensor<1x2x70x256xf16>
  return %0 : tensor<1x2x70x256xf16>
}
func.func @flash_sq1_f16_causal(%q: tensor<1x4x1x64xf16>, %k: tensor<1x4x513x64xf16>, %v: tensor<1x4x513x64xf16>) -> tensor<1x4x1x64xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x4x1x64xf16>, tensor<1x4x513x64xf16>, tensor<1x4x513x64xf16> -> tensor<1x4x1x64xf16>
  return %0 : tensor<1x4x1x64xf16>
}
func.func @flash_sk1_f32(%q: tensor<2x2x33x64xf32>, %k: tensor<2x2x1x64xf32>, %v: tensor<2x2x1x64xf32>) -> tensor<2x2x33x64xf32> {
  %0 = tx.attention %q, %k, %v : tensor<2x2x33x64xf32>, tensor<2x2x1x64xf32>, tensor<2x2x1x64xf32> -> tensor<2x2x33x64xf32>
  return %0 : tensor<2x2x33x64xf32>
}
func.func @flash_d18_dv40_f16(%q: tensor<1x2x45x18xf16>, %k: tensor<1x2x77x18xf16>, %v: tensor<1x2x77x40xf16>) -> tensor<1x2x45x40xf16> {
  %0 = tx.attention %q, %k, %v : tensor<1x2x45x18xf16>, tensor<1x2x77x18xf16>, tensor<1x2x77x40xf16> -> tensor<1x2x45x40xf16>
  return %0 : tensor<1x2x45x40xf16>
}
func.func @flash_addmask_bcast_bf16(%q: tensor<2x4x33x64xbf16>, %k: tensor<2x4x65x64xbf16>, %v: tensor<2x4x65x64xbf16>, %m: tensor<1x4x33x65xbf16>) -> tensor<2x4x33x64xbf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x4x33x65xbf16>) causal : tensor<2x4x33x64xbf16>, tensor<2x4x65x64xbf16>, tensor<2x4x65x64xbf16> -> tensor<2x4x33x64xbf16>
  return %0 : tensor<2x4x33x64xbf16>
}

// CASES.md A1, A2, A5, A6 and S2 through the flash path: B/H/Sq/Sk dynamic,
// head dims static (the flash kernels need them static).
func.func @flash_a1_f32(%q: tensor<?x?x?x2xf32>, %k: tensor<?x?x?x2xf32>, %v: tensor<?x?x?x2xf32>, %m: tensor<?x?x?x?xi1>) -> tensor<?x?x?x2xf32> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xi1>) : tensor<?x?x?x2xf32>, tensor<?x?x?x2xf32>, tensor<?x?x?x2xf32> -> tensor<?x?x?x2xf32>
  return %0 : tensor<?x?x?x2xf32>
}
func.func @flash_a1_causal_f16(%q: tensor<?x?x?x16xf16>, %k: tensor<?x?x?x16xf16>, %v: tensor<?x?x?x16xf16>, %m: tensor<?x?x?x?xi1>) -> tensor<?x?x?x16xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xi1>) causal : tensor<?x?x?x16xf16>, tensor<?x?x?x16xf16>, tensor<?x?x?x16xf16> -> tensor<?x?x?x16xf16>
  return %0 : tensor<?x?x?x16xf16>
}
func.func @flash_a2_f32(%q: tensor<?x?x?x1xf32>, %k: tensor<?x?x?x1xf32>, %v: tensor<?x?x?x1xf32>) -> tensor<?x?x?x1xf32> {
  %0 = tx.attention %q, %k, %v causal : tensor<?x?x?x1xf32>, tensor<?x?x?x1xf32>, tensor<?x?x?x1xf32> -> tensor<?x?x?x1xf32>
  return %0 : tensor<?x?x?x1xf32>
}
func.func @flash_a5_f32(%q: tensor<?x?x?x8xf32>, %k: tensor<?x?x?x8xf32>, %v: tensor<?x?x?x8xf32>) -> tensor<?x?x?x8xf32> {
  %0 = tx.attention %q, %k, %v : tensor<?x?x?x8xf32>, tensor<?x?x?x8xf32>, tensor<?x?x?x8xf32> -> tensor<?x?x?x8xf32>
  return %0 : tensor<?x?x?x8xf32>
}
func.func @flash_a6_d24_f32(%q: tensor<?x?x?x24xf32>, %k: tensor<?x?x?x24xf32>, %v: tensor<?x?x?x24xf32>) -> tensor<?x?x?x24xf32> {
  %0 = tx.attention %q, %k, %v causal : tensor<?x?x?x24xf32>, tensor<?x?x?x24xf32>, tensor<?x?x?x24xf32> -> tensor<?x?x?x24xf32>
  return %0 : tensor<?x?x?x24xf32>
}
func.func @flash_a6_d1_f32(%q: tensor<?x?x?x1xf32>, %k: tensor<?x?x?x1xf32>, %v: tensor<?x?x?x1xf32>) -> tensor<?x?x?x1xf32> {
  %0 = tx.attention %q, %k, %v : tensor<?x?x?x1xf32>, tensor<?x?x?x1xf32>, tensor<?x?x?x1xf32> -> tensor<?x?x?x1xf32>
  return %0 : tensor<?x?x?x1xf32>
}
func.func @flash_a6_d64_f16(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>) -> tensor<?x?x?x64xf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>
  return %0 : tensor<?x?x?x64xf16>
}
func.func @flash_s2_f32(%q: tensor<1x1x3x16xf32>, %k: tensor<1x1x4x16xf32>, %v: tensor<1x1x4x4xf32>, %m: tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x1x3x4xf32>) : tensor<1x1x3x16xf32>, tensor<1x1x4x16xf32>, tensor<1x1x4x4xf32> -> tensor<1x1x3x4xf32>
  return %0 : tensor<1x1x3x4xf32>
}
func.func @flash_s2_f16(%q: tensor<1x1x3x16xf16>, %k: tensor<1x1x4x16xf16>, %v: tensor<1x1x4x16xf16>, %m: tensor<1x1x3x4xf16>) -> tensor<1x1x3x16xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x1x3x4xf16>) : tensor<1x1x3x16xf16>, tensor<1x1x4x16xf16>, tensor<1x1x4x16xf16> -> tensor<1x1x3x16xf16>
  return %0 : tensor<1x1x3x16xf16>
}
// Head dims of the sm_90a warpgroup kernel (64 and 128, also mixed), with
// key tails, causal Sq < Sk and several K/V tiles.
func.func @flash_d128_f16_causal(%q: tensor<1x4x200x128xf16>, %k: tensor<1x2x300x128xf16>, %v: tensor<1x2x300x128xf16>) -> tensor<1x4x200x128xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x4x200x128xf16>, tensor<1x2x300x128xf16>, tensor<1x2x300x128xf16> -> tensor<1x4x200x128xf16>
  return %0 : tensor<1x4x200x128xf16>
}
func.func @flash_d64_dv128_f16(%q: tensor<2x2x150x64xf16>, %k: tensor<2x2x333x64xf16>, %v: tensor<2x2x333x128xf16>) -> tensor<2x2x150x128xf16> {
  %0 = tx.attention %q, %k, %v : tensor<2x2x150x64xf16>, tensor<2x2x333x64xf16>, tensor<2x2x333x128xf16> -> tensor<2x2x150x128xf16>
  return %0 : tensor<2x2x150x128xf16>
}
func.func @flash_d128_dv64_f16_mask(%q: tensor<1x2x130x128xf16>, %k: tensor<1x2x257x128xf16>, %v: tensor<1x2x257x64xf16>, %m: tensor<1x1x130x257xi1>) -> tensor<1x2x130x64xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x1x130x257xi1>) : tensor<1x2x130x128xf16>, tensor<1x2x257x128xf16>, tensor<1x2x257x64xf16> -> tensor<1x2x130x64xf16>
  return %0 : tensor<1x2x130x64xf16>
}
// CTAs that see no key on the wgmma kernel: causal Sq > Sk (the first query
// tiles are above the diagonal) and Sk = 0; both must give exact zeros there.
func.func @flash_causal_sq_gt_sk_f16(%q: tensor<1x2x256x64xf16>, %k: tensor<1x2x64x64xf16>, %v: tensor<1x2x64x64xf16>) -> tensor<1x2x256x64xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x2x256x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x256x64xf16>
  return %0 : tensor<1x2x256x64xf16>
}
func.func @flash_sk0_f16(%q: tensor<1x2x70x128xf16>, %k: tensor<1x2x0x128xf16>, %v: tensor<1x2x0x128xf16>) -> tensor<1x2x70x128xf16> {
  %0 = tx.attention %q, %k, %v : tensor<1x2x70x128xf16>, tensor<1x2x0x128xf16>, tensor<1x2x0x128xf16> -> tensor<1x2x70x128xf16>
  return %0 : tensor<1x2x70x128xf16>
}

// CASES.md H1-H3 (issue #13): hidden keys holding NaN/Inf, huge finite mask
// values, huge equal logits. Static head dims (the flash kernels), every other
// dim dynamic; masks [B, H, Sq, Sk]. f16: mma.sync (sm_90) / wgmma (sm_90a);
// bf16: mma.sync through nvvm.mma.sync (sm_90) / wgmma (sm_90a); f32: CUDA
// cores.
func.func @hk_d64_f16(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>) -> tensor<?x?x?x64xf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>
  return %0 : tensor<?x?x?x64xf16>
}
func.func @hk_keep_d64_f16(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>, %m: tensor<?x?x?x?xi1>) -> tensor<?x?x?x64xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xi1>) : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>
  return %0 : tensor<?x?x?x64xf16>
}
func.func @hk_add_d64_f16(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>, %m: tensor<?x?x?x?xf16>) -> tensor<?x?x?x64xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xf16>) : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>
  return %0 : tensor<?x?x?x64xf16>
}
func.func @hk_d64_bf16(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>) -> tensor<?x?x?x64xbf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16> -> tensor<?x?x?x64xbf16>
  return %0 : tensor<?x?x?x64xbf16>
}
func.func @hk_keep_d64_bf16(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>, %m: tensor<?x?x?x?xi1>) -> tensor<?x?x?x64xbf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xi1>) : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16> -> tensor<?x?x?x64xbf16>
  return %0 : tensor<?x?x?x64xbf16>
}
func.func @hk_add_d64_bf16(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>, %m: tensor<?x?x?x?xbf16>) -> tensor<?x?x?x64xbf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xbf16>) : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16> -> tensor<?x?x?x64xbf16>
  return %0 : tensor<?x?x?x64xbf16>
}
func.func @hk_d64_f32(%q: tensor<?x?x?x64xf32>, %k: tensor<?x?x?x64xf32>, %v: tensor<?x?x?x64xf32>) -> tensor<?x?x?x64xf32> {
  %0 = tx.attention %q, %k, %v : tensor<?x?x?x64xf32>, tensor<?x?x?x64xf32>, tensor<?x?x?x64xf32> -> tensor<?x?x?x64xf32>
  return %0 : tensor<?x?x?x64xf32>
}
func.func @hk_keep_d64_f32(%q: tensor<?x?x?x64xf32>, %k: tensor<?x?x?x64xf32>, %v: tensor<?x?x?x64xf32>, %m: tensor<?x?x?x?xi1>) -> tensor<?x?x?x64xf32> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xi1>) : tensor<?x?x?x64xf32>, tensor<?x?x?x64xf32>, tensor<?x?x?x64xf32> -> tensor<?x?x?x64xf32>
  return %0 : tensor<?x?x?x64xf32>
}
func.func @hk_add_d64_f32(%q: tensor<?x?x?x64xf32>, %k: tensor<?x?x?x64xf32>, %v: tensor<?x?x?x64xf32>, %m: tensor<?x?x?x?xf32>) -> tensor<?x?x?x64xf32> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xf32>) : tensor<?x?x?x64xf32>, tensor<?x?x?x64xf32>, tensor<?x?x?x64xf32> -> tensor<?x?x?x64xf32>
  return %0 : tensor<?x?x?x64xf32>
}
func.func @hk_d128_f16(%q: tensor<?x?x?x128xf16>, %k: tensor<?x?x?x128xf16>, %v: tensor<?x?x?x128xf16>) -> tensor<?x?x?x128xf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16> -> tensor<?x?x?x128xf16>
  return %0 : tensor<?x?x?x128xf16>
}
func.func @hk_keep_d128_f16(%q: tensor<?x?x?x128xf16>, %k: tensor<?x?x?x128xf16>, %v: tensor<?x?x?x128xf16>, %m: tensor<?x?x?x?xi1>) -> tensor<?x?x?x128xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xi1>) : tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16> -> tensor<?x?x?x128xf16>
  return %0 : tensor<?x?x?x128xf16>
}
func.func @hk_add_d128_f16(%q: tensor<?x?x?x128xf16>, %k: tensor<?x?x?x128xf16>, %v: tensor<?x?x?x128xf16>, %m: tensor<?x?x?x?xf16>) -> tensor<?x?x?x128xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xf16>) : tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16> -> tensor<?x?x?x128xf16>
  return %0 : tensor<?x?x?x128xf16>
}
func.func @hk_d128_bf16(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>) -> tensor<?x?x?x128xbf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> -> tensor<?x?x?x128xbf16>
  return %0 : tensor<?x?x?x128xbf16>
}
func.func @hk_keep_d128_bf16(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>, %m: tensor<?x?x?x?xi1>) -> tensor<?x?x?x128xbf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xi1>) : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> -> tensor<?x?x?x128xbf16>
  return %0 : tensor<?x?x?x128xbf16>
}
func.func @hk_add_d128_bf16(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>, %m: tensor<?x?x?x?xbf16>) -> tensor<?x?x?x128xbf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xbf16>) : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> -> tensor<?x?x?x128xbf16>
  return %0 : tensor<?x?x?x128xbf16>
}
func.func @hk_keep_causal_d128_f16(%q: tensor<?x?x?x128xf16>, %k: tensor<?x?x?x128xf16>, %v: tensor<?x?x?x128xf16>, %m: tensor<?x?x?x?xi1>) -> tensor<?x?x?x128xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xi1>) causal : tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16> -> tensor<?x?x?x128xf16>
  return %0 : tensor<?x?x?x128xf16>
}
func.func @hk_add_causal_d64_bf16(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>, %m: tensor<?x?x?x?xbf16>) -> tensor<?x?x?x64xbf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xbf16>) causal : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16> -> tensor<?x?x?x64xbf16>
  return %0 : tensor<?x?x?x64xbf16>
}
func.func @hk_causal_d128_f16(%q: tensor<?x?x?x128xf16>, %k: tensor<?x?x?x128xf16>, %v: tensor<?x?x?x128xf16>) -> tensor<?x?x?x128xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16> -> tensor<?x?x?x128xf16>
  return %0 : tensor<?x?x?x128xf16>
}
func.func @hk_causal_d64_bf16(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>) -> tensor<?x?x?x64xbf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16> -> tensor<?x?x?x64xbf16>
  return %0 : tensor<?x?x?x64xbf16>
}

// The log-sum-exp result (f32 [B, H, Sq]) through every kernel family.
func.func @lse_causal_d128_f16(%q: tensor<?x?x?x128xf16>, %k: tensor<?x?x?x128xf16>, %v: tensor<?x?x?x128xf16>) -> (tensor<?x?x?x128xf16>, tensor<?x?x?xf32>) {
  %0, %1 = tx.attention %q, %k, %v causal : tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16> -> tensor<?x?x?x128xf16>, tensor<?x?x?xf32>
  return %0, %1 : tensor<?x?x?x128xf16>, tensor<?x?x?xf32>
}
func.func @lse_add_d64_bf16(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>, %m: tensor<?x?x?x?xbf16>) -> (tensor<?x?x?x64xbf16>, tensor<?x?x?xf32>) {
  %0, %1 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xbf16>) : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16> -> tensor<?x?x?x64xbf16>, tensor<?x?x?xf32>
  return %0, %1 : tensor<?x?x?x64xbf16>, tensor<?x?x?xf32>
}
func.func @lse_keep_causal_d64_f16(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>, %m: tensor<?x?x?x?xi1>) -> (tensor<?x?x?x64xf16>, tensor<?x?x?xf32>) {
  %0, %1 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xi1>) causal : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>, tensor<?x?x?xf32>
  return %0, %1 : tensor<?x?x?x64xf16>, tensor<?x?x?xf32>
}
func.func @lse_causal_d64_f32(%q: tensor<?x?x?x64xf32>, %k: tensor<?x?x?x64xf32>, %v: tensor<?x?x?x64xf32>) -> (tensor<?x?x?x64xf32>, tensor<?x?x?xf32>) {
  %0, %1 = tx.attention %q, %k, %v causal : tensor<?x?x?x64xf32>, tensor<?x?x?x64xf32>, tensor<?x?x?x64xf32> -> tensor<?x?x?x64xf32>, tensor<?x?x?xf32>
  return %0, %1 : tensor<?x?x?x64xf32>, tensor<?x?x?xf32>
}
func.func @lse_d80_f16(%q: tensor<?x?x?x80xf16>, %k: tensor<?x?x?x80xf16>, %v: tensor<?x?x?x80xf16>) -> (tensor<?x?x?x80xf16>, tensor<?x?x?xf32>) {
  %0, %1 = tx.attention %q, %k, %v : tensor<?x?x?x80xf16>, tensor<?x?x?x80xf16>, tensor<?x?x?x80xf16> -> tensor<?x?x?x80xf16>, tensor<?x?x?xf32>
  return %0, %1 : tensor<?x?x?x80xf16>, tensor<?x?x?xf32>
}

// Split-KV decode kernels (issue #17): H, Hkv and Sq static with
// G * Sq <= 16, B and Sk dynamic (one function serves every KV length).
func.func @dec_gqa_f16(%q: tensor<?x32x1x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>) -> tensor<?x32x1x128xf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x32x1x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x1x128xf16>
  return %0 : tensor<?x32x1x128xf16>
}
func.func @dec_mha_bf16(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x32x?x128xbf16>, %v: tensor<?x32x?x128xbf16>) -> tensor<?x32x1x128xbf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x32x1x128xbf16>, tensor<?x32x?x128xbf16>, tensor<?x32x?x128xbf16> -> tensor<?x32x1x128xbf16>
  return %0 : tensor<?x32x1x128xbf16>
}
func.func @dec_mqa_d64_f16(%q: tensor<?x8x1x64xf16>, %k: tensor<?x1x?x64xf16>, %v: tensor<?x1x?x64xf16>) -> tensor<?x8x1x64xf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x8x1x64xf16>, tensor<?x1x?x64xf16>, tensor<?x1x?x64xf16> -> tensor<?x8x1x64xf16>
  return %0 : tensor<?x8x1x64xf16>
}
func.func @dec_sq4_causal_f16(%q: tensor<?x32x4x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>) -> tensor<?x32x4x128xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<?x32x4x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x4x128xf16>
  return %0 : tensor<?x32x4x128xf16>
}
func.func @dec_keep_f16(%q: tensor<?x32x1x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>, %m: tensor<?x32x1x?xi1>) -> tensor<?x32x1x128xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x32x1x?xi1>) : tensor<?x32x1x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x1x128xf16>
  return %0 : tensor<?x32x1x128xf16>
}
func.func @dec_add_sq2_causal_bf16(%q: tensor<?x8x2x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>, %m: tensor<1x8x2x?xbf16>) -> tensor<?x8x2x64xbf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x8x2x?xbf16>) causal : tensor<?x8x2x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x2x64xbf16>
  return %0 : tensor<?x8x2x64xbf16>
}
func.func @dec_lse_f16(%q: tensor<?x32x1x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>) -> (tensor<?x32x1x128xf16>, tensor<?x32x1xf32>) {
  %0, %1 = tx.attention %q, %k, %v : tensor<?x32x1x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x1x128xf16>, tensor<?x32x1xf32>
  return %0, %1 : tensor<?x32x1x128xf16>, tensor<?x32x1xf32>
}
func.func @dec_causal_f32(%q: tensor<?x4x3x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x32xf32>) -> tensor<?x4x3x32xf32> {
  %0 = tx.attention %q, %k, %v causal : tensor<?x4x3x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x32xf32> -> tensor<?x4x3x32xf32>
  return %0 : tensor<?x4x3x32xf32>
}
func.func @softcap_gqa_causal_f16(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>) -> tensor<?x8x?x64xf16> {
  %0 = tx.attention %q, %k, %v softcap = 30.0 causal : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> tensor<?x8x?x64xf16>
  return %0 : tensor<?x8x?x64xf16>
}
func.func @softcap_dec_add_bf16(%q: tensor<?x8x1x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>, %m: tensor<?x8x1x?xbf16>) -> tensor<?x8x1x128xbf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x8x1x?xbf16>) softcap = 50.0 : tensor<?x8x1x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x1x128xbf16>
  return %0 : tensor<?x8x1x128xbf16>
}
func.func @softcap_huge_f32(%q: tensor<?x2x?x16xf32>, %k: tensor<?x2x?x16xf32>, %v: tensor<?x2x?x16xf32>) -> tensor<?x2x?x16xf32> {
  %0 = tx.attention %q, %k, %v softcap = 5.0 : tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32> -> tensor<?x2x?x16xf32>
  return %0 : tensor<?x2x?x16xf32>
}
func.func @softcap_dec_causal_f16(%q: tensor<?x8x3x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>) -> tensor<?x8x3x64xf16> {
  %0 = tx.attention %q, %k, %v softcap = 20.0 causal : tensor<?x8x3x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> tensor<?x8x3x64xf16>
  return %0 : tensor<?x8x3x64xf16>
}
func.func @softcap50_d128_f16(%q: tensor<?x4x?x128xf16>, %k: tensor<?x2x?x128xf16>, %v: tensor<?x2x?x128xf16>) -> tensor<?x4x?x128xf16> {
  %0 = tx.attention %q, %k, %v softcap = 50.0 : tensor<?x4x?x128xf16>, tensor<?x2x?x128xf16>, tensor<?x2x?x128xf16> -> tensor<?x4x?x128xf16>
  return %0 : tensor<?x4x?x128xf16>
}
func.func @softcap30_d64_causal_bf16(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x4x?x64xbf16>, %v: tensor<?x4x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  %0 = tx.attention %q, %k, %v softcap = 30.0 causal : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %0 : tensor<?x4x?x64xbf16>
}
// Static shapes, causal and capped at D = 128: on sm_90a the default adds
// the producer warpgroup (session 18).
func.func @softcap40_static_causal_d128_f16(%q: tensor<1x4x333x128xf16>, %k: tensor<1x2x333x128xf16>, %v: tensor<1x2x333x128xf16>) -> tensor<1x4x333x128xf16> {
  %0 = tx.attention %q, %k, %v softcap = 40.0 causal : tensor<1x4x333x128xf16>, tensor<1x2x333x128xf16>, tensor<1x2x333x128xf16> -> tensor<1x4x333x128xf16>
  return %0 : tensor<1x4x333x128xf16>
}
func.func @lse_softcap_causal_d128_f16(%q: tensor<?x4x?x128xf16>, %k: tensor<?x2x?x128xf16>, %v: tensor<?x2x?x128xf16>) -> (tensor<?x4x?x128xf16>, tensor<?x4x?xf32>) {
  %o, %l = tx.attention %q, %k, %v softcap = 50.0 causal : tensor<?x4x?x128xf16>, tensor<?x2x?x128xf16>, tensor<?x2x?x128xf16> -> tensor<?x4x?x128xf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x4x?x128xf16>, tensor<?x4x?xf32>
}
func.func @lse_softcap_add_d64_bf16(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x4x?x64xbf16>, %v: tensor<?x4x?x64xbf16>, %m: tensor<?x4x?x?xbf16>) -> (tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = tx.attention %q, %k, %v mask(%m : tensor<?x4x?x?xbf16>) softcap = 20.0 : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16> -> tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x4x?x64xbf16>, tensor<?x4x?xf32>
}
func.func @softcap_add_d128_bf16(%q: tensor<?x4x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>, %m: tensor<?x4x?x?xbf16>) -> tensor<?x4x?x128xbf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x4x?x?xbf16>) softcap = 15.0 : tensor<?x4x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %0 : tensor<?x4x?x128xbf16>
}

// Sliding windows (issue #19): key tiles outside the window skipped, the
// band predicate in tiles that cross it, keys below every row's window
// never read.
func.func @window_left_gqa_f16(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>) -> tensor<?x8x?x64xf16> {
  %0 = tx.attention %q, %k, %v window = [100, 0] : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> tensor<?x8x?x64xf16>
  return %0 : tensor<?x8x?x64xf16>
}
func.func @window_two_d128_bf16(%q: tensor<?x4x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>) -> tensor<?x4x?x128xbf16> {
  %0 = tx.attention %q, %k, %v window = [37, 50] : tensor<?x4x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %0 : tensor<?x4x?x128xbf16>
}
func.func @window_causal_f32(%q: tensor<?x2x?x32xf32>, %k: tensor<?x2x?x32xf32>, %v: tensor<?x2x?x32xf32>) -> (tensor<?x2x?x32xf32>, tensor<?x2x?xf32>) {
  %0, %1 = tx.attention %q, %k, %v window = [5, 3] causal : tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32> -> tensor<?x2x?x32xf32>, tensor<?x2x?xf32>
  return %0, %1 : tensor<?x2x?x32xf32>, tensor<?x2x?xf32>
}
func.func @window_zero_f16(%q: tensor<?x4x?x64xf16>, %k: tensor<?x4x?x64xf16>, %v: tensor<?x4x?x64xf16>) -> (tensor<?x4x?x64xf16>, tensor<?x4x?xf32>) {
  %0, %1 = tx.attention %q, %k, %v window = [0, 0] : tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16> -> tensor<?x4x?x64xf16>, tensor<?x4x?xf32>
  return %0, %1 : tensor<?x4x?x64xf16>, tensor<?x4x?xf32>
}
func.func @window_nan_d128_f16(%q: tensor<?x4x?x128xf16>, %k: tensor<?x1x?x128xf16>, %v: tensor<?x1x?x128xf16>) -> tensor<?x4x?x128xf16> {
  %0 = tx.attention %q, %k, %v window = [100, 0] : tensor<?x4x?x128xf16>, tensor<?x1x?x128xf16>, tensor<?x1x?x128xf16> -> tensor<?x4x?x128xf16>
  return %0 : tensor<?x4x?x128xf16>
}
func.func @window_wide_f16(%q: tensor<?x4x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>) -> tensor<?x4x?x64xf16> {
  %0 = tx.attention %q, %k, %v window = [5000, 5000] : tensor<?x4x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> tensor<?x4x?x64xf16>
  return %0 : tensor<?x4x?x64xf16>
}
func.func @window_keep_causal_f16(%q: tensor<?x4x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %m: tensor<?x4x?x?xi1>) -> tensor<?x4x?x64xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x4x?x?xi1>) window = [30, -1] causal : tensor<?x4x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> tensor<?x4x?x64xf16>
  return %0 : tensor<?x4x?x64xf16>
}
func.func @window_add_d128_f16(%q: tensor<?x4x?x128xf16>, %k: tensor<?x4x?x128xf16>, %v: tensor<?x4x?x128xf16>, %m: tensor<?x4x?x?xf16>) -> tensor<?x4x?x128xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x4x?x?xf16>) window = [200, 0] : tensor<?x4x?x128xf16>, tensor<?x4x?x128xf16>, tensor<?x4x?x128xf16> -> tensor<?x4x?x128xf16>
  return %0 : tensor<?x4x?x128xf16>
}
// Per-sequence lengths (issue #19): kv_lengths / q_lengths (i32 [B]) through
// every kernel family: the split-KV decode kernel (static H, Hkv, Sq), the
// tensor-core kernels (f16/bf16, D 64/128), CUDA cores (f32), with causal,
// windows, masks, GQA and the LSE result.
func.func @len_dec_gqa_f16(%q: tensor<?x32x1x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>, %kl: tensor<?xi32>) -> tensor<?x32x1x128xf16> {
  %0 = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) causal : tensor<?x32x1x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x1x128xf16>
  return %0 : tensor<?x32x1x128xf16>
}
func.func @len_dec_sq4_bf16(%q: tensor<?x32x4x128xbf16>, %k: tensor<?x8x?x128xbf16>, %v: tensor<?x8x?x128xbf16>, %kl: tensor<?xi32>, %ql: tensor<?xi32>) -> tensor<?x32x4x128xbf16> {
  %0 = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) q_lengths(%ql : tensor<?xi32>) causal : tensor<?x32x4x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16> -> tensor<?x32x4x128xbf16>
  return %0 : tensor<?x32x4x128xbf16>
}
func.func @len_prefill_gqa_f16(%q: tensor<?x8x?x128xf16>, %k: tensor<?x2x?x128xf16>, %v: tensor<?x2x?x128xf16>, %kl: tensor<?xi32>, %ql: tensor<?xi32>) -> tensor<?x8x?x128xf16> {
  %0 = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) q_lengths(%ql : tensor<?xi32>) causal : tensor<?x8x?x128xf16>, tensor<?x2x?x128xf16>, tensor<?x2x?x128xf16> -> tensor<?x8x?x128xf16>
  return %0 : tensor<?x8x?x128xf16>
}
func.func @len_prefill_d64_bf16(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x4x?x64xbf16>, %v: tensor<?x4x?x64xbf16>, %kl: tensor<?xi32>, %ql: tensor<?xi32>) -> tensor<?x4x?x64xbf16> {
  %0 = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) q_lengths(%ql : tensor<?xi32>) : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %0 : tensor<?x4x?x64xbf16>
}
func.func @len_window_add_f32(%q: tensor<?x2x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %m: tensor<?x2x?x?xf32>, %kl: tensor<?xi32>, %ql: tensor<?xi32>) -> tensor<?x2x?x64xf32> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x2x?x?xf32>) kv_lengths(%kl : tensor<?xi32>) q_lengths(%ql : tensor<?xi32>) window = [16, 0] : tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x2x?x64xf32>
  return %0 : tensor<?x2x?x64xf32>
}
func.func @len_keep_f16(%q: tensor<?x4x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %m: tensor<?x4x?x?xi1>, %kl: tensor<?xi32>) -> tensor<?x4x?x64xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x4x?x?xi1>) kv_lengths(%kl : tensor<?xi32>) : tensor<?x4x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> tensor<?x4x?x64xf16>
  return %0 : tensor<?x4x?x64xf16>
}
func.func @len_lse_f16(%q: tensor<?x4x?x128xf16>, %k: tensor<?x4x?x128xf16>, %v: tensor<?x4x?x128xf16>, %kl: tensor<?xi32>, %ql: tensor<?xi32>) -> (tensor<?x4x?x128xf16>, tensor<?x4x?xf32>) {
  %0, %1 = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) q_lengths(%ql : tensor<?xi32>) causal : tensor<?x4x?x128xf16>, tensor<?x4x?x128xf16>, tensor<?x4x?x128xf16> -> tensor<?x4x?x128xf16>, tensor<?x4x?xf32>
  return %0, %1 : tensor<?x4x?x128xf16>, tensor<?x4x?xf32>
}
// Tensor-core decode (f16, >= 4 packed rows) at head dims other than 64/128
// and with several query rows per head (G * Sq = 4).
func.func @dec_d96_dv32_f16(%q: tensor<?x8x1x96xf16>, %k: tensor<?x2x?x96xf16>, %v: tensor<?x2x?x32xf16>) -> tensor<?x8x1x32xf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x8x1x96xf16>, tensor<?x2x?x96xf16>, tensor<?x2x?x32xf16> -> tensor<?x8x1x32xf16>
  return %0 : tensor<?x8x1x32xf16>
}
func.func @dec_gqa_bf16(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x8x?x128xbf16>, %v: tensor<?x8x?x128xbf16>) -> tensor<?x32x1x128xbf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x32x1x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16> -> tensor<?x32x1x128xbf16>
  return %0 : tensor<?x32x1x128xbf16>
}
func.func @dec_sq4_causal_bf16(%q: tensor<?x8x4x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x8x4x64xbf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<?x8x4x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x4x64xbf16>
  return %0 : tensor<?x8x4x64xbf16>
}
func.func @dec_d256_f16(%q: tensor<?x8x1x256xf16>, %k: tensor<?x2x?x256xf16>, %v: tensor<?x2x?x256xf16>) -> tensor<?x8x1x256xf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x8x1x256xf16>, tensor<?x2x?x256xf16>, tensor<?x2x?x256xf16> -> tensor<?x8x1x256xf16>
  return %0 : tensor<?x8x1x256xf16>
}
func.func @dec_d256_sq2_causal_f32(%q: tensor<?x4x2x256xf32>, %k: tensor<?x2x?x256xf32>, %v: tensor<?x2x?x256xf32>) -> tensor<?x4x2x256xf32> {
  %0 = tx.attention %q, %k, %v causal : tensor<?x4x2x256xf32>, tensor<?x2x?x256xf32>, tensor<?x2x?x256xf32> -> tensor<?x4x2x256xf32>
  return %0 : tensor<?x4x2x256xf32>
}
func.func @dec_d32_sq2_causal_f16(%q: tensor<?x2x2x32xf16>, %k: tensor<?x1x?x32xf16>, %v: tensor<?x1x?x32xf16>) -> tensor<?x2x2x32xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<?x2x2x32xf16>, tensor<?x1x?x32xf16>, tensor<?x1x?x32xf16> -> tensor<?x2x2x32xf16>
  return %0 : tensor<?x2x2x32xf16>
}
// Systematic error on long rows whose maximum keeps growing (issue #38):
// checked by their mean signed error, not only their largest one. The
// f16/bf16 forms take the tensor-core kernels (mma.sync on sm_90, wgmma on
// sm_90a), the f32 form the CUDA-core kernel; the decode forms the split-KV
// kernel, once with its own split count and once with one split (a
// hand-written strategy), so that one CTA walks the whole row.
func.func @drift_f16(%q: tensor<?x?x?x128xf16>, %k: tensor<?x?x?x128xf16>, %v: tensor<?x?x?x128xf16>) -> tensor<?x?x?x128xf16> {
  %0 = tx.attention %q, %k, %v scale = 0.0721 : tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16> -> tensor<?x?x?x128xf16>
  return %0 : tensor<?x?x?x128xf16>
}
func.func @drift_bf16(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>) -> tensor<?x?x?x128xbf16> {
  %0 = tx.attention %q, %k, %v scale = 0.0721 : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> -> tensor<?x?x?x128xbf16>
  return %0 : tensor<?x?x?x128xbf16>
}
func.func @drift_f32(%q: tensor<?x?x?x128xf32>, %k: tensor<?x?x?x128xf32>, %v: tensor<?x?x?x128xf32>) -> tensor<?x?x?x128xf32> {
  %0 = tx.attention %q, %k, %v scale = 0.0721 : tensor<?x?x?x128xf32>, tensor<?x?x?x128xf32>, tensor<?x?x?x128xf32> -> tensor<?x?x?x128xf32>
  return %0 : tensor<?x?x?x128xf32>
}
func.func @drift_causal_f16(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>) -> tensor<?x?x?x64xf16> {
  %0 = tx.attention %q, %k, %v scale = 0.0721 causal : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>
  return %0 : tensor<?x?x?x64xf16>
}
func.func @drift_dec_f16(%q: tensor<?x32x1x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>) -> tensor<?x32x1x128xf16> {
  %0 = tx.attention %q, %k, %v scale = 0.0721 : tensor<?x32x1x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x1x128xf16>
  return %0 : tensor<?x32x1x128xf16>
}
func.func @drift_dec1_f16(%q: tensor<?x32x1x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>) -> tensor<?x32x1x128xf16> {
  %0 = tx.attention %q, %k, %v scale = 0.0721 {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 1, num_sms = 132, stages = 3, tile_keys = 16>} : tensor<?x32x1x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x1x128xf16>
  return %0 : tensor<?x32x1x128xf16>
}
// Split-KV of the prefill tensor-core kernels (issue #38) with static
// shapes: the chunk count is chosen at compile time (harness/check.py
// split_kv; the dynamic functions above take it at run time).
func.func @split_add_mask_f16(%q: tensor<1x2x33x64xf16>, %k: tensor<1x2x1200x64xf16>, %v: tensor<1x2x1200x64xf16>, %m: tensor<1x2x33x1200xf16>) -> tensor<1x2x33x64xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x2x33x1200xf16>) scale = 0.2 : tensor<1x2x33x64xf16>, tensor<1x2x1200x64xf16>, tensor<1x2x1200x64xf16> -> tensor<1x2x33x64xf16>
  return %0 : tensor<1x2x33x64xf16>
}
func.func @split_keep_d128_dv64_f16(%q: tensor<1x2x130x128xf16>, %k: tensor<1x2x1500x128xf16>, %v: tensor<1x2x1500x64xf16>, %m: tensor<1x1x130x1500xi1>) -> tensor<1x2x130x64xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x1x130x1500xi1>) : tensor<1x2x130x128xf16>, tensor<1x2x1500x128xf16>, tensor<1x2x1500x64xf16> -> tensor<1x2x130x64xf16>
  return %0 : tensor<1x2x130x64xf16>
}
func.func @split_causal_d128_bf16(%q: tensor<1x4x64x128xbf16>, %k: tensor<1x2x1777x128xbf16>, %v: tensor<1x2x1777x128xbf16>) -> tensor<1x4x64x128xbf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x4x64x128xbf16>, tensor<1x2x1777x128xbf16>, tensor<1x2x1777x128xbf16> -> tensor<1x4x64x128xbf16>
  return %0 : tensor<1x4x64x128xbf16>
}
func.func @split_d64_dv128_f16(%q: tensor<1x2x150x64xf16>, %k: tensor<1x2x2333x64xf16>, %v: tensor<1x2x2333x128xf16>) -> tensor<1x2x150x128xf16> {
  %0 = tx.attention %q, %k, %v : tensor<1x2x150x64xf16>, tensor<1x2x2333x64xf16>, tensor<1x2x2333x128xf16> -> tensor<1x2x150x128xf16>
  return %0 : tensor<1x2x150x128xf16>
}
