// Entry points for host-calls.test (default strategies: the fast softmax
// and flash attention kernels, which write their result in place).
func.func @softmax_dyn(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %p = tx.softmax %x dim = -1 : tensor<?x?xf32>
  return %p : tensor<?x?xf32>
}
func.func @attn_dyn(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>) -> tensor<?x?x?x64xf16> {
  %o = tx.attention %q, %k, %v causal : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>
  return %o : tensor<?x?x?x64xf16>
}
func.func @softmax_static(%x: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %p = tx.softmax %x dim = -1 : tensor<4x128xf32>
  return %p : tensor<4x128xf32>
}
