//===- MapAttentionToGPU.cpp - tx.attention's GPU mapping -----------------===//
//
//   tx-map-attention-to-gpu  the tiled IR of tx-tile-attention (or of a
//                            user's transform script) with its strategy
//                            (tx-attention-strategy,
//                            AttentionStrategyPass.cpp) becomes a
//                            gpu.launch: forall -> grid, key loop +
//                            tx.online_attention + epilogue -> the family's
//                            kernel body; the strategy is checked, not
//                            chosen again
//   tx-attention-to-gpu      strategy, tiling, staging, pipelining, mapping
//
//===----------------------------------------------------------------------===//
#include "GPU/AttentionKernel.h"
#include "GPU/Strategy/AttentionKnobs.h"
#include "GPU/TiledAttention.h"
#include "Transformer/GPUTarget.h"
#include "Transformer/AttentionShapes.h"
#include "Transformer/Passes.h"
#include "Transformer/TilingUtils.h"
#include "Transformer/TxOps.h"
#include "Transforms/PagedKv.h"

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
#define GEN_PASS_DEF_TXMAPATTENTIONTOGPU
#define GEN_PASS_DEF_TXATTENTIONTOGPU
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

namespace {

/// The kernels read a paged KV cache in place: when K and V are the
/// gathers of tx-gather-kv-pages from two pools through one page table
/// (with the op's kv_lengths), the problem names the pools and the table.
void readPagesInPlace(AttentionProblem &p) {
  FailureOr<KvPageGather> k = matchKvPageGather(p.key);
  FailureOr<KvPageGather> v = matchKvPageGather(p.value);
  if (failed(k) || failed(v) || k->pageTable != v->pageTable ||
      k->kvLengths != p.kvLengths || v->kvLengths != p.kvLengths)
    return;
  p.keyPages = k->pool;
  p.valuePages = v->pool;
  p.pageTable = k->pageTable;
}

/// Erases the gather that defines `logical` once no kernel reads it: its
/// sizes (tensor.dim) are its destination's.
void eraseUnreadGather(Value logical) {
  auto gather = logical.getDefiningOp<linalg::GenericOp>();
  for (OpOperand &use : llvm::make_early_inc_range(logical.getUses()))
    if (auto dim = dyn_cast<tensor::DimOp>(use.getOwner()))
      dim.getSourceMutable().assign(gather.getDpsInits()[0]);
  if (gather->use_empty())
    gather->erase();
}

//===----------------------------------------------------------------------===//
// tx-map-attention-to-gpu
//===----------------------------------------------------------------------===//

struct TxMapAttentionToGPUPass
    : public tx::impl::TxMapAttentionToGPUBase<TxMapAttentionToGPUPass> {
  using Base::Base;

  static LogicalResult failAt(Operation *op, const Twine &msg) {
    op->emitError("tx-map-attention-to-gpu: ") << msg;
    return failure();
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

  /// The forall's tx.gpu_strategy (tx-attention-strategy's, carried by the
  /// tiling, or a tuner's or a hand-written one), checked: the chip has its
  /// family (checkStrategyChip) and its kernel takes this problem on this
  /// chip (checkStrategyAdmits): a strategy for another chip, element type
  /// or head dim is refused here, not miscompiled or left to LLVM's
  /// instruction selection. The forall's tiles must be the strategy's.
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
    constexpr llvm::StringLiteral pass = "tx-map-attention-to-gpu";
    if (failed(checkPipelineDepth(m, cfg, pass)) ||
        failed(checkPipelineDepthFits(m, cfg, maxSharedMemory, pass)))
      return failure();
    if (pipeStages && cfg.decode)
      cfg.decodeStages = pipeStages;
    else if (pipeStages && cfg.wgmma)
      cfg.stages = pipeStages;
    if (failed(checkStrategyChip(m, cfg)))
      return failure();
    AttentionTarget target;
    target.sm = sm;
    target.wgmma = wgmma;
    target.maxSharedMemory = maxSharedMemory;
    auto refuse = [&](const Twine &msg) {
      (void)fail("its tx.gpu_strategy has no kernel for this problem on "
                 "this chip: " +
                 msg +
                 " (remove the tx.gpu_strategy, or change it to what "
                 "tx-attention-strategy writes for this chip on an op "
                 "without one)");
    };
    if (failed(checkStrategyAdmits(cfg, m.problem, target, refuse)))
      return failure();
    if (cfg.decode
            ? (hT != cfg.decodeG || qT != cfg.decodeSq ||
               (kvT && kvT != cfg.decodeTileKeys))
            : (hT != 1 || cfg.qTile != qT || (kvT && cfg.kvTile != kvT)))
      return fail("the forall's tiles (heads " + Twine(hT) + ", q " +
                  Twine(qT) + ", kv " + Twine(kvT) +
                  ") differ from its tx.gpu_strategy");
    return cfg;
  }

  /// Replaces the forall of a tiled tx.attention (matchTiledAttention) by
  /// the kernel of its strategy.
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

    // The strategy: tx-attention-strategy's (carried by tx-tile-attention,
    // or set on a user's tiling), a tuner's or a hand-written one.
    Attribute any = forall->getAttr(kGpuStrategyAttr);
    auto attr = dyn_cast_or_null<AttentionTilingAttr>(any);
    if (any && !attr)
      return failAt(forall, "its " + Twine(kGpuStrategyAttr) +
                                " is not an attention strategy");
    if (!attr)
      return failAt(forall,
                    "this tiled tx.attention has no " +
                        Twine(kGpuStrategyAttr) +
                        "; run tx-attention-strategy (with this mapping's "
                        "sm, wgmma and max-shared-memory) after the tiling: "
                        "it gives a user's tiling the kernel of its tiles");
    FailureOr<FlashConfig> chosen = configFromStrategy(m, attr);
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
    if (cfg.decode || cfg.mma || cfg.wgmma) // the cp.async families
      readPagesInPlace(p);
    OpBuilder b(forall);
    // Shape checks: already emitted by tx-tile-attention; a user's tiling
    // (kCheckShapesAttr, set by tx-attention-strategy) gets them here.
    SmallVector<Value> res =
        buildAttentionKernel(b, p, cfg, forall->hasAttr(kCheckShapesAttr));
    forall.getResult(resO).replaceAllUsesWith(res[0]);
    if (resL >= 0)
      forall.getResult(resL).replaceAllUsesWith(res[1]);
    forall.erase();
    if (p.pageTable) {
      eraseUnreadGather(p.key);
      eraseUnreadGather(p.value);
    }
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
#define TX_COPY(knob, Knob) s.knob = knob;
    TX_ATTENTION_TARGET_KNOBS(TX_COPY)
    TX_ATTENTION_CHOICE_KNOBS(TX_COPY)
#undef TX_COPY
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
