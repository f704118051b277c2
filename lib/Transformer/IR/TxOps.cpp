//===- TxOps.cpp - tx operations: verifiers and shape reification ---------===//
//
// Every rule that the op descriptions in TxOps.td state is checked here
// wherever the sizes involved are static; test/Dialect/invalid.mlir pins each
// message.
//
//===----------------------------------------------------------------------===//
#include "Transformer/TxOps.h"
#include "IR/AttentionSyntax.h"
#include "IR/VerifyHelpers.h"
#include "Transformer/AttentionShapes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>
#include <cstdlib>

using namespace mlir;
using namespace mlir::tx;

#define GET_OP_CLASSES
#include "Transformer/TxOps.cpp.inc"

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

int64_t SoftmaxOp::getNormalizedDim() {
  int64_t rank = getInput().getType().getRank();
  int64_t dim = getDim();
  return dim < 0 ? dim + rank : dim;
}

LogicalResult SoftmaxOp::verify() {
  if (failed(verifyNoUnknownAttributes(*this, getAttributeNames())))
    return failure();
  int64_t rank = getInput().getType().getRank();
  if (rank < 1)
    return emitOpError("expects an input of rank >= 1, got rank 0");
  int64_t dim = getDim();
  if (dim < -rank || dim >= rank)
    return emitOpError() << "dim " << dim << " is out of range [" << -rank
                         << ", " << rank << ") for an input of rank " << rank;
  return success();
}

