//===- AttentionStrategyAttr.cpp - the strategy as tx.gpu_strategy --------===//
//
// A chosen FlashConfig as its typed attribute (#tx.simt_strategy,
// #tx.mma_strategy, #tx.wgmma_strategy, #tx.decode_strategy), stored on the
// op by tx-attention-strategy, and back (strategyFromAttr, for
// tx-tile-attention and tx-map-attention-to-gpu), with the checks that
// depend on the problem.
//
//===----------------------------------------------------------------------===//
#include "GPU/AttentionKernel.h"

using namespace mlir;
using namespace mlir::tx;

Attribute mlir::tx::strategyToAttr(MLIRContext *ctx, const FlashConfig &c) {
  if (c.decode)
    return DecodeStrategyAttr::get(
        ctx, c.warps, c.kvSplits, c.numSms, c.decodeStages, c.decodeTileKeys,
        c.decodeTC, c.decodeCluster,
        c.decodeCluster && c.decodeClusterShortOnly, c.decodeMergeKernel);
  if (c.wgmma)
    return WgmmaStrategyAttr::get(ctx, c.warps, c.qTile, c.kvTile, c.stages,
                                  c.producerWarps, c.prefillSplits,
                                  c.prefillSplits == 0 ? c.numSms : 0);
  if (c.mma)
    return MmaStrategyAttr::get(ctx, c.warps, c.qTile, c.kvTile, c.mTiles,
                                c.prefillSplits,
                                c.prefillSplits == 0 ? c.numSms : 0);
  return SimtStrategyAttr::get(ctx, c.warps, c.qTile, c.kvTile);
}

/// The decode family's fields of `c` from `a`, checked against `p`.
static LogicalResult decodeFromAttr(DecodeStrategyAttr a,
                                    const AttentionProblem &p, FlashConfig &c,
                                    llvm::function_ref<void(const Twine &)> bad) {
  auto qTy = cast<RankedTensorType>(p.query.getType());
  int64_t Hkv = cast<RankedTensorType>(p.key.getType()).getDimSize(1);
  if (qTy.isDynamicDim(1) || qTy.isDynamicDim(2) ||
      ShapedType::isDynamic(Hkv) || Hkv < 1) {
    bad("the decode family needs static H, Hkv and Sq");
    return failure();
  }
  c.decode = true;
  c.warps = a.getWarps();
  c.decodeG = qTy.getDimSize(1) / Hkv;
  c.decodeSq = qTy.getDimSize(2);
  c.kvSplits = a.getKvSplits();
  c.numSms = a.getNumSms();
  c.decodeStages = a.getStages();
  c.decodeTileKeys = a.getTileKeys();
  // tensor_cores = true still keeps CUDA cores where the problem does not
  // allow tensor cores.
  AttentionTarget t;
  c.decodeTC = decodeTensorCores(c, p, t, a.getTensorCores());
  c.decodeCluster = a.getCluster();
  if (c.decodeCluster > 0 && c.Dv > 128) {
    bad("'cluster' needs Dv <= 128, got Dv = " + Twine(c.Dv));
    return failure();
  }
  c.decodeClusterShortOnly = a.getClusterShortOnly();
  c.decodeMergeKernel = a.getMergeKernel();
  return success();
}

FailureOr<FlashConfig>
mlir::tx::strategyFromAttr(AttentionTilingAttr attr, const AttentionProblem &p,
                           llvm::function_ref<void(const Twine &)> fail) {
  auto bad = [&](const Twine &msg) {
    fail(Twine(kGpuStrategyAttr) + ": " + msg);
  };
  FlashConfig c;
  c.D = p.D();
  c.Dv = p.Dv();
  c.eltBytes = p.elementType().isF32() ? 4 : 2;
  if (auto d = dyn_cast<DecodeStrategyAttr>(attr)) {
    if (failed(decodeFromAttr(d, p, c, bad)))
      return failure();
    return c;
  }
  if (auto s = dyn_cast<SimtStrategyAttr>(attr)) {
    c.warps = s.getWarps();
  } else if (auto m = dyn_cast<MmaStrategyAttr>(attr)) {
    c.mma = true;
    c.warps = m.getWarps();
    c.mTiles = m.getMTiles();
    c.prefillSplits = m.getKvSplits();
    if (c.prefillSplits == 0)
      c.numSms = m.getNumSms();
  } else {
    auto w = cast<WgmmaStrategyAttr>(attr);
    c.mma = c.wgmma = true;
    c.warps = w.getWarps();
    c.stages = w.getStages();
    c.producerWarps = w.getProducerWarps();
    c.prefillSplits = w.getKvSplits();
    if (c.prefillSplits == 0)
      c.numSms = w.getNumSms();
    if (c.producerWarps && p.mask) {
      bad("'producer_warps' = 4 does not take a mask operand");
      return failure();
    }
  }
  c.qTile = attr.getQueryTileRows();
  c.kvTile = attr.getKeyTileSize();
  c.keyFlags = c.mma && p.mask;
  c.blockSparse = blockSparseKeys(c, p);
  if (c.prefillSplits != 1 && c.Dv % 32 != 0) {
    bad("'kv_splits' = " + Twine(c.prefillSplits) +
        " needs Dv a multiple of 32 (the merge's lanes take Dv / 32 "
        "columns each), got Dv = " + Twine(c.Dv));
    return failure();
  }
  return c;
}
