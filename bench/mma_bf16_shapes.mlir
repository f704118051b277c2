// Prefill shapes for bench/mma_bf16_bench.py: bf16 on the mma.sync kernel
// (chip=sm_90) and, for reference, the wgmma kernel (chip=sm_90a).
func.func @bf16_b4_h16_s4096_d64(%q: tensor<4x16x4096x64xbf16>, %k: tensor<4x16x4096x64xbf16>, %v: tensor<4x16x4096x64xbf16>) -> tensor<4x16x4096x64xbf16> {
  %0 = tx.attention %q, %k, %v : tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16> -> tensor<4x16x4096x64xbf16>
  return %0 : tensor<4x16x4096x64xbf16>
}
func.func @bf16_b4_h16_s4096_d64_causal(%q: tensor<4x16x4096x64xbf16>, %k: tensor<4x16x4096x64xbf16>, %v: tensor<4x16x4096x64xbf16>) -> tensor<4x16x4096x64xbf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16> -> tensor<4x16x4096x64xbf16>
  return %0 : tensor<4x16x4096x64xbf16>
}
func.func @bf16_b4_h16_s4096_d128(%q: tensor<4x16x4096x128xbf16>, %k: tensor<4x16x4096x128xbf16>, %v: tensor<4x16x4096x128xbf16>) -> tensor<4x16x4096x128xbf16> {
  %0 = tx.attention %q, %k, %v : tensor<4x16x4096x128xbf16>, tensor<4x16x4096x128xbf16>, tensor<4x16x4096x128xbf16> -> tensor<4x16x4096x128xbf16>
  return %0 : tensor<4x16x4096x128xbf16>
}
func.func @bf16_b4_h16_s4096_d128_causal(%q: tensor<4x16x4096x128xbf16>, %k: tensor<4x16x4096x128xbf16>, %v: tensor<4x16x4096x128xbf16>) -> tensor<4x16x4096x128xbf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<4x16x4096x128xbf16>, tensor<4x16x4096x128xbf16>, tensor<4x16x4096x128xbf16> -> tensor<4x16x4096x128xbf16>
  return %0 : tensor<4x16x4096x128xbf16>
}