LogicalResult
SoftmaxOp::reifyResultShapes(OpBuilder &builder,
                             ReifiedRankedShapedTypeDims &reifiedReturnShapes) {
  reifiedReturnShapes.push_back(
      tensor::getMixedSizes(builder, getLoc(), getInput()));
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

std::optional<double> AttentionOp::getStaticScale() {
  return staticScale(getScaleAttr(), getQuery().getType());
}

LogicalResult AttentionOp::verify() {
  if (failed(verifyNoUnknownAttributes(*this, getAttributeNames())))
    return failure();
  auto qTy = getQuery().getType();
  auto kTy = getKey().getType();
  auto vTy = getValue().getType();
  auto oTy = getResult().getType();
  if (isPaged()) { // the pools, then every rule on the K/V they stand for
    if (failed(verifyPagedKv(*this, qTy, kTy, vTy, getPageTable())))
      return failure();
    kTy = getLogicalKvType(kTy);
    vTy = getLogicalKvType(vTy);
  }
  if (failed(verifyRanks(*this, {{qTy, 4, "query", "[B, H, Sq, D]"},
                                 {kTy, 4, "key", "[B, Hkv, Sk, D]"},
                                 {vTy, 4, "value", "[B, Hkv, Sk, Dv]"},
                                 {oTy, 4, "result", "[B, H, Sq, Dv]"}})) ||
      failed(verifyQKV(*this, qTy, kTy, vTy, "key length (Sk)")))
    return failure();
  Type elt = qTy.getElementType();
  if (oTy.getElementType() != elt)
    return emitOpError() << "expects the result element type "
                         << oTy.getElementType()
                         << " to equal the query element type " << elt;
  auto q = qTy.getShape();
  // Result shape [B, H, Sq, Dv]; the log-sum-exp result f32 [B, H, Sq].
  if (failed(verifyShapeLike(*this, oTy, elt,
                             {q[0], q[1], q[2], vTy.getDimSize(3)}, "result",
                             "[B, H, Sq, Dv]")))
    return failure();
  if (Value lse = getLse())
    if (failed(verifyShapeLike(*this, cast<RankedTensorType>(lse.getType()),
                               Float32Type::get(getContext()),
                               {q[0], q[1], q[2]}, "log-sum-exp result",
                               "[B, H, Sq]")))
      return failure();
  return verifyAttentionClauses(*this, qTy, kTy, vTy, getMask(),
                                getKvLengths(), getQLengths(), getScaleAttr(),
                                getSoftcapAttr(), getWindowAttr());
}

LogicalResult AttentionOp::reifyResultShapes(
    OpBuilder &builder, ReifiedRankedShapedTypeDims &reifiedReturnShapes) {
  Location loc = getLoc();
  SmallVector<OpFoldResult> q =
      tensor::getMixedSizes(builder, loc, getQuery());
  OpFoldResult dv = tensor::getMixedSize(builder, loc, getValue(), 3);
  reifiedReturnShapes.push_back({q[0], q[1], q[2], dv});
  if (getLse())
    reifiedReturnShapes.push_back({q[0], q[1], q[2]});
  return success();
}

//===----------------------------------------------------------------------===//
// MergeAttentionStatesOp
//===----------------------------------------------------------------------===//

LogicalResult MergeAttentionStatesOp::verify() {
  if (failed(verifyNoUnknownAttributes(*this, getAttributeNames())))
    return failure();
  auto oTy = getOutA().getType();
  auto lTy = getLseA().getType();
  if (oTy.getRank() < 1)
    return emitOpError("expects outputs of rank >= 1 [..., Dv], got rank 0");
  if (failed(verifyShapeLike(*this, lTy, Float32Type::get(getContext()),
                             oTy.getShape().drop_back(), "log-sum-exp",
                             "the outputs' leading dimensions [...]")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// OnlineAttentionOp (verifier; tiling and decomposition in
// OnlineAttention.cpp)
//===----------------------------------------------------------------------===//

LogicalResult OnlineAttentionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &inferred) {
  // The inits (acc, max, sum) are always the last three operands.
  if (operands.size() < 6)
    return failure();
  inferred.clear();
  for (Value v : operands.take_back(3))
    inferred.push_back(v.getType());
  return success();
}

LogicalResult OnlineAttentionOp::verify() {
  if (failed(verifyNoUnknownAttributes(*this, getAttributeNames())))
    return failure();
  auto qTy = getQuery().getType();
  auto kTy = getKey().getType();
  auto vTy = getValue().getType();
  auto aTy = getAcc().getType();
  auto mxTy = getMax().getType();
  auto smTy = getSum().getType();

  auto checkRank = [&](RankedTensorType ty, int64_t rank, StringRef name,
                       StringRef layout) -> LogicalResult {
    if (ty.getRank() == rank)
      return success();
    return emitOpError() << "expects " << name << " of rank " << rank << " "
                         << layout << ", got rank " << ty.getRank();
  };
  if (failed(checkRank(qTy, 4, "query", "[B, H, M, D]")) ||
      failed(checkRank(kTy, 4, "key", "[B, Hkv, N, D]")) ||
      failed(checkRank(vTy, 4, "value", "[B, Hkv, N, Dv]")) ||
      failed(checkRank(aTy, 4, "acc", "[B, H, M, Dv]")) ||
      failed(checkRank(mxTy, 3, "max", "[B, H, M]")) ||
      failed(checkRank(smTy, 3, "sum", "[B, H, M]")))
    return failure();

  if (failed(verifyQKV(*this, qTy, kTy, vTy, "key block length (N)")))
    return failure();
  Type elt = qTy.getElementType();
  auto q = qTy.getShape(), k = kTy.getShape(), v = vTy.getShape();

  // The running state: acc [B, H, M, Dv], max and sum [B, H, M].
  int64_t b = ShapedType::isDynamic(q[0]) ? k[0] : q[0];
  int64_t dv = v[3];
  SmallVector<int64_t> wantAcc = {b, q[1], q[2], dv};
  SmallVector<int64_t> wantRow = {b, q[1], q[2]};
  for (int i = 0; i < 4; ++i)
    if (!compatible(aTy.getDimSize(i), wantAcc[i]))
      return emitOpError() << "acc shape " << shapeStr(aTy.getShape())
                           << " does not match [B, H, M, Dv] = "
                           << shapeStr(wantAcc);
  auto checkRow = [&](RankedTensorType ty, StringRef name) -> LogicalResult {
    for (int i = 0; i < 3; ++i)
      if (!compatible(ty.getDimSize(i), wantRow[i]))
        return emitOpError() << name << " shape " << shapeStr(ty.getShape())
                             << " does not match [B, H, M] = "
                             << shapeStr(wantRow);
    return success();
  };
  if (failed(checkRow(mxTy, "max")) || failed(checkRow(smTy, "sum")))
    return failure();

  if (Value mask = getMask()) {
    int64_t n = ShapedType::isDynamic(k[2]) ? v[2] : k[2];
    if (failed(verifyMask(*this, mask, elt, {b, q[1], q[2], n},
                          {"B", "H", "M", "N"}, /*quoteShape=*/false)))
      return failure();
  }

  if (failed(verifyWindow(*this, getWindowAttr())))
    return failure();
  if (failed(verifyBandOperands(*this, getCausal(), getWindowAttr(),
                                getCausalOffset())))
    return failure();

  if (failed(verifyPositiveFinite(*this, "scale",
                                  getScale().convertToDouble())))
    return failure();
  if (auto softcap = getSoftcapAttr())
    return verifyPositiveFinite(*this, "softcap", softcap.getValueAsDouble());
  return success();
}
