// Libraries of bench/call_overhead.py and python/tests/gpu_smoke.py (built by
// bench/build_pytx.sh for chip=sm_90a): a tiny softmax with static and with
// dynamic shapes (host cost of one call beside torch.softmax), two large
// kernels (CUDA graph vs eager calls), and the README's attention example.
func.func @softmax_static(%x: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %p = tx.softmax %x dim = -1 : tensor<4x128xf32>
  return %p : tensor<4x128xf32>
}
func.func @softmax_dyn(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %p = tx.softmax %x dim = -1 : tensor<?x?xf32>
  return %p : tensor<?x?xf32>
}
func.func @softmax_big(%x: tensor<65536x4096xf16>) -> tensor<65536x4096xf16> {
  %p = tx.softmax %x dim = -1 : tensor<65536x4096xf16>
  return %p : tensor<65536x4096xf16>
}
func.func @attn(%q: tensor<1x32x4096x128xf16>, %k: tensor<1x8x4096x128xf16>,
                %v: tensor<1x8x4096x128xf16>) -> tensor<1x32x4096x128xf16> {
  %o = tx.attention %q, %k, %v causal
      : tensor<1x32x4096x128xf16>, tensor<1x8x4096x128xf16>,
        tensor<1x8x4096x128xf16> -> tensor<1x32x4096x128xf16>
  return %o : tensor<1x32x4096x128xf16>
}
func.func @attn_dyn(%q: tensor<?x?x?x128xf16>, %k: tensor<?x?x?x128xf16>,
                    %v: tensor<?x?x?x128xf16>) -> tensor<?x?x?x128xf16> {
  %o = tx.attention %q, %k, %v causal
      : tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>,
        tensor<?x?x?x128xf16> -> tensor<?x?x?x128xf16>
  return %o : tensor<?x?x?x128xf16>
}
