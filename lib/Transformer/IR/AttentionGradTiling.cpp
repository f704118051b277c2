//===- AttentionGradTiling.cpp - tx.attention_dq / tx.attention_dkdv ------===//
//
// The block ops of the tiled backward (TxGradOps.td): verifiers,
// TilingInterface and decomposition (AttentionGradStep.cpp).
//
//  - tx.attention_dq: domain (B, H, M, N), N a reduction (the loop over key
//    blocks with dQ in iter_args); head tiles as tx.online_attention's.
//  - tx.attention_dkdv: domain (B, Hkv, N, M), M a reduction (the loop over
//    query blocks with dK, dV in iter_args); a tile of K/V heads reads
//    their G = H / Hkv query heads each.
//
//===----------------------------------------------------------------------===//
#include "IR/AttentionGradStep.h"
#include "IR/AttentionTiles.h"
#include "IR/VerifyHelpers.h"
#include "Transformer/AttentionShapes.h"
#include "Transformer/TilingUtils.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::tx;
using utils::IteratorType;

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

/// The rules both block ops share; `inits` are (name, type, shape) of
/// their destination operands, in terms of Q/K/V's sizes.
template <typename OpT>
static LogicalResult verifyGradBlock(OpT op) {
  if (failed(verifyNoUnknownAttributes(op, op.getAttributeNames())))
    return failure();
  auto qTy = op.getQuery().getType();
  auto kTy = op.getKey().getType();
  auto vTy = op.getValue().getType();
  auto doTy = op.getGradOutput().getType();
  auto lTy = op.getLse().getType();
  if (failed(verifyRanks(op, {{qTy, 4, "query", "[B, H, M, D]"},
                              {kTy, 4, "key", "[B, Hkv, N, D]"},
                              {vTy, 4, "value", "[B, Hkv, N, Dv]"},
                              {doTy, 4, "grad_output", "[B, H, M, Dv]"},
                              {lTy, 3, "lse", "[B, H, M]"}})) ||
      failed(verifyQKV(op, qTy, kTy, vTy, "key block length (N)")))
    return failure();
  Type elt = qTy.getElementType();
  auto q = qTy.getShape(), k = kTy.getShape(), v = vTy.getShape();
  int64_t b = ShapedType::isDynamic(q[0]) ? k[0] : q[0];
  int64_t n = ShapedType::isDynamic(k[2]) ? v[2] : k[2];
  if (failed(verifyShapeLike(op, doTy, elt, {b, q[1], q[2], v[3]},
                             "grad_output", "[B, H, M, Dv]")) ||
      failed(verifyShapeLike(op, lTy, lTy.getElementType(),
                             {b, q[1], q[2]}, "lse", "[B, H, M]")))
    return failure();
  if (Value mask = op.getMask())
    if (failed(verifyMask(op, mask, elt, {b, q[1], q[2], n},
                          {"B", "H", "M", "N"}, /*quoteShape=*/false)))
      return failure();
  if (failed(verifyWindow(op, op.getWindowAttr())) ||
      failed(verifyBandOperands(op, op.getCausal(), op.getWindowAttr(),
                                op.getCausalOffset())) ||
      failed(verifyPositiveFinite(op, "scale",
                                  op.getScale().convertToDouble())))
    return failure();
  if (auto softcap = op.getSoftcapAttr())
    return verifyPositiveFinite(op, "softcap", softcap.getValueAsDouble());
  return success();
}

/// A destination operand of shape `want` (`layout` names it).
static LogicalResult verifyInit(Operation *op, Value init, StringRef name,
                                ArrayRef<int64_t> want, StringRef layout) {
  auto ty = cast<RankedTensorType>(init.getType());
  return verifyShapeLike(op, ty, ty.getElementType(), want, name, layout);
}

