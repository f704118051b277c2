//===- GradOps.cpp - tx.softmax_grad and tx.attention_grad ----------------===//
//
// The verifiers and shape reification of the backward ops (TxGradOps.td);
// every rule their descriptions state is checked here where the sizes are
// static, with the forward ops' messages where the rule is theirs
// (VerifyHelpers.h). test/Dialect/grad-invalid.mlir pins each message.
//
//===----------------------------------------------------------------------===//
#include "IR/VerifyHelpers.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include <cmath>

using namespace mlir;
using namespace mlir::tx;

//===----------------------------------------------------------------------===//
// SoftmaxGradOp
//===----------------------------------------------------------------------===//

int64_t SoftmaxGradOp::getNormalizedDim() {
  int64_t rank = getOutput().getType().getRank();
  int64_t dim = getDim();
  return dim < 0 ? dim + rank : dim;
}

LogicalResult SoftmaxGradOp::verify() {
  if (failed(verifyNoUnknownAttributes(*this, getAttributeNames())))
    return failure();
  int64_t rank = getOutput().getType().getRank();
  if (rank < 1)
    return emitOpError("expects an output of rank >= 1, got rank 0");
  int64_t dim = getDim();
  if (dim < -rank || dim >= rank)
    return emitOpError() << "dim " << dim << " is out of range [" << -rank
                         << ", " << rank << ") for an output of rank " << rank;
  return success();
}

LogicalResult SoftmaxGradOp::reifyResultShapes(
    OpBuilder &builder, ReifiedRankedShapedTypeDims &reifiedReturnShapes) {
  reifiedReturnShapes.push_back(
      tensor::getMixedSizes(builder, getLoc(), getOutput()));
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionGradOp
//===----------------------------------------------------------------------===//

std::optional<double> AttentionGradOp::getStaticScale() {
  return staticScale(getScaleAttr(), getQuery().getType());
}

/// Each gradient has the type of the operand it is the gradient of.
static LogicalResult verifyGradTypes(AttentionGradOp op) {
  for (auto [grad, of, name] :
       {std::tuple<Value, Value, StringRef>{op.getGradQuery(), op.getQuery(),
                                            "query"},
        {op.getGradKey(), op.getKey(), "key"},
        {op.getGradValue(), op.getValue(), "value"}})
    if (grad.getType() != of.getType())
      return op.emitOpError()
             << "expects grad_" << name << " to have the " << name
             << "'s type " << of.getType() << ", got " << grad.getType();
  Value gm = op.getGradMask();
  if (!gm)
    return success();
  Value mask = op.getMask();
  if (!mask)
    return op.emitOpError("has a grad_mask result but no mask operand");
  if (cast<RankedTensorType>(mask.getType()).getElementType().isInteger(1))
    return op.emitOpError("has a grad_mask result, but an i1 keep-mask has no "
                          "gradient (only an additive mask does)");
  if (gm.getType() != mask.getType())
    return op.emitOpError() << "expects grad_mask to have the mask's type "
                            << mask.getType() << ", got " << gm.getType();
  return success();
}

LogicalResult AttentionGradOp::verify() {
  if (failed(verifyNoUnknownAttributes(*this, getAttributeNames())))
    return failure();
  auto qTy = getQuery().getType();
  auto kTy = getKey().getType();
  auto vTy = getValue().getType();
  auto oTy = getOutput().getType();
  auto doTy = getGradOutput().getType();
  auto lTy = getLse().getType();
  if (failed(verifyRanks(*this, {{qTy, 4, "query", "[B, H, Sq, D]"},
                                 {kTy, 4, "key", "[B, Hkv, Sk, D]"},
                                 {vTy, 4, "value", "[B, Hkv, Sk, Dv]"},
                                 {oTy, 4, "output", "[B, H, Sq, Dv]"},
                                 {doTy, 4, "grad_output", "[B, H, Sq, Dv]"},
                                 {lTy, 3, "lse", "[B, H, Sq]"}})) ||
      failed(verifyQKV(*this, qTy, kTy, vTy, "key length (Sk)")))
    return failure();
  Type elt = qTy.getElementType();
  auto q = qTy.getShape();
  SmallVector<int64_t> oShape = {q[0], q[1], q[2], vTy.getDimSize(3)};
  if (failed(verifyShapeLike(*this, oTy, elt, oShape, "output",
                             "[B, H, Sq, Dv]")) ||
      failed(verifyShapeLike(*this, doTy, elt, oShape, "grad_output",
                             "[B, H, Sq, Dv]")) ||
      failed(verifyShapeLike(*this, lTy, lTy.getElementType(),
                             {q[0], q[1], q[2]}, "lse", "[B, H, Sq]")) ||
      failed(verifyGradTypes(*this)))
    return failure();
  return verifyAttentionClauses(*this, qTy, kTy, vTy, getMask(),
                                getKvLengths(), getQLengths(), getScaleAttr(),
                                getSoftcapAttr(), getWindowAttr());
}

LogicalResult AttentionGradOp::reifyResultShapes(
    OpBuilder &builder, ReifiedRankedShapedTypeDims &reifiedReturnShapes) {
  Location loc = getLoc();
  for (Value v : {getQuery(), getKey(), getValue()})
    reifiedReturnShapes.push_back(tensor::getMixedSizes(builder, loc, v));
  if (getGradMask())
    reifiedReturnShapes.push_back(
        tensor::getMixedSizes(builder, loc, getMask()));
  return success();
}
