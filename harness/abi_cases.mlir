// Entry points for harness/abi_check.py (the C ABI of docs/ABI.md on a GPU:
// destination passing, run-time checks that never abort, _on_stream calls).
// Compiled twice by harness/build_abi_check.sh: default strategies (fast
// softmax, flash attention) and softmax=simple attention=simple.
func.func @softmax_dyn_f32(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %p = tx.softmax %x dim = -1 : tensor<?x?xf32>
  return %p : tensor<?x?xf32>
}
func.func @softmax_dyn_f16(%x: tensor<?x?x?xf16>) -> tensor<?x?x?xf16> {
  %p = tx.softmax %x dim = -1 : tensor<?x?x?xf16>
  return %p : tensor<?x?x?xf16>
}
func.func @softmax_static_f32(%x: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %p = tx.softmax %x dim = -1 : tensor<4x128xf32>
  return %p : tensor<4x128xf32>
}
// Flash (tensor cores) by default: static head dim.
func.func @attn_dyn_f16(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>) -> tensor<?x?x?x64xf16> {
  %o = tx.attention %q, %k, %v causal : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>
  return %o : tensor<?x?x?x64xf16>
}
// Always the reference lowering (dynamic head dim): device temporaries.
func.func @attn_dyn_f32(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %o = tx.attention %q, %k, %v : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %o : tensor<?x?x?x?xf32>
}
