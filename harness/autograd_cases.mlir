// Functions with dynamic sizes whose gradients python/tx derives
// (tx-derive-gradients, run by scripts/tx-compile.sh): harness/check_autograd.py
// calls them on tensors that require grad, over many random shapes, and
// compares the gradients with PyTorch's float64 autograd and with the error of
// PyTorch's own backward in the same precision.

func.func @attn_f16(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>) -> tensor<?x?x?x64xf16> {
  %o = tx.attention %q, %k, %v : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>
  return %o : tensor<?x?x?x64xf16>
}

func.func @attn_causal_f16(%q: tensor<?x?x?x128xf16>, %k: tensor<?x?x?x128xf16>, %v: tensor<?x?x?x128xf16>) -> tensor<?x?x?x128xf16> {
  %o = tx.attention %q, %k, %v causal : tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16> -> tensor<?x?x?x128xf16>
  return %o : tensor<?x?x?x128xf16>
}

func.func @attn_causal_bf16(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>) -> tensor<?x?x?x64xbf16> {
  %o = tx.attention %q, %k, %v causal : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16> -> tensor<?x?x?x64xbf16>
  return %o : tensor<?x?x?x64xbf16>
}

func.func @attn_bias_f32(%q: tensor<?x?x?x32xf32>, %k: tensor<?x?x?x32xf32>, %v: tensor<?x?x?x32xf32>, %bias: tensor<1x?x?x?xf32>) -> tensor<?x?x?x32xf32> {
  %o = tx.attention %q, %k, %v mask(%bias : tensor<1x?x?x?xf32>) scale = 0.25 : tensor<?x?x?x32xf32>, tensor<?x?x?x32xf32>, tensor<?x?x?x32xf32> -> tensor<?x?x?x32xf32>
  return %o : tensor<?x?x?x32xf32>
}

func.func @attn_keep_f16(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>, %keep: tensor<?x?x?x?xi1>) -> tensor<?x?x?x64xf16> {
  %o = tx.attention %q, %k, %v mask(%keep : tensor<?x?x?x?xi1>) causal : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>
  return %o : tensor<?x?x?x64xf16>
}

func.func @attn_window_softcap_bf16(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>) -> tensor<?x?x?x64xbf16> {
  %o = tx.attention %q, %k, %v window = [16, 0] softcap = 30.0 causal : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16> -> tensor<?x?x?x64xbf16>
  return %o : tensor<?x?x?x64xbf16>
}

func.func @attn_lengths_f16(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>, %kv_len: tensor<?xi32>) -> tensor<?x?x?x64xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kv_len : tensor<?xi32>) causal : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>
  return %o : tensor<?x?x?x64xf16>
}

func.func @attn_f32(%q: tensor<?x?x?x64xf32>, %k: tensor<?x?x?x64xf32>, %v: tensor<?x?x?x64xf32>) -> tensor<?x?x?x64xf32> {
  %o = tx.attention %q, %k, %v causal : tensor<?x?x?x64xf32>, tensor<?x?x?x64xf32>, tensor<?x?x?x64xf32> -> tensor<?x?x?x64xf32>
  return %o : tensor<?x?x?x64xf32>
}

func.func @softmax_bf16(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %y = tx.softmax %x dim = 1 : tensor<?x?xbf16>
  return %y : tensor<?x?xbf16>
}
