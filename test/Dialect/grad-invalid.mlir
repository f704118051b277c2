// tx.softmax_grad and tx.attention_grad: one case per verifier rule (the
// rules shared with tx.attention once each, to show they apply); each
// message is pinned.
// RUN: tx-opt %s -split-input-file -verify-diagnostics

func.func @sg_rank0(%y: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'tx.softmax_grad' op expects an output of rank >= 1, got rank 0}}
  %0 = tx.softmax_grad %y, %y dim = 0 : tensor<f32>
  return %0 : tensor<f32>
}
// -----
func.func @sg_dim(%y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tx.softmax_grad' op dim -3 is out of range [-2, 2) for an output of rank 2}}
  %0 = tx.softmax_grad %y, %y dim = -3 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
// -----
func.func @sg_types(%y: tensor<4x8xf32>, %dy: tensor<4x8xf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tx.softmax_grad' op requires the same type for all operands and results}}
  %0 = "tx.softmax_grad"(%y, %dy) <{dim = 1 : i64}> : (tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
// -----
func.func @sg_unknown(%y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tx.softmax_grad' op has an unknown attribute 'dimm'; did you mean 'dim'? (attributes of other dialects carry their prefix, e.g. 'tx.gpu_strategy')}}
  %0 = tx.softmax_grad %y, %y dim = 1 {dimm = 1} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
// -----
func.func @ag_output_rank(%q: tensor<1x4x16x64xf16>, %k: tensor<1x4x16x64xf16>, %o: tensor<4x16x64xf16>, %lse: tensor<1x4x16xf32>) {
  // expected-error @+1 {{'tx.attention_grad' op expects output of rank 4 [B, H, Sq, Dv], got rank 3}}
  %a, %b, %c = tx.attention_grad %q, %k, %k, %o, %q, %lse : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16xf32> -> tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>
  return
}
// -----
func.func @ag_lse_rank(%q: tensor<1x4x16x64xf16>, %lse: tensor<4x16xf32>) {
  // expected-error @+1 {{'tx.attention_grad' op expects lse of rank 3 [B, H, Sq], got rank 2}}
  %a, %b, %c = tx.attention_grad %q, %q, %q, %q, %q, %lse : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<4x16xf32> -> tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>
  return
}
// -----
func.func @ag_output_shape(%q: tensor<1x4x16x64xf16>, %o: tensor<1x4x16x32xf16>, %lse: tensor<1x4x16xf32>) {
  // expected-error @+1 {{'tx.attention_grad' op output shape [1, 4, 16, 32] does not match [B, H, Sq, Dv] = [1, 4, 16, 64]}}
  %a, %b, %c = tx.attention_grad %q, %q, %q, %o, %q, %lse : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x32xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16xf32> -> tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>
  return
}
// -----
func.func @ag_do_type(%q: tensor<1x4x16x64xf16>, %do: tensor<1x4x16x64xf32>, %lse: tensor<1x4x16xf32>) {
  // expected-error @+1 {{'tx.attention_grad' op expects the grad_output element type 'f32' to be 'f16'}}
  %a, %b, %c = tx.attention_grad %q, %q, %q, %q, %do, %lse : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf32>, tensor<1x4x16xf32> -> tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>
  return
}
// -----
func.func @ag_lse_shape(%q: tensor<1x4x16x64xf16>, %lse: tensor<1x4x8xf32>) {
  // expected-error @+1 {{'tx.attention_grad' op lse shape [1, 4, 8] does not match [B, H, Sq] = [1, 4, 16]}}
  %a, %b, %c = tx.attention_grad %q, %q, %q, %q, %q, %lse : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x8xf32> -> tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>
  return
}
// -----
func.func @ag_dq_type(%q: tensor<1x4x16x64xf16>, %lse: tensor<1x4x16xf32>) {
  // expected-error @+1 {{'tx.attention_grad' op expects grad_query to have the query's type 'tensor<1x4x16x64xf16>', got 'tensor<1x4x16x64xf32>'}}
  %a, %b, %c = tx.attention_grad %q, %q, %q, %q, %q, %lse : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16xf32> -> tensor<1x4x16x64xf32>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>
  return
}
// -----
func.func @ag_dk_type(%q: tensor<1x4x16x64xf16>, %lse: tensor<1x4x16xf32>) {
  // expected-error @+1 {{'tx.attention_grad' op expects grad_key to have the key's type 'tensor<1x4x16x64xf16>', got 'tensor<1x4x?x64xf16>'}}
  %a, %b, %c = tx.attention_grad %q, %q, %q, %q, %q, %lse : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16xf32> -> tensor<1x4x16x64xf16>, tensor<1x4x?x64xf16>, tensor<1x4x16x64xf16>
  return
}
// -----
func.func @ag_dmask_no_mask(%q: tensor<1x4x16x64xf16>, %lse: tensor<1x4x16xf32>) {
  // expected-error @+1 {{'tx.attention_grad' op has a grad_mask result but no mask operand}}
  %a, %b, %c, %d = tx.attention_grad %q, %q, %q, %q, %q, %lse : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16xf32> -> tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x1x16x16xf16>
  return
}
// -----
func.func @ag_dmask_keep(%q: tensor<1x4x16x64xf16>, %lse: tensor<1x4x16xf32>, %m: tensor<1x1x16x16xi1>) {
  // expected-error @+1 {{'tx.attention_grad' op has a grad_mask result, but an i1 keep-mask has no gradient (only an additive mask does)}}
  %a, %b, %c, %d = tx.attention_grad %q, %q, %q, %q, %q, %lse mask(%m : tensor<1x1x16x16xi1>) : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16xf32> -> tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x1x16x16xf16>
  return
}
// -----
func.func @ag_dmask_type(%q: tensor<1x4x16x64xf16>, %lse: tensor<1x4x16xf32>, %m: tensor<1x1x16x16xf16>) {
  // expected-error @+1 {{'tx.attention_grad' op expects grad_mask to have the mask's type 'tensor<1x1x16x16xf16>', got 'tensor<1x4x16x16xf16>'}}
  %a, %b, %c, %d = tx.attention_grad %q, %q, %q, %q, %q, %lse mask(%m : tensor<1x1x16x16xf16>) : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16xf32> -> tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x16xf16>
  return
}
// -----
func.func @ag_gqa(%q: tensor<1x4x16x64xf16>, %k: tensor<1x3x16x64xf16>, %lse: tensor<1x4x16xf32>) {
  // expected-error @+1 {{'tx.attention_grad' op number of query heads (H = 4) must be a multiple of the number of K/V heads (Hkv = 3)}}
  %a, %b, %c = tx.attention_grad %q, %k, %k, %q, %q, %lse : tensor<1x4x16x64xf16>, tensor<1x3x16x64xf16>, tensor<1x3x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16xf32> -> tensor<1x4x16x64xf16>, tensor<1x3x16x64xf16>, tensor<1x3x16x64xf16>
  return
}
// -----
func.func @ag_mask_shape(%q: tensor<1x4x16x64xf16>, %lse: tensor<1x4x16xf32>, %m: tensor<1x2x16x16xi1>) {
  // expected-error @+1 {{'tx.attention_grad' op mask dimension 1 (H) has size 2, expected 1 or 4 (mask shape must broadcast to [B, H, Sq, Sk] = [1, 4, 16, 16])}}
  %a, %b, %c = tx.attention_grad %q, %q, %q, %q, %q, %lse mask(%m : tensor<1x2x16x16xi1>) : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16xf32> -> tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>
  return
}
// -----
func.func @ag_lengths(%q: tensor<2x4x16x64xf16>, %lse: tensor<2x4x16xf32>, %l: tensor<3xi32>) {
  // expected-error @+1 {{'tx.attention_grad' op kv_lengths must have shape [B] = [2] (one length per batch), got 'tensor<3xi32>'}}
  %a, %b, %c = tx.attention_grad %q, %q, %q, %q, %q, %lse kv_lengths(%l : tensor<3xi32>) : tensor<2x4x16x64xf16>, tensor<2x4x16x64xf16>, tensor<2x4x16x64xf16>, tensor<2x4x16x64xf16>, tensor<2x4x16x64xf16>, tensor<2x4x16xf32> -> tensor<2x4x16x64xf16>, tensor<2x4x16x64xf16>, tensor<2x4x16x64xf16>
  return
}
// -----
func.func @ag_scale(%q: tensor<1x4x16x64xf16>, %lse: tensor<1x4x16xf32>) {
  // expected-error @+1 {{'tx.attention_grad' op scale must be positive and finite, got -1}}
  %a, %b, %c = tx.attention_grad %q, %q, %q, %q, %q, %lse scale = -1.0 : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16xf32> -> tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>
  return
}
// -----
func.func @ag_window(%q: tensor<1x4x16x64xf16>, %lse: tensor<1x4x16xf32>) {
  // expected-error @+1 {{'tx.attention_grad' op window left = -2 must be -1 (unbounded) or a key count >= 0}}
  %a, %b, %c = tx.attention_grad %q, %q, %q, %q, %q, %lse window = [-2, 0] : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16xf32> -> tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>
  return
}
// -----
func.func @ag_unknown(%q: tensor<1x4x16x64xf16>, %lse: tensor<1x4x16xf32>) {
  // expected-error @+1 {{'tx.attention_grad' op has an unknown attribute 'is_causal'; did you mean 'causal'? (attributes of other dialects carry their prefix, e.g. 'tx.gpu_strategy')}}
  %a, %b, %c = tx.attention_grad %q, %q, %q, %q, %q, %lse {is_causal} : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16xf32> -> tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>
  return
}
// -----
func.func @ag_clause_twice(%q: tensor<1x4x16x64xf16>, %lse: tensor<1x4x16xf32>) {
  // expected-error @+1 {{the clause 'causal' appears twice}}
  %a, %b, %c = tx.attention_grad %q, %q, %q, %q, %q, %lse causal causal : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16xf32> -> tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>
  return
}

// -----
// A score function tx cannot differentiate: the error is at the op.
func.func @ag_mod_not_differentiable(%q: tensor<1x2x4x8xf32>, %o: tensor<1x2x4x8xf32>,
                                     %lse: tensor<1x2x4xf32>) -> tensor<1x2x4x8xf32> {
  %dq, %dk, %dv = tx.attention_grad %q, %q, %q, %o, %o, %lse score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %c = arith.constant 3.0 : f32
        // expected-error @+1 {{'arith.remf' op in score_mod depends on the score and tx cannot differentiate it}}
        %r = arith.remf %s, %c : f32
        tx.yield %r : f32
      }
      : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>,
        tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4xf32>
      -> tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %dq : tensor<1x2x4x8xf32>
}

// -----
// The regions' own rules apply (here: a mask function yielding f32).
func.func @ag_mask_yield(%q: tensor<1x2x4x8xf32>, %o: tensor<1x2x4x8xf32>,
                         %lse: tensor<1x2x4xf32>) -> tensor<1x2x4x8xf32> {
  %dq, %dk, %dv = tx.attention_grad %q, %q, %q, %o, %o, %lse mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c = arith.constant 3.0 : f32
        // expected-error @+1 {{'tx.yield' op in mask_mod must yield one 'i1', got 'f32'}}
        tx.yield %c : f32
      }
      : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>,
        tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4xf32>
      -> tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %dq : tensor<1x2x4x8xf32>
}
