// tx.attention_dq and tx.attention_dkdv: one case per rule of their own
// (the rules shared with tx.online_attention and tx.attention_grad once
// each, to show they apply); each message is pinned.
// RUN: tx-opt %s -split-input-file -verify-diagnostics

func.func @dq_init_shape(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x6x4xf32>, %do: tensor<1x2x8x4xf32>,
                         %l: tensor<1x2x8xf32>, %dq: tensor<1x2x8x5xf32>) -> tensor<1x2x8x5xf32> {
  // expected-error @+1 {{'tx.attention_dq' op grad_query_init shape [1, 2, 8, 5] does not match [B, H, M, D] = [1, 2, 8, 4]}}
  %0 = tx.attention_dq %q, %k, %k, %do, %l, %l scale = 0.5 outs(%dq)
      : tensor<1x2x8x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x8x4xf32>,
        tensor<1x2x8xf32> -> tensor<1x2x8x5xf32>
  return %0 : tensor<1x2x8x5xf32>
}
// -----
func.func @dkdv_init_shape(%q: tensor<1x4x8x4xf32>, %k: tensor<1x2x6x4xf32>, %do: tensor<1x4x8x4xf32>,
                           %l: tensor<1x4x8xf32>, %dk: tensor<1x4x6x4xf32>, %dv: tensor<1x2x6x4xf32>)
    -> tensor<1x4x6x4xf32> {
  // expected-error @+1 {{'tx.attention_dkdv' op grad_key_init shape [1, 4, 6, 4] does not match [B, Hkv, N, D] = [1, 2, 6, 4]}}
  %0:2 = tx.attention_dkdv %q, %k, %k, %do, %l, %l scale = 0.5 outs(%dk, %dv)
      : tensor<1x4x8x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x4x8x4xf32>,
        tensor<1x4x8xf32> -> tensor<1x4x6x4xf32>, tensor<1x2x6x4xf32>
  return %0#0 : tensor<1x4x6x4xf32>
}
// -----
func.func @dkdv_value_init(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x6x4xf32>, %v: tensor<1x2x6x3xf32>,
                           %do: tensor<1x2x8x3xf32>, %l: tensor<1x2x8xf32>, %dk: tensor<1x2x6x4xf32>,
                           %dv: tensor<1x2x6x4xf32>) -> tensor<1x2x6x4xf32> {
  // expected-error @+1 {{'tx.attention_dkdv' op grad_value_init shape [1, 2, 6, 4] does not match [B, Hkv, N, Dv] = [1, 2, 6, 3]}}
  %0:2 = tx.attention_dkdv %q, %k, %v, %do, %l, %l scale = 0.5 outs(%dk, %dv)
      : tensor<1x2x8x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x3xf32>, tensor<1x2x8x3xf32>,
        tensor<1x2x8xf32> -> tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>
  return %0#1 : tensor<1x2x6x4xf32>
}
// -----
func.func @dq_grad_output(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x6x4xf32>, %do: tensor<1x2x7x4xf32>,
                          %l: tensor<1x2x8xf32>, %dq: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  // expected-error @+1 {{'tx.attention_dq' op grad_output shape [1, 2, 7, 4] does not match [B, H, M, Dv] = [1, 2, 8, 4]}}
  %0 = tx.attention_dq %q, %k, %k, %do, %l, %l scale = 0.5 outs(%dq)
      : tensor<1x2x8x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x7x4xf32>,
        tensor<1x2x8xf32> -> tensor<1x2x8x4xf32>
  return %0 : tensor<1x2x8x4xf32>
}
// -----
func.func @dq_lse_shape(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x6x4xf32>, %l: tensor<1x2x9xf32>,
                        %dq: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  // expected-error @+1 {{'tx.attention_dq' op lse shape [1, 2, 9] does not match [B, H, M] = [1, 2, 8]}}
  %0 = tx.attention_dq %q, %k, %k, %q, %l, %l scale = 0.5 outs(%dq)
      : tensor<1x2x8x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x8x4xf32>,
        tensor<1x2x9xf32> -> tensor<1x2x8x4xf32>
  return %0 : tensor<1x2x8x4xf32>
}
// -----
func.func @dq_delta_type(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x6x4xf32>, %l: tensor<1x2x8xf32>,
                         %d: tensor<1x2x7xf32>, %dq: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  // expected-error @+1 {{'tx.attention_dq' op failed to verify that all of {lse, delta} have same type}}
  %0 = "tx.attention_dq"(%q, %k, %k, %q, %l, %d, %dq) <{scale = 5.0e-01 : f32, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}>
      : (tensor<1x2x8x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x8x4xf32>,
         tensor<1x2x8xf32>, tensor<1x2x7xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %0 : tensor<1x2x8x4xf32>
}
// -----
func.func @dq_causal_no_offset(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x6x4xf32>, %l: tensor<1x2x8xf32>,
                               %dq: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  // expected-error @+1 {{'tx.attention_dq' op is causal but has no causal_offset operand}}
  %0 = tx.attention_dq %q, %k, %k, %q, %l, %l scale = 0.5 causal outs(%dq)
      : tensor<1x2x8x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x8x4xf32>,
        tensor<1x2x8xf32> -> tensor<1x2x8x4xf32>
  return %0 : tensor<1x2x8x4xf32>
}
// -----
func.func @dkdv_scale(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x6x4xf32>, %l: tensor<1x2x8xf32>,
                      %dk: tensor<1x2x6x4xf32>) -> tensor<1x2x6x4xf32> {
  // expected-error @+1 {{'tx.attention_dkdv' op scale must be positive and finite, got 0}}
  %0:2 = tx.attention_dkdv %q, %k, %k, %q, %l, %l scale = 0.0 outs(%dk, %dk)
      : tensor<1x2x8x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x8x4xf32>,
        tensor<1x2x8xf32> -> tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>
  return %0#0 : tensor<1x2x6x4xf32>
}
// -----
func.func @dkdv_mask(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x6x4xf32>, %l: tensor<1x2x8xf32>,
                     %m: tensor<1x2x8x5xi1>, %dk: tensor<1x2x6x4xf32>) -> tensor<1x2x6x4xf32> {
  // expected-error @+1 {{'tx.attention_dkdv' op mask}}
  %0:2 = tx.attention_dkdv %q, %k, %k, %q, %l, %l mask(%m : tensor<1x2x8x5xi1>) scale = 0.5 outs(%dk, %dk)
      : tensor<1x2x8x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x8x4xf32>,
        tensor<1x2x8xf32> -> tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>
  return %0#0 : tensor<1x2x6x4xf32>
}
// -----
func.func @dkdv_rank(%q: tensor<2x8x4xf32>, %k: tensor<1x2x6x4xf32>, %l: tensor<1x2x8xf32>,
                     %do: tensor<1x2x8x4xf32>, %dk: tensor<1x2x6x4xf32>) -> tensor<1x2x6x4xf32> {
  // expected-error @+1 {{'tx.attention_dkdv' op expects query of rank 4 [B, H, M, D], got rank 3}}
  %0:2 = tx.attention_dkdv %q, %k, %k, %do, %l, %l scale = 0.5 outs(%dk, %dk)
      : tensor<2x8x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x8x4xf32>,
        tensor<1x2x8xf32> -> tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>
  return %0#0 : tensor<1x2x6x4xf32>
}
// -----
func.func @dq_scores_shape(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x6x4xf32>, %l: tensor<1x2x8xf32>,
                           %dq: tensor<1x2x8x4xf32>, %ds: tensor<1x2x8x5xf32>) -> tensor<1x2x8x5xf32> {
  // expected-error @+1 {{'tx.attention_dq' op grad_scores_init shape [1, 2, 8, 5] does not match [B, H, M, N] = [1, 2, 8, 6]}}
  %0:2 = tx.attention_dq %q, %k, %k, %q, %l, %l scale = 0.5 outs(%dq, %ds)
      : tensor<1x2x8x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x8x4xf32>,
        tensor<1x2x8xf32> -> tensor<1x2x8x4xf32>, tensor<1x2x8x5xf32>
  return %0#1 : tensor<1x2x8x5xf32>
}
