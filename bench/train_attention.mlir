// The attention of bench/train_gpt.py's small GPT (batch 8, 8 heads of 64,
// sequence 1024, causal, bf16): python/tx differentiates it through the
// entry points tx-derive-gradients adds.
func.func @gpt_attention(%q: tensor<8x8x1024x64xbf16>, %k: tensor<8x8x1024x64xbf16>, %v: tensor<8x8x1024x64xbf16>) -> tensor<8x8x1024x64xbf16> {
  %o = tx.attention %q, %k, %v causal : tensor<8x8x1024x64xbf16>, tensor<8x8x1024x64xbf16>, tensor<8x8x1024x64xbf16> -> tensor<8x8x1024x64xbf16>
  return %o : tensor<8x8x1024x64xbf16>
}