LogicalResult AttentionDqOp::verify() {
  if (failed(verifyGradBlock(*this)))
    return failure();
  auto q = getQuery().getType().getShape();
  auto k = getKey().getType().getShape();
  int64_t b = ShapedType::isDynamic(q[0]) ? k[0] : q[0];
  if (failed(verifyInit(*this, getGradQueryInit(), "grad_query_init",
                        {b, q[1], q[2], q[3]}, "[B, H, M, D]")))
    return failure();
  if (Value ds = getGradScoresInit()) {
    auto v = getValue().getType().getShape();
    int64_t n = ShapedType::isDynamic(k[2]) ? v[2] : k[2];
    return verifyInit(*this, ds, "grad_scores_init", {b, q[1], q[2], n},
                      "[B, H, M, N]");
  }
  return success();
}

LogicalResult AttentionDkDvOp::verify() {
  if (failed(verifyGradBlock(*this)))
    return failure();
  auto q = getQuery().getType().getShape();
  auto k = getKey().getType().getShape();
  auto v = getValue().getType().getShape();
  int64_t b = ShapedType::isDynamic(k[0]) ? q[0] : k[0];
  int64_t n = ShapedType::isDynamic(k[2]) ? v[2] : k[2];
  if (failed(verifyInit(*this, getGradKeyInit(), "grad_key_init",
                        {b, k[1], n, k[3]}, "[B, Hkv, N, D]")))
    return failure();
  return verifyInit(*this, getGradValueInit(), "grad_value_init",
                    {b, v[1], n, v[3]}, "[B, Hkv, N, Dv]");
}

/// The results have the types of the inits, the last `n` operands.
static LogicalResult initTypes(ValueRange operands, unsigned n,
                               SmallVectorImpl<Type> &inferred) {
  if (operands.size() < 6 + n)
    return failure();
  inferred.clear();
  for (Value v : operands.take_back(n))
    inferred.push_back(v.getType());
  return success();
}

LogicalResult AttentionDqOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands,
    DictionaryAttr attrs, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  // One init, or two with grad_scores_init (the operand segments say).
  AttentionDqOp::Adaptor a(operands, attrs, properties, regions);
  return initTypes(operands, a.getGradScoresInit() ? 2 : 1, inferred);
}

LogicalResult AttentionDkDvOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &inferred) {
  return initTypes(operands, 2, inferred);
}

//===----------------------------------------------------------------------===//
// Tiling helpers
//===----------------------------------------------------------------------===//

/// `v - a + c` (index; null when `v` is null), folded where static.
static Value shifted(OpBuilder &b, Location loc, Value v, OpFoldResult plus,
                     OpFoldResult minus) {
  if (!v)
    return Value();
  AffineExpr s0, s1, s2;
  bindSymbols(b.getContext(), s0, s1, s2);
  return getValueOrCreateConstantIndexOp(
      b, loc,
      affine::makeComposedFoldedAffineApply(b, loc, s0 + s1 - s2,
                                            {v, plus, minus}));
}

/// The per-row operands of a tile: dO [b0, h0, m0, 0] and the LSE and Δ
/// rows [b0, h0, m0].
struct RowTiles {
  Value dO, lse, delta;
};
template <typename OpT>
static RowTiles sliceRows(OpT op, OpBuilder &b, OpFoldResult b0,
                          OpFoldResult h0, OpFoldResult m0, OpFoldResult bs,
                          OpFoldResult hs, OpFoldResult ms,
                          SmallVectorImpl<Operation *> &slices) {
  Location loc = op.getLoc();
  OpFoldResult zero = b.getIndexAttr(0);
  OpFoldResult dv = tensor::getMixedSize(b, loc, op.getGradOutput(), 3);
  return {sliceOf(b, loc, op.getGradOutput(), {b0, h0, m0, zero},
                  {bs, hs, ms, dv}, slices),
          sliceOf(b, loc, op.getLse(), {b0, h0, m0}, {bs, hs, ms}, slices),
          sliceOf(b, loc, op.getDelta(), {b0, h0, m0}, {bs, hs, ms}, slices)};
}

static SmallVector<Range> gradDomain(OpBuilder &b, Location loc, Value a,
                                     unsigned aDim0, unsigned aDim1,
                                     unsigned aDim2, Value c, unsigned cDim) {
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  return {Range{zero, tensor::getMixedSize(b, loc, a, aDim0), one},
          Range{zero, tensor::getMixedSize(b, loc, a, aDim1), one},
          Range{zero, tensor::getMixedSize(b, loc, a, aDim2), one},
          Range{zero, tensor::getMixedSize(b, loc, c, cDim), one}};
}

