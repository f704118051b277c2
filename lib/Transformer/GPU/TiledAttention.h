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

/// Matches the tiled IR of `tile` inside `forall`; emits the error (named
/// after `pass`) and fails when it is not a form the kernels take. With
/// `staged` false the staging of Q, K and V in shared memory
/// (tx-stage-attention) is not required yet.
FailureOr<TiledAttention>
matchTiledAttention(scf::ForallOp forall, OnlineAttentionOp tile,
                    StringRef pass = "tx-map-attention-to-gpu",
                    bool staged = true);

/// The discardable unit attribute that tx-attention-strategy sets on the
/// forall of a user's tiling when it gives it a strategy: its shapes were
/// not checked at run time by tx-tile-attention, so the mapping emits the
/// checks (AttentionShapes.h) with the kernel.
inline constexpr llvm::StringLiteral kCheckShapesAttr = "tx.check_shapes";

/// Whether the key loop's pipeline depth (TiledAttention::pipelineStages)
/// suits the family of `c`: 1 for CUDA cores and mma.sync, 2 to 4 for wgmma
/// and decode. The error is at the key loop, named after `pass`.
LogicalResult checkPipelineDepth(const TiledAttention &m,
                                 const FlashConfig &c, StringRef pass);
/// Whether `c` with the key loop's pipeline depth fits in
/// `maxSharedMemory` bytes.
LogicalResult checkPipelineDepthFits(const TiledAttention &m, FlashConfig c,
                                     int64_t maxSharedMemory,
                                     StringRef pass);

/// The strategy of a tiling that has none (a user's transform script): the
/// table's kernel (chooseAttentionKernel) whose tiles are the forall's and
/// the key loop's, with the loop's pipeline depth; a tile of several heads
/// takes the split-KV decode kernel. Errors are at the forall or the key
/// loop, named after `pass` (TilingStrategy.cpp).
FailureOr<FlashConfig> strategyForTiling(const TiledAttention &m,
                                         const AttentionTarget &target,
                                         StringRef pass);

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_GPU_TILEDATTENTION_H
