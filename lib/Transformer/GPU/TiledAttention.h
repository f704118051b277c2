//===- TiledAttention.h - the tiled attention IR, matched --------*- C++ -*-===//
//
// tx-map-attention-to-gpu's input: the scf.forall over (B, H, Sq) query
// tiles that tx-tile-attention (or a user's transform script) makes, with
// its optional scf.for over key tiles around one tx.online_attention, the
// staging of its operands (tx-stage-attention) and the epilogue that writes
// O and the LSE. matchTiledAttention checks that structure and reads the
// tiles, the loop's pipeline depth and the problem (the whole tensors and
// the tile op's attributes); each mismatch is an error at the forall (or at
// the key loop, for its attributes) that says what was expected.
//
// Private to lib/Transformer.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_GPU_TILEDATTENTION_H
#define TRANSFORMER_GPU_TILEDATTENTION_H

#include "GPU/AttentionKernel.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace tx {

/// One matched tiled tx.attention.
struct TiledAttention {
  scf::ForallOp forall;
  OnlineAttentionOp tile;
  scf::ForOp keyLoop;                 // null: no key loop (one key tile)
  SmallVector<OpFoldResult> qOffsets; // Q tile offsets (b, h, row, 0)
  int64_t headTile = 1;               // heads per CTA (decode: H / Hkv)
  int64_t qTile = 0;                  // query rows per CTA
  int64_t kvTile = 0;                 // keys per step, 0 without a key loop
  int64_t pipelineStages = 0;         // the key loop's; 0 = the strategy's
  int outputResult = -1, lseResult = -1; // forall results of O and the LSE
  AttentionProblem problem;

  explicit TiledAttention(Location loc) : problem{loc} {}
};

/// Matches the tiled IR of `tile` inside `forall`; emits the error and
/// fails when it is not a form the kernels take.
FailureOr<TiledAttention> matchTiledAttention(scf::ForallOp forall,
                                              OnlineAttentionOp tile);

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_GPU_TILEDATTENTION_H
