// tx.attention's paged K/V (page_table) and tx.merge_attention_states: one
// case per verifier rule; each message is pinned.
// RUN: tx-opt %s -split-input-file -verify-diagnostics

func.func @pool_rank(%q: tensor<2x4x1x64xf16>, %k: tensor<64x16x64xf16>, %v: tensor<64x16x2x64xf16>, %pt: tensor<2x8xi32>) -> tensor<2x4x1x64xf16> {
  // expected-error @+1 {{'tx.attention' op expects key of rank 4 [num_pages, page_size, Hkv, D] (a page pool), got rank 3}}
  %0 = tx.attention %q, %k, %v page_table(%pt : tensor<2x8xi32>) : tensor<2x4x1x64xf16>, tensor<64x16x64xf16>, tensor<64x16x2x64xf16> -> tensor<2x4x1x64xf16>
  return %0 : tensor<2x4x1x64xf16>
}

// -----

func.func @table_batch(%q: tensor<2x4x1x64xf16>, %k: tensor<64x16x2x64xf16>, %v: tensor<64x16x2x64xf16>, %pt: tensor<3x8xi32>) -> tensor<2x4x1x64xf16> {
  // expected-error @+1 {{'tx.attention' op page_table must have shape [B, max_pages] = [2, max_pages] (one row of page ids per batch), got 'tensor<3x8xi32>'}}
  %0 = tx.attention %q, %k, %v page_table(%pt : tensor<3x8xi32>) : tensor<2x4x1x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16> -> tensor<2x4x1x64xf16>
  return %0 : tensor<2x4x1x64xf16>
}

// -----

func.func @table_rank(%q: tensor<2x4x1x64xf16>, %k: tensor<64x16x2x64xf16>, %v: tensor<64x16x2x64xf16>, %pt: tensor<16xi32>) -> tensor<2x4x1x64xf16> {
  // expected-error @+1 {{'tx.attention' op page_table must have shape [B, max_pages] = [2, max_pages] (one row of page ids per batch), got 'tensor<16xi32>'}}
  %0 = tx.attention %q, %k, %v page_table(%pt : tensor<16xi32>) : tensor<2x4x1x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16> -> tensor<2x4x1x64xf16>
  return %0 : tensor<2x4x1x64xf16>
}

// -----

func.func @table_element_type(%q: tensor<2x4x1x64xf16>, %k: tensor<64x16x2x64xf16>, %v: tensor<64x16x2x64xf16>, %pt: tensor<2x8xi64>) -> tensor<2x4x1x64xf16> {
  // expected-error @+1 {{'tx.attention' op operand #3 must be ranked tensor of 32-bit signless integer values, but got 'tensor<2x8xi64>'}}
  %0 = tx.attention %q, %k, %v page_table(%pt : tensor<2x8xi64>) : tensor<2x4x1x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16> -> tensor<2x4x1x64xf16>
  return %0 : tensor<2x4x1x64xf16>
}

// -----

func.func @num_pages(%q: tensor<2x4x1x64xf16>, %k: tensor<64x16x2x64xf16>, %v: tensor<32x16x2x64xf16>, %pt: tensor<2x8xi32>) -> tensor<2x4x1x64xf16> {
  // expected-error @+1 {{'tx.attention' op number of pages (num_pages) of the key pool (64) and the value pool (32) must match}}
  %0 = tx.attention %q, %k, %v page_table(%pt : tensor<2x8xi32>) : tensor<2x4x1x64xf16>, tensor<64x16x2x64xf16>, tensor<32x16x2x64xf16> -> tensor<2x4x1x64xf16>
  return %0 : tensor<2x4x1x64xf16>
}

// -----

