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
