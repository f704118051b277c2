//===- TxGradOps.td - gradients of the tx operations ------*- tablegen -*-===//
//
// The backward ops of tx.softmax and tx.attention (issue #40). Included by
// TxOps.td, so they are generated with the other ops (TxOps.h.inc) and
// documented in docs/TxOps.md.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_TXGRADOPS_TD
#define TRANSFORMER_TXGRADOPS_TD

//===----------------------------------------------------------------------===//
// tx.softmax_grad
//===----------------------------------------------------------------------===//

def Tx_SoftmaxGradOp : Tx_Op<"softmax_grad", [
    Pure, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface, ["reifyResultShapes"]>]> {
  let summary = "gradient of tx.softmax: dX from the output Y and its gradient dY";
  let description = [{
    The backward of `y = tx.softmax %x dim = d`: given the forward's output
    `Y` and the gradient `dY` of a loss with respect to it, returns the
    gradient with respect to the input,

    ```
    dX[..., i, ...] = Y_i * (dY_i - sum_k Y_k * dY_k)
    ```

    along dimension `dim` (the Jacobian of softmax, `diag(Y) - Y Yᵀ`, applied
    to `dY`; what `torch.softmax`'s backward, `_softmax_backward_data`,
    computes).

    - Operands: `output` (Y) and `grad_output` (dY), ranked tensors of one
      type, rank >= 1, element type `f16`, `bf16` or `f32`; dimensions may be
      dynamic.
    - Result: dX, the same type.
    - `dim`: in `[-rank, rank)`, negative counting from the end, as for
      `tx.softmax`.
    - `f16`/`bf16` are computed in `f32` (the row sum and the products) and
      rounded once. A row of `Y` that holds NaN (the output of an all `-inf`
      row) gives NaN in that row, as in PyTorch.

    Example:

    ```mlir
    %dx = tx.softmax_grad %y, %dy dim = -1 : tensor<8x1024xf16>
    ```
  }];
  let arguments = (ins Tx_FloatTensor:$output, Tx_FloatTensor:$grad_output,
                       I64Attr:$dim);
  let results = (outs Tx_FloatTensor:$result);
  let assemblyFormat =
      "$output `,` $grad_output `dim` `=` $dim attr-dict `:` type($output)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The softmax dimension in `[0, rank)` (`dim` with negatives resolved).
    int64_t getNormalizedDim();
  }];
}

//===----------------------------------------------------------------------===//
// tx.attention_grad
//===----------------------------------------------------------------------===//