func.func @page_size_match(%q: tensor<2x4x1x64xf16>, %k: tensor<64x16x2x64xf16>, %v: tensor<64x32x2x64xf16>, %pt: tensor<2x8xi32>) -> tensor<2x4x1x64xf16> {
  // expected-error @+1 {{'tx.attention' op page size of the key pool (16) and the value pool (32) must match}}
  %0 = tx.attention %q, %k, %v page_table(%pt : tensor<2x8xi32>) : tensor<2x4x1x64xf16>, tensor<64x16x2x64xf16>, tensor<64x32x2x64xf16> -> tensor<2x4x1x64xf16>
  return %0 : tensor<2x4x1x64xf16>
}

// -----

func.func @page_size_pow2(%q: tensor<2x4x1x64xf16>, %k: tensor<64x12x2x64xf16>, %v: tensor<64x12x2x64xf16>, %pt: tensor<2x8xi32>) -> tensor<2x4x1x64xf16> {
  // expected-error @+1 {{'tx.attention' op page size (dimension 1 of the key and value pools) must be a power of two from 1 to 256, got 12}}
  %0 = tx.attention %q, %k, %v page_table(%pt : tensor<2x8xi32>) : tensor<2x4x1x64xf16>, tensor<64x12x2x64xf16>, tensor<64x12x2x64xf16> -> tensor<2x4x1x64xf16>
  return %0 : tensor<2x4x1x64xf16>
}

// -----

func.func @page_size_512(%q: tensor<2x4x1x64xf16>, %k: tensor<4x512x2x64xf16>, %v: tensor<4x512x2x64xf16>, %pt: tensor<2x8xi32>) -> tensor<2x4x1x64xf16> {
  // expected-error @+1 {{'tx.attention' op page size (dimension 1 of the key and value pools) must be a power of two from 1 to 256, got 512}}
  %0 = tx.attention %q, %k, %v page_table(%pt : tensor<2x8xi32>) : tensor<2x4x1x64xf16>, tensor<4x512x2x64xf16>, tensor<4x512x2x64xf16> -> tensor<2x4x1x64xf16>
  return %0 : tensor<2x4x1x64xf16>
}

// -----

// The rules of contiguous K/V apply to the K/V the pools stand for.
func.func @pool_gqa(%q: tensor<2x4x1x64xf16>, %k: tensor<64x16x3x64xf16>, %v: tensor<64x16x3x64xf16>, %pt: tensor<2x8xi32>) -> tensor<2x4x1x64xf16> {
  // expected-error @+1 {{'tx.attention' op number of query heads (H = 4) must be a multiple of the number of K/V heads (Hkv = 3)}}
  %0 = tx.attention %q, %k, %v page_table(%pt : tensor<2x8xi32>) : tensor<2x4x1x64xf16>, tensor<64x16x3x64xf16>, tensor<64x16x3x64xf16> -> tensor<2x4x1x64xf16>
  return %0 : tensor<2x4x1x64xf16>
}

// -----

func.func @pool_head_dim(%q: tensor<2x4x1x64xf16>, %k: tensor<64x16x2x128xf16>, %v: tensor<64x16x2x64xf16>, %pt: tensor<2x8xi32>) -> tensor<2x4x1x64xf16> {
  // expected-error @+1 {{'tx.attention' op head dimension (D) of query (64) and key (128) must match}}
  %0 = tx.attention %q, %k, %v page_table(%pt : tensor<2x8xi32>) : tensor<2x4x1x64xf16>, tensor<64x16x2x128xf16>, tensor<64x16x2x64xf16> -> tensor<2x4x1x64xf16>
  return %0 : tensor<2x4x1x64xf16>
}

// -----

// The mask's key dimension is max_pages * page_size.
func.func @paged_mask(%q: tensor<2x4x1x64xf16>, %k: tensor<64x16x2x64xf16>, %v: tensor<64x16x2x64xf16>, %pt: tensor<2x8xi32>, %m: tensor<1x1x1x64xi1>) -> tensor<2x4x1x64xf16> {
  // expected-error @+1 {{'tx.attention' op mask dimension 3 (Sk) has size 64, expected 128}}
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x1x1x64xi1>) page_table(%pt : tensor<2x8xi32>) : tensor<2x4x1x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16> -> tensor<2x4x1x64xf16>
  return %0 : tensor<2x4x1x64xf16>
}

