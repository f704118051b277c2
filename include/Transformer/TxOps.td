//===- TxOps.td - tx operations ----------------------------*- tablegen -*-===//

#ifndef TRANSFORMER_TXOPS_TD
#define TRANSFORMER_TXOPS_TD

include "Transformer/TxDialect.td"
include "Transformer/TxAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/TilingInterface.td"
include "mlir/Dialect/Linalg/IR/LinalgInterfaces.td"
include "mlir/IR/BuiltinAttributes.td"

def Tx_FloatTensor : RankedTensorOf<[F16, BF16, F32]>;

//===----------------------------------------------------------------------===//
// tx.softmax
//===----------------------------------------------------------------------===//

def Tx_SoftmaxOp : Tx_Op<"softmax", [
    Pure, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface, ["reifyResultShapes"]>,
    DeclareOpInterfaceMethods<TilingInterface, [
        "getLoopIteratorTypes", "getIterationDomain", "getTiledImplementation",
        "getResultTilePosition", "getIterationDomainTileFromResultTile",
        "generateResultTileValue"]>]> {
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

    **Tiling** (`TilingInterface`, lib/Transformer/Transforms/TileSoftmax.cpp): the
    iteration domain is the operand's shape; `dim` is a reduction, every
    other dimension is parallel. A tile is `tx.softmax` on an
    `tensor.extract_slice` of the operand and must span the whole of `dim`
    (each row is normalized by its own max and sum): tiling `dim` fails
    with an error naming the dimension. Upstream `scf::tileUsingSCF`, the
    transform dialect's `tile_using_forall` and producer fusion work on it;
    `tx-tile-softmax` tiles the rows and, with `cols-per-tile`, splits
    them into chunks with an online softmax.

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
    Pure, AttrSizedOperandSegments, IsolatedFromAbove,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface, ["reifyResultShapes"]>,
    DeclareOpInterfaceMethods<TilingInterface, [
        "getLoopIteratorTypes", "getIterationDomain", "getTiledImplementation",
        "getResultTilePosition"]>]> {
  let summary = "scaled dot-product attention (causal, masked, grouped-query)";
  let description = [{
    Scaled dot-product attention (Vaswani et al., 2017, "Attention Is All You
    Need"), with the grouped-query extension (Ainslie et al., 2023, "GQA"):

    ```
    S[b,h,i,j] = scale * sum_d Q[b,h,i,d] * K[b,h/(H/Hkv),j,d]
    S[b,h,i,j] = softcap * tanh(S[b,h,i,j] / softcap)    (only with softcap)
    S[b,h,i,j] = S[b,h,i,j] + mask[...]                 (additive mask)
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
    | `kv_lengths` (optional) | `[B]`, `i32` |
    | `q_lengths` (optional) | `[B]`, `i32` |
    | `page_table` (optional) | `[B, max_pages]`, `i32`; K becomes `[num_pages, page_size, Hkv, D]`, V `[num_pages, page_size, Hkv, Dv]` |
    | result (O) | `[B, H, Sq, Dv]` |
    | `lse` (optional second result) | `[B, H, Sq]`, `f32` |

    - Element types: Q, K, V and the result share one element type, `f16`,
      `bf16` or `f32`. Products, the softmax and the accumulation are computed
      in `f32` and rounded once at the end.
    - Grouped-query attention: `H` must be a multiple of `Hkv`; query head `h`
      reads K/V head `h / (H / Hkv)`. `Hkv == H` is ordinary multi-head
      attention, `Hkv == 1` multi-query attention.
    - `scale`: a positive finite float; default `1 / sqrt(D)`, with `D` the
      head dimension of Q and K (never `Dv`). The default needs `D > 0`.
    - `softcap` (optional): logit soft-capping as Gemma 2 defines it (Gemma
      Team, 2024, "Gemma 2: Improving Open Language Models at a Practical
      Size"): a positive finite `c`; each score becomes `c * tanh(s / c)`
      after the scale and before the mask and the causal visibility, so
      scores lie in `(-c, c)` before an additive mask. The log-sum-exp
      result is that of the capped (and masked) scores. `tanh` is evaluated
      in `f32`: libdevice's `tanhf` on the CPU paths and the GPU's CUDA-core
      and decode kernels; the tensor-core kernels (mma.sync, wgmma) use the
      GPU's `tanh.approx.f32` (as FlashAttention does), whose documented
      bound is a relative error of 2^-11 in `tanh` (up to `c * 2^-11` in a
      capped score); measured against float64 with scores far past the cap
      (f16, `c = 50`), the outputs are as accurate as with an exact `tanh`.
    - `causal`: query `i` sees key `j` iff `j <= i + Sk - Sq`, i.e. the causal
      diagonal is aligned bottom-right, as in FlashAttention >= 2.1. This is
      what decoding with a KV cache needs (the last query sees every key).
      With `Sq == Sk` it is the usual lower-triangular mask. (PyTorch's
      `is_causal` aligns top-left; the two agree when `Sq == Sk`.)
    - `window = [left, right]` (optional; sliding-window or local attention,
      as in Mistral 7B and Gemma 2; `-1` = unbounded on that side, other
      values `>= 0`): query `i` sees key `j` iff
      `i + off - left <= j <= i + off + right`, with `off = Sk - Sq` (the same
      bottom-right alignment as `causal`). `causal` is `window = [-1, 0]`;
      with both, a key must be visible under each (the window's `right`
      becomes `min(right, 0)`). `[0, 0]` sees exactly the key on the
      diagonal; a window wider than `Sk` hides nothing. Keys outside the
      window are hidden keys (below). On the GPU the flash kernels do not
      visit key tiles outside the window, so the cost grows with the window,
      not with `Sk`.
    - **Per-sequence lengths** (`kv_lengths`, `q_lengths`; optional, `i32
      [B]`): a batch of sequences of different lengths padded to one `Sq` /
      `Sk`, as FlashAttention's `cache_seqlens` / varlen and FlashInfer
      serve it. For batch `b` only keys `j < Lk = kv_lengths[b]` (default
      `Sk`) and query rows `i < Lq = q_lengths[b]` (default `Sq`) exist:
      a key `j >= Lk` is hidden from every query, and a query row `i >= Lq`
      sees no key (its output is 0, its log-sum-exp `-inf`). `causal` and
      `window` align bottom-right per sequence, with `off = Lk - Lq` in
      place of `Sk - Sq` (so with `Lq == Lk` a prefill row `i` sees keys
      `j <= i`, and a decode row (`Sq == 1`) sees all `Lk` keys). The K/V
      rows (and mask entries) past `Lk` are never read by the GPU kernels
      and may hold anything (a KV cache's unused slots). Each length must
      lie in `[0, Sk]` (`[0, Sq]`): the CPU pipeline checks this at run time
      (a failed call names the operand, `docs/ABI.md`); the Python package
      checks it before a GPU call (outside CUDA-graph capture); the
      compiled GPU code itself clamps a length into range, so a bad length
      never reads outside the tensors.
    - `mask`: either an `i1` keep-mask (`true` = the key is visible) or an
      additive mask with Q's element type, added to `S` in `f32`. Its first two
      dimensions broadcast: a static `1` applies to every batch / head.
    - A query row that sees no key at all (every key masked, or `Sk == 0`)
      yields zeros, never NaN.
    - **Hidden keys.** A key that is hidden from a query (a false `i1` mask
      entry, an additive mask entry of `-inf`, the causal diagonal, or the
      window)
      contributes nothing to that query's output, whatever its K and V rows
      hold: NaN or Inf in them (a KV cache's padding slots) cannot reach the
      query. An additive `-inf` hides exactly like a false `i1` entry (the
      score is selected, not added, so `inf + -inf` never appears); finite
      additive values, however large (`-1e30`, `-1e10`), are numbers and are
      added. On the CPU lowerings and the GPU's CUDA-core kernel this holds
      per (query, key). The GPU's tensor-core kernels (mma.sync, wgmma)
      never read the K/V rows of keys hidden from every query row of the
      CTA's query tile (zero-filled copies; a key tile hidden from all its
      rows is not read at all), which is the padding case; a NaN/Inf V row
      of a key that is visible to some rows of the same tile and hidden from
      others reaches the hidden rows too (the tensor cores multiply P = 0 by
      it).
    - **Log-sum-exp** (optional second result, `f32 [B, H, Sq]`):
      `lse[b,h,i] = log(sum_j exp(S[b,h,i,j]))` over the keys visible to
      query `i` (natural logarithm; `S` includes the scale and an additive
      mask), and `-inf` for a row that sees no key. It is what merges
      partial attention results computed over disjoint key ranges
      (split-KV decoding, ring attention: `O = sum_r exp(lse_r - lse) O_r`
      with `lse = log sum_r exp(lse_r)`) and what a backward pass needs;
      FlashAttention returns it as `softmax_lse`. Requested by writing a
      second result type: `-> tensor<...xf16>, tensor<BxHxSqxf32>`.
    - Large magnitudes: scores are compared and exponentiated after the
      scale is applied and rounded (`exp(s - max)` with `s - max <= 0`
      exactly at the maximum), so huge but equal logits (Q = K = V = 60000 in
      f16) and huge finite masks give the right answer, never 0 or NaN.

    - **Paged KV cache** (`page_table(%pt : tensor<B x max_pages x i32>)`,
      optional; the block table of vLLM, FlashInfer and FlashAttention's
      `flash_attn_with_kvcache`): K and V are page pools
      `[num_pages, page_size, Hkv, D]` and `[num_pages, page_size, Hkv, Dv]`
      (the layout vLLM and FlashInfer call NHD), and batch `b`'s key `j`
      is row `j % page_size` of page `page_table[b, j / page_size]`:

      ```
      page_table[b] = [ 7, 2, 5, ...]      K pool (num_pages x page_size rows)
                        |  |  `----------> page 5: keys 2*ps ..< 3*ps of b
                        |  `-------------> page 2: keys   ps ..< 2*ps of b
                        `----------------> page 7: keys    0 ..<   ps of b
      ```

      The op then means attention on the contiguous K/V
      `[B, Hkv, Sk, D]` with `Sk = max_pages * page_size` gathered through
      the table, and every other clause keeps its meaning with that `Sk`
      (GQA, causal and window aligned bottom-right, `kv_lengths` /
      `q_lengths`, a mask `[B|1, H|1, Sq, Sk]`, softcap, the LSE).
      `page_size` is a power of two from 1 to 256, static or dynamic; the
      pools' `num_pages` and `page_size` (and their `Hkv`) must agree.
      Pages may be shared by several sequences (a common prefix) and appear
      in any order. The table entries of keys past `kv_lengths[b]` (all
      `max_pages` pages without `kv_lengths`) are never read, so stale or
      garbage ids there (`-1`, out of range) are harmless. An id outside
      `[0, num_pages)` for a live key is an error: `tx-cpu-pipeline` checks
      it at run time (`tx-check-attention-lengths`); the Python package
      checks it before a GPU call; the lowerings read such a key as zeros,
      never outside the pools. `tx-gather-kv-pages` rewrites the op into gathers
      and an unpaged `tx.attention` (the first step of both pipelines); on
      the GPU the tensor-core and decode kernels then read the pools in
      place through the table instead of the gathers. A paged op has no
      gradient.

    - **Score and mask functions** (`score_mod`, `mask_mod`; optional
      regions written as clauses; FlexAttention's `score_mod` and
      `mask_mod`, Dong et al., 2024, "Flex Attention: A Programming Model
      for Generating Optimized Attention Kernels"): the user writes the
      variant as IR.

      ```mlir
      score_mod(%slopes : tensor<32xf32>) {
      ^bb0(%s: f32, %b: index, %h: index, %q_idx: index, %kv_idx: index,
           %sl: tensor<32xf32>):
        ...
        tx.yield %new_score : f32
      }
      mask_mod(%doc : tensor<4096xi32>) {
      ^bb0(%b: index, %h: index, %q_idx: index, %kv_idx: index,
           %d: tensor<4096xi32>):
        ...
        tx.yield %visible : i1
      }
      ```

      The score function takes the score (`f32`, after the scale and the
      soft cap, before an additive mask) and the indices of batch `b`, query
      head `h` (`0 <= h < H`), query row `q_idx` and key `kv_idx`, and
      yields the new score. The mask function takes the four indices and
      yields `true` when the key is visible; a key it hides is a hidden key
      (below) like one of the causal diagonal. Each region has one block
      whose arguments are those, then one per captured operand (the
      operands in parentheses after the keyword: tensors of any element
      type, or scalars, read with `tensor.extract` in the body; element
      and scalar types: integers of at most 64 bits, `index`, `f16`,
      `bf16`, `f32`, `f64`). The body holds ops without side effects that
      compute scalars (`arith`, `math`, `tensor.extract`, `scf.if`, ...;
      no op yields a tensor, so nothing writes into a captured tensor) and
      ends in `tx.yield`. The op is isolated from above: the body uses only
      its own values and arguments, and canonicalization or CSE never move
      a constant across its boundary. Indices are those of the logical (contiguous) K/V and
      of the whole tensors: `causal`, `window` and `kv_lengths` apply as
      well, and an index past a length is still passed (its key is hidden).
      Tiling carries both regions into `tx.online_attention` (with the
      tile's offsets), so the tiled CPU path runs them; the GPU kernels of
      every family inline them in their score step, and a mask function
      without causal, window, lengths or a mask operand makes the prefill
      kernels skip the key tiles it hides entirely (block sparsity,
      docs/Design.md). In the kernels of f16/bf16 inputs an f32
      `math.tanh` is PTX `tanh.approx.f32` (2^-11 relative, as the
      `softcap` attribute) and an f32 `arith.divf` a multiply by the
      reciprocal of a constant divisor or `div.full.f32` (2 ulp); f32
      kernels and the CPU paths compute them exactly. Python users write
      the functions as FlexAttention's (`tx.flex`, docs/Python.md).
      `tx-derive-gradients` gives ops with regions a backward:
      `tx.attention_grad` carries them, and its lowering differentiates
      the score function (TxGradOps.td); captured tensors get no gradient.

    The optional clauses (`mask(...)`, `kv_lengths(...)`, `q_lengths(...)`,
    `page_table(...)`, `scale = s`, `softcap = c`, `window = [l, r]`,
    `causal`) may come in any
    order, each at most once; the printer writes them in that order. The
    regions (`score_mod`, `mask_mod`) are clauses too (any order, each at
    most once); the printer writes them last. An
    attribute without a dialect prefix that is not one of the op's own (say
    `{is_causal}`) is an error, not silently ignored.

    **Tiling** (`TilingInterface`): the iteration domain is `(B, H, Sq)`, all
    parallel. A tile of query rows becomes FlashAttention-2's tile: a
    `tx.online_attention` of the tile's Q rows against all keys (K/V head
    `h / (H / Hkv)`, the mask rows of the tile, the causal/window diagonal
    shifted by the tile's first row) from the initial state (0, -inf, 0),
    then `O = acc / sum` (0 for a row that sees no key) rounded once, and
    `lse = max + log(sum)` when requested, each a `linalg.generic` tagged
    `tx.attention_epilogue`. With per-sequence lengths the batch tile must
    be 1: the tile reads `Lk` and `Lq` of its batch (`tensor.extract`,
    clamped into range), its K/V (and mask) slices hold keys `[0, Lk)` only,
    the diagonal offset is `Lk - Lq + m0`, and the `tx.online_attention`
    gets `row_limit = Lq - m0`. So `transform.structured.tile_using_forall`
    with tile sizes `[1, 1, q_tile]` gives the grid of a flash kernel, and
    tiling the `tx.online_attention`'s key dimension (`tile_using_for`
    `[0, 0, 0, kv_tile]`) its key loop; `tx-tile-attention` does both, and
    `tx-map-attention-to-gpu` maps the result onto the GPU. With
    grouped-query attention a head tile must be 1, H / Hkv (the heads of one
    K/V head, as the split-KV decode kernel packs them) or the whole H.

    Example:

    ```mlir
    %o = tx.attention %q, %k, %v causal
        : tensor<1x32x4096x128xf16>, tensor<1x8x4096x128xf16>,
          tensor<1x8x4096x128xf16> -> tensor<1x32x4096x128xf16>
    %o2 = tx.attention %q, %k, %v mask(%m : tensor<1x1x16x16xi1>) scale = 0.125
        : tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>,
          tensor<2x4x16x64xf32> -> tensor<2x4x16x64xf32>
    %o3, %lse = tx.attention %q, %k, %v causal
        : tensor<1x32x1x128xf16>, tensor<1x8x4096x128xf16>,
          tensor<1x8x4096x128xf16> -> tensor<1x32x1x128xf16>, tensor<1x32x1xf32>
    %o4 = tx.attention %q, %k, %v softcap = 50.0 causal
        : tensor<1x8x256x256xbf16>, tensor<1x4x256x256xbf16>,
          tensor<1x4x256x256xbf16> -> tensor<1x8x256x256xbf16>
    // Decoding a batch of 8 sequences of different lengths against one
    // padded KV cache.
    %o6 = tx.attention %q, %k, %v kv_lengths(%lens : tensor<8xi32>) causal
        : tensor<8x32x1x128xf16>, tensor<8x8x8192x128xf16>,
          tensor<8x8x8192x128xf16> -> tensor<8x32x1x128xf16>
    // Mistral-style sliding window: each query sees itself and the 4096
    // keys before it.
    %o5 = tx.attention %q, %k, %v window = [4096, 0]
        : tensor<1x32x32768x128xf16>, tensor<1x8x32768x128xf16>,
          tensor<1x8x32768x128xf16> -> tensor<1x32x32768x128xf16>
    // Decoding 8 sequences against a paged KV cache: 16-token pages drawn
    // from a pool of 4096, up to 512 pages (8192 keys) per sequence.
    %o7 = tx.attention %q, %kp, %vp kv_lengths(%lens : tensor<8xi32>)
        page_table(%pt : tensor<8x512xi32>) causal
        : tensor<8x32x1x128xf16>, tensor<4096x16x8x128xf16>,
          tensor<4096x16x8x128xf16> -> tensor<8x32x1x128xf16>
    ```
  }];
  let arguments = (ins Tx_FloatTensor:$query, Tx_FloatTensor:$key,
                       Tx_FloatTensor:$value,
                       Optional<RankedTensorOf<[I1, F16, BF16, F32]>>:$mask,
                       Optional<RankedTensorOf<[I32]>>:$kv_lengths,
                       Optional<RankedTensorOf<[I32]>>:$q_lengths,
                       Optional<RankedTensorOf<[I32]>>:$page_table,
                       Variadic<AnyType>:$score_captures,
                       Variadic<AnyType>:$mask_captures,
                       OptionalAttr<F32Attr>:$scale, UnitAttr:$causal,
                       OptionalAttr<F32Attr>:$softcap,
                       OptionalAttr<DenseI64ArrayAttr>:$window);
  let results = (outs Tx_FloatTensor:$result,
                      Optional<RankedTensorOf<[F32]>>:$lse);
  let regions = (region AnyRegion:$score_mod, AnyRegion:$mask_mod);
  let assemblyFormat = [{
    $query `,` $key `,`
    custom<PagedAttentionClauses>($value, $mask, type($mask), $kv_lengths,
                             type($kv_lengths), $q_lengths, type($q_lengths),
                             $page_table, type($page_table),
                             $scale, $softcap, $window, $causal,
                             $score_captures, type($score_captures), $score_mod,
                             $mask_captures, type($mask_captures), $mask_mod)
    attr-dict
    `:` type($query) `,` type($key) `,` type($value) `->` type($result)
    (`,` type($lse)^)?
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether K and V are page pools read through a page table.
    bool isPaged() { return static_cast<bool>(getPageTable()); }
    /// Whether the op carries a score function or a mask function
    /// (`score_mod`, `mask_mod` regions).
    bool hasMods() { return !getScoreMod().empty() || !getMaskMod().empty(); }
    /// The contiguous form of a K (or V) operand of type `t`: `t` itself,
    /// or for a page pool [num_pages, page_size, Hkv, D] read through a page
    /// table [B, max_pages], the tensor [B, Hkv, max_pages * page_size, D]
    /// it stands for (dynamic where a factor is).
    RankedTensorType getLogicalKvType(RankedTensorType t);

    /// The scale applied to Q·Kᵀ: the `scale` attribute, or 1/sqrt(D) when it
    /// is absent. Requires a static D when `scale` is absent; returns
    /// std::nullopt when D is dynamic (the lowering then computes it).
    std::optional<double> getStaticScale();
  }];
}

//===----------------------------------------------------------------------===//
// tx.yield
//===----------------------------------------------------------------------===//

def Tx_YieldOp : Tx_Op<"yield", [Pure, Terminator,
    ParentOneOf<["AttentionOp", "OnlineAttentionOp", "AttentionGradOp"]>]> {
  let summary = "ends a score or mask function of tx.attention";
  let description = [{
    The terminator of the `score_mod` and `mask_mod` regions of
    tx.attention, tx.online_attention and tx.attention_grad: it yields the modified score
    (`f32`) or the visibility of the key (`i1`, true = visible). The
    parent's verifier checks the type.

    ```mlir
    tx.yield %s : f32
    ```
  }];
  let arguments = (ins AnyType:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

//===----------------------------------------------------------------------===//
// tx.online_attention
//===----------------------------------------------------------------------===//

def Tx_F32Tensor : RankedTensorOf<[F32]>;

def Tx_OnlineAttentionOp : Tx_Op<"online_attention", [
    Pure, AttrSizedOperandSegments, IsolatedFromAbove,
    DestinationStyleOpInterface,
    // The results have the inits' types (checked first, with its message, by
    // DestinationStyleOpInterface). Not AllTypesMatch: ODS's inferred builder
    // ignores the operand segments of the optional operands.
    DeclareOpInterfaceMethods<InferTypeOpInterface>,
    DeclareOpInterfaceMethods<TilingInterface, [
        "getLoopIteratorTypes", "getIterationDomain", "getTiledImplementation",
        "getResultTilePosition", "getIterationDomainTileFromResultTile",
        "generateResultTileValue"]>,
    DeclareOpInterfaceMethods<AggregatedOpInterface, ["decomposeOperation"]>]> {
  let summary = "one online-softmax update step of FlashAttention-2 (running acc, max, sum)";
  let description = [{
    The building block of the tiled (flash) attention path. It takes a block
    of queries and a block of keys/values and *updates* a running state
    `(acc, max, sum)`, the online softmax of FlashAttention-2 (Tri Dao, 2023,
    "FlashAttention-2: Faster Attention with Better Parallelism and Work
    Partitioning", Algorithm 1). The op is modelled on IREE's LinalgExt
    `iree_linalg_ext.online_attention`.

    Shapes (any dimension may be dynamic):

    | operand | shape | element type |
    |---------|-------|--------------|
    | `query` (Q) | `[B, H, M, D]` | `f16`, `bf16` or `f32` |
    | `key` (K) | `[B, Hkv, N, D]` | Q's |
    | `value` (V) | `[B, Hkv, N, Dv]` | Q's |
    | `mask` (optional) | `[B or 1, H or 1, M, N]` | `i1` (keep) or Q's (additive) |
    | `causal_offset` (optional) | `index` | |
    | `acc` (init) / result 0 | `[B, H, M, Dv]` | `f32` |
    | `max` (init) / result 1 | `[B, H, M]` | `f32` |
    | `sum` (init) / result 2 | `[B, H, M]` | `f32` |

    Semantics, for every `(b, h, i)` (query head `h` reads K/V head
    `h / (H / Hkv)`, as in `tx.attention`), in `f32`:

    ```
    s[j]   = scale * sum_d Q[b,h,i,d] * K[b,h/(H/Hkv),j,d]
             (then softcap * tanh(s[j] / softcap), with softcap)
             (then score_mod(s[j], b0+b, h0+h, i0+i, j0+j), with score_mod)
             (+ mask[b,h,i,j] | -inf where the i1 mask is false)
             (-inf where mask_mod(b0+b, h0+h, i0+i, j0+j) is false)
             (-inf where causal and j > i + causal_offset)
             (-inf where window = [l, r] and j < i + causal_offset - l
              (l >= 0) or j > i + causal_offset + r (r >= 0))
             (-inf where i >= row_limit)
    m_new  = max(max[b,h,i], max_j s[j])
    m_safe = (m_new == -inf) ? 0 : m_new
    p[j]   = exp(s[j] - m_safe)
    alpha  = exp(max[b,h,i] - m_safe)
    new_sum[b,h,i]   = alpha * sum[b,h,i] + sum_j p[j]
    new_acc[b,h,i,e] = alpha * acc[b,h,i,e] + sum_j p[j] * V[b,h/(H/Hkv),j,e]
    new_max[b,h,i]   = m_new
    ```

    Starting from `acc = 0`, `max = -inf`, `sum = 0` and applying the op to
    consecutive key blocks gives, after the last block, the attention output
    `acc / sum` (`0` where `sum == 0`: a row that saw no visible key). The
    `m_safe` guard keeps rows that have seen no visible key yet free of NaN
    (`exp(-inf - -inf)`). A hidden key (`p[j] == 0`: a false `i1` entry, an
    additive `-inf`, or the causal diagonal) contributes nothing to
    `new_acc`, whatever `V[j]` holds (`0 * NaN` is not added), and an
    additive `-inf` is selected, not added (a NaN score of a hidden key stays
    hidden).

    - `scale`: required, positive and finite (`tx-tile-attention` puts
      `1/sqrt(D)` there when the `tx.attention` has none).
    - `causal_offset` (the diagonal's offset) comes with `causal` and/or
      `window`: under `causal` key `j` is visible to query `i` iff
      `j <= i + causal_offset`; under `window = [left, right]` (`-1` =
      unbounded) iff `i + causal_offset - left <= j <= i + causal_offset +
      right`; with both, under each. For a whole `tx.attention`
      (bottom-right alignment) `causal_offset = Sk - Sq`; the tile of rows
      `[m0, ...)` and keys `[n0, ...)` gets `causal_offset + m0 - n0`.
    - `mask`: a static `1` in its first two dimensions broadcasts; other
      sizes must equal `B` / `H`.
    - `row_limit` (optional `index`): query rows `i >= row_limit` see no key
      (their state is left as it is); a tile of rows `[m0, ...)` gets
      `row_limit - m0`. It carries `tx.attention`'s `q_lengths` into the
      tiles.
    - `score_mod`, `mask_mod` (optional regions, with their captured
      operands): tx.attention's score and mask functions (see there; same
      syntax and rules), carried into the tiles. They see the indices of the
      whole tx.attention: `mod_offsets(%b0, %h0, %i0, %j0)` (four `index`
      values, required with a region and only then) are the whole op's
      batch, query head, query row and key of the tile's first element,
      and tiling adds the tile's offsets to them. Query head `h0 + h` is the
      index into the whole op's `H` query heads.

    Destination-passing style: `acc`, `max`, `sum` are the inits
    (`DestinationStyleOpInterface`); the results have their types.

    **Tiling** (`TilingInterface`): the iteration domain is `(B, H, M, N)`,
    iterator types `parallel, parallel, parallel, reduction`. Tiling `N`
    with upstream `scf::tileUsingSCF` (an `scf.for` that threads the state
    through `iter_args`) *is* the FlashAttention-2 loop over key blocks,
    because the op's result is "the state updated by these keys". A tile of
    `H` must be 1 (K/V head `h / (H / Hkv)`, read in place), the whole `H`,
    or anything when `H == Hkv` is static; other head tiles are refused.
    **Decomposition** (`linalg::AggregatedOpInterface`): into `linalg.generic`
    ops on tensors (scores of the tile, running max, `exp`, rescale, sums,
    `P·V`); it needs a static `H / Hkv` (1 after head tiling).

    Example:

    ```mlir
    %r:3 = tx.online_attention %q, %k, %v scale = 0.125 causal causal_offset(%c)
        outs(%acc, %max, %sum)
        : tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>, tensor<1x1x64x64xf16>
        -> tensor<1x1x64x64xf32>, tensor<1x1x64xf32>, tensor<1x1x64xf32>
    ```
  }];
  let arguments = (ins Tx_FloatTensor:$query, Tx_FloatTensor:$key,
                       Tx_FloatTensor:$value,
                       Optional<RankedTensorOf<[I1, F16, BF16, F32]>>:$mask,
                       Optional<Index>:$causal_offset,
                       Optional<Index>:$row_limit,
                       Variadic<Index>:$mod_offsets,
                       Variadic<AnyType>:$score_captures,
                       Variadic<AnyType>:$mask_captures,
                       Tx_F32Tensor:$acc, Tx_F32Tensor:$max, Tx_F32Tensor:$sum,
                       F32Attr:$scale, UnitAttr:$causal,
                       OptionalAttr<F32Attr>:$softcap,
                       OptionalAttr<DenseI64ArrayAttr>:$window);
  let results = (outs Tx_F32Tensor:$new_acc, Tx_F32Tensor:$new_max,
                      Tx_F32Tensor:$new_sum);
  let regions = (region AnyRegion:$score_mod, AnyRegion:$mask_mod);
  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    `scale` `=` $scale (`softcap` `=` $softcap^)?
    (`window` `=` $window^)? (`causal` $causal^)?
    (`causal_offset` `(` $causal_offset^ `)`)?
    (`row_limit` `(` $row_limit^ `)`)?
    (`mod_offsets` `(` $mod_offsets^ `)`)?
    custom<OnlineAttentionMods>($score_captures, type($score_captures),
                                $score_mod, $mask_captures,
                                type($mask_captures), $mask_mod)
    `outs` `(` $acc `,` $max `,` $sum `)` attr-dict
    `:` type($query) `,` type($key) `,` type($value)
    `->` type($acc) `,` type($max) `,` type($sum)
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// DestinationStyleOpInterface: the inits are (acc, max, sum).
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return ::mlir::MutableOperandRange(
          getOperation(), getAccMutable().getOperandNumber(), 3);
    }
    /// Whether the op carries a score function or a mask function
    /// (`score_mod`, `mask_mod` regions).
    bool hasMods() { return !getScoreMod().empty() || !getMaskMod().empty(); }
  }];
}

//===----------------------------------------------------------------------===//
// tx.merge_attention_states
//===----------------------------------------------------------------------===//

def Tx_MergeAttentionStatesOp : Tx_Op<"merge_attention_states", [
    Pure, AllTypesMatch<["out_a", "out_b", "result"]>,
    AllTypesMatch<["lse_a", "lse_b", "lse"]>]> {
  let summary = "merges two partial attention results by their log-sum-exp";
  let description = [{
    Two attention results of the same queries over disjoint sets of keys
    (a shared prefix and a sequence's own suffix, two halves of a split-KV
    call, two ranks of ring attention), each with its log-sum-exp (the
    optional second result of `tx.attention`), merged into the result and
    log-sum-exp of attention over the union of the keys; FlashInfer's
    `merge_state` (Ye et al., 2025, "FlashInfer: Efficient and Customizable
    Attention Engine for LLM Inference Serving", §3.1), the merge step of
    FlashDecoding:

    ```
    m   = max(lse_a, lse_b)
    w_a = exp(lse_a - m),  w_b = exp(lse_b - m)
    out = (w_a * out_a + w_b * out_b) / (w_a + w_b)
    lse = m + log(w_a + w_b)
    ```

    Shapes: `out_a`, `out_b` and the result `[..., Dv]` (rank >= 1: the
    layout of `tx.attention`'s result `[B, H, Sq, Dv]`, or FlashInfer's
    `[tokens, heads, Dv]`); `lse_a`, `lse_b` and the second result `[...]`
    (the leading dimensions of `out_a`), `f32`. Element types of the
    outputs: `f16`, `bf16` or `f32`, computed in `f32` and rounded once.
    A row whose two log-sum-exps are both `-inf` (it saw no key in either
    part) gives 0 and `-inf`, never NaN; a part with `-inf` contributes
    nothing, whatever its output row holds.

    Example:

    ```mlir
    %o, %lse = tx.merge_attention_states %o1, %lse1, %o2, %lse2
        : tensor<8x32x1x128xf16>, tensor<8x32x1xf32>
    ```
  }];
  let arguments = (ins Tx_FloatTensor:$out_a, Tx_F32Tensor:$lse_a,
                       Tx_FloatTensor:$out_b, Tx_F32Tensor:$lse_b);
  let results = (outs Tx_FloatTensor:$result, Tx_F32Tensor:$lse);
  let assemblyFormat = [{
    $out_a `,` $lse_a `,` $out_b `,` $lse_b attr-dict `:` type($out_a) `,`
    type($lse_a)
  }];
  let hasVerifier = 1;
}

include "Transformer/TxGradOps.td"

#endif // TRANSFORMER_TXOPS_TD
