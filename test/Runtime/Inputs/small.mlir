// A small tx program for the packaging test.
func.func @softmax_dyn_f16(%x: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<?x?xf16>
  return %0 : tensor<?x?xf16>
}
func.func @attn_gqa_causal_f32(%q: tensor<1x4x16x32xf32>, %k: tensor<1x2x16x32xf32>, %v: tensor<1x2x16x32xf32>) -> tensor<1x4x16x32xf32> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x4x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32> -> tensor<1x4x16x32xf32>
  return %0 : tensor<1x4x16x32xf32>
}
// The reference lowering (softmax along a non-innermost dim): device
// temporaries, allocated and freed in each call.
func.func @softmax_dim0_dyn_f16(%x: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %0 = tx.softmax %x dim = 0 : tensor<?x?xf16>
  return %0 : tensor<?x?xf16>
}
