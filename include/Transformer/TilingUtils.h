//===- TilingUtils.h - helpers of tx's TilingInterface implementations -*- C++ -*-===//
//
// Shared by the TilingInterface implementations of tx.online_attention
// (OnlineAttention.cpp) and tx.softmax (TileSoftmax.cpp).
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

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_TILINGUTILS_H
