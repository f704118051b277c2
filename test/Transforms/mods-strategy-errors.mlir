// An op with a score_mod / mask_mod region has no GPU kernel yet (issue
// #42): a hand-written strategy on it is an error.
// RUN: tx-opt %s --tx-attention-strategy --verify-diagnostics

func.func @strategy(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x64x64xf16>, %v: tensor<1x2x64x64xf16>) -> tensor<1x2x64x64xf16> {
  // expected-error @below {{tx-attention-strategy: a tx.attention with a score_mod or mask_mod region has no GPU kernel yet; remove its tx.gpu_strategy}}
  %o = tx.attention %q, %k, %v mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %t = arith.cmpi ule, %j, %i : index
        tx.yield %t : i1
      } {tx.gpu_strategy = #tx.mma_strategy<warps = 4, q_tile = 128, kv_tile = 64, m_tiles = 2>}
      : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