def Tx_AttentionGradOp : Tx_Op<"attention_grad", [
    Pure, AttrSizedOperandSegments, IsolatedFromAbove,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface, ["reifyResultShapes"]>]> {
  let summary = "gradient of tx.attention: dQ, dK, dV (and an additive mask's) from dO";
  let description = [{
    The backward of `%o, %lse = tx.attention %q, %k, %v [clauses]`: given
    the forward's operands, its output `O`, its log-sum-exp `LSE` and the
    gradient `dO` of a loss with respect to `O`, returns the gradients with
    respect to Q, K and V, and optionally with respect to an additive mask.
    The clauses (`mask`, `kv_lengths`, `q_lengths`, `scale`, `softcap`,
    `window`, `causal`) are those of `tx.attention`, with the same syntax
    and meaning, and must be the forward's.

    With `S` the scaled, capped and masked scores of `tx.attention` (`-inf`
    where a key is hidden) and `s0 = scale * Q Kᵀ` before the cap, for every
    batch `b`, query head `h` and its K/V head `kh = h / (H / Hkv)`, in `f32`
    (FlashAttention-2, Tri Dao, 2023, Algorithm 2, with the forward's LSE
    in place of its row max and sum):

    ```
    P[b,h,i,j]  = exp(S[b,h,i,j] - LSE[b,h,i])       (0 where hidden or LSE = -inf)
    dP[b,h,i,j] = sum_e dO[b,h,i,e] * V[b,kh,j,e]
    Δ[b,h,i]    = sum_e dO[b,h,i,e] * O[b,h,i,e]     (rowsum(dO ∘ O))
    dS[b,h,i,j] = P[b,h,i,j] * (dP[b,h,i,j] - Δ[b,h,i])
    dT          = dS * (1 - tanh²(s0 / softcap))      (dS without softcap)
    dQ[b,h,i,d]  = scale * sum_j dT[b,h,i,j] * K[b,kh,j,d]
    dK[b,kh,j,d] = scale * sum_{h of kh} sum_i dT[b,h,i,j] * Q[b,h,i,d]
    dV[b,kh,j,e] = sum_{h of kh} sum_i P[b,h,i,j] * dO[b,h,i,e]
    dMask        = dS, summed over the mask's broadcast dimensions
    ```

    Under grouped-query attention the gradients of a K/V head are summed
    over the `H / Hkv` query heads that read it.

    Shapes (any dimension may be dynamic):

    | operand / result | shape | element type |
    |------------------|-------|--------------|
    | `query` (Q), result `grad_query` (dQ) | `[B, H, Sq, D]` | `f16`, `bf16` or `f32` |
    | `key` (K), result `grad_key` (dK) | `[B, Hkv, Sk, D]` | Q's |
    | `value` (V), result `grad_value` (dV) | `[B, Hkv, Sk, Dv]` | Q's |
    | `output` (O), `grad_output` (dO) | `[B, H, Sq, Dv]` | Q's |
    | `lse` | `[B, H, Sq]` | `f32` |
    | `mask` (optional), result `grad_mask` (optional) | `[B or 1, H or 1, Sq, Sk]` | `i1` or Q's; `grad_mask` only for an additive mask |
    | `kv_lengths`, `q_lengths` (optional) | `[B]` | `i32` |

    - `O` and `LSE` must be the forward's (the LSE of the same clauses);
      `O` enters only through `Δ`. A row whose `LSE` is `-inf` (it saw no
      key) has zero gradients.
    - Each result has the type of the operand it is the gradient of (dQ
      Q's, dK K's, dV V's, dMask the mask's); the gradients are accumulated
      in `f32` and rounded once.
    - Hidden keys (a false `i1` entry, an additive `-inf`, the causal or
      window band, keys past `kv_lengths[b]`) and query rows past
      `q_lengths[b]` have `P = 0` and contribute nothing, whatever their Q,
      K, V or dO rows hold (NaN included): their dK and dV rows are 0, and
      so are the dQ rows of rows past `q_lengths[b]`.
    - The mask's gradient (requested by writing a fourth result type) is
      the gradient with respect to the additive mask's entries: `dS`, which
      is also the gradient of the masked score. It is 0 where the entry is
      `-inf`. An `i1` keep-mask has no gradient.

    - **Score and mask functions** (`score_mod`, `mask_mod`: tx.attention's
      regions with their captured operands, the same syntax, and the
      forward's): `S` is the score function of the capped score, the mask
      function hides keys like the band, and the gradient passes through
      the score function by its derivative with respect to the score,
      `f'`, which tx generates from the region (forward mode):

      ```
      dT = dS * f'(cap(s0 * scale)) * (1 - tanh²(s0 * scale / softcap))
      ```

      Differentiable ops: `arith` add, sub, mul, div, neg, min/max, select,
      extf/truncf, and `math` exp, exp2, expm1, log, log2, log1p, tanh,
      sqrt, rsqrt, sin, cos, absf, erf, powf, fma; floor, ceil, trunc and
      round have derivative 0, and comparisons, integer ops, constants and
      `tensor.extract` of a captured tensor do not depend on the score. A
      float op of any other kind that depends on the score is an error
      located at that op. Captured tensors get no gradient.

    The optional clauses follow the last operand (`lse`) exactly as in
    `tx.attention`:

    ```mlir
    %dq, %dk, %dv = tx.attention_grad %q, %k, %v, %o, %do, %lse causal
        : tensor<1x32x4096x128xf16>, tensor<1x8x4096x128xf16>,
          tensor<1x8x4096x128xf16>, tensor<1x32x4096x128xf16>,
          tensor<1x32x4096x128xf16>, tensor<1x32x4096xf32>
        -> tensor<1x32x4096x128xf16>, tensor<1x8x4096x128xf16>,
           tensor<1x8x4096x128xf16>
    %dq2, %dk2, %dv2, %dm = tx.attention_grad %q, %k, %v, %o, %do, %lse
        mask(%bias : tensor<1x4x16x16xf32>) scale = 0.125
        : tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>,
          tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16xf32>
        -> tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>,
           tensor<2x4x16x64xf32>, tensor<1x4x16x16xf32>
    ```

    Lowering: `convert-tx-to-linalg` (and so `tx-cpu-pipeline`) lowers it
    to the formulas above as `linalg.generic` ops on tensors, with run-time
    checks of the dynamic sizes (as for `tx.attention`).
  }];
  let arguments = (ins Tx_FloatTensor:$query, Tx_FloatTensor:$key,
                       Tx_FloatTensor:$value, Tx_FloatTensor:$output,
                       Tx_FloatTensor:$grad_output, Tx_F32Tensor:$lse,
                       Optional<RankedTensorOf<[I1, F16, BF16, F32]>>:$mask,
                       Optional<RankedTensorOf<[I32]>>:$kv_lengths,
                       Optional<RankedTensorOf<[I32]>>:$q_lengths,
                       Variadic<AnyType>:$score_captures,
                       Variadic<AnyType>:$mask_captures,
                       OptionalAttr<F32Attr>:$scale, UnitAttr:$causal,
                       OptionalAttr<F32Attr>:$softcap,
                       OptionalAttr<DenseI64ArrayAttr>:$window);
  let results = (outs Tx_FloatTensor:$grad_query, Tx_FloatTensor:$grad_key,
                      Tx_FloatTensor:$grad_value,
                      Optional<RankedTensorOf<[F16, BF16, F32]>>:$grad_mask);
  let regions = (region AnyRegion:$score_mod, AnyRegion:$mask_mod);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $output `,` $grad_output `,`
    custom<GradAttentionClauses>($lse, $mask, type($mask), $kv_lengths,
                             type($kv_lengths), $q_lengths, type($q_lengths),
                             $scale, $softcap, $window, $causal,
                             $score_captures, type($score_captures), $score_mod,
                             $mask_captures, type($mask_captures), $mask_mod)
    attr-dict
    `:` type($query) `,` type($key) `,` type($value) `,` type($output) `,`
        type($grad_output) `,` type($lse)
    `->` type($grad_query) `,` type($grad_key) `,` type($grad_value)
    (`,` type($grad_mask)^)?
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The scale applied to Q·Kᵀ (as tx.attention's getStaticScale).
    std::optional<double> getStaticScale();
    /// Whether the op carries a score function or a mask function
    /// (`score_mod`, `mask_mod` regions).
    bool hasMods() { return !getScoreMod().empty() || !getMaskMod().empty(); }
  }];
}

