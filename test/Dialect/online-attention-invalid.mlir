// One case per tx.online_attention verifier rule; each message is pinned.
// RUN: tx-opt %s -split-input-file -verify-diagnostics

func.func @query_rank(%q: tensor<4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op expects query of rank 4 [B, H, M, D], got rank 3}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 outs(%acc, %m, %l) : tensor<4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @value_rank(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op expects value of rank 4 [B, Hkv, N, Dv], got rank 3}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @max_rank(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<4x16xf32>, %l: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op expects max of rank 3 [B, H, M], got rank 2}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @element_types(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf16>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op expects query, key and value to have the same element type, got 'f32', 'f16' and 'f32'}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf16>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @acc_element_type(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf16>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op operand #3 must be ranked tensor of 32-bit float values, but got 'tensor<2x4x16x8xf16>'}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf16>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @batch(%q: tensor<2x4x16x64xf32>, %k: tensor<3x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op batch size (B) mismatch: query has 2, key has 3, value has 2}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<3x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @head_dim(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x32xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op head dimension (D) of query (64) and key (32) must match}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x32xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @kv_heads(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x2x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op number of K/V heads (Hkv) of key (4) and value (2) must match}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x2x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @key_length(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x16x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op key block length (N) of key (32) and value (16) must match}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @gqa_ratio(%q: tensor<2x6x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x6x16x8xf32>, %m: tensor<2x6x16xf32>, %l: tensor<2x6x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op number of query heads (H = 6) must be a multiple of the number of K/V heads (Hkv = 4)}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 outs(%acc, %m, %l) : tensor<2x6x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x6x16x8xf32>, tensor<2x6x16xf32>, tensor<2x6x16xf32>
  return
}

// -----

func.func @zero_kv_heads(%q: tensor<2x4x16x64xf32>, %k: tensor<2x0x32x64xf32>, %v: tensor<2x0x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op number of K/V heads (Hkv) is 0 but the query has H = 4 heads}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x0x32x64xf32>, tensor<2x0x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

// acc is [B, H, M, Dv] (Dv of V, not D).
func.func @acc_shape(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x64xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op acc shape [2, 4, 16, 64] does not match [B, H, M, Dv] = [2, 4, 16, 8]}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x64xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @max_shape(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x8xf32>, %l: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op max shape [2, 4, 8] does not match [B, H, M] = [2, 4, 16]}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x8xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @sum_shape(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x1x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op sum shape [2, 1, 16] does not match [B, H, M] = [2, 4, 16]}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x1x16xf32>
  return
}

// -----

