//===- LinalgBuild.h - small builders of the reference lowerings -*- C++ -*-===//
//
// Tensors and elementwise conversions that convert-tx-to-linalg's patterns
// (ConvertTxToLinalg.cpp, ReferenceGrads.cpp) build.
//
// Private to lib/Transformer/Transforms.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_TRANSFORMS_LINALGBUILD_H
#define TRANSFORMER_TRANSFORMS_LINALGBUILD_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tx {

/// Sizes of a tensor as OpFoldResults (static sizes as attributes).
inline SmallVector<OpFoldResult> sizesOf(OpBuilder &b, Location loc, Value t) {
  return tensor::getMixedSizes(b, loc, t);
}

/// `tensor.empty` of the given sizes and element type.
inline Value emptyTensor(OpBuilder &b, Location loc,
                         ArrayRef<OpFoldResult> sizes, Type elt) {
  return tensor::EmptyOp::create(b, loc, sizes, elt);
}

/// `linalg.fill` of a fresh tensor with a float constant.
inline Value filledTensor(OpBuilder &b, Location loc,
                          ArrayRef<OpFoldResult> sizes, Type elt,
                          double value) {
  Value empty = emptyTensor(b, loc, sizes, elt);
  Value cst = arith::ConstantOp::create(b, loc, b.getFloatAttr(elt, value));
  return linalg::FillOp::create(b, loc, cst, empty).getResult(0);
}

/// Elementwise conversion of a float tensor to element type `to`.
inline Value convertElementType(OpBuilder &b, Location loc, Value input,
                                Type to) {
  auto ty = cast<RankedTensorType>(input.getType());
  if (ty.getElementType() == to)
    return input;
  Value init = emptyTensor(b, loc, sizesOf(b, loc, input), to);
  unsigned rank = ty.getRank();
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), input, init, maps, iters,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value c = convertScalarToDtype(nb, nl, args[0], to,
                                       /*isUnsignedCast=*/false);
        linalg::YieldOp::create(nb, nl, c);
      });
  return generic.getResult(0);
}

/// The patterns of the backward ops (tx.softmax_grad, tx.attention_grad;
/// ReferenceGrads.cpp).
void populateReferenceGradPatterns(RewritePatternSet &patterns);

/// The pattern of tx.merge_attention_states (MergeStates.cpp).
void populateMergeStatesPatterns(RewritePatternSet &patterns);

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_TRANSFORMS_LINALGBUILD_H