// -----

func.func @page_table_twice(%q: tensor<2x4x1x64xf16>, %k: tensor<64x16x2x64xf16>, %v: tensor<64x16x2x64xf16>, %pt: tensor<2x8xi32>) -> tensor<2x4x1x64xf16> {
  // expected-error @+1 {{the clause 'page_table' appears twice}}
  %0 = tx.attention %q, %k, %v page_table(%pt : tensor<2x8xi32>) page_table(%pt : tensor<2x8xi32>) : tensor<2x4x1x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16> -> tensor<2x4x1x64xf16>
  return %0 : tensor<2x4x1x64xf16>
}

// -----

func.func @page_table_misspelled(%q: tensor<2x4x1x64xf16>, %k: tensor<64x16x2x64xf16>, %v: tensor<64x16x2x64xf16>, %pt: tensor<2x8xi32>) -> tensor<2x4x1x64xf16> {
  // expected-error @+1 {{unknown clause 'page_tables'; did you mean 'page_table'? (the clauses are mask(...), kv_lengths(...), q_lengths(...), page_table(...), scale = s, softcap = c, window = [l, r], causal, score_mod(...) {...} and mask_mod(...) {...}, in any order, then `:` and the types)}}
  %0 = tx.attention %q, %k, %v page_tables(%pt : tensor<2x8xi32>) : tensor<2x4x1x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16> -> tensor<2x4x1x64xf16>
  return %0 : tensor<2x4x1x64xf16>
}

// -----

// tx.attention_grad has no page_table clause.
func.func @grad_page_table(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x16x64xf32>, %v: tensor<2x4x16x64xf32>, %o: tensor<2x4x16x64xf32>, %do: tensor<2x4x16x64xf32>, %lse: tensor<2x4x16xf32>, %pt: tensor<2x8xi32>) -> tensor<2x4x16x64xf32> {
  // expected-error @+1 {{unknown clause 'page_table'}}
  %0:3 = tx.attention_grad %q, %k, %v, %o, %do, %lse page_table(%pt : tensor<2x8xi32>) : tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16xf32> -> tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>
  return %0#0 : tensor<2x4x16x64xf32>
}

// -----

func.func @merge_lse_shape(%a: tensor<2x4x8x64xf16>, %la: tensor<2x4x9xf32>) -> tensor<2x4x8x64xf16> {
  // expected-error @+1 {{'tx.merge_attention_states' op log-sum-exp shape [2, 4, 9] does not match the outputs' leading dimensions [...] = [2, 4, 8]}}
  %o, %l = tx.merge_attention_states %a, %la, %a, %la : tensor<2x4x8x64xf16>, tensor<2x4x9xf32>
  return %o : tensor<2x4x8x64xf16>
}

// -----

func.func @merge_rank0(%a: tensor<f32>, %la: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'tx.merge_attention_states' op expects outputs of rank >= 1 [..., Dv], got rank 0}}
  %o, %l = tx.merge_attention_states %a, %la, %a, %la : tensor<f32>, tensor<f32>
  return %o : tensor<f32>
}

// -----

// expected-note @+1 {{prior use here}}
func.func @merge_types(%a: tensor<2x4x8x64xf16>, %b: tensor<2x4x8x64xbf16>, %la: tensor<2x4x8xf32>) -> tensor<2x4x8x64xf16> {
  // expected-error @+1 {{use of value '%b' expects different type than prior uses: 'tensor<2x4x8x64xf16>' vs 'tensor<2x4x8x64xbf16>'}}
  %o, %l = tx.merge_attention_states %a, %la, %b, %la : tensor<2x4x8x64xf16>, tensor<2x4x8xf32>
  return %o : tensor<2x4x8x64xf16>
}
