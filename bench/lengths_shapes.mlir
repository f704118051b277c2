// Per-sequence lengths benchmark (issue #19; bench/lengths_bench.py): a
// batch of 16 sequences padded to 8192, H = 32, Hkv = 8, D = 128, f16,
// causal, with kv_lengths (and q_lengths for prefill), beside the dense
// functions that run each sequence alone (dynamic S).
func.func @varlen_prefill(%q: tensor<16x32x8192x128xf16>, %k: tensor<16x8x8192x128xf16>, %v: tensor<16x8x8192x128xf16>, %kl: tensor<16xi32>, %ql: tensor<16xi32>) -> tensor<16x32x8192x128xf16> {
  %0 = tx.attention %q, %k, %v kv_lengths(%kl : tensor<16xi32>) q_lengths(%ql : tensor<16xi32>) causal : tensor<16x32x8192x128xf16>, tensor<16x8x8192x128xf16>, tensor<16x8x8192x128xf16> -> tensor<16x32x8192x128xf16>
  return %0 : tensor<16x32x8192x128xf16>
}
func.func @dense_prefill(%q: tensor<1x32x?x128xf16>, %k: tensor<1x8x?x128xf16>, %v: tensor<1x8x?x128xf16>) -> tensor<1x32x?x128xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x32x?x128xf16>, tensor<1x8x?x128xf16>, tensor<1x8x?x128xf16> -> tensor<1x32x?x128xf16>
  return %0 : tensor<1x32x?x128xf16>
}
func.func @varlen_decode(%q: tensor<16x32x1x128xf16>, %k: tensor<16x8x8192x128xf16>, %v: tensor<16x8x8192x128xf16>, %kl: tensor<16xi32>) -> tensor<16x32x1x128xf16> {
  %0 = tx.attention %q, %k, %v kv_lengths(%kl : tensor<16xi32>) causal : tensor<16x32x1x128xf16>, tensor<16x8x8192x128xf16>, tensor<16x8x8192x128xf16> -> tensor<16x32x1x128xf16>
  return %0 : tensor<16x32x1x128xf16>
}
func.func @dense_decode(%q: tensor<1x32x1x128xf16>, %k: tensor<1x8x?x128xf16>, %v: tensor<1x8x?x128xf16>) -> tensor<1x32x1x128xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x32x1x128xf16>, tensor<1x8x?x128xf16>, tensor<1x8x?x128xf16> -> tensor<1x32x1x128xf16>
  return %0 : tensor<1x32x1x128xf16>
}
