//===- MapAttentionToGPU.cpp - tx.attention's GPU path: strategy, mapping --===//
//
//   tx-attention-strategy    each tx.attention gets its kernel family and
//                            tiles (chooseAttentionKernel) as tx.gpu_strategy
//   tx-map-attention-to-gpu  the tiled IR of tx-tile-attention (or of a
//                            user's transform script) becomes a gpu.launch:
//                            forall -> grid, key loop + tx.online_attention
//                            + epilogue -> the family's kernel body
//   tx-attention-to-gpu      the two with tx-tile-attention in between
//
//===----------------------------------------------------------------------===//
#include "GPU/AttentionKernel.h"
#include "GPU/TiledAttention.h"
#include "Transformer/GPUTarget.h"
#include "Transformer/AttentionShapes.h"
#include "Transformer/Passes.h"
#include "Transformer/TilingUtils.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include <cmath>
#include <limits>

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXATTENTIONSTRATEGY
#define GEN_PASS_DEF_TXMAPATTENTIONTOGPU
#define GEN_PASS_DEF_TXATTENTIONTOGPU
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

namespace {

//===----------------------------------------------------------------------===//
// tx-attention-strategy
//===----------------------------------------------------------------------===//

struct TxAttentionStrategyPass
    : public tx::impl::TxAttentionStrategyBase<TxAttentionStrategyPass> {
  using Base::Base;
  void runOnOperation() override {
    AttentionTarget target;
    target.sm = sm;
    target.wgmma = wgmma;
    target.maxSharedMemory = maxSharedMemory;
    target.numSms = numSms;
    AttentionChoices c;
    c.warps = warps;
    c.qTile = qTile;
    c.kvTile = kvTile;
    c.stages = stages;
    c.producerWarps = producerWarps;
    c.mmaRowTiles = mmaRowTiles;
    c.tensorCores = tensorCores;
    c.decode = decode;
    c.decodeMaxRows = decodeMaxRows;
    c.kvSplits = kvSplits;
    c.decodeTileKeys = decodeTileKeys;
    c.decodeCluster = decodeCluster;
    c.decodeMergeKernel = decodeMergeKernel;
    auto fail = [&](const Twine &msg) {
      mlir::emitError(getOperation().getLoc(), "tx-attention-to-gpu: ") << msg;
    };
    if (failed(checkAttentionChoices(target, c, fail)))
      return signalPassFailure();
    SmallVector<AttentionOp> ops;
    getOperation().walk([&](AttentionOp op) { ops.push_back(op); });
    for (AttentionOp op : ops) {
      // A strategy already on the op (written by hand or by a tuner, or by
      // an earlier run of this pass) is kept, not replaced by the table's
      // choice: it is checked here against the op, and
      // tx-map-attention-to-gpu checks it against the chip.
      if (Attribute a = op->getAttr(kGpuStrategyAttr)) {
        if (failed(checkKeptStrategy(op, a)))
          return signalPassFailure();
        continue;
      }
      FailureOr<std::optional<FlashConfig>> cfg = chooseAttentionKernel(
          op, AttentionProblem::fromOp(op), target, c);
      if (failed(cfg))
        return signalPassFailure();
      if (*cfg)
        op->setAttr(kGpuStrategyAttr, strategyToAttr(&getContext(), **cfg));
    }
  }

  /// A kept strategy must be an attention strategy that strategyFromAttr
  /// accepts for this op, on an op whose head dims the GPU kernels take.
  static LogicalResult checkKeptStrategy(AttentionOp op, Attribute a) {
    constexpr llvm::StringLiteral kept =
        " (a strategy already on the op is kept, not replaced)";
    auto strategy = dyn_cast<AttentionTilingAttr>(a);
    if (!strategy)
      return op.emitError("tx-attention-strategy: ")
             << kGpuStrategyAttr << " must be an attention strategy, got "
             << a << kept;
    AttentionProblem p = AttentionProblem::fromOp(op);
    int64_t D = p.D(), Dv = p.Dv();
    if (ShapedType::isDynamic(D) || ShapedType::isDynamic(Dv) || D < 1 ||
        Dv < 1 || D > 256 || Dv > 256) {
      auto dim = [](int64_t d) {
        return ShapedType::isDynamic(d) ? std::string("?")
                                        : std::to_string(d);
      };
      return op.emitError("tx-attention-strategy: ")
             << kGpuStrategyAttr
             << " needs static head dims D and Dv in [1, 256], got D = "
             << dim(D) << ", Dv = " << dim(Dv)
             << "; without it the op takes the reference lowering" << kept;
    }
    bool bad = false;
    (void)strategyFromAttr(strategy, p, [&](const Twine &msg) {
      op.emitError("tx-attention-strategy: ") << msg << kept;
      bad = true;
    });
    return failure(bad);
  }
};

//===----------------------------------------------------------------------===//
// tx-map-attention-to-gpu
//===----------------------------------------------------------------------===//

struct TxMapAttentionToGPUPass
    : public tx::impl::TxMapAttentionToGPUBase<TxMapAttentionToGPUPass> {
  using Base::Base;

  static StringRef familyName(const FlashConfig &c) {
    return c.decode ? "decode" : c.wgmma ? "wgmma" : c.mma ? "mma" : "simt";
  }

  static LogicalResult failAt(Operation *op, const Twine &msg) {
    op->emitError("tx-map-attention-to-gpu: ") << msg;
    return failure();
  }

  /// Whether the family of `c` can keep the key loop's pipeline depth of
  /// K/V tiles.
  static LogicalResult checkDepth(const TiledAttention &m,
                                  const FlashConfig &c) {
    int64_t pipeStages = m.pipelineStages;
    if (!pipeStages)
      return success();
    if (!c.wgmma && !c.decode && pipeStages != 1)
      return failAt(m.keyLoop, "the " + familyName(c) +
                                   " family keeps one K and "
                                   "one V tile in shared memory: " +
                                   Twine(kPipelineStagesAttr) +
                                   " must be 1, got " + Twine(pipeStages));
    if ((c.wgmma || c.decode) && pipeStages < 2)
      return failAt(m.keyLoop, "the " + familyName(c) +
                                   " family pipelines 2 to 4 "
                                   "K/V tiles: " +
                                   Twine(kPipelineStagesAttr) +
                                   " must be in [2, 4], got " +
                                   Twine(pipeStages));
    return success();
  }

  /// Whether `c` with the key loop's pipeline depth fits in shared memory.
  LogicalResult checkDepthFits(const TiledAttention &m, FlashConfig c) {
    int64_t pipeStages = m.pipelineStages;
    if (!pipeStages || pipeStages == pipelineStagesOf(c))
      return success();
    (c.decode ? c.decodeStages : c.stages) = pipeStages;
    if (c.smemBytes() <= maxSharedMemory)
      return success();
    return failAt(m.keyLoop,
                  Twine(kPipelineStagesAttr) + " = " + Twine(pipeStages) +
                      " needs " + Twine(c.smemBytes()) +
                      " bytes of shared memory for the " + familyName(c) +
                      " family's tiles, more than max-shared-memory = " +
                      Twine(int64_t(maxSharedMemory)));
  }

  /// Whether the chip has the family (and the decode merge) `cfg` asks for.
  LogicalResult checkStrategyChip(const TiledAttention &m,
                                  const FlashConfig &cfg) {
    auto fail = [&](const Twine &msg) { return failAt(m.forall, msg); };
    if (cfg.wgmma && !wgmma)
      return fail("its tx.gpu_strategy asks for the wgmma family, which "
                  "needs an sm_90a chip (wgmma=true; this mapping targets "
                  "sm = " +
                  Twine(int64_t(sm)) + " without wgmma)");
    if ((cfg.mma || cfg.decode) && sm < 80)
      return fail("its tx.gpu_strategy asks for the " +
                  Twine(cfg.decode ? "decode" : "mma") +
                  " family, which needs sm_80 or newer (this mapping "
                  "targets sm = " +
                  Twine(int64_t(sm)) + ")");
    if (cfg.decode && cfg.decodeCluster > 0 && sm < 90)
      return fail("its tx.gpu_strategy asks for the cluster merge of the "
                  "decode family ('cluster' = " +
                  Twine(cfg.decodeCluster) +
                  "), which needs sm_90 or newer (this mapping targets "
                  "sm = " +
                  Twine(int64_t(sm)) + ")");
    if (cfg.mma && cfg.prefillSplits != 1 && sm < 90)
      return fail("its tx.gpu_strategy asks for split-KV ('kv_splits' = " +
                  Twine(cfg.prefillSplits) +
                  "), whose merge kernel needs sm_90 or newer (this "
                  "mapping targets sm = " +
                  Twine(int64_t(sm)) + ")");
    if (cfg.decode && cfg.decodeMergeKernel && sm < 90)
      return fail("its tx.gpu_strategy asks for the merge kernel of the "
                  "decode family ('merge_kernel'), which needs sm_90 or "
                  "newer (this mapping targets sm = " +
                  Twine(int64_t(sm)) + ")");
    return success();
  }

  /// The choices that force the table to `cfg`.
  static AttentionChoices choicesOf(const FlashConfig &cfg) {
    AttentionChoices ch;
    ch.fromStrategyAttr = true;
    ch.warps = cfg.warps;
    if (cfg.decode) {
      ch.stages = cfg.decodeStages;
      ch.kvSplits = cfg.kvSplits;
      ch.decodeTileKeys = cfg.decodeTileKeys;
      ch.decodeCluster = cfg.decodeCluster;
      ch.decodeClusterShortOnly = cfg.decodeClusterShortOnly;
      ch.decodeMergeKernel = cfg.decodeMergeKernel;
      ch.decodeMaxRows = 32;
      // The form the strategy took (its shared-memory size differs).
      ch.tensorCores = cfg.decodeTC;
    } else {
      ch.decode = false;
      ch.tensorCores = cfg.mma;
      ch.kvTile = cfg.kvTile;
      ch.exactQTile = cfg.qTile;
      if (cfg.mma)
        ch.prefillSplits = cfg.prefillSplits;
      if (cfg.wgmma) {
        ch.stages = cfg.stages;
        ch.producerWarps = cfg.producerWarps;
      }
      else if (cfg.mma)
        ch.mmaRowTiles = cfg.mTiles;
    }
    return ch;
  }

  /// Whether the table's kernel `a` is `cfg`.
  static bool sameKernel(const FlashConfig *a, const FlashConfig &cfg) {
    bool same = a && a->decode == cfg.decode && a->wgmma == cfg.wgmma &&
                a->mma == cfg.mma && a->warps == cfg.warps;
    if (same && cfg.decode)
      same = a->decodeStages == cfg.decodeStages &&
             a->decodeTileKeys == cfg.decodeTileKeys &&
             a->kvSplits == cfg.kvSplits && a->decodeTC == cfg.decodeTC &&
             a->decodeCluster == cfg.decodeCluster &&
             a->decodeClusterShortOnly == cfg.decodeClusterShortOnly &&
             a->decodeMergeKernel == cfg.decodeMergeKernel;
    else if (same)
      same = a->qTile == cfg.qTile && a->kvTile == cfg.kvTile &&
             (!cfg.mma || cfg.wgmma || a->mTiles == cfg.mTiles) &&
             a->prefillSplits == cfg.prefillSplits &&
             (!cfg.wgmma || (a->stages == cfg.stages &&
                             a->producerWarps == cfg.producerWarps));
    return same;
  }

  /// The forall's tx.gpu_strategy (tx-attention-strategy's, carried by the
  /// tiling), checked: it must be one the table makes for this problem on
  /// this chip (with its choices forced): a hand-written or stale strategy
  /// (another chip, another element type or head dim) is refused here, not
  /// miscompiled or left to LLVM's instruction selection. The forall's
  /// tiles must be the strategy's.
  FailureOr<FlashConfig> configFromStrategy(const TiledAttention &m,
                                            AttentionTilingAttr attr) {
    int64_t hT = m.headTile, qT = m.qTile, kvT = m.kvTile;
    int64_t pipeStages = m.pipelineStages;
    auto fail = [&](const Twine &msg) { return failAt(m.forall, msg); };
    auto diag = [&](const Twine &msg) { (void)fail(msg); };
    FailureOr<FlashConfig> c = strategyFromAttr(attr, m.problem, diag);
    if (failed(c))
      return failure();
    FlashConfig cfg = *c;
    if (failed(checkDepth(m, cfg)) || failed(checkDepthFits(m, cfg)))
      return failure();
    if (pipeStages && cfg.decode)
      cfg.decodeStages = pipeStages;
    else if (pipeStages && cfg.wgmma)
      cfg.stages = pipeStages;
    AttentionTarget target;
    target.sm = sm;
    target.wgmma = wgmma && cfg.wgmma;
    target.maxSharedMemory = maxSharedMemory;
    target.numSms = cfg.decode || cfg.prefillSplits == 0
                        ? cfg.numSms
                        : GPUTarget::fromSm(sm).defaultNumSms;
    if (failed(checkStrategyChip(m, cfg)))
      return failure();
    AttentionChoices ch = choicesOf(cfg);
    if (failed(checkAttentionChoices(target, ch, diag)))
      return failure();
    FailureOr<std::optional<FlashConfig>> again =
        chooseAttentionKernel(m.tile, m.problem, target, ch);
    if (failed(again))
      return failure();
    const FlashConfig *a = *again ? &**again : nullptr;
    if (!sameKernel(a, cfg))
      return fail(Twine("its tx.gpu_strategy is not a kernel of this "
                        "problem (element type, head dims, mask, window) "
                        "on this chip; the strategy ") +
                  (a ? "makes family " + familyName(*a) +
                           " with these choices"
                     : Twine("has no kernel for it")) +
                  " (remove the tx.gpu_strategy, or change it to what "
                  "tx-attention-strategy writes for this chip on an op "
                  "without one)");
    if (cfg.decode
            ? (hT != cfg.decodeG || qT != cfg.decodeSq ||
               (kvT && kvT != cfg.decodeTileKeys))
            : (hT != 1 || cfg.qTile != qT || (kvT && cfg.kvTile != kvT)))
      return fail("the forall's tiles (heads " + Twine(hT) + ", q " +
                  Twine(qT) + ", kv " + Twine(kvT) +
                  ") differ from its tx.gpu_strategy");
    return cfg;
  }

  /// A tile of several heads without a strategy: only the split-KV decode
  /// kernel (the G heads of one K/V head and all Sq rows).
  FailureOr<FlashConfig> decodeConfigForTiling(const TiledAttention &m) {
    int64_t hT = m.headTile, qT = m.qTile, kvT = m.kvTile;
    auto fail = [&](const Twine &msg) { return failAt(m.forall, msg); };
    AttentionTarget target;
    target.sm = sm;
    target.maxSharedMemory = maxSharedMemory;
    AttentionChoices c;
    c.decodeTileKeys = kvT;
    c.stages = m.pipelineStages > 1 ? m.pipelineStages : 0;
    if (kvT != 0 && kvT != 16 && kvT != 32)
      return fail("the key loop's step " + Twine(kvT) +
                  " has no decode kernel: it takes 16 or 32 keys per "
                  "warp step");
    FailureOr<std::optional<FlashConfig>> chosen =
        chooseAttentionKernel(m.tile, m.problem, target, c);
    if (failed(chosen))
      return failure();
    if (!*chosen || !(*chosen)->decode || (*chosen)->decodeG != hT ||
        (*chosen)->decodeSq != qT)
      return fail("a tile of " + Twine(hT) + " heads needs the split-KV "
                  "decode kernel: the H / Hkv heads of one K/V head and "
                  "all Sq rows, with static H, Hkv and Sq and "
                  "G * Sq <= 16");
    FlashConfig cfg = **chosen;
    if (failed(checkDepth(m, cfg)))
      return failure();
    return cfg;
  }

  /// A tiling without a strategy (a user's transform script): the kernel
  /// whose tiles are the forall's and the key loop's, with its depth.
  FailureOr<FlashConfig> configForTiling(const TiledAttention &m) {
    if (m.headTile > 1)
      return decodeConfigForTiling(m);
    int64_t qT = m.qTile, kvT = m.kvTile;
    int64_t pipeStages = m.pipelineStages;
    auto fail = [&](const Twine &msg) { return failAt(m.forall, msg); };
    if (kvT && (kvT < 32 || kvT % 32 != 0 || kvT > 256))
      return fail("the key loop's step " + Twine(kvT) +
                  " has no kernel: the kernels take a multiple of 32 in "
                  "[32, 256] keys per step");
    AttentionTarget target;
    target.sm = sm;
    target.wgmma = wgmma;
    target.maxSharedMemory = maxSharedMemory;
    AttentionChoices c;
    c.exactQTile = qT;
    c.kvTile = kvT;
    FailureOr<std::optional<FlashConfig>> chosen =
        chooseAttentionKernel(m.tile, m.problem, target, c);
    if (failed(chosen))
      return failure();
    if (!*chosen)
      return fail("no GPU kernel takes this tiled attention");
    FlashConfig cfg = **chosen;
    if (failed(checkDepth(m, cfg)) || failed(checkDepthFits(m, cfg)))
      return failure();
    if (pipeStages && pipeStages != pipelineStagesOf(cfg)) {
      // The family with the loop's pipeline depth.
      c.stages = pipeStages;
      FailureOr<std::optional<FlashConfig>> again =
          chooseAttentionKernel(m.tile, m.problem, target, c);
      if (failed(again))
        return failure();
      if (!*again || familyName(**again) != familyName(cfg))
        return failAt(m.keyLoop, "no " + familyName(cfg) + " kernel takes " +
                                     Twine(kPipelineStagesAttr) + " = " +
                                     Twine(pipeStages));
      cfg = **again;
    }
    return cfg;
  }

  /// Replaces the forall of a tiled tx.attention (matchTiledAttention) by
  /// the kernel of its strategy, or of its tiles.
  LogicalResult mapForall(scf::ForallOp forall, OnlineAttentionOp tile) {
    FailureOr<TiledAttention> matched = matchTiledAttention(forall, tile);
    if (failed(matched))
      return failure();
    TiledAttention &m = *matched;
    AttentionProblem &p = m.problem;
    int resO = m.outputResult, resL = m.lseResult;
    int64_t pipeStages = m.pipelineStages;
    p.outType = cast<RankedTensorType>(forall.getResult(resO).getType());
    if (resL >= 0)
      p.lseType = cast<RankedTensorType>(forall.getResult(resL).getType());

    // The strategy: the forall's, or one for this tile (a user's tiling).
    Attribute any = forall->getAttr(kGpuStrategyAttr);
    auto attr = dyn_cast_or_null<AttentionTilingAttr>(any);
    if (any && !attr)
      return failAt(forall, "its " + Twine(kGpuStrategyAttr) +
                                " is not an attention strategy");
    FailureOr<FlashConfig> chosen =
        attr ? configFromStrategy(m, attr) : configForTiling(m);
    if (failed(chosen))
      return failure();
    FlashConfig cfg = *chosen;
    // The pipeline the kernel builds is the loop's.
    if (pipeStages && pipelineStagesOf(cfg) != pipeStages)
      return failAt(m.keyLoop, "no " + familyName(cfg) + " kernel takes " +
                                   Twine(kPipelineStagesAttr) + " = " +
                                   Twine(pipeStages));

    // The chip's shared memory per SM (the decode kernel's CTAs per SM).
    cfg.smemPerSm = GPUTarget::fromSm(sm, wgmma).sharedMemoryPerSm;
    OpBuilder b(forall);
    // Shape checks: already emitted by tx-tile-attention; a user's tiling
    // (no strategy) gets them here.
    SmallVector<Value> res = buildAttentionKernel(b, p, cfg, !attr);
    forall.getResult(resO).replaceAllUsesWith(res[0]);
    if (resL >= 0)
      forall.getResult(resL).replaceAllUsesWith(res[1]);
    forall.erase();
    return success();
  }

  void runOnOperation() override {
    if (sm < 50 || sm > 130 || maxSharedMemory < 1) {
      mlir::emitError(getOperation().getLoc(), "tx-map-attention-to-gpu: ")
          << "sm must be a compute capability in [50, 130] and "
             "max-shared-memory positive, got sm = "
          << int64_t(sm) << ", max-shared-memory = "
          << int64_t(maxSharedMemory);
      return signalPassFailure();
    }
    // Tiled attention: every scf.forall that holds a tx.online_attention.
    SmallVector<std::pair<scf::ForallOp, OnlineAttentionOp>> tiles;
    bool bad = false;
    llvm::SmallPtrSet<Operation *, 4> splitReported; // one error per forall
    getOperation().walk([&](OnlineAttentionOp tile) {
      auto forall = tile->getParentOfType<scf::ForallOp>();
      if (forall && forall.getRank() == 1 &&
          forall->getParentOfType<scf::ForallOp>()) {
        bad = true;
        if (!splitReported.insert(forall).second)
          return;
        forall.emitError("tx-map-attention-to-gpu: a tx.online_attention "
                         "in nested scf.foralls (split-KV tiling, "
                         "tx-tile-attention kv-splits > 1, or a second "
                         "tiling of the tile) has no GPU kernel; the decode "
                         "family splits the keys itself");
        return;
      }
      if (!forall) {
        tile.emitError("tx-map-attention-to-gpu: a tx.online_attention "
                       "outside an scf.forall of query tiles has no GPU "
                       "kernel (tile tx.attention with tx-tile-attention)");
        bad = true;
        return;
      }
      for (auto &[f, t] : tiles)
        if (f == forall) {
          forall.emitError("tx-map-attention-to-gpu: one forall holds "
                           "several tx.online_attention ops (split-KV tiling "
                           "has no GPU kernel; the decode kernel takes the "
                           "untiled tx.attention)");
          bad = true;
          return;
        }
      tiles.push_back({forall, tile});
    });
    if (bad)
      return signalPassFailure();
    // A forall that carries an attention strategy but no tile op
    // (decomposed by tx-tile-attention decompose=true).
    WalkResult strat = getOperation().walk([&](scf::ForallOp f) {
      Attribute a = f->getAttr(kGpuStrategyAttr);
      if (!a)
        return WalkResult::advance();
      if (!isa<AttentionTilingAttr>(a))
        return WalkResult::advance(); // a softmax strategy
      bool hasTile = false;
      for (auto &[g, t] : tiles)
        hasTile |= g == f;
      if (!hasTile) {
        f.emitError("tx-map-attention-to-gpu: this scf.forall carries a ")
            << kGpuStrategyAttr
            << " but holds no tx.online_attention (decomposed? tile with "
               "tx-tile-attention decompose=false for the GPU)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (strat.wasInterrupted())
      return signalPassFailure();
    for (auto [forall, tile] : tiles)
      if (failed(mapForall(forall, tile)))
        return signalPassFailure();

    // Untiled ops with a strategy: the tiling step is missing.
    WalkResult r = getOperation().walk([&](AttentionOp op) {
      if (!op->hasAttr(kGpuStrategyAttr))
        return WalkResult::advance(); // the reference lowering
      op.emitError("tx-map-attention-to-gpu: this tx.attention has a ")
          << kGpuStrategyAttr
          << " but is not tiled; run tx-tile-attention from-strategy=true "
             "first (tx-attention-to-gpu runs the whole path)";
      return WalkResult::interrupt();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

//===----------------------------------------------------------------------===//
// tx-attention-to-gpu
//===----------------------------------------------------------------------===//

struct TxAttentionToGPUPass
    : public tx::impl::TxAttentionToGPUBase<TxAttentionToGPUPass> {
  using Base::Base;
  void runOnOperation() override {
    OpPassManager pm(func::FuncOp::getOperationName());
    TxAttentionStrategyOptions s;
    s.warps = warps;
    s.qTile = qTile;
    s.kvTile = kvTile;
    s.tensorCores = tensorCores;
    s.sm = sm;
    s.wgmma = wgmma;
    s.stages = stages;
    s.producerWarps = producerWarps;
    s.mmaRowTiles = mmaRowTiles;
    s.maxSharedMemory = maxSharedMemory;
    s.decode = decode;
    s.decodeMaxRows = decodeMaxRows;
    s.kvSplits = kvSplits;
    s.decodeTileKeys = decodeTileKeys;
    s.decodeCluster = decodeCluster;
    s.decodeMergeKernel = decodeMergeKernel;
    s.numSms = numSms;
    pm.addPass(createTxAttentionStrategy(s));
    TxTileAttentionOptions t;
    t.fromStrategy = true;
    t.decompose = false;
    pm.addPass(createTxTileAttention(t));
    pm.addPass(createTxStageAttention());
    pm.addPass(createTxPipelineAttention());
    TxMapAttentionToGPUOptions m;
    m.sm = sm;
    m.wgmma = wgmma;
    m.maxSharedMemory = maxSharedMemory;
    pm.addPass(createTxMapAttentionToGPU(m));
    if (failed(runPipeline(pm, getOperation())))
      signalPassFailure();
  }
};

} // namespace
