//===- TilingUtils.h - helpers of tx's TilingInterface implementations -*- C++ -*-===//
//
// Shared by the TilingInterface implementations of tx.online_attention
// (OnlineAttention.cpp) and tx.softmax (TileSoftmax.cpp), and by the passes
// that tile or rewrite tx ops one at a time.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_TILINGUTILS_H
#define TRANSFORMER_TILINGUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir {
namespace tx {

/// True when `size` is known to equal dimension `dim` of `tensor`: the same
/// constant, or a `tensor.dim` of that very tensor and dimension.
bool isSizeOf(OpFoldResult size, Value tensor, int64_t dim);

/// `offsets`, with every offset into a dimension of static size 0 (`shape`)
/// made an SSA value: tensor.extract_slice / insert_slice reject a static
/// offset 0 into a zero-size dimension ("offset ... is out-of-bounds:
/// 0 >= 0"), even for an empty slice, and the folders keep such offsets
/// dynamic.
SmallVector<OpFoldResult> zeroDimSafe(OpBuilder &b, Location loc,
                                      ArrayRef<OpFoldResult> offsets,
                                      ArrayRef<int64_t> shape);

/// A tensor of f32 of the given sizes filled with `value` (`linalg.fill` on
/// `tensor.empty`): the initial running state of the online-softmax loops.
Value filledF32(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                double value);

/// Calls `rewrite` on every op of type `OpT` under `root`, collected first
/// (so that `rewrite` may replace or erase them); stops at the first
/// failure. The loop of tx's one-op-at-a-time rewriting passes.
template <typename OpT>
LogicalResult rewriteEach(Operation *root,
                          llvm::function_ref<LogicalResult(OpT)> rewrite) {
  SmallVector<OpT> ops;
  root->walk([&](OpT op) { ops.push_back(op); });
  for (OpT op : ops)
    if (failed(rewrite(op)))
      return failure();
  return success();
}

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_TILINGUTILS_H
