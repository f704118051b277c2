//===- AttentionChoiceChecks.cpp - checks of tx.attention's overrides -----===//
//
// checkAttentionChoices: the range and chip checks of the overrides of the
// strategy's choices (the pass options of tx-attention-strategy and
// tx-attention-to-gpu, AttentionChoices), before the strategy
// (AttentionStrategy.cpp) chooses with them.
//
//===----------------------------------------------------------------------===//
#include "GPU/AttentionKernel.h"

using namespace mlir;
using namespace mlir::tx;

LogicalResult
mlir::tx::checkAttentionChoices(const AttentionTarget &t,
                                const AttentionChoices &c,
                                llvm::function_ref<void(const Twine &)> fail) {
  auto bad = [&](const Twine &msg) {
    fail(msg);
    return failure();
  };
  if (t.sm < 50 || t.sm > 130)
    return bad("sm must be a compute capability in [50, 130] (sm_90 -> "
               "90), got " +
               Twine(t.sm));
  if (t.maxSharedMemory < 1)
    return bad("max-shared-memory must be positive, got " +
               Twine(t.maxSharedMemory));
  if (c.mmaRowTiles < 0 || c.mmaRowTiles > 2)
    return bad("mma-row-tiles must be 0 (from the head dim), 1 or 2, got " +
               Twine(c.mmaRowTiles));
  if (c.warps < 0 || c.warps > 32)
    return bad("warps must be 0 (from the kernel) or in [1, 32], got " +
               Twine(c.warps));
  int64_t w = c.warps ? c.warps : 4;
  if (t.wgmma && t.sm != 90)
    return bad("wgmma needs sm = 90 (an sm_90a chip), got sm = " +
               Twine(t.sm));
  if (c.decodeMaxRows < 1 || c.decodeMaxRows > 32)
    return bad("decode-max-rows must be in [1, 32], got " +
               Twine(c.decodeMaxRows));
  if (c.kvSplits < 0 || c.kvSplits > 65536)
    return bad("kv-splits must be 0 (from num-sms) or in [1, 65536], got " +
               Twine(c.kvSplits));
  if (c.decodeCluster < -1 || c.decodeCluster > 16)
    return bad("decode-cluster must be -1 (the strategy's choice), 0 (the "
               "workspace merge) or in [1, 16], got " +
               Twine(c.decodeCluster));
  if (c.decodeCluster > 0 && t.sm < 90)
    return bad("decode-cluster = " + Twine(c.decodeCluster) +
               " needs thread-block clusters (sm >= 90), got sm = " +
               Twine(t.sm));
  if (c.decodeMergeKernel < -1 || c.decodeMergeKernel > 1)
    return bad("decode-merge-kernel must be -1 (the strategy's choice), 0 "
               "(the last CTA merges) or 1 (a merge kernel), got " +
               Twine(c.decodeMergeKernel));
  if (c.decodeMergeKernel == 1 && t.sm < 90)
    return bad("decode-merge-kernel = 1 needs programmatic dependent "
               "launches (griddepcontrol, sm >= 90), got sm = " +
               Twine(t.sm));
  if (c.decodeCluster > 0 && c.kvSplits > c.decodeCluster)
    return bad("kv-splits = " + Twine(c.kvSplits) +
               " is more than decode-cluster = " + Twine(c.decodeCluster) +
               " (the cluster merge takes at most decode-cluster splits; "
               "decode-cluster = 0 merges any number through a workspace)");
  if (t.numSms < 1 || t.numSms > 4096)
    return bad("num-sms must be in [1, 4096], got " + Twine(t.numSms));
  if (c.decodeTileKeys != 0 && c.decodeTileKeys != 16 &&
      c.decodeTileKeys != 32)
    return bad("decode-tile-keys must be 0 (from D), 16 or 32, got " +
               Twine(c.decodeTileKeys));
  if (c.producerWarps != -1 && c.producerWarps != 0 && c.producerWarps != 4)
    return bad("producer-warps must be -1 (the strategy's choice), 0 or 4, "
               "got " +
               Twine(c.producerWarps));
  if (c.stages != 0 && (c.stages < 2 || c.stages > 4))
    return bad("stages must be 0 (the kernel's default) or in [2, 4], got " +
               Twine(c.stages));
  if (c.kvTile != 0 && (c.kvTile < 32 || c.kvTile % 32 != 0 || c.kvTile > 256))
    return bad("kv-tile must be 0 (from the head dim) or a multiple of 32 "
               "in [32, 256], got " +
               Twine(c.kvTile));
  if (c.qTile != 0 && (c.qTile < w || c.qTile % w != 0 || c.qTile / w > 16))
    return bad("q-tile must be 0 (8 rows per warp) or a multiple of warps (" +
               Twine(w) + ") with at most 16 rows per warp, got " +
               Twine(c.qTile));
  return success();
}
