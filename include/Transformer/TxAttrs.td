//===- TxAttrs.td - tx attributes: GPU strategies ----------*- tablegen -*-===//
//
// The strategies that tx-attention-strategy and tx-softmax-strategy write on
// an op as `tx.gpu_strategy` (and that a user or a tuner may write by hand):
// one attribute per kernel family, with every range check that does not
// depend on the problem in its verifier. The checks that do (element type,
// head dims, static sizes, a mask) are made where the strategy is used
// (tx-map-attention-to-gpu, tx-map-softmax-to-gpu), with located errors.
//
// Target-independent tiling (tx-tile-attention, tx-tile-softmax) reads the
// tile sizes through the interfaces below and knows nothing of the families.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_TXATTRS_TD
#define TRANSFORMER_TXATTRS_TD

include "Transformer/TxDialect.td"
include "mlir/IR/AttrTypeBase.td"

//===----------------------------------------------------------------------===//
// Interfaces: the tile sizes, for target-independent tiling
//===----------------------------------------------------------------------===//

def Tx_AttentionTilingAttrInterface : AttrInterface<"AttentionTilingAttr"> {
  let cppNamespace = "::mlir::tx";
  let description = [{
    A strategy for `tx.attention` as `tx-tile-attention from-strategy=true`
    reads it: the query rows and keys of one tile. A strategy that packs the
    query heads of one K/V head (grouped-query packing, the split-KV decode
    family) tiles H by H / Hkv and takes all Sq rows in one tile.
  }];
  let methods = [
    InterfaceMethod<"Query rows per tile (0 when the tile packs all Sq rows "
                    "of the query heads of one K/V head).",
                    "int64_t", "getQueryTileRows">,
    InterfaceMethod<"Keys per step of the key loop.",
                    "int64_t", "getKeyTileSize">,
    InterfaceMethod<"Whether one tile holds the H / Hkv query heads of one "
                    "K/V head and all Sq rows (grouped-query packing).",
                    "bool", "packsQueryHeads">,
  ];
}

def Tx_RowTilingAttrInterface : AttrInterface<"RowTilingAttr"> {
  let cppNamespace = "::mlir::tx";
  let description = [{
    A strategy for `tx.softmax` as `tx-tile-softmax from-strategy=true` reads
    it: the rows of the [R, N] view (N the softmax dimension) that one tile
    (one CTA) takes.
  }];
  let methods = [
    InterfaceMethod<"Rows per tile (>= 1).", "int64_t", "getRowsPerTile">,
  ];
}

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

/// A bool written `true` or `false`.
class Tx_BoolParameter<string desc, string default>
    : DefaultValuedParameter<"bool", default, desc> {
  let parser = [{ [&]() -> ::mlir::FailureOr<bool> {
    if (::mlir::succeeded($_parser.parseOptionalKeyword("true")))
      return true;
    if (::mlir::succeeded($_parser.parseOptionalKeyword("false")))
      return false;
    return $_parser.emitError($_parser.getCurrentLocation(),
                              "expected true or false");
  }() }];
  let printer = [{ $_printer << ($_self ? "true" : "false") }];
}

/// An int64_t parameter with its description (docs/TxAttrs.md).
class Tx_Int<string desc> : AttrParameter<"int64_t", desc>;
class Tx_IntOr<string default, string desc>
    : DefaultValuedParameter<"int64_t", default, desc>;

class Tx_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tx_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Attention strategies
//===----------------------------------------------------------------------===//

