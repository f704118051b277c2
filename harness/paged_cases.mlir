// Paged KV caches (issue #43) for harness/check_paged.py: K/V page pools
// [num_pages, page_size, Hkv, D] read through a page table [B, max_pages]
// i32. The split-KV decode kernel (packed rows G * Sq <= 16) and the
// prefill kernels (mma.sync, wgmma) read the pools in place: one table
// read per key tile when a page holds whole tiles, one per row otherwise.

// Page size 16 (vLLM's default; one page per 16-key tile), GQA 32/8, f16.
func.func @pg_dec_f16_p16(%q: tensor<?x32x1x128xf16>, %k: tensor<?x16x8x128xf16>,
                          %v: tensor<?x16x8x128xf16>, %pt: tensor<?x?xi32>,
                          %kl: tensor<?xi32>) -> tensor<?x32x1x128xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) page_table(%pt : tensor<?x?xi32>) causal
      : tensor<?x32x1x128xf16>, tensor<?x16x8x128xf16>, tensor<?x16x8x128xf16> -> tensor<?x32x1x128xf16>
  return %o : tensor<?x32x1x128xf16>
}

// Page size 1 (token-granular, SGLang's default), bf16.
func.func @pg_dec_bf16_p1(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x1x8x128xbf16>,
                          %v: tensor<?x1x8x128xbf16>, %pt: tensor<?x?xi32>,
                          %kl: tensor<?xi32>) -> tensor<?x32x1x128xbf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) page_table(%pt : tensor<?x?xi32>)
      : tensor<?x32x1x128xbf16>, tensor<?x1x8x128xbf16>, tensor<?x1x8x128xbf16> -> tensor<?x32x1x128xbf16>
  return %o : tensor<?x32x1x128xbf16>
}

// A dynamic page size (a power of two at run time), four new queries per
// sequence (causal bottom-right, q_lengths), f16.
func.func @pg_dec_f16_pdyn_sq4(%q: tensor<?x32x4x128xf16>, %k: tensor<?x?x8x128xf16>,
                               %v: tensor<?x?x8x128xf16>, %pt: tensor<?x?xi32>,
                               %kl: tensor<?xi32>, %ql: tensor<?xi32>) -> tensor<?x32x4x128xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) q_lengths(%ql : tensor<?xi32>)
      page_table(%pt : tensor<?x?xi32>) causal
      : tensor<?x32x4x128xf16>, tensor<?x?x8x128xf16>, tensor<?x?x8x128xf16> -> tensor<?x32x4x128xf16>
  return %o : tensor<?x32x4x128xf16>
}

// Page size 8, MQA 8/1, sliding window, D = 64, bf16 (a window takes a
// prefill kernel).
func.func @pg_dec_bf16_p8_window(%q: tensor<?x8x1x64xbf16>, %k: tensor<?x8x1x64xbf16>,
                                 %v: tensor<?x8x1x64xbf16>, %pt: tensor<?x?xi32>,
                                 %kl: tensor<?xi32>) -> tensor<?x8x1x64xbf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) page_table(%pt : tensor<?x?xi32>)
      window = [100, 0]
      : tensor<?x8x1x64xbf16>, tensor<?x8x1x64xbf16>, tensor<?x8x1x64xbf16> -> tensor<?x8x1x64xbf16>
  return %o : tensor<?x8x1x64xbf16>
}

// f32 (the CUDA-core decode form), page size 64, softcap, the LSE result.
func.func @pg_dec_f32_p64_lse(%q: tensor<?x8x1x64xf32>, %k: tensor<?x64x2x64xf32>,
                              %v: tensor<?x64x2x64xf32>, %pt: tensor<?x?xi32>,
                              %kl: tensor<?xi32>) -> (tensor<?x8x1x64xf32>, tensor<?x8x1xf32>) {
  %o, %lse = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) page_table(%pt : tensor<?x?xi32>)
      softcap = 20.0
      : tensor<?x8x1x64xf32>, tensor<?x64x2x64xf32>, tensor<?x64x2x64xf32> -> tensor<?x8x1x64xf32>, tensor<?x8x1xf32>
  return %o, %lse : tensor<?x8x1x64xf32>, tensor<?x8x1xf32>
}

