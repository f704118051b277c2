//===- AttentionKernel.h - tx.attention on the GPU: strategy and kernels -*- C++ -*-===//
//
// The GPU half of tx.attention's one compilation path (docs/Design.md):
//
//   tx-attention-strategy   chooseAttentionKernel: kernel family and tile
//                           sizes for the chip, element type, head dims and
//                           mask (the one table of tile choices), stored on
//                           the op as a typed `tx.gpu_strategy` (TxAttrs.td)
//   tx-tile-attention       the FlashAttention-2 tiled IR with those sizes
//   tx-map-attention-to-gpu the scf.forall of query tiles becomes the grid,
//                           its key-tile loop and tx.online_attention the
//                           kernel body of the family (buildAttentionKernel)
//
// Private to lib/Transformer.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_GPU_ATTENTIONKERNEL_H
#define TRANSFORMER_GPU_ATTENTIONKERNEL_H

#include "Transformer/GPUTarget.h"
#include "Transformer/TxOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/LLVM.h"
#include <optional>

namespace mlir {
namespace tx {

/// Tile sizes and the derived shared-memory layout of one kernel.
struct FlashConfig {
  int64_t warps = 4;     // warps per CTA
  int64_t qTile = 32;    // query rows per CTA
  int64_t kvTile = 64;   // keys per K/V step (a multiple of 32)
  int64_t D = 0, Dv = 0; // head dims of Q/K and of V
  bool mma = false;      // tensor-core kernel (16 * mTiles rows per warp)
  int64_t mTiles = 1;    // tensor-core kernel: m16 tiles per warp
  int64_t eltBytes = 4;  // element size of Q/K/V
  int64_t stages = 2;    // wgmma: K/V stages in shared memory
  int64_t producerWarps = 0; // wgmma: 4 = a producer warpgroup issues the
                             // K/V copies (warp specialization), the
                             // `warps` consumer warps compute; 0 = every
                             // warp copies
  bool wgmma = false;    // sm_90a warpgroup kernel (64 query rows per
                         // warpgroup of 4 warps; D and Dv in {64, 128})
  bool decode = false;   // split-KV decode kernels (emitDecode)
  int64_t decodeG = 1, decodeSq = 1; // static G = H / Hkv and Sq (decode)
  int64_t kvSplits = 0;  // decode: key chunks (0 = from numSms)
  int64_t prefillSplits = 1; // mma.sync / wgmma: key chunks per query tile
                             // (1 = none; 0 = at run time from numSms),
                             // merged by a second kernel (sm_90+)
  int64_t numSms = GPUTarget{}.defaultNumSms; // SMs of the target, for
                                              // kvSplits / prefillSplits 0
  int64_t smemPerSm = GPUTarget{}.sharedMemoryPerSm; // the chip's shared memory per SM (bytes; a
                              // CTA reserves 1 KiB more than it asks for):
                              // how many decode CTAs run on an SM at once;
                              // set by the mapping (GPUTarget)
  int64_t decodeStages = 3; // decode: K/V tiles per warp in flight + 1
  int64_t decodeTileKeys = 16; // decode: keys per warp step (32 / lanes per key)
  bool decodeTC = false; // decode: Q K^T and P V on tensor cores (mma.sync
                         // m16n8k16, the G * Sq <= 16 packed rows as M)
  int64_t decodeCluster = 0; // decode: at most this many splits, the CTAs
                             // of one (batch, K/V head) a thread-block
                             // cluster merging through distributed shared
                             // memory (sm_90+); 0 = the workspace merge
  bool decodeClusterShortOnly = false; // decode: the cluster merge only for
                                       // calls of few CTAs and short caches
                                       // (decided at run time; emitDecode)
  bool decodeMergeKernel = false; // decode, workspace merge (decodeCluster
                                  // 0): the splits are merged by a second
                                  // kernel launched as a programmatic
                                  // dependent of the first (PDL, sm_90+)
                                  // instead of by the last CTA to take a
                                  // ticket from a zeroed arrival counter
  bool blockSparse = false; // prefill: the key tiles a mask function
                             // shows, listed by two small kernels before
                             // the attention kernel (blockSparseKeys)
  bool keyFlags = false; // tensor cores with a mask operand: per-tile key
                         // visibility flags in shared memory (see
                         // emitKeyVisibility)
  // Derived.
  /// Prefill tensor-core kernels: the CTAs that fit on the chip at once,
  /// numSms x the CTAs per SM their registers allow (65536 per SM, up to
  /// 255 per thread: one CTA of 8 warps or more, two of 4).
  int64_t prefillSlots() const {
    return numSms * std::max<int64_t>(
                        1, 65536 / (32 * (warps + producerWarps) * 255));
  }
  int64_t rowsPerWarp() const { return qTile / warps; }
  int64_t keysPerLane() const { return kvTile / 32; }
  int64_t outPerLane() const { return (Dv + 31) / 32; }
  int64_t vWidth() const { return 32 * outPerLane(); } // V tile row, zero-padded
  int64_t dStep() const { return D % 4 == 0 ? 4 : 1; }
  int64_t kStride() const { return D % 4 == 0 ? D + 4 : D + 1; }
  // Shared memory (in floats): Q tile, K tile, V tile, P tile.
  int64_t qFloats() const { return qTile * D; }
  int64_t kFloats() const { return kvTile * kStride(); }
  int64_t vFloats() const { return kvTile * vWidth(); }
  int64_t pFloats() const { return qTile * kvTile; }
  static int64_t align4(int64_t n) { return (n + 3) / 4 * 4; }
  // Tensor-core kernel: Q/K/V tiles in their own type, rows padded by 8
  // elements (16 bytes) so that the 8 rows of an ldmatrix hit distinct banks.
  int64_t qStrideMma() const { return D + 8; }
  int64_t kStrideMma() const { return D + 8; }
  int64_t vStrideMma() const { return Dv + 8; }
  // Key visibility flags: flagBuffers() tiles of kvTile keys, flagGroups()
  // bytes per key (one per group of threads that scanned a share of the
  // CTA's rows; a key is visible when any byte is nonzero).
  int64_t flagGroups() const {
    int64_t t = warps * 32;
    return t % kvTile == 0 ? std::min<int64_t>(t / kvTile, 8) : 1;
  }
  int64_t flagBuffers() const { return wgmma ? 4 : 2; }
  int64_t flagBytes() const {
    return keyFlags ? flagBuffers() * kvTile * flagGroups() : 0;
  }
  // Split-KV decode kernel (bytes): Q (P x D f32), then per warp a P
  // buffer (P x TK f32) and decodeStages tiles of TK K rows and TK V rows
  // (TK = decodeTileKeys), every region 128-byte aligned. A tile whose rows
  // are whole 128-byte lines (or 64 bytes) holds the global rows' bytes with
  // the 16-byte chunks of every line permuted (decodeSwizzle); other row
  // widths are padded by 16 bytes. After the key loop the same memory holds
  // each warp's partial state (m, l, O: P x (Dv + 2) f32).
  int64_t decodeRows() const { return decodeG * decodeSq; }
  static int64_t align128(int64_t x) { return (x + 127) / 128 * 128; }
  /// Whether a decode tile of `width`-element rows is XOR-permuted (rows of
  /// whole 128-byte lines, or 64 bytes) rather than padded.
  bool decodeSwizzled(int64_t width) const {
    int64_t bytes = width * eltBytes;
    return bytes % 128 == 0 || bytes == 64;
  }
  /// Elements per shared row of a decode tile of `width`-element rows.
  int64_t decodeTileStride(int64_t width) const {
    return decodeSwizzled(width) ? width : width + 16 / eltBytes;
  }
  // Tensor cores: Q as 16 rows of Q's type (rows >= G * Sq zero), rows
  // padded by 16 bytes (ldmatrix without bank conflicts).
  int64_t decodeQStride() const { return D + 16 / eltBytes; }
  int64_t decodeQBytes() const {
    return align128(decodeTC ? 16 * decodeQStride() * eltBytes
                             : 4 * decodeRows() * D);
  }
  int64_t decodePBytes() const {
    return align128(4 * decodeRows() * decodeTileKeys);
  }
  int64_t decodeKBytes() const {
    return align128(decodeTileKeys * decodeTileStride(D) * eltBytes);
  }
  // The CUDA-core form reads V along its rows: unpermuted, unpadded.
  int64_t decodeVBytes() const {
    return align128(decodeTileKeys * (decodeTC ? decodeTileStride(Dv) : Dv) *
                    eltBytes);
  }
  int64_t decodeWarpBytes() const {
    return decodePBytes() + decodeStages * (decodeKBytes() + decodeVBytes());
  }
  int64_t decodeStateBytes() const { return 4 * decodeRows() * (Dv + 2); }
  /// Bytes from one warp's region to the next: its stages during the key
  /// loop, its state after it (the larger, 128-byte aligned).
  int64_t decodeWarpStride() const {
    return align128(std::max(decodeWarpBytes(), decodeStateBytes()));
  }
  /// Cluster merge: the CTA's part of each row (O [rows][Dv], then m and
  /// l per row, f32), read by the other CTAs of the cluster.
  /// (The workspace form of a short-only strategy has none.)
  int64_t decodePartBytes() const {
    return decodeCluster > 0 ? align128(decodeStateBytes()) : 0;
  }
  int64_t decodePartOffset() const {
    return decodeQBytes() + warps * decodeWarpStride();
  }
  int64_t decodeSmemBytes() const {
    return decodePartOffset() + decodePartBytes();
  }
  int64_t smemBytes() const {
    if (decode)
      return decodeSmemBytes();
    // wgmma: Q, then K and V twice (double buffer), 128B-swizzled without
    // padding, plus 1 KiB to align the start to a swizzle atom.
    if (wgmma)
      return 1024 + eltBytes * (qTile * D + stages * kvTile * (D + Dv)) +
             flagBytes() + (producerWarps ? 16 * stages : 0);
    if (mma)
      return eltBytes * (qTile * qStrideMma() + kvTile * kStrideMma() +
                         kvTile * vStrideMma()) +
             flagBytes();
    return 4 * (align4(qFloats()) + align4(kFloats()) + align4(vFloats()) +
                pFloats());
  }
};

/// The family of `c` as diagnostics name it: decode, wgmma, mma or simt.
inline StringRef familyName(const FlashConfig &c) {
  return c.decode ? "decode" : c.wgmma ? "wgmma" : c.mma ? "mma" : "simt";
}

/// One attention problem as the kernels see it: the whole Q/K/V (and mask)
/// tensors, [B, H, Sq, D], [B, Hkv, Sk, D], [B, Hkv, Sk, Dv], [B|1, H|1, Sq,
/// Sk] (i1 keep-mask or additive in Q's type), and the op's attributes.
/// Built from an untiled tx.attention or from the tiled IR (its
/// tx.online_attention and the tensors its slices come from).
struct AttentionProblem {
  Location loc;
  Value query, key, value, mask;
  Value kvLengths, qLengths;       // i32 [B] per-sequence lengths, or null
  /// A paged KV cache read in place (the decode family only): K and V are
  /// the gathers of tx-gather-kv-pages (`key`/`value` above, their sizes);
  /// the kernel reads the pools [num_pages, page_size, Hkv, D|Dv] through
  /// the i32 page table [B, max_pages] instead (TxOps.td, "Paged KV
  /// cache"). All null: K/V are read as they are.
  Value keyPages, valuePages, pageTable;
  double scale = 1.0;              // static scale of Q K^T
  bool causal = false;             // bottom-right aligned
  DenseI64ArrayAttr window;        // [left, right], -1 = unbounded
  FloatAttr softcap;               // logit soft-capping c
  RankedTensorType outType;        // [B, H, Sq, Dv] in Q's element type
  RankedTensorType lseType;        // [B, H, Sq] f32, null when not requested
  /// The score and mask functions (the `score_mod` / `mask_mod` regions of
  /// tx.attention or of its tile's tx.online_attention; issue #42), null
  /// when absent, and their captured operands (defined outside the tiled
  /// loops). The kernels inline them in their score step.
  Region *scoreMod = nullptr, *maskMod = nullptr;
  SmallVector<Value> scoreCaptures, maskCaptures;

