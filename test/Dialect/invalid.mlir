// One case per verifier rule; each message is pinned.
// RUN: tx-opt %s -split-input-file -verify-diagnostics

func.func @softmax_rank0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'tx.softmax' op expects an input of rank >= 1, got rank 0}}
  %0 = tx.softmax %x dim = 0 : tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @softmax_dim_too_large(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tx.softmax' op dim 2 is out of range [-2, 2) for an input of rank 2}}
  %0 = tx.softmax %x dim = 2 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @softmax_dim_too_negative(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tx.softmax' op dim -3 is out of range [-2, 2) for an input of rank 2}}
  %0 = tx.softmax %x dim = -3 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @softmax_element_type(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  // expected-error @+1 {{'tx.softmax' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<4x8xf64>'}}
  %0 = tx.softmax %x dim = 1 : tensor<4x8xf64>
  return %0 : tensor<4x8xf64>
}

// -----

func.func @softmax_result_type(%x: tensor<4x8xf32>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'tx.softmax' op requires the same type for all operands and results}}
  %0 = "tx.softmax"(%x) {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

func.func @attention_rank(%q: tensor<4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op expects query of rank 4 [B, H, Sq, D], got rank 3}}
  %0 = tx.attention %q, %k, %v : tensor<4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @attention_value_rank(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op expects value of rank 4 [B, Hkv, Sk, Dv], got rank 3}}
  %0 = tx.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @attention_element_types(%q: tensor<1x4x16x64xf16>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf16>) -> tensor<1x4x16x64xf16> {
  // expected-error @+1 {{'tx.attention' op expects query, key and value to have the same element type, got 'f16', 'f32' and 'f16'}}
  %0 = tx.attention %q, %k, %v : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf16> -> tensor<1x4x16x64xf16>
  return %0 : tensor<1x4x16x64xf16>
}

// -----

func.func @attention_result_element_type(%q: tensor<1x4x16x64xf16>, %k: tensor<1x4x16x64xf16>, %v: tensor<1x4x16x64xf16>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op expects the result element type 'f32' to equal the query element type 'f16'}}
  %0 = tx.attention %q, %k, %v : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @attention_batch(%q: tensor<2x4x16x64xf32>, %k: tensor<3x4x16x64xf32>, %v: tensor<3x4x16x64xf32>) -> tensor<2x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op batch size (B) mismatch: query has 2, key has 3, value has 3}}
  %0 = tx.attention %q, %k, %v : tensor<2x4x16x64xf32>, tensor<3x4x16x64xf32>, tensor<3x4x16x64xf32> -> tensor<2x4x16x64xf32>
  return %0 : tensor<2x4x16x64xf32>
}

// -----

func.func @attention_head_dim(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x32xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op head dimension (D) of query (64) and key (32) must match}}
  %0 = tx.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x4x16x32xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @attention_key_length(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x8x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op key length (Sk) of key (16) and value (8) must match}}
  %0 = tx.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x8x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @attention_kv_heads(%q: tensor<1x4x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op number of K/V heads (Hkv) of key (2) and value (4) must match}}
  %0 = tx.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

// Case A3: H = 6 is not a multiple of Hkv = 4.
func.func @attention_gqa_not_multiple(%q: tensor<1x6x1x2xf32>, %k: tensor<1x4x1x2xf32>, %v: tensor<1x4x1x2xf32>) -> tensor<1x6x1x2xf32> {
  // expected-error @+1 {{'tx.attention' op number of query heads (H = 6) must be a multiple of the number of K/V heads (Hkv = 4)}}
  %0 = tx.attention %q, %k, %v : tensor<1x6x1x2xf32>, tensor<1x4x1x2xf32>, tensor<1x4x1x2xf32> -> tensor<1x6x1x2xf32>
  return %0 : tensor<1x6x1x2xf32>
}

// -----

func.func @attention_zero_kv_heads(%q: tensor<1x4x1x2xf32>, %k: tensor<1x0x1x2xf32>, %v: tensor<1x0x1x2xf32>) -> tensor<1x4x1x2xf32> {
  // expected-error @+1 {{'tx.attention' op number of K/V heads (Hkv) is 0 but the query has H = 4 heads}}
  %0 = tx.attention %q, %k, %v : tensor<1x4x1x2xf32>, tensor<1x0x1x2xf32>, tensor<1x0x1x2xf32> -> tensor<1x4x1x2xf32>
  return %0 : tensor<1x4x1x2xf32>
}

// -----