//===----------------------------------------------------------------------===//
// tx.attention_dkdv and tx.attention_dq: the tiled backward's block steps
//===----------------------------------------------------------------------===//

// What the two block ops share: operands, clauses and assembly. `inits` are
// the op's destination operands (DestinationStyleOpInterface).
class Tx_AttentionGradBlockOp<string mnemonic, string summaryText,
                              dag inits, dag outs, string initsFormat,
                              string resultTypes, list<Trait> initTraits>
    : Tx_Op<mnemonic, !listconcat(initTraits, [
        Pure, AttrSizedOperandSegments, DestinationStyleOpInterface,
        AllTypesMatch<["lse", "delta"]>,
        // The results have the inits' types (not AllTypesMatch: ODS's
        // inferred builder ignores the optional operands' segments).
        DeclareOpInterfaceMethods<InferTypeOpInterface>,
        DeclareOpInterfaceMethods<TilingInterface, [
            "getLoopIteratorTypes", "getIterationDomain",
            "getTiledImplementation", "getResultTilePosition"]>,
        DeclareOpInterfaceMethods<AggregatedOpInterface,
                                  ["decomposeOperation"]>])> {
  let summary = summaryText;
  let arguments = !con(
      (ins Tx_FloatTensor:$query, Tx_FloatTensor:$key, Tx_FloatTensor:$value,
           Tx_FloatTensor:$grad_output, Tx_F32Tensor:$lse,
           Tx_F32Tensor:$delta,
           Optional<RankedTensorOf<[I1, F16, BF16, F32]>>:$mask,
           Optional<Index>:$causal_offset, Optional<Index>:$row_limit,
           Optional<Index>:$key_limit),
      inits,
      (ins F32Attr:$scale, UnitAttr:$causal, OptionalAttr<F32Attr>:$softcap,
           OptionalAttr<DenseI64ArrayAttr>:$window));
  let results = outs;
  let assemblyFormat = !strconcat([{
    $query `,` $key `,` $value `,` $grad_output `,` $lse `,` $delta
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    `scale` `=` $scale (`softcap` `=` $softcap^)?
    (`window` `=` $window^)? (`causal` $causal^)?
    (`causal_offset` `(` $causal_offset^ `)`)?
    (`row_limit` `(` $row_limit^ `)`)?
    (`key_limit` `(` $key_limit^ `)`)?
    `outs` `(` }], initsFormat, [{ `)` attr-dict
    `:` type($query) `,` type($key) `,` type($value) `,` type($grad_output)
    `,` type($lse) `->` }], resultTypes);
  let hasVerifier = 1;
  code commonDescription = [{
    One block of FlashAttention-2's backward (Tri Dao, 2023, Algorithm 2):
    for a block of queries `[B, H, M]` and a block of keys `[B, Hkv, N]`,
    it recomputes the probabilities from the forward's log-sum-exp and
    *adds* the block's contribution to the gradients it carries. Starting
    from zeros and applying it to every (query block, key block) pair gives
    the gradients of `tx.attention_grad`; `tx-tile-attention-grad` builds
    that loop.

    | operand | shape | element type |
    |---------|-------|--------------|
    | `query` (Q) | `[B, H, M, D]` | `f16`, `bf16` or `f32` |
    | `key` (K) | `[B, Hkv, N, D]` | Q's |
    | `value` (V) | `[B, Hkv, N, Dv]` | Q's |
    | `grad_output` (dO) | `[B, H, M, Dv]` | Q's |
    | `lse`, `delta` (Δ = rowsum(dO ∘ O)) | `[B, H, M]` | `f32` |
    | `mask` (optional) | `[B or 1, H or 1, M, N]` | `i1` (keep) or Q's (additive) |
    | `causal_offset`, `row_limit`, `key_limit` (optional) | `index` | |

    For every `(b, h, i, j)` of the block (query head `h` reads K/V head
    `kh = h / (H / Hkv)`), in `f32`:

    ```
    s0     = sum_d Q[b,h,i,d] * K[b,kh,j,d]
    S      = scale * s0, then softcap * tanh(S / softcap) (with softcap),
             + mask / -inf where the i1 mask is false,
             -inf outside the causal/window band around i + causal_offset
             (as tx.online_attention), where i >= row_limit or j >= key_limit
    P      = exp(S - LSE[b,h,i])            (0 where S or LSE is -inf)
    dP     = sum_e dO[b,h,i,e] * V[b,kh,j,e]
    dT     = P * (dP - Δ[b,h,i])            (* (1 - tanh²(scale s0 / softcap)))
    ```

    A hidden key or row (`P == 0`) adds nothing, whatever Q, K, V or dO hold
    there (NaN included). `scale` is required, positive and finite.
  }];
}

