// Bundled tx examples with real model shapes. Each function is one entry point
// of the compiled library (scripts/tx-compile.sh); docs/ABI.md gives its C ABI.
// GPT-2 small: causal multi-head attention, B=8, H=12, S=1024, D=64.
func.func @gpt2_attention_f16(%q: tensor<8x12x1024x64xf16>, %k: tensor<8x12x1024x64xf16>, %v: tensor<8x12x1024x64xf16>) -> tensor<8x12x1024x64xf16> attributes {llvm.emit_c_interface} {
  %o = tx.attention %q, %k, %v causal : tensor<8x12x1024x64xf16>, tensor<8x12x1024x64xf16>, tensor<8x12x1024x64xf16> -> tensor<8x12x1024x64xf16>
  return %o : tensor<8x12x1024x64xf16>
}
func.func @gpt2_attention_f32(%q: tensor<8x12x1024x64xf32>, %k: tensor<8x12x1024x64xf32>, %v: tensor<8x12x1024x64xf32>) -> tensor<8x12x1024x64xf32> attributes {llvm.emit_c_interface} {
  %o = tx.attention %q, %k, %v causal : tensor<8x12x1024x64xf32>, tensor<8x12x1024x64xf32>, tensor<8x12x1024x64xf32> -> tensor<8x12x1024x64xf32>
  return %o : tensor<8x12x1024x64xf32>
}
