// Paged KV caches (issue #43) against the contiguous cache, for
// bench/paged_bench.py: decode (Sq = 1, GQA 32/8, D = 128) over K/V page
// pools [num_pages, page_size, 8, 128] read through a page table, page
// sizes 16 (vLLM's default) and 1 (SGLang's), f16 and bf16; the same decode
// over a contiguous [B, 8, Sk, 128] cache with the same kv_lengths; and a
// chunked prefill (causal bottom-right, new queries over a cached prefix)
// in both forms.
func.func @pg16_f16(%q: tensor<?x32x1x128xf16>, %k: tensor<?x16x8x128xf16>, %v: tensor<?x16x8x128xf16>,
                    %pt: tensor<?x?xi32>, %kl: tensor<?xi32>) -> tensor<?x32x1x128xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) page_table(%pt : tensor<?x?xi32>)
      : tensor<?x32x1x128xf16>, tensor<?x16x8x128xf16>, tensor<?x16x8x128xf16> -> tensor<?x32x1x128xf16>
  return %o : tensor<?x32x1x128xf16>
}
func.func @pg16_bf16(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x16x8x128xbf16>, %v: tensor<?x16x8x128xbf16>,
                     %pt: tensor<?x?xi32>, %kl: tensor<?xi32>) -> tensor<?x32x1x128xbf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) page_table(%pt : tensor<?x?xi32>)
      : tensor<?x32x1x128xbf16>, tensor<?x16x8x128xbf16>, tensor<?x16x8x128xbf16> -> tensor<?x32x1x128xbf16>
  return %o : tensor<?x32x1x128xbf16>
}
func.func @pg1_f16(%q: tensor<?x32x1x128xf16>, %k: tensor<?x1x8x128xf16>, %v: tensor<?x1x8x128xf16>,
                   %pt: tensor<?x?xi32>, %kl: tensor<?xi32>) -> tensor<?x32x1x128xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) page_table(%pt : tensor<?x?xi32>)
      : tensor<?x32x1x128xf16>, tensor<?x1x8x128xf16>, tensor<?x1x8x128xf16> -> tensor<?x32x1x128xf16>
  return %o : tensor<?x32x1x128xf16>
}
func.func @pg1_bf16(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x1x8x128xbf16>, %v: tensor<?x1x8x128xbf16>,
                    %pt: tensor<?x?xi32>, %kl: tensor<?xi32>) -> tensor<?x32x1x128xbf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) page_table(%pt : tensor<?x?xi32>)
      : tensor<?x32x1x128xbf16>, tensor<?x1x8x128xbf16>, tensor<?x1x8x128xbf16> -> tensor<?x32x1x128xbf16>
  return %o : tensor<?x32x1x128xbf16>
}
func.func @ct_f16(%q: tensor<?x32x1x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>,
                  %kl: tensor<?xi32>) -> tensor<?x32x1x128xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>)
      : tensor<?x32x1x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x1x128xf16>
  return %o : tensor<?x32x1x128xf16>
}
func.func @ct_bf16(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x8x?x128xbf16>, %v: tensor<?x8x?x128xbf16>,
                   %kl: tensor<?xi32>) -> tensor<?x32x1x128xbf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>)
      : tensor<?x32x1x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16> -> tensor<?x32x1x128xbf16>
  return %o : tensor<?x32x1x128xbf16>
}
func.func @pgp16_f16(%q: tensor<?x32x?x128xf16>, %k: tensor<?x16x8x128xf16>, %v: tensor<?x16x8x128xf16>,
                     %pt: tensor<?x?xi32>, %kl: tensor<?xi32>) -> tensor<?x32x?x128xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) page_table(%pt : tensor<?x?xi32>) causal
      : tensor<?x32x?x128xf16>, tensor<?x16x8x128xf16>, tensor<?x16x8x128xf16> -> tensor<?x32x?x128xf16>
  return %o : tensor<?x32x?x128xf16>
}
func.func @ctp_f16(%q: tensor<?x32x?x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>,
                   %kl: tensor<?xi32>) -> tensor<?x32x?x128xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) causal
      : tensor<?x32x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x?x128xf16>
  return %o : tensor<?x32x?x128xf16>
}