static SmallVector<IteratorType> gradIterators() {
  return {IteratorType::parallel, IteratorType::parallel,
          IteratorType::parallel, IteratorType::reduction};
}

//===----------------------------------------------------------------------===//
// tx.attention_dq: domain (B, H, M, N)
//===----------------------------------------------------------------------===//

SmallVector<IteratorType> AttentionDqOp::getLoopIteratorTypes() {
  return gradIterators();
}

SmallVector<Range> AttentionDqOp::getIterationDomain(OpBuilder &b) {
  return gradDomain(b, getLoc(), getQuery(), 0, 1, 2, getKey(), 2);
}

FailureOr<TilingResult>
AttentionDqOp::getTiledImplementation(OpBuilder &b,
                                      ArrayRef<OpFoldResult> offsets,
                                      ArrayRef<OpFoldResult> sizes) {
  Location loc = getLoc();
  OpFoldResult b0 = offsets[0], h0 = offsets[1], m0 = offsets[2],
               n0 = offsets[3];
  SmallVector<Operation *> slices;
  FailureOr<AttentionTiles> t =
      sliceAttentionTile(*this, b, getQuery(), getKey(), getValue(),
                         getMask(), offsets, sizes, n0, sizes[3], slices);
  if (failed(t))
    return failure();
  RowTiles r = sliceRows(*this, b, b0, h0, m0, sizes[0], sizes[1], sizes[2],
                         slices);
  Value init = sliceOf(b, loc, getGradQueryInit(),
                       {b0, h0, m0, b.getIndexAttr(0)},
                       {sizes[0], sizes[1], sizes[2], t->d}, slices);
  Value dsInit;
  if (Value ds = getGradScoresInit())
    dsInit = sliceOf(b, loc, ds, {b0, h0, m0, n0}, sizes, slices);
  auto tiled = AttentionDqOp::create(
      b, loc, t->q, t->k, t->v, r.dO, r.lse, r.delta, t->mask,
      shifted(b, loc, getCausalOffset(), m0, n0),
      shifted(b, loc, getRowLimit(), b.getIndexAttr(0), m0),
      shifted(b, loc, getKeyLimit(), b.getIndexAttr(0), n0), init, dsInit,
      getScaleAttr(), getCausalAttr(), getSoftcapAttr(), getWindowAttr());
  return TilingResult{{tiled.getOperation()},
                      SmallVector<Value>(tiled->getResults()), slices};
}

LogicalResult AttentionDqOp::getResultTilePosition(
    OpBuilder &b, unsigned resultNumber, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  // dQ: the tile's rows, all of D; dS: the tile's (rows, keys) block.
  resultOffsets.assign(offsets.begin(), offsets.end());
  resultSizes.assign(sizes.begin(), sizes.end());
  if (resultNumber == 0) {
    resultOffsets[3] = b.getIndexAttr(0);
    resultSizes[3] = tensor::getMixedSize(b, getLoc(), getQuery(), 3);
  }
  resultOffsets = zeroDimSafe(
      b, getLoc(), resultOffsets,
      cast<RankedTensorType>(getResult(resultNumber).getType()).getShape());
  return success();
}

FailureOr<SmallVector<Value>> AttentionDqOp::decomposeOperation(OpBuilder &b) {
  return buildAttentionDqStep(b, *this);
}

//===----------------------------------------------------------------------===//
// tx.attention_dkdv: domain (B, Hkv, N, M)
//===----------------------------------------------------------------------===//

SmallVector<IteratorType> AttentionDkDvOp::getLoopIteratorTypes() {
  return gradIterators();
}

SmallVector<Range> AttentionDkDvOp::getIterationDomain(OpBuilder &b) {
  return gradDomain(b, getLoc(), getKey(), 0, 1, 2, getQuery(), 2);
}

