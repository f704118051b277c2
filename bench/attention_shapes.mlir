// Attention benchmark shapes (bench/attention_bench.py): f16, [B,H,S,D] for
// Q/K/V/O, Sq == Sk, each shape non-causal and causal. Compiled twice by
// bench/build_attention.sh: attention=flash (the default, tx-attention-to-gpu)
// and attention=simple (the reference lowering; Sq x Sk f32 scores in memory).
// Function names are parsed by the benchmark: attn_b<B>_h<H>_s<S>_d<D>[_causal].
func.func @attn_b16_h12_s1024_d64(%q: tensor<16x12x1024x64xf16>, %k: tensor<16x12x1024x64xf16>, %v: tensor<16x12x1024x64xf16>) -> tensor<16x12x1024x64xf16> {
  %0 = tx.attention %q, %k, %v : tensor<16x12x1024x64xf16>, tensor<16x12x1024x64xf16>, tensor<16x12x1024x64xf16> -> tensor<16x12x1024x64xf16>
  return %0 : tensor<16x12x1024x64xf16>
}
func.func @attn_b16_h12_s1024_d64_causal(%q: tensor<16x12x1024x64xf16>, %k: tensor<16x12x1024x64xf16>, %v: tensor<16x12x1024x64xf16>) -> tensor<16x12x1024x64xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<16x12x1024x64xf16>, tensor<16x12x1024x64xf16>, tensor<16x12x1024x64xf16> -> tensor<16x12x1024x64xf16>
  return %0 : tensor<16x12x1024x64xf16>
}
func.func @attn_b4_h16_s4096_d64(%q: tensor<4x16x4096x64xf16>, %k: tensor<4x16x4096x64xf16>, %v: tensor<4x16x4096x64xf16>) -> tensor<4x16x4096x64xf16> {
  %0 = tx.attention %q, %k, %v : tensor<4x16x4096x64xf16>, tensor<4x16x4096x64xf16>, tensor<4x16x4096x64xf16> -> tensor<4x16x4096x64xf16>
  return %0 : tensor<4x16x4096x64xf16>
}
func.func @attn_b4_h16_s4096_d64_causal(%q: tensor<4x16x4096x64xf16>, %k: tensor<4x16x4096x64xf16>, %v: tensor<4x16x4096x64xf16>) -> tensor<4x16x4096x64xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<4x16x4096x64xf16>, tensor<4x16x4096x64xf16>, tensor<4x16x4096x64xf16> -> tensor<4x16x4096x64xf16>
  return %0 : tensor<4x16x4096x64xf16>
}
func.func @attn_b4_h16_s4096_d128(%q: tensor<4x16x4096x128xf16>, %k: tensor<4x16x4096x128xf16>, %v: tensor<4x16x4096x128xf16>) -> tensor<4x16x4096x128xf16> {
  %0 = tx.attention %q, %k, %v : tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16> -> tensor<4x16x4096x128xf16>
  return %0 : tensor<4x16x4096x128xf16>
}
func.func @attn_b4_h16_s4096_d128_causal(%q: tensor<4x16x4096x128xf16>, %k: tensor<4x16x4096x128xf16>, %v: tensor<4x16x4096x128xf16>) -> tensor<4x16x4096x128xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16> -> tensor<4x16x4096x128xf16>
  return %0 : tensor<4x16x4096x128xf16>
}
func.func @attn_b1_h32_s16384_d128(%q: tensor<1x32x16384x128xf16>, %k: tensor<1x32x16384x128xf16>, %v: tensor<1x32x16384x128xf16>) -> tensor<1x32x16384x128xf16> {
  %0 = tx.attention %q, %k, %v : tensor<1x32x16384x128xf16>, tensor<1x32x16384x128xf16>, tensor<1x32x16384x128xf16> -> tensor<1x32x16384x128xf16>
  return %0 : tensor<1x32x16384x128xf16>
}
func.func @attn_b1_h32_s16384_d128_causal(%q: tensor<1x32x16384x128xf16>, %k: tensor<1x32x16384x128xf16>, %v: tensor<1x32x16384x128xf16>) -> tensor<1x32x16384x128xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x32x16384x128xf16>, tensor<1x32x16384x128xf16>, tensor<1x32x16384x128xf16> -> tensor<1x32x16384x128xf16>
  return %0 : tensor<1x32x16384x128xf16>
}
