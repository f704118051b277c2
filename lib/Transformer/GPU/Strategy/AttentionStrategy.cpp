//===- AttentionStrategy.cpp - kernel family and tiles of tx.attention ----===//
//
// The one place where the GPU path of tx.attention chooses: which kernel
// family (CUDA cores, mma.sync, wgmma, split-KV decode) and which tile sizes,
// warps and pipeline stages, for the chip, element type, head dims and mask.
// The defaults were measured on the H200 (bench/RESULTS.md, sessions 4-5);
// the pass options override them. tx-attention-strategy stores the choice
// on the op (`tx.gpu_strategy`), tx-tile-attention tiles with it and
// tx-map-attention-to-gpu builds the kernel from it: a tuner fills this
// table, nothing else.
//
// The option checks are in AttentionChoiceChecks.cpp, the strategy attribute
// (strategyToAttr, strategyFromAttr) in AttentionStrategyAttr.cpp.
//
//===----------------------------------------------------------------------===//
#include "GPU/AttentionKernel.h"
#include "Transforms/PagedKv.h"

#include "mlir/IR/Diagnostics.h"
#include <cmath>

using namespace mlir;
using namespace mlir::tx;

//===----------------------------------------------------------------------===//
// AttentionProblem
//===----------------------------------------------------------------------===//

AttentionProblem AttentionProblem::fromOp(AttentionOp op) {
  AttentionProblem p{op.getLoc()};
  p.query = op.getQuery();
  p.key = op.getKey();
  p.value = op.getValue();
  p.mask = op.getMask();
  p.kvLengths = op.getKvLengths();
  p.qLengths = op.getQLengths();
  int64_t D = op.getQuery().getType().getDimSize(3);
  p.scale = op.getStaticScale().value_or(
      1.0 / std::sqrt(static_cast<double>(D)));
  p.causal = op.getCausal();
  p.window = op.getWindowAttr();
  p.softcap = op.getSoftcapAttr();
  p.outType = op.getResult().getType();
  if (Value l = op.getLse())
    p.lseType = cast<RankedTensorType>(l.getType());
  p.readMods(op);
  return p;
}