def Tx_AttentionDkDvOp : Tx_AttentionGradBlockOp<"attention_dkdv",
    "one block of FlashAttention-2's backward: adds a query block's share of dK, dV",
    (ins Tx_F32Tensor:$grad_key_init, Tx_F32Tensor:$grad_value_init),
    (outs Tx_F32Tensor:$grad_key, Tx_F32Tensor:$grad_value),
    "$grad_key_init `,` $grad_value_init",
    "type($grad_key_init) `,` type($grad_value_init)", []> {
  let description = !strconcat(commonDescription, [{

    Results (the inits, `f32`, plus the block's share):

    ```
    dK[b,kh,j,d] = dK_init[b,kh,j,d] + scale * sum_{h of kh} sum_i dT[b,h,i,j] * Q[b,h,i,d]
    dV[b,kh,j,e] = dV_init[b,kh,j,e] + sum_{h of kh} sum_i P[b,h,i,j] * dO[b,h,i,e]
    ```

    with `dK_init` `[B, Hkv, N, D]` and `dV_init` `[B, Hkv, N, Dv]`.

    **Tiling** (`TilingInterface`): iteration domain `(B, Hkv, N, M)`,
    iterators `parallel, parallel, parallel, reduction`; a tile of K/V heads
    `[kh0, kh0 + n)` reads the query heads `[kh0 G, (kh0 + n) G)`
    (`G = H / Hkv`). Tiling `M` with `scf::tileUsingSCF` gives the loop over
    query blocks with dK, dV in `iter_args`. **Decomposition**: `linalg.generic`
    ops; it needs `H == Hkv` or one K/V head (a tile of 1).

    ```mlir
    %dk, %dv = tx.attention_dkdv %q, %k, %v, %do, %lse, %delta scale = 0.125
        causal causal_offset(%c) outs(%dk0, %dv0)
        : tensor<1x4x64x64xf16>, tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>,
          tensor<1x4x64x64xf16>, tensor<1x4x64xf32>
        -> tensor<1x1x64x64xf32>, tensor<1x1x64x64xf32>
    ```
  }]);
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      unsigned n = getOperation()->getNumOperands();
      return ::mlir::MutableOperandRange(getOperation(), n - 2, 2);
    }
  }];
}