def Tx_SimtStrategyAttr : Tx_Attr<"SimtStrategy", "simt_strategy", [
    DeclareAttrInterfaceMethods<Tx_AttentionTilingAttrInterface>]> {
  let summary = "attention on CUDA cores (any element type and head dim)";
  let description = [{
    One CTA of `warps` warps computes `q_tile` query rows (at most 16 per
    warp) against the keys in steps of `kv_tile` (FlashAttention-2's online
    softmax, one thread per (row, key slice)).

    ```mlir
    tx.gpu_strategy = #tx.simt_strategy<warps = 4, q_tile = 32, kv_tile = 64>
    ```

    - `warps` in [1, 32]; `q_tile` in [1, 4096], a multiple of `warps` with
      at most 16 rows per warp; `kv_tile` a multiple of 32 in [32, 256].
  }];
  let parameters = (ins Tx_Int<"warps per CTA">:$warps,
                        Tx_Int<"query rows per CTA">:$q_tile,
                        Tx_Int<"keys per step of the key loop">:$kv_tile);
}

def Tx_MmaStrategyAttr : Tx_Attr<"MmaStrategy", "mma_strategy", [
    DeclareAttrInterfaceMethods<Tx_AttentionTilingAttrInterface>]> {
  let summary = "attention on tensor cores by mma.sync (sm_80+, f16/bf16)";
  let description = [{
    Each of `warps` warps computes `16 * m_tiles` query rows with
    `mma.sync.m16n8k16` (FlashAttention-2's warp partition: the keys of a
    step are shared, the rows split), keys in steps of `kv_tile`.

    ```mlir
    tx.gpu_strategy = #tx.mma_strategy<warps = 4, q_tile = 64, kv_tile = 64, m_tiles = 1>
    ```

    - `warps` in [1, 32]; `m_tiles` 1 or 2; `q_tile = 16 * m_tiles * warps`;
      `kv_tile` a multiple of 32 in [32, 256].
    - `kv_splits` (default 1: none): split-KV for grids that leave SMs
      idle. The keys of each query tile are cut into `kv_splits` chunks of
      a whole number of `kv_tile` steps, one CTA each; each writes its
      partial state (O, max, sum; f32) to a workspace and a second kernel
      merges the parts by their log-sum-exp (sm_90+, `Dv` a multiple of
      32). 0: the count is chosen at run time from `num_sms` (the SMs of the
      target, >= 1 then): one wave of CTAs (`num_sms` x the CTAs per SM the
      registers allow), 512 to 4096 keys per chunk. Besides filling the
      chip, short chunks keep the tensor cores' truncating f32
      accumulation of O short (issue #38).
  }];
  let parameters = (ins Tx_Int<"warps per CTA">:$warps,
                        Tx_Int<"query rows per CTA">:$q_tile,
                        Tx_Int<"keys per step of the key loop">:$kv_tile,
                        Tx_Int<"m16 row tiles per warp">:$m_tiles,
                        Tx_IntOr<"1", "key chunks per query tile (1: none; 0: at run time from num_sms)">:$kv_splits,
                        Tx_IntOr<"0", "SMs of the target (for kv_splits = 0)">:$num_sms);
}

def Tx_WgmmaStrategyAttr : Tx_Attr<"WgmmaStrategy", "wgmma_strategy", [
    DeclareAttrInterfaceMethods<Tx_AttentionTilingAttrInterface>]> {
  let summary = "attention on Hopper's warpgroup MMA (sm_90a, f16/bf16)";
  let description = [{
    Each warpgroup of 4 warps computes 64 query rows with `wgmma.mma_async`;
    K/V tiles of `kv_tile` keys stream through `stages` shared-memory
    buffers by cp.async. With `producer_warps = 4` a fifth warpgroup issues
    the copies and the `warps` consumer warps compute (warp specialization,
    FlashAttention-3).

    ```mlir
    tx.gpu_strategy = #tx.wgmma_strategy<warps = 8, q_tile = 128, kv_tile = 128, stages = 2, producer_warps = 4>
    ```

    - `warps` a multiple of 4 in [4, 32]; `q_tile = 16 * warps`; `kv_tile` a
      multiple of 32 in [32, 256]; `stages` in [2, 4]; `producer_warps` 0
      (the default: every warp copies) or 4.
    - `kv_splits` (default 1: none): split-KV for grids that leave SMs
      idle. The keys of each query tile are cut into `kv_splits` chunks of
      a whole number of `kv_tile` steps, one CTA each; each writes its
      partial state (O, max, sum; f32) to a workspace and a second kernel
      merges the parts by their log-sum-exp (sm_90+, `Dv` a multiple of
      32). 0: the count is chosen at run time from `num_sms` (the SMs of the
      target, >= 1 then): one wave of CTAs (`num_sms` x the CTAs per SM the
      registers allow), 512 to 4096 keys per chunk. Besides filling the
      chip, short chunks keep the tensor cores' truncating f32
      accumulation of O short (issue #38).
  }];
  let parameters = (ins Tx_Int<"consumer warps per CTA (whole warpgroups)">:$warps,
                        Tx_Int<"query rows per CTA">:$q_tile,
                        Tx_Int<"keys per step of the key loop">:$kv_tile,
                        Tx_Int<"K/V tiles in shared memory">:$stages,
                        Tx_IntOr<"0", "warps of the producer warpgroup (0: none)">:$producer_warps,
                        Tx_IntOr<"1", "key chunks per query tile (1: none; 0: at run time from num_sms)">:$kv_splits,
                        Tx_IntOr<"0", "SMs of the target (for kv_splits = 0)">:$num_sms);
}

def Tx_DecodeStrategyAttr : Tx_Attr<"DecodeStrategy", "decode_strategy", [
    DeclareAttrInterfaceMethods<Tx_AttentionTilingAttrInterface>]> {
  let summary = "split-KV decode attention (few query rows, long KV cache)";
  let description = [{
    FlashDecoding: the keys of one (batch, K/V head) are split into
    `kv_splits` chunks (0: from `num_sms`, the SMs of the target), each a
    CTA of `warps` warps that packs the H / Hkv query heads of the K/V head
    and all Sq rows into one tile (grouped-query packing) and steps through
    its keys `tile_keys` at a time with `stages` tiles in flight; the
    partial results (O, max, sum) are merged by their log-sum-exp.

    ```mlir
    tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 0, num_sms = 132, stages = 3, tile_keys = 16>
    ```

    - `warps` in [1, 32]; `kv_splits` 0 or in [1, 65536]; `num_sms` in
      [1, 4096]; `stages` in [2, 4]; `tile_keys` 16 or 32.
    - `tensor_cores` (default true): Q K^T and P V by mma.sync where the
      problem allows (f16/bf16, at most 16 packed rows); false keeps CUDA
      cores.
    - `cluster` in [0, 16] (default 0): the splits of one (batch, K/V head),
      at most this many, form a thread-block cluster and merge through
      distributed shared memory (sm_90+); 0 merges through a workspace in
      global memory. `kv_splits` must not exceed it.
    - `cluster_short_only` (default false; only with `cluster` > 0): the
      cluster merge only for calls of few CTAs and short caches, decided at
      run time.
    - `merge_kernel` (default false): with the workspace merge, a second
      kernel (a programmatic dependent launch, sm_90+) merges the splits
      instead of the last CTA to arrive.
  }];
  let parameters = (ins Tx_Int<"warps per CTA">:$warps,
                        Tx_Int<"key chunks per (batch, K/V head); 0: from num_sms">:$kv_splits,
                        Tx_Int<"SMs of the target (for kv_splits = 0)">:$num_sms,
                        Tx_Int<"K/V tiles per warp in flight + 1">:$stages,
                        Tx_Int<"keys per warp step">:$tile_keys,
                        Tx_BoolParameter<"products on tensor cores where the problem allows", "true">:$tensor_cores,
                        Tx_IntOr<"0", "most splits merged in a cluster (0: workspace merge)">:$cluster,
                        Tx_BoolParameter<"the cluster merge for short calls only", "false">:$cluster_short_only,
                        Tx_BoolParameter<"the workspace merge in a second kernel", "false">:$merge_kernel);
}

//===----------------------------------------------------------------------===//
// Softmax strategy
//===----------------------------------------------------------------------===//

def Tx_SoftmaxKernelAttr : Tx_Attr<"SoftmaxKernel", "softmax_kernel"> {
  let summary = "one softmax kernel of a tx.softmax_strategy";
  let description = [{
    How one CTA of `block_size` threads computes rows: `threads_per_row`
    threads per row (a power of two in [2, 32], or `block_size` for a row
    per CTA), `vector_width` elements per load (1 for the scalar kernel; a
    power of two of at most 16 bytes for the vector kernel), `cached`
    vectors per thread kept in registers (0: the row is read twice, or
    streamed; else the vectors per thread of a static row, at most 64),
    `unroll` in [1, 16] loads in flight, `grid_ctas` (0: one CTA per row
    tile; else a persistent grid of that many CTAs), `prefetch` (the next
    row's loads issued before this row's reductions), `peel` (a vector row
    whose N is not a multiple of the vector width: the tail elements
    separately), `smem_row_bytes` (a row per CTA staged in shared memory:
    its bytes; 0: none) and `bulk_chunk_bytes` / `bulk_slots` (rows copied
    by cp.async.bulk in chunks of that many bytes, a multiple of
    16 x `block_size`, into that many slots; 0: no bulk copies).
  }];
  let parameters = (ins Tx_Int<"elements per load">:$vector_width,
                        Tx_Int<"threads per row">:$threads_per_row,
                        Tx_Int<"threads per CTA">:$block_size,
                        Tx_Int<"vectors per thread kept in registers (0: none)">:$cached,
                        Tx_BoolParameter<"the tail of a row not a multiple of the vector width separately", "false">:$peel,
                        Tx_Int<"CTAs of a persistent grid (0: one CTA per row tile)">:$grid_ctas,
                        Tx_BoolParameter<"the next row's loads before this row's reductions", "false">:$prefetch,
                        Tx_Int<"loads in flight per thread">:$unroll,
                        Tx_IntOr<"0", "bytes of a row staged in shared memory (0: none)">:$smem_row_bytes,
                        Tx_IntOr<"0", "bytes per cp.async.bulk chunk (0: no bulk copies)">:$bulk_chunk_bytes,
                        Tx_IntOr<"0", "chunk slots of the bulk ring (0: a row's chunks)">:$bulk_slots);
}

def Tx_SoftmaxStrategyAttr : Tx_Attr<"SoftmaxStrategy", "softmax_strategy", [
    DeclareAttrInterfaceMethods<Tx_RowTilingAttrInterface>]> {
  let summary = "the GPU kernels of a tx.softmax along its last dimension";
  let description = [{
    The rows of the [R, N] view are tiled by `rows_per_cta`; the `scalar`
    kernel (vector width 1) takes rows that the `vector` kernel (optional)
    cannot (a row whose address is not aligned to its vector width, checked
    at run time). `rows_per_cta` must be `block_size / threads_per_row` of
    the vector kernel when there is one, else of the scalar kernel.

    ```mlir
    tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1,
        scalar = <vector_width = 1, threads_per_row = 1024, block_size = 1024, cached = 0, grid_ctas = 0, unroll = 4>,
        vector = <vector_width = 8, threads_per_row = 1024, block_size = 1024, cached = 0, grid_ctas = 0, prefetch = true, unroll = 2>>
    ```
  }];
  let parameters = (ins Tx_Int<"rows of the [R, N] view per CTA">:$rows_per_cta,
                        AttrParameter<"SoftmaxKernelAttr", "the kernel for any alignment (vector_width = 1)">:$scalar,
                        OptionalParameter<"SoftmaxKernelAttr", "the kernel for 16-byte aligned rows">:$vector);
}

#endif // TRANSFORMER_TXATTRS_TD