Type AttentionProblem::elementType() const {
  return cast<RankedTensorType>(query.getType()).getElementType();
}
int64_t AttentionProblem::D() const {
  return cast<RankedTensorType>(query.getType()).getDimSize(3);
}
int64_t AttentionProblem::Dv() const {
  return cast<RankedTensorType>(value.getType()).getDimSize(3);
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

bool mlir::tx::decodeTensorCores(const FlashConfig &c,
                                 const AttentionProblem &p,
                                 const AttentionTarget &t, bool allowed) {
  Type elt = p.elementType();
  return allowed && t.sm >= 80 && (elt.isF16() || elt.isBF16()) && c.D % 32 == 0 &&
         c.Dv % 32 == 0 && c.D <= 128 && c.Dv <= 128 &&
         c.decodeTileKeys == 16 && c.decodeRows() >= 4 &&
         c.decodeRows() <= 16 && !p.mask && !p.softcap && !p.hasMods();
}

bool mlir::tx::blockSparseKeys(const FlashConfig &c,
                               const AttentionProblem &p) {
  return p.maskMod && !p.mask && !p.causal && !p.window && !p.kvLengths &&
         !p.qLengths && !p.pageTable && !c.decode && c.prefillSplits == 1;
}

namespace {
struct Chooser {
  const AttentionTarget &t;
  const AttentionChoices &c;

  /// CUDA-core kernel: the options where given, else the defaults
  /// documented in Passes.td.
  FlashConfig simtConfig(int64_t D, int64_t Dv) {
    FlashConfig cfg;
    cfg.D = D;
    cfg.Dv = Dv;
    cfg.warps = c.warps ? c.warps : 4;
    int64_t widest = std::max(D, Dv);
    cfg.kvTile = c.kvTile ? c.kvTile : (widest > 128 ? 32 : 64);
    cfg.qTile = c.qTile ? c.qTile : (widest > 128 ? 4 : 8) * cfg.warps;
    return cfg;
  }

  /// The tensor-core configuration, when (elt, D, Dv) allow it: f16 or
  /// bf16, D and Dv multiples of 16 up to 128 (Q and O fragments stay in
  /// registers); 16 query rows per warp.
  std::optional<FlashConfig> mmaConfig(Type elt, int64_t D, int64_t Dv) {
    // mma.sync m16n8k16 with f16 or bf16 (bf16 through nvvm.mma.sync: see
    // mmaSync) and cp.async need sm_80.
    if (!c.tensorCores || t.sm < 80 || !(elt.isF16() || elt.isBF16()) ||
        D % 16 != 0 || Dv % 16 != 0 || D > 128 || Dv > 128)
      return std::nullopt;
    FlashConfig cfg;
    cfg.mma = true;
    cfg.eltBytes = 2;
    cfg.D = D;
    cfg.Dv = Dv;
    // sm_90a: the warpgroup kernel for head dims of one or two 128-byte
    // swizzle atoms. Defaults: see Passes.td (measured on the H200).
    if (t.wgmma && t.sm == 90 && (D == 64 || D == 128) &&
        (Dv == 64 || Dv == 128)) {
      // H200 sweep (bench/RESULTS.md, session 5): 128 keys per step; one
      // warpgroup per CTA at head dims <= 64 (2-3 CTAs per SM: 1.0-1.35x
      // the 2-warpgroup CTA), two above (ping-pong inside the CTA: 1.1-1.2x
      // the 1-warpgroup CTA at D = 128).
      cfg.wgmma = true;
      cfg.warps = c.warps ? c.warps : (std::max(D, Dv) <= 64 ? 4 : 8);
      if (c.exactQTile) {
        if (c.exactQTile % 64 != 0 || c.exactQTile > 128)
          return std::nullopt;
        cfg.warps = c.exactQTile / 16;
      }
      cfg.qTile = 16 * cfg.warps;
      cfg.kvTile = c.kvTile ? c.kvTile : 128;
      cfg.stages = c.stages ? c.stages : 2;
      return cfg;
    }
    // Defaults measured on the H200 (bench/RESULTS.md, session 4 sweep): 2
    // m16 tiles per warp (32 query rows: each K/V fragment read from shared
    // memory feeds 2 mma, which halves the shared-memory traffic per FLOP)
    // and 8 warps (256 query rows per CTA); 64 keys per step for head dims
    // <= 64, 32 above (64 keys spill at D = 128). This beat 1 tile x 8 warps
    // by 1.3-1.4x at D = 128 and 2 tiles x 4 warps by 1.1x at D = 64.
    bool narrow = std::max(D, Dv) <= 64;
    cfg.mTiles = c.mmaRowTiles ? c.mmaRowTiles : 2;
    cfg.warps = c.warps ? c.warps : 8;
    if (c.exactQTile) {
      // The user's tile: 32 rows per warp where it divides, else 16.
      int64_t q = c.exactQTile;
      if (q % 32 == 0 && q / 32 <= 8 && !c.mmaRowTiles)
        cfg.mTiles = 2;
      else if (q % 16 == 0 && q / 16 <= 16 && !c.mmaRowTiles)
        cfg.mTiles = 1;
      if (q % (16 * cfg.mTiles) != 0)
        return std::nullopt;
      cfg.warps = q / (16 * cfg.mTiles);
      if (cfg.warps > 16)
        return std::nullopt;
    }
    cfg.qTile = 16 * cfg.mTiles * cfg.warps;
    cfg.kvTile = c.kvTile ? c.kvTile : (narrow ? 64 : 32);
    return cfg;
  }

  /// The split-KV decode configuration, when the op qualifies: few query
  /// rows per K/V head (G * Sq <= decode-max-rows, all three static), D a
  /// whole number of 16-byte loads, Dv = 32 * a power of two up to 256.
  std::optional<FlashConfig> decodeConfig(const AttentionProblem &p, Type elt,
                                          int64_t D, int64_t Dv) {
    // cp.async: sm_80. Sliding windows take the flash kernels (which skip
    // the key tiles outside the window). A user's tile of query rows
    // (exactQTile) is a flash kernel's grid; a user's tile of H / Hkv heads
    // asks for this kernel (tx-map-attention-to-gpu).
    if (!c.decode || t.sm < 80 || p.window || c.exactQTile)
      return std::nullopt;
    auto qTy = cast<RankedTensorType>(p.query.getType());
    int64_t H = qTy.getDimSize(1);
    int64_t Sq = qTy.getDimSize(2);
    int64_t Hkv = cast<RankedTensorType>(p.key.getType()).getDimSize(1);
    if (ShapedType::isDynamic(H) || ShapedType::isDynamic(Sq) ||
        ShapedType::isDynamic(Hkv) || Hkv < 1 || H % Hkv != 0 || Sq < 1)
      return std::nullopt;
    int64_t G = H / Hkv;
    // (G and Sq each checked first: their product can overflow int64.)
    if (G > c.decodeMaxRows || Sq > c.decodeMaxRows ||
        G * Sq > c.decodeMaxRows)
      return std::nullopt;
    if (!(elt.isF16() || elt.isBF16() || elt.isF32()))
      return std::nullopt;
    int64_t eltBytes = elt.isF32() ? 4 : 2;
    if (D % (16 / eltBytes) != 0 || D > 256 ||
        !(Dv == 32 || Dv == 64 || Dv == 128 || Dv == 256))
      return std::nullopt;
    FlashConfig cfg;
    cfg.decode = true;
    cfg.D = D;
    cfg.Dv = Dv;
    cfg.eltBytes = eltBytes;
    cfg.decodeG = G;
    cfg.decodeSq = Sq;
    cfg.kvSplits = c.kvSplits;
    cfg.numSms = t.numSms;
    // Keys per warp step: 16 (two lanes per key, half of D each) where D
    // splits into whole 16-byte loads, else 32; each warp runs a cp.async
    // pipeline of `stages` steps (default 3). Defaults that do not fit
    // max-shared-memory shrink: fewer stages, then fewer warps; forced
    // values that do not fit are an error (chooseAttentionKernel).
    cfg.warps = c.warps ? c.warps : 4;
    cfg.decodeTileKeys = c.decodeTileKeys ? c.decodeTileKeys
                         : D % (2 * (16 / eltBytes)) == 0 ? 16
                                                          : 32;
    cfg.decodeTC = decodeTensorCores(cfg, p, t, c.tensorCores);
    cfg.decodeStages = c.stages ? c.stages : 3;
    cfg.decodeCluster = c.decodeCluster > 0 ? c.decodeCluster : 0;
    // The workspace merge as a second kernel, launched as a programmatic
    // dependent (PDL) of the split kernel, by default on sm_90+: no arrival
    // counters, no memset before the launch, no fence and ticket in the
    // split kernel (bench/RESULTS.md session 20).
    cfg.decodeMergeKernel =
        c.decodeMergeKernel < 0 ? t.sm >= 90 : c.decodeMergeKernel == 1;
    while (cfg.decodeSmemBytes() > t.maxSharedMemory && !c.stages &&
           cfg.decodeStages > 2)
      --cfg.decodeStages;
    while (cfg.decodeSmemBytes() > t.maxSharedMemory && !c.warps &&
           cfg.warps > 1)
      cfg.warps /= 2;
    // Defaults that still do not fit: the flash kernels instead.
    if (cfg.decodeSmemBytes() > t.maxSharedMemory && !c.warps && !c.stages &&
        !c.decodeTileKeys)
      return std::nullopt;
    if (c.decodeCluster < 0) {
      cfg.decodeCluster = defaultDecodeCluster(cfg, p);
      cfg.decodeClusterShortOnly = cfg.decodeCluster > 0;
    }
    return cfg;
  }

  /// The cluster merge by default on sm_90+, for short calls only (chosen
  /// at run time, emitDecode): the CTAs of one (batch, K/V head), at most 8
  /// splits, merge their parts through distributed shared memory after a
  /// cluster barrier, instead of a workspace in global memory, a memset of
  /// arrival counters and the last CTA's round trip (H200: those cost
  /// about 4 us of a B = 1 decode call at Sk 2048, where the call takes
  /// 8.5 us; but cluster launches ran fewer CTAs per SM, so longer or wider
  /// calls keep the workspace; bench/RESULTS.md session 19). 8, the
  /// portable size: 16 measured slower (7.8 vs 6.7 us on that row). Not
  /// taken: a forced kv-splits, per-sequence lengths (their finer chunks
  /// even out unequal sequences), Dv above 128 (the merge holds every
  /// part's O row in registers), or when the cluster form does not fit.
  int64_t defaultDecodeCluster(const FlashConfig &cfg,
                               const AttentionProblem &p) const {
    if (t.sm < 90 || p.kvLengths || p.qLengths || cfg.Dv > 128 ||
        cfg.kvSplits > 0)
      return 0;
    FlashConfig with = cfg;
    with.decodeCluster = 8;
    if (with.decodeSmemBytes() > t.maxSharedMemory)
      return 0;
    // Static sizes that can never make a short call (B * Hkv * 8 <=
    // num-sms / 2, Sk <= 2048; emitDecode) leave out the cluster form.
    auto kTy = cast<RankedTensorType>(p.key.getType());
    int64_t bMin = kTy.isDynamicDim(0) ? 1 : kTy.getDimSize(0);
    int64_t sk = kTy.getDimSize(2);
    if (bMin * kTy.getDimSize(1) * 8 > t.numSms / 2 ||
        (!ShapedType::isDynamic(sk) && sk > 256 * 8))
      return 0;
    return 8;
  }
};
} // namespace

/// The prefix of chooseAttentionKernel's errors: the option names are
/// those of tx-attention-to-gpu, which tx-attention-strategy shares.
static constexpr const char *kPfx = "tx-attention-to-gpu: ";

/// The decode kernel's constraints on the chosen (or forced) choices.
static LogicalResult checkDecodeConfig(Operation *op, const FlashConfig *dc,
                                       int64_t D, int64_t Dv,
                                       const AttentionTarget &t) {
  const char *pfx = kPfx;
  if (dc->decodeTileKeys == 16 && D % (2 * (16 / dc->eltBytes)) != 0) {
    op->emitError(pfx)
        << "decode-tile-keys = 16 splits D over two lanes and needs D to be a multiple of "
        << 2 * (16 / dc->eltBytes) << ", got D = " << D;
    return failure();
  }
  if (dc->decodeCluster > 0 && Dv > 128) {
    op->emitError(pfx)
        << "decode-cluster = " << dc->decodeCluster
        << " needs Dv <= 128 (the cluster merge holds every split's O row "
           "in registers), got Dv = "
        << Dv << "; decode-cluster = 0 merges through a workspace";
    return failure();
  }
  if (dc->decodeSmemBytes() > t.maxSharedMemory) {
    op->emitError(pfx)
        << "the decode kernel needs " << dc->decodeSmemBytes()
        << " bytes of shared memory (warps " << dc->warps << ", stages "
        << dc->decodeStages << ", "
        << "decode-tile-keys " << dc->decodeTileKeys << ", G * Sq "
        << dc->decodeRows() << ", D " << D << ", Dv " << Dv
        << "), more than max-shared-memory = " << t.maxSharedMemory;
    return failure();
  }
  return success();
}

/// A user's query tile on CUDA cores (AttentionChoices::exactQTile): 4
/// warps where they divide it (at most 16 rows each), else one warp per row
/// up to 32.
static LogicalResult applyExactQTile(Operation *op, FlashConfig &cfg,
                                     const AttentionChoices &c, int64_t D,
                                     int64_t Dv, Type elt) {
  if (!c.exactQTile || cfg.mma)
    return success();
  int64_t q = c.exactQTile;
  cfg.qTile = q;
  if (!c.warps)
    cfg.warps = q % 4 == 0 && q / 4 <= 16 ? 4 : q <= 32 ? q : 0;
  if (!cfg.warps || q % cfg.warps != 0 || q / cfg.warps > 16) {
    op->emitError("tx-attention-strategy: no kernel takes a query tile of ")
        << q << " rows with D = " << D << ", Dv = " << Dv << " ("
        << elt << "): the CUDA-core kernel needs a multiple of its warps "
        << "with at most 16 rows per warp; the tensor-core kernels (f16/"
           "bf16, head dims multiples of 16 up to 128) take multiples of "
           "16 rows";
    return failure();
  }
  return success();
}

/// The wgmma family's measured defaults: 64 keys per step with a mask
/// operand above head dim 64 or with softcap and causal at head dims <=
/// 64, and the producer warpgroup.
static void tuneWgmma(FlashConfig &cfg, const AttentionProblem &p,
                      const AttentionChoices &c, const AttentionTarget &t,
                      int64_t D, int64_t Dv) {
  // wgmma with a mask operand above head dim 64: the mask's loads and
  // predicates spill registers with 128 keys per step (176 bytes at
  // D = 128, Dv = 64); 64 keys do not.
  if (cfg.wgmma && p.mask && !c.kvTile && std::max(D, Dv) > 64)
    cfg.kvTile = 64;
  // Softcap at head dims <= 64 with causal: 64 keys per step (108
  // registers instead of 158: four CTAs of one warpgroup per SM instead
  // of three, more warps to hide the longer softmax). H200, same process,
  // bench/RESULTS.md session 18: 1.03-1.09x; without causal 0.99-1.03x,
  // uncapped 0.82-1.04x, so only here.
  if (cfg.wgmma && p.softcap && p.causal && !p.mask && !c.kvTile &&
      std::max(D, Dv) <= 64)
    cfg.kvTile = 64;
  // wgmma: warp specialization (a producer warpgroup issues the K/V copies
  // and signals them through mbarriers). The mask's key visibility flags
  // are computed by every warp between CTA barriers, so ops with a mask
  // keep producer-warps = 0 (as the option's help says). Default: on where
  // it was measured faster, two consumer warpgroups at D = Dv = 128 with
  // 128 keys per step, static Sq and Sk, without window or per-sequence
  // lengths, and without causal unless capped, with 3 stages (2 where 3 do
  // not fit; off where neither fits at these tiles). H200, same process,
  // bench/RESULTS.md session 15: 1.06-1.07x there; causal 0.94-1.06x, one
  // consumer warpgroup (D = 64) 0.5-0.8x, 2 stages 0.95-0.98x; session 16:
  // with softcap 1.05-1.07x (although its consumers spill 0-16 bytes at
  // 240 registers); session 18: causal with softcap 1.01-1.08x (44-48
  // bytes of spills); lengths and dynamic shapes not timed. K/V read from
  // a paged cache of a static page size (#43): on whatever the lengths,
  // causal or shapes (not with a window), since the page lookups then
  // leave the compute warps; H100, same process, session 34: 0.87-0.90x of
  // the contiguous chunked prefill instead of 0.71-0.77x (bench/RESULTS.md).
  // A dynamic page size looks each row's page up, which spills 2.8 KB in
  // the producers' 24 registers: those keep every warp copying.
  if (cfg.wgmma && !p.mask) {
    auto qTy = cast<RankedTensorType>(p.query.getType());
    auto kTy = cast<RankedTensorType>(p.key.getType());
    FailureOr<KvPageGather> pages = matchKvPageGather(p.key);
    bool paged = succeeded(pages) &&
                 !cast<ShapedType>(pages->pool.getType()).isDynamicDim(1);
    bool contiguousForm = (!p.causal || p.softcap) && !p.kvLengths &&
                          !p.qLengths && qTy.hasStaticShape() &&
                          kTy.hasStaticShape();
    if (c.producerWarps >= 0) {
      cfg.producerWarps = c.producerWarps;
      if (cfg.producerWarps && !c.stages)
        cfg.stages = 3; // 2 when 3 do not fit (below)
    } else if (cfg.warps == 8 && cfg.kvTile == 128 && D == 128 &&
               Dv == 128 && !p.window && (paged || contiguousForm)) {
      cfg.producerWarps = 4;
      if (!c.stages)
        cfg.stages = 3;
      if (cfg.smemBytes() > t.maxSharedMemory && !c.stages)
        cfg.stages = 2;
      if (cfg.smemBytes() > t.maxSharedMemory) {
        cfg.producerWarps = 0;
        cfg.stages = c.stages ? c.stages : 2;
      }
    }
  }
}

/// Default tiles that do not fit the chip's shared memory shrink; forced
/// ones are an error. Returns false (after a remark) when even the
/// smallest default tiles do not fit: the op takes the reference lowering.
static FailureOr<bool> fitSharedMemory(Operation *op, FlashConfig &cfg,
                                       const AttentionChoices &c,
                                       const AttentionTarget &t, int64_t D,
                                       int64_t Dv) {
  const char *pfx = kPfx;
  // Default tiles that do not fit the chip's shared memory shrink (32
  // keys, then 4 rows per warp on CUDA cores); forced ones are an error.
  // (wgmma: halve 128 -> 64 -> 32 keys.)
  int64_t maxSmem = t.maxSharedMemory;
  if (cfg.wgmma && cfg.smemBytes() > maxSmem && !c.stages && cfg.stages > 2)
    cfg.stages = 2;
  while (cfg.wgmma && cfg.smemBytes() > maxSmem && !c.kvTile &&
         cfg.kvTile > 32)
    cfg.kvTile /= 2;
  if (cfg.smemBytes() > maxSmem && !c.kvTile && cfg.kvTile > 32)
    cfg.kvTile = 32;
  if (cfg.smemBytes() > maxSmem && !c.qTile && !c.exactQTile && !cfg.mma &&
      cfg.rowsPerWarp() > 4)
    cfg.qTile = 4 * cfg.warps;
  // Tensor cores: 4 warps (half the query rows) when 8 do not fit.
  if (cfg.smemBytes() > maxSmem && !c.warps && !c.exactQTile && cfg.mma &&
      cfg.warps > 4) {
    cfg.warps = 4;
    cfg.qTile = 16 * cfg.mTiles * cfg.warps;
  }
  if (cfg.smemBytes() > maxSmem && !c.kvTile && !c.qTile && !c.exactQTile) {
    op->emitRemark("tx-attention-to-gpu: the smallest default tiles need ")
        << cfg.smemBytes() << " bytes of shared memory, more than "
        << maxSmem << "; this op is left to the reference lowering";
    return false;
  }
  if (cfg.smemBytes() > maxSmem) {
    op->emitError(pfx) << "the tiles need " << cfg.smemBytes()
                       << " bytes of shared memory ("
                       << "q-tile " << cfg.qTile << ", kv-tile "
                       << cfg.kvTile << ", D " << D << ", Dv " << Dv
        << (cfg.wgmma ? ", stages " + std::to_string(cfg.stages) : "")
        << "), more than max-shared-memory = " << maxSmem;
    return failure();
  }
  return true;
}

FailureOr<std::optional<FlashConfig>>
mlir::tx::chooseAttentionKernel(Operation *op, const AttentionProblem &p,
                                const AttentionTarget &t,
                                const AttentionChoices &c) {
  using Result = std::optional<FlashConfig>;
  int64_t D = p.D(), Dv = p.Dv();
  if (ShapedType::isDynamic(D) || ShapedType::isDynamic(Dv) || D < 1 ||
      Dv < 1 || D > 256 || Dv > 256) {
    op->emitRemark("tx-attention-to-gpu: head dims D and Dv must be static "
                   "and in [1, 256] for the flash kernel; this op is left "
                   "to the reference lowering");
    return Result();
  }
  Chooser ch{t, c};
  Type elt = p.elementType();
  if (std::optional<FlashConfig> dc = ch.decodeConfig(p, elt, D, Dv)) {
    if (failed(checkDecodeConfig(op, &*dc, D, Dv, t)))
      return failure();
    return Result(*dc);
  }
  FlashConfig cfg = ch.mmaConfig(elt, D, Dv).value_or(ch.simtConfig(D, Dv));
  // Checked here, for ops that take the wgmma kernel, not as an option rule:
  // the decode and CUDA-core kernels of the same module take any count.
  if (cfg.wgmma && c.warps % 4 != 0) {
    op->emitError(kPfx) << "warps must be a multiple of 4 "
                                "(whole warpgroups) with wgmma, got "
                             << c.warps << " (this op takes the wgmma kernel)";
    return failure();
  }
  if (failed(applyExactQTile(op, cfg, c, D, Dv, elt)))
    return failure();
  // Tensor cores with a mask: per-tile key visibility flags, so that
  // keys the mask hides from every row of a CTA are never read.
  cfg.keyFlags = cfg.mma && p.mask;
  tuneWgmma(cfg, p, c, t, D, Dv);
  FailureOr<bool> fits = fitSharedMemory(op, cfg, c, t, D, Dv);
  if (failed(fits))
    return failure();
  if (!*fits)
    return Result();
  choosePrefillSplits(cfg, p, t);
  return Result(cfg);
}
