//===- AttentionTiles.cpp - slicing one tile of an attention op ----------===//
//
// AttentionTiles.h: the slices a tile of the attention ops reads.
//
//===----------------------------------------------------------------------===//
#include "IR/AttentionTiles.h"
#include "Transformer/TilingUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::tx;

Value mlir::tx::sliceOf(OpBuilder &b, Location loc, Value t,
                        ArrayRef<OpFoldResult> offsets,
                        ArrayRef<OpFoldResult> sizes,
                        SmallVectorImpl<Operation *> &slices) {
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  auto shape = cast<RankedTensorType>(t.getType()).getShape();
  auto s = tensor::ExtractSliceOp::create(
      b, loc, t, zeroDimSafe(b, loc, offsets, shape), sizes, strides);
  slices.push_back(s);
  return s.getResult();
}

/// Static H / Hkv of Q and K/V, if known (at least 1: H == 0, which the
/// verifier allows with any Hkv, has an empty iteration space, and a group
/// of 0 would divide by zero in the K/V head's index map).
std::optional<int64_t> mlir::tx::staticGroup(Value query, Value key,
                                             Value value) {
  int64_t h = cast<RankedTensorType>(query.getType()).getDimSize(1);
  int64_t hkv = cast<RankedTensorType>(key.getType()).getDimSize(1);
  if (ShapedType::isDynamic(hkv))
    hkv = cast<RankedTensorType>(value.getType()).getDimSize(1);
  if (ShapedType::isDynamic(h) || ShapedType::isDynamic(hkv))
    return std::nullopt;
  if (hkv == 0)
    return 1;
  return std::max<int64_t>(h / hkv, 1);
}

/// The K/V head range [offset, offset + size) read by the query heads
/// [h0, h0 + hs). Supported: hs == 1 (K/V head h0 / G), the whole head range,
/// and any head tile when G == H / Hkv is statically 1.
FailureOr<std::pair<OpFoldResult, OpFoldResult>>
mlir::tx::kvHeadTile(Operation *op, Value query, Value key, Value value, OpBuilder &b,
           OpFoldResult h0, OpFoldResult hs) {
  Location loc = op->getLoc();
  std::optional<int64_t> g = staticGroup(query, key, value);
  if (g && *g == 1)
    return std::make_pair(h0, hs);
  if (isConstantIntValue(hs, 1)) {
    if (g) {
      AffineExpr d0 = b.getAffineDimExpr(0);
      OpFoldResult kh = affine::makeComposedFoldedAffineApply(
          b, loc, d0.floorDiv(*g), {h0});
      return std::make_pair(kh, hs);
    }
    // Run-time G = H / max(Hkv, 1), at least 1 (never a division by zero;
    // H == 0 gives an empty iteration space anyway).
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value h = tensor::DimOp::create(b, loc, query, 1);
    Value hkv = tensor::DimOp::create(b, loc, key, 1);
    Value divisor = arith::MaxUIOp::create(b, loc, hkv, one);
    Value gv = arith::MaxUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, h, divisor), one);
    Value kh = arith::DivUIOp::create(
        b, loc, getValueOrCreateConstantIndexOp(b, loc, h0), gv);
    return std::make_pair(OpFoldResult(kh), hs);
  }
  // A tile of exactly the G query heads of one K/V head (the split-KV
  // decode kernel's grouped-query packing): tiles of G heads start at
  // multiples of G, so K/V head h0 / G.
  if (g && isConstantIntValue(hs, *g)) {
    AffineExpr d0 = b.getAffineDimExpr(0);
    OpFoldResult kh = affine::makeComposedFoldedAffineApply(
        b, loc, d0.floorDiv(*g), {h0});
    return std::make_pair(kh, OpFoldResult(b.getIndexAttr(1)));
  }
  if (isConstantIntValue(h0, 0) && isSizeOf(hs, query, 1)) {
    OpFoldResult hkv = tensor::getMixedSize(b, loc, key, 1);
    return std::make_pair(OpFoldResult(b.getIndexAttr(0)), hkv);
  }
  std::string tile = "a dynamic number of";
  if (std::optional<int64_t> c = getConstantIntValue(hs))
    tile = std::to_string(*c);
  return op->emitOpError()
         << "cannot tile the query head dimension H with a tile of " << tile
         << " heads: with grouped-query attention (H / Hkv = "
         << (g ? std::to_string(*g) : std::string("?"))
         << ") a head tile must be 1, H / Hkv or the whole H";
}

FailureOr<AttentionTiles>
mlir::tx::sliceAttentionTile(
    Operation *op, OpBuilder &b, Value query, Value key, Value value,
    Value mask, ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
    OpFoldResult n0, OpFoldResult ns, SmallVectorImpl<Operation *> &slices,
    std::optional<std::pair<OpFoldResult, OpFoldResult>> kvHeads) {
  Location loc = op->getLoc();
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  OpFoldResult b0 = offsets[0], h0 = offsets[1], m0 = offsets[2];
  OpFoldResult bs = sizes[0], hs = sizes[1], ms = sizes[2];
  FailureOr<std::pair<OpFoldResult, OpFoldResult>> kvh =
      kvHeads ? FailureOr<std::pair<OpFoldResult, OpFoldResult>>(*kvHeads)
              : kvHeadTile(op, query, key, value, b, h0, hs);
  if (failed(kvh))
    return failure();
  auto [kh0, khs] = *kvh;
  auto slice = [&](Value t, ArrayRef<OpFoldResult> offs,
                   ArrayRef<OpFoldResult> szs) -> Value {
    return sliceOf(b, loc, t, offs, szs, slices);
  };
  AttentionTiles t;
  t.d = tensor::getMixedSize(b, loc, query, 3);
  t.dv = tensor::getMixedSize(b, loc, value, 3);
  t.q = slice(query, {b0, h0, m0, zero}, {bs, hs, ms, t.d});
  t.k = slice(key, {b0, kh0, n0, zero}, {bs, khs, ns, t.d});
  t.v = slice(value, {b0, kh0, n0, zero}, {bs, khs, ns, t.dv});
  if (mask) {
    auto mTy = cast<RankedTensorType>(mask.getType());
    bool bcastB = mTy.getDimSize(0) == 1, bcastH = mTy.getDimSize(1) == 1;
    t.mask = slice(mask, {bcastB ? zero : b0, bcastH ? zero : h0, m0, n0},
                   {bcastB ? one : bs, bcastH ? one : hs, ms, ns});
  }
  return t;
}

