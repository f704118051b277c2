func.func @attn(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x64x64xf16>, %v: tensor<1x2x64x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v causal : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}
func.func @probs(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %p = tx.softmax %x dim = -1 : tensor<8x128xf32>
  return %p : tensor<8x128xf32>
}
