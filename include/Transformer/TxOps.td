//===- TxOps.td - tx operations ----------------------------*- tablegen -*-===//

#ifndef TRANSFORMER_TXOPS_TD
#define TRANSFORMER_TXOPS_TD

include "Transformer/TxDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/BuiltinAttributes.td"

def Tx_FloatTensor : RankedTensorOf<[F16, BF16, F32]>;

//===----------------------------------------------------------------------===//
// tx.softmax
//===----------------------------------------------------------------------===//

def Tx_SoftmaxOp : Tx_Op<"softmax", [
    Pure, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface, ["reifyResultShapes"]>]> {
  let summary = "softmax of a ranked tensor along one dimension";
  let description = [{
    Computes `result[..., i, ...] = exp(x_i - max_j x_j) / sum_k exp(x_k - max_j x_j)`
    along dimension `dim` of `input`. A negative `dim` counts from the end
    (`-1` is the innermost dimension), as in PyTorch's `torch.softmax`.

    - Operand: a ranked tensor of rank >= 1 with element type `f16`, `bf16` or
      `f32`; dimensions may be dynamic.
    - Result: the same type as the operand.
    - `dim`: in `[-rank, rank)`.

    Semantics (those of `torch.softmax`): the maximum is subtracted before
    `exp` (numerically stable softmax); for `f16`/`bf16` the max, the sum and
    the quotient are computed in `f32` and rounded once. A row that is entirely
    `-inf` yields NaN in every element, as in PyTorch and JAX. A row of length
    zero yields an empty result.

    Example:

    ```mlir
    %p = tx.softmax %logits dim = -1 : tensor<8x1024xf16>
    ```
  }];
  let arguments = (ins Tx_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Tx_FloatTensor:$result);
  let assemblyFormat = "$input `dim` `=` $dim attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The softmax dimension in `[0, rank)` (`dim` with negatives resolved).
    int64_t getNormalizedDim();
  }];
}

//===----------------------------------------------------------------------===//
// tx.attention
//===----------------------------------------------------------------------===//

def Tx_AttentionOp : Tx_Op<"attention", [
    Pure, DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface, ["reifyResultShapes"]>]> {
  let summary = "scaled dot-product attention (causal, masked, grouped-query)";
  let description = [{
    Scaled dot-product attention (Vaswani et al., 2017, "Attention Is All You
    Need"), with the grouped-query extension (Ainslie et al., 2023, "GQA"):

    ```
    S[b,h,i,j] = scale * sum_d Q[b,h,i,d] * K[b,h/(H/Hkv),j,d]  (+ mask)
    P[b,h,i,:] = softmax(S[b,h,i,:])
    O[b,h,i,e] = sum_j P[b,h,i,j] * V[b,h/(H/Hkv),j,e]
    ```

    Shapes (any dimension may be dynamic):

    | operand | shape |
    |---------|-------|
    | `query` (Q) | `[B, H, Sq, D]` |
    | `key` (K) | `[B, Hkv, Sk, D]` |
    | `value` (V) | `[B, Hkv, Sk, Dv]` |
    | `mask` (optional) | `[B or 1, H or 1, Sq, Sk]` |
    | result (O) | `[B, H, Sq, Dv]` |

    - Element types: Q, K, V and the result share one element type, `f16`,
      `bf16` or `f32`. Products, the softmax and the accumulation are computed
      in `f32` and rounded once at the end.
    - Grouped-query attention: `H` must be a multiple of `Hkv`; query head `h`
      reads K/V head `h / (H / Hkv)`. `Hkv == H` is ordinary multi-head
      attention, `Hkv == 1` multi-query attention.
    - `scale`: a positive finite float; default `1 / sqrt(D)`, with `D` the
      head dimension of Q and K (never `Dv`). The default needs `D > 0`.
    - `causal`: query `i` sees key `j` iff `j <= i + Sk - Sq`, i.e. the causal
      diagonal is aligned bottom-right, as in FlashAttention >= 2.1. This is
      what decoding with a KV cache needs (the last query sees every key).
      With `Sq == Sk` it is the usual lower-triangular mask. (PyTorch's
      `is_causal` aligns top-left; the two agree when `Sq == Sk`.)
    - `mask`: either an `i1` keep-mask (`true` = the key is visible) or an
      additive mask with Q's element type, added to `S` in `f32`. Its first two
      dimensions broadcast: a static `1` applies to every batch / head.
    - A query row that sees no key at all (every key masked, or `Sk == 0`)
      yields zeros, never NaN.

    Example:

    ```mlir
    %o = tx.attention %q, %k, %v causal
        : tensor<1x32x4096x128xf16>, tensor<1x8x4096x128xf16>,
          tensor<1x8x4096x128xf16> -> tensor<1x32x4096x128xf16>
    %o2 = tx.attention %q, %k, %v mask(%m : tensor<1x1x16x16xi1>) scale = 0.125
        : tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>,
          tensor<2x4x16x64xf32> -> tensor<2x4x16x64xf32>
    ```
  }];
  let arguments = (ins Tx_FloatTensor:$query, Tx_FloatTensor:$key,
                       Tx_FloatTensor:$value,
                       Optional<RankedTensorOf<[I1, F16, BF16, F32]>>:$mask,
                       OptionalAttr<F32Attr>:$scale, UnitAttr:$causal);
  let results = (outs Tx_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`scale` `=` $scale^)? (`causal` $causal^)? attr-dict
    `:` type($query) `,` type($key) `,` type($value) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The scale applied to Q·Kᵀ: the `scale` attribute, or 1/sqrt(D) when it
    /// is absent. Requires a static D when `scale` is absent; returns
    /// std::nullopt when D is dynamic (the lowering then computes it).
    std::optional<double> getStaticScale();
  }];
}

#endif // TRANSFORMER_TXOPS_TD
