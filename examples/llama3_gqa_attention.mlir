// Bundled tx examples with real model shapes. Each function is one entry point
// of the compiled library (scripts/tx-compile.sh); docs/ABI.md gives its C ABI.
// Llama-3-8B style grouped-query attention: B=1, H=32, Hkv=8, S=4096, D=128, causal.
func.func @llama3_gqa_attention_f16(%q: tensor<1x32x4096x128xf16>, %k: tensor<1x8x4096x128xf16>, %v: tensor<1x8x4096x128xf16>) -> tensor<1x32x4096x128xf16> attributes {llvm.emit_c_interface} {
  %o = tx.attention %q, %k, %v causal : tensor<1x32x4096x128xf16>, tensor<1x8x4096x128xf16>, tensor<1x8x4096x128xf16> -> tensor<1x32x4096x128xf16>
  return %o : tensor<1x32x4096x128xf16>
}
func.func @llama3_gqa_attention_f32(%q: tensor<1x32x4096x128xf32>, %k: tensor<1x8x4096x128xf32>, %v: tensor<1x8x4096x128xf32>) -> tensor<1x32x4096x128xf32> attributes {llvm.emit_c_interface} {
  %o = tx.attention %q, %k, %v causal : tensor<1x32x4096x128xf32>, tensor<1x8x4096x128xf32>, tensor<1x8x4096x128xf32> -> tensor<1x32x4096x128xf32>
  return %o : tensor<1x32x4096x128xf32>
}