  static AttentionProblem fromOp(AttentionOp op);
  bool hasMods() const { return scoreMod || maskMod; }
  /// The regions and captured operands of `op` (a tx.attention or its
  /// tile's tx.online_attention).
  template <typename OpT> void readMods(OpT op) {
    scoreMod = op.getScoreMod().empty() ? nullptr : &op.getScoreMod();
    maskMod = op.getMaskMod().empty() ? nullptr : &op.getMaskMod();
    scoreCaptures.assign(op.getScoreCaptures().begin(),
                         op.getScoreCaptures().end());
    maskCaptures.assign(op.getMaskCaptures().begin(),
                        op.getMaskCaptures().end());
  }
  Type elementType() const;
  int64_t D() const;
  int64_t Dv() const;
};

/// The chip the kernels are built for.
struct AttentionTarget {
  int64_t sm = 90;                  // compute capability (sm_90 -> 90)
  bool wgmma = false;               // sm_90a: the warpgroup kernel
  int64_t maxSharedMemory = GPUTarget{}.maxSharedMemoryPerCta; // opt-in
                                                    // dynamic shared memory
  int64_t numSms = GPUTarget{}.defaultNumSms; // SMs (the split count)
};

/// Fewest keys per chunk of the prefill split-KV (prefillSplitCount).
constexpr int64_t kMinPrefillSplitKeys = 512;
/// Most keys per chunk once a call splits (prefillSplitCount): the tensor
/// cores' truncating accumulation of O drifts in proportion to the chunk
/// (issue #38; H100, causal GQA over 65536 keys: -0.071 f16 ulp with
/// chunks of 8192 keys, -0.037 with 4096, -0.375 unsplit).
constexpr int64_t kMaxPrefillSplitKeys = 4096;

/// The prefill kernels' split count (FlashConfig::prefillSplits) for a grid
/// of `ctas` CTAs (B * H * query tiles) over `sk` keys, where `slots` CTAs
/// fit on the chip at once (FlashConfig::prefillSlots): 1 when ctas >
/// slots / 2, else one wave, min(slots / ctas, ceil(sk / 512)), but at
/// least ceil(sk / 4096), then rounded so that every chunk is a whole
/// number of kv-tile steps (the last one shorter) and none is empty. prefillSplitsAtRunTime evaluates the same rule at
/// run time for dynamic shapes.
int64_t prefillSplitCount(int64_t ctas, int64_t sk, int64_t kvTile,
                          int64_t slots);

/// Overrides of the strategy's choices (0 = choose); the options of
/// tx-attention-strategy and tx-attention-to-gpu (Passes.td).
struct AttentionChoices {
  int64_t warps = 0, qTile = 0, kvTile = 0, stages = 0, mmaRowTiles = 0;
  /// wgmma: 4 = a producer warpgroup (warp specialization), 0 = none,
  /// -1 = choose.
  int64_t producerWarps = -1;
  bool tensorCores = true, decode = true;
  int64_t decodeMaxRows = 16, kvSplits = 0, decodeTileKeys = 0;
  /// Decode: the cluster merge's most splits (FlashConfig::decodeCluster);
  /// -1 = choose, 0 = the workspace merge.
  int64_t decodeCluster = -1;
  /// Decode, workspace merge: 1 = a second kernel merges the splits
  /// (FlashConfig::decodeMergeKernel; sm_90+), 0 = the last CTA to arrive,
  /// -1 = choose (1 on sm_90+).
  int64_t decodeMergeKernel = -1;
  /// Query rows per CTA fixed by tiled IR (a user's scf.forall): every
  /// family must use exactly this tile or is not taken (0 = free).
  int64_t exactQTile = 0;
};

/// Sets cfg.prefillSplits (and cfg.numSms) for a tensor-core prefill
/// kernel: prefillSplitCount's rule at compile time for static shapes, 0
/// (at run time) for dynamic ones; 1 on chips below sm_90, for Dv not a
/// multiple of 32, and for other families (PrefillSplits.cpp).
void choosePrefillSplits(FlashConfig &cfg, const AttentionProblem &p,
                         const AttentionTarget &t);

/// Whether the prefill kernel `c` of `p` visits only the key tiles the mask
/// function shows (FlashConfig::blockSparse; KeyTileLists.h): an op with a
/// mask_mod region, without a mask operand, causal, window, per-sequence
/// lengths or a paged cache, on a kernel without prefill splits.
bool blockSparseKeys(const FlashConfig &c, const AttentionProblem &p);

/// The split-KV decode kernel's products on tensor cores (mma.sync
/// m16n8k16 with the G * Sq <= 16 packed rows as the M tile) when at least
/// 4 rows share the K/V head (grouped-query heads or several query rows):
/// f16 or bf16 (bf16 through nvvm.mma.sync: see mmaSync), D and Dv
/// multiples of 32 up to 128, 16 keys per warp step, no mask operand and no
/// softcap (those stay on CUDA cores), sm_80+. With 1-3 rows the CUDA-core
/// form is faster (15 of the 16 M rows would be idle). H200, same process
/// (bench/RESULTS.md, session 12): GQA 32/8 rows 1.00-1.18x, Sq = 4 2.4x;
/// MHA rows (1 row) 0.94-0.97x, hence the threshold. tensor-cores = false
/// (`allowed`) keeps the CUDA-core form.
/// (AttentionStrategy.cpp; strategyFromAttr recomputes FlashConfig::decodeTC
/// with it.)
bool decodeTensorCores(const FlashConfig &c, const AttentionProblem &p,
                       const AttentionTarget &t, bool allowed = true);

/// Checks the overrides (the pass options); the message names the option.
/// (A strategy's values are checked by strategyFromAttr first.)
LogicalResult checkAttentionChoices(const AttentionTarget &target,
                                    const AttentionChoices &choices,
                                    llvm::function_ref<void(const Twine &)> fail);

/// The strategy: the kernel family and tile sizes for `p` on `target`
/// (defaults measured on the H200, bench/RESULTS.md; docs in Passes.td
/// under tx-attention-to-gpu). std::nullopt after a remark on `diag` when
/// the op is left to the reference lowering; failure after an error when a
/// forced choice cannot work.
FailureOr<std::optional<FlashConfig>>
chooseAttentionKernel(Operation *diag, const AttentionProblem &p,
                      const AttentionTarget &target,
                      const AttentionChoices &choices);

/// A strategy as its typed attribute (#tx.simt_strategy, #tx.mma_strategy,
/// #tx.wgmma_strategy, #tx.decode_strategy; TxAttrs.td) and back. The
/// attribute's verifier has checked its ranges; strategyFromAttr checks what
/// depends on `p` (static sizes, a mask) and recomputes the fields that
/// depend only on the problem.
Attribute strategyToAttr(MLIRContext *ctx, const FlashConfig &cfg);
FailureOr<FlashConfig> strategyFromAttr(AttentionTilingAttr attr,
                                        const AttentionProblem &p,
                                        llvm::function_ref<void(const Twine &)> fail);

/// Whether the kernel of `cfg` (a strategy read by strategyFromAttr) takes
/// `p` on `target`: the table's conditions for each family (element type,
/// head dims, rows of the decode family, a window, the sm_90a chip of wgmma,
/// shared memory) on choices already made, checked one by one; `fail` gets
/// the first rule that does not hold (StrategyAdmission.cpp).
/// tx-map-attention-to-gpu checks the strategy it builds with this, and
/// tx-attention-strategy every strategy it chooses.
LogicalResult checkStrategyAdmits(const FlashConfig &cfg,
                                  const AttentionProblem &p,
                                  const AttentionTarget &target,
                                  llvm::function_ref<void(const Twine &)> fail);

/// A tile staged in shared memory (tx-stage-attention, or upstream's
/// transform.structured.promote_tensor): `materialize_in_destination
/// %source in %buf` with %buf a `bufferization.alloc_tensor` (no copy
/// operand) in `memorySpace` (null when the alloc has none).
struct StagedTile {
  Value source;
  Attribute memorySpace;
};
std::optional<StagedTile> stagedTile(Value v);
/// Whether `space` is `#gpu.address_space<workgroup>` (shared memory).
bool isWorkgroupMemory(Attribute space);
/// `space` as printed, or "no memory space" when null (for diagnostics).
std::string memorySpaceText(Attribute space);
/// The stagings on `v`'s chain of stagings and tensor.extract_slice sources
/// inside `region` (`v`'s own first), up to a value defined outside it.
SmallVector<StagedTile> stagingsInside(Value v, Operation *region);
/// `v` (a ranked tensor) copied into a new tensor of its type in workgroup
/// memory at the builder's insertion point: the staged tile.
Value stageInWorkgroupMemory(OpBuilder &b, Location loc, Value v);

/// The attribute of a key loop that gives its software pipeline: the K/V
/// tiles resident in shared memory at once (tx-pipeline-attention).
inline constexpr llvm::StringLiteral kPipelineStagesAttr = "tx.pipeline_stages";
/// The family's pipeline depth of `cfg`: wgmma `stages`, decode
/// `decodeStages`, 1 for mma.sync and CUDA cores.
int64_t pipelineStagesOf(const FlashConfig &cfg);

/// Emits the kernel of `cfg`'s family for `p` at the builder's insertion
/// point (host code on tensors, before bufferization): sizes (with the
/// shape checks of AttentionShapes.h when `checks`), the output buffers, the
/// gpu.launch. Returns the output tensor and, when requested, the
/// log-sum-exp tensor.
SmallVector<Value> buildAttentionKernel(OpBuilder &b,
                                        const AttentionProblem &p,
                                        const FlashConfig &cfg, bool checks);

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_GPU_ATTENTIONKERNEL_H