/// The query heads [kh0 G, (kh0 + khs) G) of the K/V heads [kh0, kh0 +
/// khs), G = H / Hkv (static, or H / max(Hkv, 1) at run time).
static std::pair<OpFoldResult, OpFoldResult>
queryHeadsOf(OpBuilder &b, AttentionDkDvOp op, OpFoldResult kh0,
             OpFoldResult khs) {
  Location loc = op.getLoc();
  OpFoldResult g;
  if (std::optional<int64_t> sg =
          staticGroup(op.getQuery(), op.getKey(), op.getValue())) {
    g = b.getIndexAttr(*sg);
  } else {
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value h = tensor::DimOp::create(b, loc, op.getQuery(), 1);
    Value hkv = tensor::DimOp::create(b, loc, op.getKey(), 1);
    g = arith::MaxUIOp::create(
            b, loc,
            arith::DivUIOp::create(b, loc, h,
                                   arith::MaxUIOp::create(b, loc, hkv, one)),
            one)
            .getResult();
  }
  AffineExpr s0, s1;
  bindSymbols(b.getContext(), s0, s1);
  return {affine::makeComposedFoldedAffineApply(b, loc, s0 * s1, {kh0, g}),
          affine::makeComposedFoldedAffineApply(b, loc, s0 * s1, {khs, g})};
}

FailureOr<TilingResult>
AttentionDkDvOp::getTiledImplementation(OpBuilder &b,
                                        ArrayRef<OpFoldResult> offsets,
                                        ArrayRef<OpFoldResult> sizes) {
  Location loc = getLoc();
  OpFoldResult b0 = offsets[0], kh0 = offsets[1], n0 = offsets[2],
               m0 = offsets[3];
  OpFoldResult bs = sizes[0], khs = sizes[1], ns = sizes[2], ms = sizes[3];
  auto [h0, hs] = queryHeadsOf(b, *this, kh0, khs);
  SmallVector<Operation *> slices;
  FailureOr<AttentionTiles> t = sliceAttentionTile(
      *this, b, getQuery(), getKey(), getValue(), getMask(), {b0, h0, m0},
      {bs, hs, ms}, n0, ns, slices, std::make_pair(kh0, khs));
  if (failed(t))
    return failure();
  RowTiles r = sliceRows(*this, b, b0, h0, m0, bs, hs, ms, slices);
  OpFoldResult zero = b.getIndexAttr(0);
  Value dk = sliceOf(b, loc, getGradKeyInit(), {b0, kh0, n0, zero},
                     {bs, khs, ns, t->d}, slices);
  Value dv = sliceOf(b, loc, getGradValueInit(), {b0, kh0, n0, zero},
                     {bs, khs, ns, t->dv}, slices);
  auto tiled = AttentionDkDvOp::create(
      b, loc, t->q, t->k, t->v, r.dO, r.lse, r.delta, t->mask,
      shifted(b, loc, getCausalOffset(), m0, n0),
      shifted(b, loc, getRowLimit(), zero, m0),
      shifted(b, loc, getKeyLimit(), zero, n0), dk, dv, getScaleAttr(),
      getCausalAttr(), getSoftcapAttr(), getWindowAttr());
  return TilingResult{{tiled.getOperation()},
                      SmallVector<Value>(tiled->getResults()), slices};
}

LogicalResult AttentionDkDvOp::getResultTilePosition(
    OpBuilder &b, unsigned resultNumber, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  Value of = resultNumber == 0 ? getKey() : getValue();
  resultOffsets = {offsets[0], offsets[1], offsets[2], b.getIndexAttr(0)};
  resultSizes = {sizes[0], sizes[1], sizes[2],
                 tensor::getMixedSize(b, getLoc(), of, 3)};
  resultOffsets = zeroDimSafe(
      b, getLoc(), resultOffsets,
      cast<RankedTensorType>(getResult(resultNumber).getType()).getShape());
  return success();
}

FailureOr<SmallVector<Value>>
AttentionDkDvOp::decomposeOperation(OpBuilder &b) {
  return buildAttentionDkDvStep(b, *this);
}
