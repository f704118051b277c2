// Serving with a paged KV cache (issue #43): a decode step over K/V page
// pools (16-token pages, as vLLM's default; GQA 32/8, D = 128, f16) read
// through a page table, the same step over a contiguous cache, and the
// merge of two partial results by their log-sum-exps (a shared prefix and
// a suffix computed apart). examples/paged_decode.py runs 64 decode steps
// with it; python/tests/test_paged.py checks its arguments.
//
//   scripts/tx-compile.sh examples/paged_decode.mlir out/ chip=sm_90a
//   PYTHONPATH=python python3 examples/paged_decode.py out/
func.func @paged_decode(%q: tensor<?x32x1x128xf16>, %k_pages: tensor<?x16x8x128xf16>,
                        %v_pages: tensor<?x16x8x128xf16>, %page_table: tensor<?x?xi32>,
                        %kv_lengths: tensor<?xi32>) -> tensor<?x32x1x128xf16> {
  %o = tx.attention %q, %k_pages, %v_pages kv_lengths(%kv_lengths : tensor<?xi32>)
      page_table(%page_table : tensor<?x?xi32>) causal
      : tensor<?x32x1x128xf16>, tensor<?x16x8x128xf16>, tensor<?x16x8x128xf16> -> tensor<?x32x1x128xf16>
  return %o : tensor<?x32x1x128xf16>
}

// The same decode over a contiguous cache [B, 8, Sk, 128] (the reference of
// examples/paged_decode.py).
func.func @decode(%q: tensor<?x32x1x128xf16>, %k: tensor<?x8x?x128xf16>,
                  %v: tensor<?x8x?x128xf16>, %kv_lengths: tensor<?xi32>) -> tensor<?x32x1x128xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kv_lengths : tensor<?xi32>) causal
      : tensor<?x32x1x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x1x128xf16>
  return %o : tensor<?x32x1x128xf16>
}

func.func @merge(%out_a: tensor<?x32x?x128xf16>, %lse_a: tensor<?x32x?xf32>,
                 %out_b: tensor<?x32x?x128xf16>, %lse_b: tensor<?x32x?xf32>)
    -> (tensor<?x32x?x128xf16>, tensor<?x32x?xf32>) {
  %o, %l = tx.merge_attention_states %out_a, %lse_a, %out_b, %lse_b : tensor<?x32x?x128xf16>, tensor<?x32x?xf32>
  return %o, %l : tensor<?x32x?x128xf16>, tensor<?x32x?xf32>
}