func.func @mask_rank(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>, %mask: tensor<16x32xi1>) {
  // expected-error @+1 {{'tx.online_attention' op expects a mask of rank 4 [B|1, H|1, M, N], got rank 2}}
  %0:3 = tx.online_attention %q, %k, %v mask(%mask : tensor<16x32xi1>) scale = 0.125 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @mask_type(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>, %mask: tensor<1x1x16x32xf16>) {
  // expected-error @+1 {{'tx.online_attention' op expects an i1 keep-mask or an additive mask with the query element type 'f32', got a mask of 'f16'}}
  %0:3 = tx.online_attention %q, %k, %v mask(%mask : tensor<1x1x16x32xf16>) scale = 0.125 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @mask_batch(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>, %mask: tensor<3x1x16x32xi1>) {
  // expected-error @+1 {{'tx.online_attention' op mask dimension 0 (B) has size 3, expected 1 or 2}}
  %0:3 = tx.online_attention %q, %k, %v mask(%mask : tensor<3x1x16x32xi1>) scale = 0.125 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @mask_keys(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>, %mask: tensor<1x4x16x16xi1>) {
  // expected-error @+1 {{'tx.online_attention' op mask dimension 3 (N) has size 16, expected 32}}
  %0:3 = tx.online_attention %q, %k, %v mask(%mask : tensor<1x4x16x16xi1>) scale = 0.125 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @causal_without_offset(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op is causal but has no causal_offset operand (key j is visible to query i iff j <= i + causal_offset)}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 causal outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @offset_without_causal(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>, %c: index) {
  // expected-error @+1 {{'tx.online_attention' op has a causal_offset operand but is neither causal nor windowed}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 causal_offset(%c) outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @scale_zero(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op scale must be positive and finite, got 0}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.0 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @scale_inf(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op scale must be positive and finite, got inf}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0x7F800000 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

// The results have the inits' types.
func.func @result_types(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op expected type of operand #4 ('tensor<2x4x16xf32>') to match type of corresponding result ('tensor<2x4x8xf32>')}}
  %0:3 = "tx.online_attention"(%q, %k, %v, %acc, %m, %l) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1>, scale = 1.250000e-01 : f32}> ({}, {}) : (tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

func.func @online_negative_softcap(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>) -> tensor<2x4x16x8xf32> {
  // expected-error @+1 {{'tx.online_attention' op softcap must be positive and finite, got -1}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 softcap = -1.0 outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return %0#0 : tensor<2x4x16x8xf32>
}

// -----

func.func @window_without_offset(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op has a window but no causal_offset operand (key j is visible to query i iff i + causal_offset - left <= j <= i + causal_offset + right)}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 window = [4, 0] outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @online_window_bad_left(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x32x64xf32>, %v: tensor<2x4x32x8xf32>, %acc: tensor<2x4x16x8xf32>, %m: tensor<2x4x16xf32>, %l: tensor<2x4x16xf32>, %c: index) {
  // expected-error @+1 {{'tx.online_attention' op window left = -3 must be -1 (unbounded) or a key count >= 0}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 window = [-3, 0] causal_offset(%c) outs(%acc, %m, %l) : tensor<2x4x16x64xf32>, tensor<2x4x32x64xf32>, tensor<2x4x32x8xf32> -> tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

// Score and mask functions (issue #42): mod_offsets come with a region, and
// only then; the regions follow tx.attention's rules.
func.func @mods_no_offsets(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x32x8xf32>, %v: tensor<1x2x32x8xf32>, %acc: tensor<1x2x16x8xf32>, %m: tensor<1x2x16xf32>, %l: tensor<1x2x16xf32>) {
  // expected-error @+1 {{'tx.online_attention' op with a score_mod or mask_mod region needs mod_offsets(b0, h0, i0, j0): the whole op's indices of the tile's first element; got 0 offsets}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %t = arith.cmpi ule, %j, %i : index
        tx.yield %t : i1
      } outs(%acc, %m, %l) : tensor<1x2x16x8xf32>, tensor<1x2x32x8xf32>, tensor<1x2x32x8xf32> -> tensor<1x2x16x8xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>
  return
}

// -----

func.func @offsets_no_mods(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x32x8xf32>, %v: tensor<1x2x32x8xf32>, %acc: tensor<1x2x16x8xf32>, %m: tensor<1x2x16xf32>, %l: tensor<1x2x16xf32>, %z: index) {
  // expected-error @+1 {{'tx.online_attention' op has mod_offsets but no score_mod or mask_mod region; got 4 offsets}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 mod_offsets(%z, %z, %z, %z) outs(%acc, %m, %l) : tensor<1x2x16x8xf32>, tensor<1x2x32x8xf32>, tensor<1x2x32x8xf32> -> tensor<1x2x16x8xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>
  return
}

// -----

func.func @mods_three_offsets(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x32x8xf32>, %v: tensor<1x2x32x8xf32>, %acc: tensor<1x2x16x8xf32>, %m: tensor<1x2x16xf32>, %l: tensor<1x2x16xf32>, %z: index) {
  // expected-error @+1 {{'tx.online_attention' op with a score_mod or mask_mod region needs mod_offsets(b0, h0, i0, j0): the whole op's indices of the tile's first element; got 3 offsets}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 mod_offsets(%z, %z, %z) score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        tx.yield %s : f32
      } outs(%acc, %m, %l) : tensor<1x2x16x8xf32>, tensor<1x2x32x8xf32>, tensor<1x2x32x8xf32> -> tensor<1x2x16x8xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>
  return
}

// -----

func.func @mods_signature(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x32x8xf32>, %v: tensor<1x2x32x8xf32>, %acc: tensor<1x2x16x8xf32>, %m: tensor<1x2x16xf32>, %l: tensor<1x2x16xf32>, %z: index) {
  // expected-error @+1 {{'tx.online_attention' op score_mod's block must take (f32 score, index b, index h, index q_idx, index kv_idx) then one argument per captured operand (0), i.e. (f32, index, index, index, index); got (f32, index, index, index)}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 mod_offsets(%z, %z, %z, %z) score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index):
        tx.yield %s : f32
      } outs(%acc, %m, %l) : tensor<1x2x16x8xf32>, tensor<1x2x32x8xf32>, tensor<1x2x32x8xf32> -> tensor<1x2x16x8xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>
  return
}

// -----

func.func @mods_yield_type(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x32x8xf32>, %v: tensor<1x2x32x8xf32>, %acc: tensor<1x2x16x8xf32>, %m: tensor<1x2x16xf32>, %l: tensor<1x2x16xf32>, %z: index) {
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 mod_offsets(%z, %z, %z, %z) mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        // expected-error @+1 {{'tx.yield' op in mask_mod must yield one 'i1', got 'index'}}
        tx.yield %i : index
      } outs(%acc, %m, %l) : tensor<1x2x16x8xf32>, tensor<1x2x32x8xf32>, tensor<1x2x32x8xf32> -> tensor<1x2x16x8xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>
  return
}

// -----

func.func @mods_from_above(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x32x8xf32>, %v: tensor<1x2x32x8xf32>, %acc: tensor<1x2x16x8xf32>, %m: tensor<1x2x16xf32>, %l: tensor<1x2x16xf32>, %z: index, %bias: f32) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 mod_offsets(%z, %z, %z, %z) score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        // expected-error @+1 {{'arith.addf' op using value defined outside the region}}
        %r = arith.addf %s, %bias : f32
        tx.yield %r : f32
      } outs(%acc, %m, %l) : tensor<1x2x16x8xf32>, tensor<1x2x32x8xf32>, tensor<1x2x32x8xf32> -> tensor<1x2x16x8xf32>, tensor<1x2x16xf32>, tensor<1x2x16xf32>
  return
}