// No kv_lengths: every key of max_pages * page_size is live.
func.func @pg_dec_f16_p32_full(%q: tensor<?x32x1x128xf16>, %k: tensor<?x32x8x128xf16>,
                               %v: tensor<?x32x8x128xf16>, %pt: tensor<?x?xi32>) -> tensor<?x32x1x128xf16> {
  %o = tx.attention %q, %k, %v page_table(%pt : tensor<?x?xi32>)
      : tensor<?x32x1x128xf16>, tensor<?x32x8x128xf16>, tensor<?x32x8x128xf16> -> tensor<?x32x1x128xf16>
  return %o : tensor<?x32x1x128xf16>
}

// Chunked prefill: new queries over a paged cache, causal bottom-right.
func.func @pg_prefill_f16_p16(%q: tensor<?x8x?x128xf16>, %k: tensor<?x16x2x128xf16>,
                              %v: tensor<?x16x2x128xf16>, %pt: tensor<?x?xi32>,
                              %kl: tensor<?xi32>) -> tensor<?x8x?x128xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) page_table(%pt : tensor<?x?xi32>) causal
      : tensor<?x8x?x128xf16>, tensor<?x16x2x128xf16>, tensor<?x16x2x128xf16> -> tensor<?x8x?x128xf16>
  return %o : tensor<?x8x?x128xf16>
}

// Page size 256 (a page holds whole key tiles: one table read per tile),
// MHA D = 64, bf16, q_lengths.
func.func @pg_prefill_bf16_p256(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x256x4x64xbf16>,
                                %v: tensor<?x256x4x64xbf16>, %pt: tensor<?x?xi32>,
                                %kl: tensor<?xi32>, %ql: tensor<?xi32>) -> tensor<?x4x?x64xbf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) q_lengths(%ql : tensor<?xi32>)
      page_table(%pt : tensor<?x?xi32>)
      : tensor<?x4x?x64xbf16>, tensor<?x256x4x64xbf16>, tensor<?x256x4x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// A dynamic page size, causal GQA 8/2, the LSE result, f16.
func.func @pg_prefill_f16_pdyn_lse(%q: tensor<?x8x?x128xf16>, %k: tensor<?x?x2x128xf16>,
                                   %v: tensor<?x?x2x128xf16>, %pt: tensor<?x?xi32>,
                                   %kl: tensor<?xi32>) -> (tensor<?x8x?x128xf16>, tensor<?x8x?xf32>) {
  %o, %lse = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) page_table(%pt : tensor<?x?xi32>) causal
      : tensor<?x8x?x128xf16>, tensor<?x?x2x128xf16>, tensor<?x?x2x128xf16> -> tensor<?x8x?x128xf16>, tensor<?x8x?xf32>
  return %o, %lse : tensor<?x8x?x128xf16>, tensor<?x8x?xf32>
}

// f32 prefill (the CUDA-core kernel, which reads the gathered K/V).
func.func @pg_prefill_f32_p16(%q: tensor<?x2x?x64xf32>, %k: tensor<?x16x2x64xf32>,
                              %v: tensor<?x16x2x64xf32>, %pt: tensor<?x?xi32>,
                              %kl: tensor<?xi32>) -> tensor<?x2x?x64xf32> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) page_table(%pt : tensor<?x?xi32>) causal
      : tensor<?x2x?x64xf32>, tensor<?x16x2x64xf32>, tensor<?x16x2x64xf32> -> tensor<?x2x?x64xf32>
  return %o : tensor<?x2x?x64xf32>
}

// q_lengths and softcap at D = 128 (the producer warpgroup's form for
// paged K/V), page size 64, GQA 8/2, bf16, not causal.
func.func @pg_prefill_bf16_p64_qlen(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x64x2x128xbf16>,
                                    %v: tensor<?x64x2x128xbf16>, %pt: tensor<?x?xi32>,
                                    %kl: tensor<?xi32>, %ql: tensor<?xi32>) -> tensor<?x8x?x128xbf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) q_lengths(%ql : tensor<?xi32>)
      page_table(%pt : tensor<?x?xi32>) softcap = 30.0
      : tensor<?x8x?x128xbf16>, tensor<?x64x2x128xbf16>, tensor<?x64x2x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}
