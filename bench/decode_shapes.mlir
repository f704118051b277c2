// Decode-time attention (issue #17): one query row (or four) per sequence
// against a long KV cache; H, Hkv and Sq static, B and Sk dynamic, D = 128.
// Compiled by bench/build_decode.sh; timed by bench/decode_bench.py.
func.func @dec_gqa_f16(%q: tensor<?x32x1x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>) -> tensor<?x32x1x128xf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x32x1x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x1x128xf16>
  return %0 : tensor<?x32x1x128xf16>
}
func.func @dec_gqa_bf16(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x8x?x128xbf16>, %v: tensor<?x8x?x128xbf16>) -> tensor<?x32x1x128xbf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x32x1x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16> -> tensor<?x32x1x128xbf16>
  return %0 : tensor<?x32x1x128xbf16>
}
func.func @dec_mha_f16(%q: tensor<?x32x1x128xf16>, %k: tensor<?x32x?x128xf16>, %v: tensor<?x32x?x128xf16>) -> tensor<?x32x1x128xf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x32x1x128xf16>, tensor<?x32x?x128xf16>, tensor<?x32x?x128xf16> -> tensor<?x32x1x128xf16>
  return %0 : tensor<?x32x1x128xf16>
}
func.func @dec_mha_bf16(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x32x?x128xbf16>, %v: tensor<?x32x?x128xbf16>) -> tensor<?x32x1x128xbf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x32x1x128xbf16>, tensor<?x32x?x128xbf16>, tensor<?x32x?x128xbf16> -> tensor<?x32x1x128xbf16>
  return %0 : tensor<?x32x1x128xbf16>
}
func.func @dec_sq4_gqa_f16(%q: tensor<?x32x4x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>) -> tensor<?x32x4x128xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<?x32x4x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x4x128xf16>
  return %0 : tensor<?x32x4x128xf16>
}