func.func @attention_result_shape(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x32x64xf32>, %v: tensor<1x4x32x48xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op result shape [1, 4, 16, 64] does not match [B, H, Sq, Dv] = [1, 4, 16, 48]}}
  %0 = tx.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x4x32x64xf32>, tensor<1x4x32x48xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @attention_mask_rank(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>, %m: tensor<16x16xi1>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op expects a mask of rank 4 [B|1, H|1, Sq, Sk], got rank 2}}
  %0 = tx.attention %q, %k, %v mask(%m : tensor<16x16xi1>) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @attention_mask_element_type(%q: tensor<1x4x16x64xf16>, %k: tensor<1x4x16x64xf16>, %v: tensor<1x4x16x64xf16>, %m: tensor<1x1x16x16xf32>) -> tensor<1x4x16x64xf16> {
  // expected-error @+1 {{'tx.attention' op expects an i1 keep-mask or an additive mask with the query element type 'f16', got a mask of 'f32'}}
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x1x16x16xf32>) : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16> -> tensor<1x4x16x64xf16>
  return %0 : tensor<1x4x16x64xf16>
}

// -----

func.func @attention_mask_not_broadcastable_heads(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x16x64xf32>, %v: tensor<2x4x16x64xf32>, %m: tensor<2x3x16x16xi1>) -> tensor<2x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op mask dimension 1 (H) has size 3, expected 1 or 4 (mask shape must broadcast to [B, H, Sq, Sk] = [2, 4, 16, 16])}}
  %0 = tx.attention %q, %k, %v mask(%m : tensor<2x3x16x16xi1>) : tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32> -> tensor<2x4x16x64xf32>
  return %0 : tensor<2x4x16x64xf32>
}

// -----

func.func @attention_mask_not_broadcastable_batch(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x16x64xf32>, %v: tensor<2x4x16x64xf32>, %m: tensor<3x1x16x16xi1>) -> tensor<2x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op mask dimension 0 (B) has size 3, expected 1 or 2 (mask shape must broadcast to [B, H, Sq, Sk] = [2, 4, 16, 16])}}
  %0 = tx.attention %q, %k, %v mask(%m : tensor<3x1x16x16xi1>) : tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32> -> tensor<2x4x16x64xf32>
  return %0 : tensor<2x4x16x64xf32>
}

// -----

func.func @attention_mask_query_length(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x32x64xf32>, %v: tensor<1x4x32x64xf32>, %m: tensor<1x1x8x32xi1>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op mask dimension 2 (Sq) has size 8, expected 16}}
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x1x8x32xi1>) : tensor<1x4x16x64xf32>, tensor<1x4x32x64xf32>, tensor<1x4x32x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @attention_mask_key_length(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x32x64xf32>, %v: tensor<1x4x32x64xf32>, %m: tensor<1x1x16x16xi1>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op mask dimension 3 (Sk) has size 16, expected 32}}
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x1x16x16xi1>) : tensor<1x4x16x64xf32>, tensor<1x4x32x64xf32>, tensor<1x4x32x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @attention_negative_scale(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op scale must be positive and finite, got -1}}
  %0 = tx.attention %q, %k, %v scale = -1.0 : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @attention_zero_scale(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op scale must be positive and finite, got 0}}
  %0 = tx.attention %q, %k, %v scale = 0.0 : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @attention_infinite_scale(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op scale must be positive and finite, got inf}}
  %0 = tx.attention %q, %k, %v scale = 0x7F800000 : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @attention_nan_scale(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op scale must be positive and finite, got nan}}
  %0 = tx.attention %q, %k, %v scale = 0x7FC00000 : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

