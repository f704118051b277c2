// Backward benchmark functions (bench/grad_bench.py): tx.attention with
// dynamic B, H, S (tx-derive-gradients adds <name>__tx_fwd / __tx_bwd);
// names attn_<dtype>_d<D>[_causal]. Built by bench/grad_bench.py's caller:
//   bash scripts/tx-compile.sh bench/grad_shapes.mlir OUT chip=sm_90a attention-grad-kernels=true
func.func @attn_f16_d64(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>) -> tensor<?x?x?x64xf16> {
  %o = tx.attention %q, %k, %v : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>
  return %o : tensor<?x?x?x64xf16>
}
func.func @attn_f16_d64_causal(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>) -> tensor<?x?x?x64xf16> {
  %o = tx.attention %q, %k, %v causal : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>
  return %o : tensor<?x?x?x64xf16>
}
func.func @attn_f16_d128(%q: tensor<?x?x?x128xf16>, %k: tensor<?x?x?x128xf16>, %v: tensor<?x?x?x128xf16>) -> tensor<?x?x?x128xf16> {
  %o = tx.attention %q, %k, %v : tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16> -> tensor<?x?x?x128xf16>
  return %o : tensor<?x?x?x128xf16>
}
func.func @attn_f16_d128_causal(%q: tensor<?x?x?x128xf16>, %k: tensor<?x?x?x128xf16>, %v: tensor<?x?x?x128xf16>) -> tensor<?x?x?x128xf16> {
  %o = tx.attention %q, %k, %v causal : tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16> -> tensor<?x?x?x128xf16>
  return %o : tensor<?x?x?x128xf16>
}
func.func @attn_bf16_d64(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>) -> tensor<?x?x?x64xbf16> {
  %o = tx.attention %q, %k, %v : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16> -> tensor<?x?x?x64xbf16>
  return %o : tensor<?x?x?x64xbf16>
}
func.func @attn_bf16_d64_causal(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>) -> tensor<?x?x?x64xbf16> {
  %o = tx.attention %q, %k, %v causal : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16> -> tensor<?x?x?x64xbf16>
  return %o : tensor<?x?x?x64xbf16>
}
func.func @attn_bf16_d128(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>) -> tensor<?x?x?x128xbf16> {
  %o = tx.attention %q, %k, %v : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> -> tensor<?x?x?x128xbf16>
  return %o : tensor<?x?x?x128xbf16>
}
func.func @attn_bf16_d128_causal(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>) -> tensor<?x?x?x128xbf16> {
  %o = tx.attention %q, %k, %v causal : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> -> tensor<?x?x?x128xbf16>
  return %o : tensor<?x?x?x128xbf16>
}