def Tx_AttentionDqOp : Tx_AttentionGradBlockOp<"attention_dq",
    "one block of FlashAttention-2's backward: adds a key block's share of dQ",
    (ins Tx_F32Tensor:$grad_query_init,
         Optional<Tx_F32Tensor>:$grad_scores_init),
    (outs Tx_F32Tensor:$grad_query, Optional<Tx_F32Tensor>:$grad_scores),
    "$grad_query_init (`,` $grad_scores_init^)?",
    "type($grad_query_init) (`,` type($grad_scores_init)^)?", []> {
  let description = !strconcat(commonDescription, [{

    Result (the init, `f32` `[B, H, M, D]`, plus the block's share):

    ```
    dQ[b,h,i,d] = dQ_init[b,h,i,d] + scale * sum_j dT[b,h,i,j] * K[b,kh,j,d]
    ```

    With a second init `grad_scores_init` (`f32` `[B, H, M, N]`), a second
    result holds the block's `dS = P * (dP - Δ)` (the gradient of the masked
    score, before the soft cap's factor: an additive mask's gradient),
    written in place of the init's entries.

    **Tiling** (`TilingInterface`): iteration domain `(B, H, M, N)`,
    iterators `parallel, parallel, parallel, reduction`, head tiles as
    `tx.online_attention`'s. Tiling `N` with `scf::tileUsingSCF` gives the
    loop over key blocks with dQ in `iter_args`. **Decomposition**:
    `linalg.generic` ops; it needs a static `H / Hkv` (1 after head tiling).

    ```mlir
    %dq = tx.attention_dq %q, %k, %v, %do, %lse, %delta scale = 0.125
        outs(%dq0)
        : tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>,
          tensor<1x1x64x64xf16>, tensor<1x1x64xf32>
        -> tensor<1x1x64x64xf32>
    ```
  }]);
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      unsigned n = getOperation()->getNumOperands();
      unsigned inits = getGradScoresInit() ? 2 : 1;
      return ::mlir::MutableOperandRange(getOperation(), n - inits, inits);
    }
  }];
}

#endif // TRANSFORMER_TXGRADOPS_TD
