//===- PrefillSplits.cpp - the split-KV count of the prefill kernels -------===//
//
// FlashConfig::prefillSplits (issue #38): how many key chunks a prefill
// tensor-core call takes, decided by the strategy (chooseAttentionKernel).
// The kernel side (workspace, chunks, merge) is GPU/Kernels/Attention/SplitKv.cpp.
//
//===----------------------------------------------------------------------===//
#include "GPU/AttentionKernel.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tx;

int64_t mlir::tx::prefillSplitCount(int64_t ctas, int64_t sk, int64_t kvTile,
                                    int64_t slots) {
  // (No overflow for any int64 size.)
  auto ceilDiv = [](int64_t x, int64_t y) { return x / y + (x % y != 0); };
  int64_t want = slots / std::max<int64_t>(ctas, 1);
  if (want < 2)
    return 1;
  int64_t n = std::max<int64_t>(
      std::max(std::min(want, ceilDiv(sk, kMinPrefillSplitKeys)),
               ceilDiv(sk, kMaxPrefillSplitKeys)),
      1);
  int64_t keys = std::max(ceilDiv(ceilDiv(sk, n), kvTile) * kvTile, kvTile);
  return std::max<int64_t>(ceilDiv(sk, keys), 1);
}

/// Split-KV for the prefill tensor-core kernels (FlashConfig::prefillSplits)
/// where B * H * query tiles fill at most half of the chip's CTA slots
/// (FlashConfig::prefillSlots): the count of prefillSplitCount,
/// at compile time when B, H, Sq and Sk are static, else at run time
/// (prefillSplits = 0 with the target's SMs). Only on sm_90+ (the merge is
/// a programmatic dependent launch) and for Dv a multiple of 32 (the
/// merge's lanes take Dv / 32 columns each). Besides filling the chip, the
/// short chunks fix issue #38: mma.sync and wgmma add in f32 rounding
/// toward zero, so an O accumulated over 8192 k16 steps of one long row
/// came out about one f16 ulp low (bench/RESULTS.md session 22); chunks
/// of at most 4096 keys merged in f32 by fma.rn drift 0.04 ulp or less.
void mlir::tx::choosePrefillSplits(FlashConfig &cfg, const AttentionProblem &p,
                                   const AttentionTarget &t) {
  cfg.prefillSplits = 1;
  // A mask function takes block sparsity instead (blockSparseKeys).
  if (!cfg.mma || p.maskMod)
    return;
  if (t.sm < 90 || cfg.Dv % 32 != 0)
    return;
  auto qTy = cast<RankedTensorType>(p.query.getType());
  auto kTy = cast<RankedTensorType>(p.key.getType());
  if (qTy.isDynamicDim(0) || qTy.isDynamicDim(1) || qTy.isDynamicDim(2) ||
      kTy.isDynamicDim(2)) {
    cfg.prefillSplits = 0;
    cfg.numSms = t.numSms;
    return;
  }
  int64_t Sq = qTy.getDimSize(2);
  int64_t qTiles = Sq / cfg.qTile + (Sq % cfg.qTile != 0);
  // (Saturated: any grid of more CTAs than fit at once takes one chunk.)
  cfg.numSms = t.numSms;
  int64_t slots = cfg.prefillSlots();
  uint64_t ctas = llvm::SaturatingMultiply<uint64_t>(
      llvm::SaturatingMultiply<uint64_t>(qTy.getDimSize(0),
                                         qTy.getDimSize(1)),
      qTiles);
  cfg.prefillSplits = prefillSplitCount(
      int64_t(std::min<uint64_t>(ctas, slots + 1)), kTy.getDimSize(2),
      cfg.kvTile, slots);
}
