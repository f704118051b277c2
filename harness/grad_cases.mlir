// The backward ops compiled for the GPU as they lower today (the reference
// lowering mapped to parallel loops: slow, not the tiled kernels of issue
// #40), checked on a GPU by harness/check_grads.py against PyTorch's float64
// autograd of the same attention.

// f16, causal GQA 8/2, Sq = Sk = 128, D = 64.
func.func @grad_f16_causal_gqa(%q: tensor<1x8x128x64xf16>, %k: tensor<1x2x128x64xf16>,
    %v: tensor<1x2x128x64xf16>, %o: tensor<1x8x128x64xf16>, %do: tensor<1x8x128x64xf16>,
    %lse: tensor<1x8x128xf32>) -> (tensor<1x8x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>) {
  %dq, %dk, %dv = tx.attention_grad %q, %k, %v, %o, %do, %lse causal
      : tensor<1x8x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>,
        tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16>, tensor<1x8x128xf32>
      -> tensor<1x8x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>
  return %dq, %dk, %dv : tensor<1x8x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>
}

// bf16, Sq = 64 < Sk = 96, D = 128, causal bottom-right, softcap 30.
func.func @grad_bf16_softcap(%q: tensor<2x4x64x128xbf16>, %k: tensor<2x4x96x128xbf16>,
    %v: tensor<2x4x96x128xbf16>, %o: tensor<2x4x64x128xbf16>, %do: tensor<2x4x64x128xbf16>,
    %lse: tensor<2x4x64xf32>) -> (tensor<2x4x64x128xbf16>, tensor<2x4x96x128xbf16>, tensor<2x4x96x128xbf16>) {
  %dq, %dk, %dv = tx.attention_grad %q, %k, %v, %o, %do, %lse softcap = 30.0 causal
      : tensor<2x4x64x128xbf16>, tensor<2x4x96x128xbf16>, tensor<2x4x96x128xbf16>,
        tensor<2x4x64x128xbf16>, tensor<2x4x64x128xbf16>, tensor<2x4x64xf32>
      -> tensor<2x4x64x128xbf16>, tensor<2x4x96x128xbf16>, tensor<2x4x96x128xbf16>
  return %dq, %dk, %dv : tensor<2x4x64x128xbf16>, tensor<2x4x96x128xbf16>, tensor<2x4x96x128xbf16>
}

// f32, an additive [1, H, Sq, Sk] mask and its gradient, odd sizes, MQA 4/1.
func.func @grad_f32_mask(%q: tensor<2x4x33x32xf32>, %k: tensor<2x1x47x32xf32>,
    %v: tensor<2x1x47x24xf32>, %o: tensor<2x4x33x24xf32>, %do: tensor<2x4x33x24xf32>,
    %lse: tensor<2x4x33xf32>, %m: tensor<1x4x33x47xf32>)
    -> (tensor<2x4x33x32xf32>, tensor<2x1x47x32xf32>, tensor<2x1x47x24xf32>, tensor<1x4x33x47xf32>) {
  %dq, %dk, %dv, %dm = tx.attention_grad %q, %k, %v, %o, %do, %lse mask(%m : tensor<1x4x33x47xf32>) scale = 0.2
      : tensor<2x4x33x32xf32>, tensor<2x1x47x32xf32>, tensor<2x1x47x24xf32>,
        tensor<2x4x33x24xf32>, tensor<2x4x33x24xf32>, tensor<2x4x33xf32>
      -> tensor<2x4x33x32xf32>, tensor<2x1x47x32xf32>, tensor<2x1x47x24xf32>, tensor<1x4x33x47xf32>
  return %dq, %dk, %dv, %dm : tensor<2x4x33x32xf32>, tensor<2x1x47x32xf32>, tensor<2x1x47x24xf32>, tensor<1x4x33x47xf32>
}

// f16, sliding window [16, 0] and per-sequence key lengths (one 0).
func.func @grad_f16_window_lengths(%q: tensor<3x2x40x64xf16>, %k: tensor<3x2x72x64xf16>,
    %v: tensor<3x2x72x64xf16>, %o: tensor<3x2x40x64xf16>, %do: tensor<3x2x40x64xf16>,
    %lse: tensor<3x2x40xf32>, %kl: tensor<3xi32>) -> (tensor<3x2x40x64xf16>, tensor<3x2x72x64xf16>, tensor<3x2x72x64xf16>) {
  %dq, %dk, %dv = tx.attention_grad %q, %k, %v, %o, %do, %lse kv_lengths(%kl : tensor<3xi32>) window = [16, 0]
      : tensor<3x2x40x64xf16>, tensor<3x2x72x64xf16>, tensor<3x2x72x64xf16>,
        tensor<3x2x40x64xf16>, tensor<3x2x40x64xf16>, tensor<3x2x40xf32>
      -> tensor<3x2x40x64xf16>, tensor<3x2x72x64xf16>, tensor<3x2x72x64xf16>
  return %dq, %dk, %dv : tensor<3x2x40x64xf16>, tensor<3x2x72x64xf16>, tensor<3x2x72x64xf16>
}

// tx.softmax_grad, f16 [64, 1000] along the last dim.
func.func @softmax_grad_f16(%y: tensor<64x1000xf16>, %dy: tensor<64x1000xf16>) -> tensor<64x1000xf16> {
  %dx = tx.softmax_grad %y, %dy dim = -1 : tensor<64x1000xf16>
  return %dx : tensor<64x1000xf16>
}