// Case A5: D = 0 with the default scale 1/sqrt(D).
func.func @attention_zero_head_dim_default_scale(%q: tensor<1x2x4x0xf32>, %k: tensor<1x2x4x0xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  // expected-error @+1 {{'tx.attention' op the default scale 1/sqrt(D) needs D > 0, got D = 0; give an explicit scale}}
  %0 = tx.attention %q, %k, %v : tensor<1x2x4x0xf32>, tensor<1x2x4x0xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

func.func @attention_unsupported_element_type(%q: tensor<1x4x16x64xf64>, %k: tensor<1x4x16x64xf64>, %v: tensor<1x4x16x64xf64>) -> tensor<1x4x16x64xf64> {
  // expected-error @+1 {{'tx.attention' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<1x4x16x64xf64>'}}
  %0 = tx.attention %q, %k, %v : tensor<1x4x16x64xf64>, tensor<1x4x16x64xf64>, tensor<1x4x16x64xf64> -> tensor<1x4x16x64xf64>
  return %0 : tensor<1x4x16x64xf64>
}

// -----

func.func @attention_lse_shape(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<1x4x8xf32> {
  // expected-error @+1 {{'tx.attention' op log-sum-exp result shape [1, 4, 8] does not match [B, H, Sq] = [1, 4, 16]}}
  %0, %1 = tx.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>, tensor<1x4x8xf32>
  return %1 : tensor<1x4x8xf32>
}

// -----

func.func @attention_lse_rank(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'tx.attention' op log-sum-exp result shape [4, 16] does not match [B, H, Sq] = [1, 4, 16]}}
  %0, %1 = tx.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>, tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

// -----

func.func @attention_lse_f16(%q: tensor<1x4x16x64xf16>, %k: tensor<1x4x16x64xf16>, %v: tensor<1x4x16x64xf16>) -> tensor<1x4x16xf16> {
  // expected-error @+1 {{'tx.attention' op result #1 must be ranked tensor of 32-bit float values, but got 'tensor<1x4x16xf16>'}}
  %0, %1 = tx.attention %q, %k, %v : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16> -> tensor<1x4x16x64xf16>, tensor<1x4x16xf16>
  return %1 : tensor<1x4x16xf16>
}

// -----

func.func @attention_zero_softcap(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op softcap must be positive and finite, got 0}}
  %0 = tx.attention %q, %k, %v softcap = 0.0 : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @attention_negative_softcap(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op softcap must be positive and finite, got -30}}
  %0 = tx.attention %q, %k, %v softcap = -30.0 : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @attention_infinite_softcap(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op softcap must be positive and finite, got inf}}
  %0 = tx.attention %q, %k, %v softcap = 0x7F800000 : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @attention_nan_softcap(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op softcap must be positive and finite, got nan}}
  %0 = tx.attention %q, %k, %v softcap = 0x7FC00000 : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @attention_window_three(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op window must have two entries [left, right], got 3}}
  %0 = tx.attention %q, %k, %v window = [1, 2, 3] : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @attention_window_bad_right(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op window right = -2 must be -1 (unbounded) or a key count >= 0}}
  %0 = tx.attention %q, %k, %v window = [4, -2] causal : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @attention_kv_lengths_shape(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x16x64xf32>, %v: tensor<2x4x16x64xf32>, %kl: tensor<3xi32>) -> tensor<2x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op kv_lengths must have shape [B] = [2] (one length per batch), got 'tensor<3xi32>'}}
  %0 = tx.attention %q, %k, %v kv_lengths(%kl : tensor<3xi32>) : tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32> -> tensor<2x4x16x64xf32>
  return %0 : tensor<2x4x16x64xf32>
}

// -----

func.func @attention_q_lengths_rank(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x16x64xf32>, %v: tensor<2x4x16x64xf32>, %ql: tensor<2x1xi32>) -> tensor<2x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op q_lengths must have shape [B] = [2] (one length per batch), got 'tensor<2x1xi32>'}}
  %0 = tx.attention %q, %k, %v q_lengths(%ql : tensor<2x1xi32>) : tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32> -> tensor<2x4x16x64xf32>
  return %0 : tensor<2x4x16x64xf32>
}

// -----

func.func @attention_lengths_i64(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x16x64xf32>, %v: tensor<2x4x16x64xf32>, %kl: tensor<2xi64>) -> tensor<2x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op operand #3 must be ranked tensor of 32-bit signless integer values, but got 'tensor<2xi64>'}}
  %0 = tx.attention %q, %k, %v kv_lengths(%kl : tensor<2xi64>) : tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32> -> tensor<2x4x16x64xf32>
  return %0 : tensor<2x4x16x64xf32>
}

// -----

// Issue #44: a mask with batch 2 for B = 1 says "expected 1", not "1 or 1".
func.func @attention_mask_batch_for_b1(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>, %m: tensor<2x1x16x16xi1>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op mask dimension 0 (B) has size 2, expected 1}}
  %0 = tx.attention %q, %k, %v mask(%m : tensor<2x1x16x16xi1>) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

// A small negative scale is printed as itself (it was "-0.00").
func.func @attention_small_negative_scale(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op scale must be positive and finite, got -0.0001}}
  %0 = tx.attention %q, %k, %v scale = -0.0001 : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

// An attribute that is neither the op's own nor another dialect's is an
// error (it was kept and ignored: the attention ran non-causal).
func.func @attention_unknown_attribute(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{'tx.attention' op has an unknown attribute 'is_causal'; did you mean 'causal'? (attributes of other dialects carry their prefix, e.g. 'tx.gpu_strategy')}}
  %0 = tx.attention %q, %k, %v {is_causal} : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

func.func @softmax_unknown_attribute(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tx.softmax' op has an unknown attribute 'dims'; did you mean 'dim'?}}
  %0 = tx.softmax %x dim = 1 {dims = 1} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @attention_repeated_clause(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{the clause 'scale' appears twice}}
  %0 = tx.attention %q, %k, %v scale = 0.5 causal scale = 0.25 : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}

// -----

// A misspelled clause is named (it was only "expected ':'").
func.func @attention_misspelled_clause(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{unknown clause 'caussal'; did you mean 'causal'? (the clauses are mask(...), kv_lengths(...), q_lengths(...), page_table(...), scale = s, softcap = c, window = [l, r], causal, score_mod(...) {...} and mask_mod(...) {...}, in any order, then `:` and the types)}}
  %0 = tx.attention %q, %k, %v scale = 0.5 caussal : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return %0 : tensor<1x4x16x64xf32>
}
