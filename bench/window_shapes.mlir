// Sliding-window attention benchmark (issue #19; bench/window_bench.py):
// Mistral-style window [4096, 0] on Sq = Sk = 32768, H = 32, D = 128, f16,
// beside full causal attention of the same size.
func.func @window4096_f16(%q: tensor<1x32x32768x128xf16>, %k: tensor<1x32x32768x128xf16>, %v: tensor<1x32x32768x128xf16>) -> tensor<1x32x32768x128xf16> {
  %0 = tx.attention %q, %k, %v window = [4096, 0] : tensor<1x32x32768x128xf16>, tensor<1x32x32768x128xf16>, tensor<1x32x32768x128xf16> -> tensor<1x32x32768x128xf16>
  return %0 : tensor<1x32x32768x128xf16>
}
func.func @causal_f16(%q: tensor<1x32x32768x128xf16>, %k: tensor<1x32x32768x128xf16>, %v: tensor<1x32x32768x128xf16>) -> tensor<1x32x32768x128xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x32x32768x128xf16>, tensor<1x32x32768x128xf16>, tensor<1x32x32768x128xf16> -> tensor<1x32x32768x128xf16>
  return %0 : tensor<1x32x32768x128xf16>
}
func.func @window4096_bf16(%q: tensor<1x32x32768x128xbf16>, %k: tensor<1x32x32768x128xbf16>, %v: tensor<1x32x32768x128xbf16>) -> tensor<1x32x32768x128xbf16> {
  %0 = tx.attention %q, %k, %v window = [4096, 0] : tensor<1x32x32768x128xbf16>, tensor<1x32x32768x128xbf16>, tensor<1x32x32768x128xbf16> -> tensor<1x32x32768x128xbf16>
  return %0 : tensor<1x32x32768x128xbf16>
}
