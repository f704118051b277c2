//===- TilingStrategy.cpp - the strategy of a user's tiling ---------------===//
//
// A tiled tx.attention without a tx.gpu_strategy (a user's transform
// script instead of tx-tile-attention) gets its strategy from
// tx-attention-strategy: the table's kernel (chooseAttentionKernel) whose
// tiles are the forall's and the key loop's. The pipeline-depth rules of
// the key loop, shared with tx-map-attention-to-gpu, are here too.
//
//===----------------------------------------------------------------------===//
#include "GPU/TiledAttention.h"

using namespace mlir;
using namespace mlir::tx;

static LogicalResult failAt(Operation *op, StringRef pass, const Twine &msg) {
  op->emitError(pass) << ": " << msg;
  return failure();
}

LogicalResult mlir::tx::checkPipelineDepth(const TiledAttention &m,
                                           const FlashConfig &c,
                                           StringRef pass) {
  int64_t pipeStages = m.pipelineStages;
  if (!pipeStages)
    return success();
  if (!c.wgmma && !c.decode && pipeStages != 1)
    return failAt(m.keyLoop, pass,
                  "the " + familyName(c) +
                      " family keeps one K and "
                      "one V tile in shared memory: " +
                      Twine(kPipelineStagesAttr) + " must be 1, got " +
                      Twine(pipeStages));
  if ((c.wgmma || c.decode) && pipeStages < 2)
    return failAt(m.keyLoop, pass,
                  "the " + familyName(c) +
                      " family pipelines 2 to 4 "
                      "K/V tiles: " +
                      Twine(kPipelineStagesAttr) + " must be in [2, 4], got " +
                      Twine(pipeStages));
  return success();
}

LogicalResult mlir::tx::checkPipelineDepthFits(const TiledAttention &m,
                                               FlashConfig c,
                                               int64_t maxSharedMemory,
                                               StringRef pass) {
  int64_t pipeStages = m.pipelineStages;
  if (!pipeStages || pipeStages == pipelineStagesOf(c))
    return success();
  (c.decode ? c.decodeStages : c.stages) = pipeStages;
  if (c.smemBytes() <= maxSharedMemory)
    return success();
  return failAt(m.keyLoop, pass,
                Twine(kPipelineStagesAttr) + " = " + Twine(pipeStages) +
                    " needs " + Twine(c.smemBytes()) +
                    " bytes of shared memory for the " + familyName(c) +
                    " family's tiles, more than max-shared-memory = " +
                    Twine(maxSharedMemory));
}

/// A tile of several heads: only the split-KV decode kernel (the G heads
/// of one K/V head and all Sq rows).
static FailureOr<FlashConfig> decodeStrategyForTiling(const TiledAttention &m,
                                                      AttentionTarget target,
                                                      StringRef pass) {
  int64_t hT = m.headTile, qT = m.qTile, kvT = m.kvTile;
  auto fail = [&](const Twine &msg) { return failAt(m.forall, pass, msg); };
  target.wgmma = false;
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
  if (failed(checkPipelineDepth(m, cfg, pass)))
    return failure();
  return cfg;
}

FailureOr<FlashConfig> mlir::tx::strategyForTiling(const TiledAttention &m,
                                                   const AttentionTarget &t,
                                                   StringRef pass) {
  if (m.headTile > 1)
    return decodeStrategyForTiling(m, t, pass);
  int64_t qT = m.qTile, kvT = m.kvTile;
  int64_t pipeStages = m.pipelineStages;
  auto fail = [&](const Twine &msg) { return failAt(m.forall, pass, msg); };
  if (kvT && (kvT < 32 || kvT % 32 != 0 || kvT > 256))
    return fail("the key loop's step " + Twine(kvT) +
                " has no kernel: the kernels take a multiple of 32 in "
                "[32, 256] keys per step");
  AttentionChoices c;
  c.exactQTile = qT;
  c.kvTile = kvT;
  FailureOr<std::optional<FlashConfig>> chosen =
      chooseAttentionKernel(m.tile, m.problem, t, c);
  if (failed(chosen))
    return failure();
  if (!*chosen)
    return fail("no GPU kernel takes this tiled attention");
  FlashConfig cfg = **chosen;
  if (failed(checkPipelineDepth(m, cfg, pass)) ||
      failed(checkPipelineDepthFits(m, cfg, t.maxSharedMemory, pass)))
    return failure();
  if (pipeStages && pipeStages != pipelineStagesOf(cfg)) {
    // The family with the loop's pipeline depth.
    c.stages = pipeStages;
    FailureOr<std::optional<FlashConfig>> again =
        chooseAttentionKernel(m.tile, m.problem, t, c);
    if (failed(again))
      return failure();
    if (!*again || familyName(**again) != familyName(cfg))
      return failAt(m.keyLoop, pass,
                    "no " + familyName(cfg) + " kernel takes " +
                        Twine(kPipelineStagesAttr) + " = " +
                        Twine(pipeStages));
    cfg = **again;
  }
  return cfg;
}
