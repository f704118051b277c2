// Functions for the python/tx package tests (test/Python/*.test): static and
// dynamic attention (GQA, i1 and additive masks, scale), softmax, two results
// (two ops; attention with its log-sum-exp), a result not from the arguments.
func.func @attn(%q: tensor<1x8x16x64xf16>, %k: tensor<1x2x16x64xf16>, %v: tensor<1x2x16x64xf16>) -> tensor<1x8x16x64xf16> {
  %o = tx.attention %q, %k, %v causal : tensor<1x8x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16> -> tensor<1x8x16x64xf16>
  return %o : tensor<1x8x16x64xf16>
}
func.func @attn_mask(%query: tensor<?x?x?x?xf32>, %key: tensor<?x?x?x?xf32>, %value: tensor<?x?x?x?xf32>, %keep: tensor<?x?x?x?xi1>) -> tensor<?x?x?x?xf32> {
  %o = tx.attention %query, %key, %value mask(%keep : tensor<?x?x?x?xi1>) causal : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %o : tensor<?x?x?x?xf32>
}
func.func @attn_bias(%q: tensor<?x?x?x32xf32>, %k: tensor<?x?x?x32xf32>, %v: tensor<?x?x?x16xf32>, %bias: tensor<1x1x?x?xf32>) -> tensor<?x?x?x16xf32> {
  %o = tx.attention %q, %k, %v mask(%bias : tensor<1x1x?x?xf32>) scale = 0.5 : tensor<?x?x?x32xf32>, tensor<?x?x?x32xf32>, tensor<?x?x?x16xf32> -> tensor<?x?x?x16xf32>
  return %o : tensor<?x?x?x16xf32>
}
func.func @softmax(%x: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %p = tx.softmax %x dim = -1 : tensor<4x128xf32>
  return %p : tensor<4x128xf32>
}
func.func @softmax_dyn(%logits: tensor<?x?x?xbf16>) -> tensor<?x?x?xbf16> {
  %p = tx.softmax %logits dim = 0 : tensor<?x?x?xbf16>
  return %p : tensor<?x?x?xbf16>
}
func.func @pair(%a: tensor<?x?xf32>, %b: tensor<?x8xf16>) -> (tensor<?x?xf32>, tensor<?x8xf16>) {
  %0 = tx.softmax %a dim = 1 : tensor<?x?xf32>
  %1 = tx.softmax %b dim = 1 : tensor<?x8xf16>
  return %0, %1 : tensor<?x?xf32>, tensor<?x8xf16>
}
func.func @attn_lse(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>) -> (tensor<?x?x?x64xf16>, tensor<?x?x?xf32>) {
  %o, %lse = tx.attention %q, %k, %v causal : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>, tensor<?x?x?xf32>
  return %o, %lse : tensor<?x?x?x64xf16>, tensor<?x?x?xf32>
}
func.func @zeros_like(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %f : tensor<?x?xf32>
}
func.func @attn_lengths(%q: tensor<?x4x?x32xf16>, %k: tensor<?x2x?x32xf16>, %v: tensor<?x2x?x32xf16>, %kv_len: tensor<?xi32>, %q_len: tensor<?xi32>) -> tensor<?x4x?x32xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kv_len : tensor<?xi32>) q_lengths(%q_len : tensor<?xi32>) causal : tensor<?x4x?x32xf16>, tensor<?x2x?x32xf16>, tensor<?x2x?x32xf16> -> tensor<?x4x?x32xf16>
  return %o : tensor<?x4x?x32xf16>
}
