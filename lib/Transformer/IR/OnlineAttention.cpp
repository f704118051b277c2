//===- OnlineAttention.cpp - tx.online_attention: tiling, decomposition ---===//
//
// tx.online_attention is one online-softmax step of FlashAttention-2 (Dao
// 2023) on a block of queries and a block of keys, in destination-passing
// style: it updates the running state (acc, max, sum). Modelled on IREE's
// LinalgExt online_attention.
//
//  - TilingInterface: iteration domain (B, H, M, N), N a reduction. Tiling N
//    with upstream scf::tileUsingSCF threads the state through the scf.for
//    iter_args, which is the FlashAttention-2 loop over key blocks.
//  - linalg::AggregatedOpInterface: one step as linalg.generic ops on tensors
//    (no tensor larger than the op's own M x N scores).
//
// The verifier lives in TxOps.cpp with the other verifiers.
//
//===----------------------------------------------------------------------===//
#include "IR/AttentionMods.h"
#include "IR/AttentionTiles.h"
#include "IR/OnlineAttentionStep.h"
#include "Transformer/AttentionShapes.h"
#include "Transformer/TilingUtils.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include <limits>

using namespace mlir;
using namespace mlir::tx;
using utils::IteratorType;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static std::optional<int64_t> groupOf(OnlineAttentionOp op) {
  return staticGroup(op.getQuery(), op.getKey(), op.getValue());
}

/// The position of a result tile: (B, H, Sq) offsets and sizes, plus all
/// of Dv for the output or accumulator (result 0).
static void attentionResultTile(OpBuilder &b, Operation *op, Value value,
                                unsigned resultNumber,
                                ArrayRef<OpFoldResult> offsets,
                                ArrayRef<OpFoldResult> sizes,
                                SmallVector<OpFoldResult> &resultOffsets,
                                SmallVector<OpFoldResult> &resultSizes) {
  resultOffsets.assign(offsets.begin(), offsets.begin() + 3);
  resultSizes.assign(sizes.begin(), sizes.begin() + 3);
  if (resultNumber == 0) {
    resultOffsets.push_back(b.getIndexAttr(0));
    resultSizes.push_back(tensor::getMixedSize(b, op->getLoc(), value, 3));
  }
  resultOffsets = zeroDimSafe(
      b, op->getLoc(), resultOffsets,
      cast<RankedTensorType>(op->getResult(resultNumber).getType())
          .getShape());
}

//===----------------------------------------------------------------------===//
// TilingInterface
//===----------------------------------------------------------------------===//

SmallVector<IteratorType> OnlineAttentionOp::getLoopIteratorTypes() {
  return {IteratorType::parallel, IteratorType::parallel,
          IteratorType::parallel, IteratorType::reduction};
}

SmallVector<Range> OnlineAttentionOp::getIterationDomain(OpBuilder &b) {
  Location loc = getLoc();
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  SmallVector<OpFoldResult> q = tensor::getMixedSizes(b, loc, getQuery());
  OpFoldResult n = tensor::getMixedSize(b, loc, getKey(), 2);
  return {Range{zero, q[0], one}, Range{zero, q[1], one},
          Range{zero, q[2], one}, Range{zero, n, one}};
}

FailureOr<TilingResult>
OnlineAttentionOp::getTiledImplementation(OpBuilder &b,
                                          ArrayRef<OpFoldResult> offsets,
                                          ArrayRef<OpFoldResult> sizes) {
  Location loc = getLoc();
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  OpFoldResult b0 = offsets[0], h0 = offsets[1], m0 = offsets[2],
               n0 = offsets[3];
  OpFoldResult bs = sizes[0], hs = sizes[1], ms = sizes[2], ns = sizes[3];

  SmallVector<Operation *> slices;
  FailureOr<AttentionTiles> t =
      sliceAttentionTile(*this, b, getQuery(), getKey(), getValue(),
                         getMask(), offsets, sizes, n0, ns, slices);
  if (failed(t))
    return failure();
  Value q = t->q, k = t->k, v = t->v, mask = t->mask;
  OpFoldResult dv = t->dv;
  auto slice = [&](Value x, ArrayRef<OpFoldResult> offs,
                   ArrayRef<OpFoldResult> szs) -> Value {
    SmallVector<OpFoldResult> strides(offs.size(), one);
    auto shape = cast<RankedTensorType>(x.getType()).getShape();
    auto s = tensor::ExtractSliceOp::create(
        b, loc, x, zeroDimSafe(b, loc, offs, shape), szs, strides);
    slices.push_back(s);
    return s.getResult();
  };
  Value causalOffset;
  if (Value c = getCausalOffset()) {
    // Key j of the tile is key n0 + j of the op, query i is m0 + i: visible
    // iff n0 + j <= m0 + i + c, i.e. j <= i + (c + m0 - n0).
    AffineExpr s0, s1, s2;
    bindSymbols(b.getContext(), s0, s1, s2);
    OpFoldResult off = affine::makeComposedFoldedAffineApply(
        b, loc, s0 + s1 - s2, {c, m0, n0});
    causalOffset = getValueOrCreateConstantIndexOp(b, loc, off);
  }
  Value rowLimit;
  if (Value r = getRowLimit()) {
    // Query i of the tile is query m0 + i: visible rows m0 + i < r.
    AffineExpr s0, s1;
    bindSymbols(b.getContext(), s0, s1);
    rowLimit = getValueOrCreateConstantIndexOp(
        b, loc, affine::makeComposedFoldedAffineApply(b, loc, s0 - s1, {r, m0}));
  }
  Value acc = slice(getAcc(), {b0, h0, m0, zero}, {bs, hs, ms, dv});
  Value mx = slice(getMax(), {b0, h0, m0}, {bs, hs, ms});
  Value sm = slice(getSum(), {b0, h0, m0}, {bs, hs, ms});

  // Score and mask functions see the whole op's indices: the tile's
  // element (b, h, i, j) is the op's (b0 + b, h0 + h, m0 + i, n0 + j).
  SmallVector<Value> modOffsets =
      tileModOffsets(b, loc, hasMods(), getModOffsets(), offsets);
  auto tiled = OnlineAttentionOp::create(
      b, loc, acc.getType(), mx.getType(), sm.getType(), q, k, v, mask,
      causalOffset, rowLimit, modOffsets, getScoreCaptures(),
      getMaskCaptures(), acc, mx, sm, getScaleAttr(), getCausalAttr(),
      getSoftcapAttr(), getWindowAttr());
  cloneAttentionMods(getScoreMod(), getMaskMod(), tiled);
  return TilingResult{{tiled.getOperation()},
                      SmallVector<Value>(tiled->getResults()), slices};
}

LogicalResult OnlineAttentionOp::getResultTilePosition(
    OpBuilder &b, unsigned resultNumber, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  attentionResultTile(b, getOperation(), getValue(), resultNumber, offsets,
                      sizes, resultOffsets, resultSizes);
  return success();
}

LogicalResult OnlineAttentionOp::getIterationDomainTileFromResultTile(
    OpBuilder &b, unsigned resultNumber, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVectorImpl<OpFoldResult> &iterOffsets,
    SmallVectorImpl<OpFoldResult> &iterSizes) {
  // A tile of acc must span the whole Dv (it is not an iteration dim).
  if (resultNumber == 0 &&
      (!isConstantIntValue(offsets[3], 0) ||
       !(isSizeOf(sizes[3], getValue(), 3) ||
         isSizeOf(sizes[3], getAcc(), 3))))
    return failure();
  iterOffsets.assign(offsets.begin(), offsets.begin() + 3);
  iterSizes.assign(sizes.begin(), sizes.begin() + 3);
  iterOffsets.push_back(b.getIndexAttr(0));
  iterSizes.push_back(tensor::getMixedSize(b, getLoc(), getKey(), 2));
  return success();
}

FailureOr<TilingResult> OnlineAttentionOp::generateResultTileValue(
    OpBuilder &b, unsigned resultNumber, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> iterOffsets, iterSizes;
  if (failed(getIterationDomainTileFromResultTile(
          b, resultNumber, offsets, sizes, iterOffsets, iterSizes)))
    return failure();
  FailureOr<TilingResult> tiled =
      getTiledImplementation(b, iterOffsets, iterSizes);
  if (failed(tiled))
    return failure();
  // By convention (as linalg's implementation), tiledValues holds only the
  // requested result: fusion uses tiledValues[0] in place of the slice.
  return TilingResult{tiled->tiledOps,
                      SmallVector<Value>{tiled->tiledValues[resultNumber]},
                      tiled->generatedSlices};
}

//===----------------------------------------------------------------------===//
// TilingInterface of tx.attention: tiles of query rows
//===----------------------------------------------------------------------===//

SmallVector<IteratorType> AttentionOp::getLoopIteratorTypes() {
  return SmallVector<IteratorType>(3, IteratorType::parallel);
}

SmallVector<Range> AttentionOp::getIterationDomain(OpBuilder &b) {
  Location loc = getLoc();
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  SmallVector<OpFoldResult> q = tensor::getMixedSizes(b, loc, getQuery());
  return {Range{zero, q[0], one}, Range{zero, q[1], one},
          Range{zero, q[2], one}};
}

/// FlashAttention-2's tile: the query rows [m0, m0 + ms) of heads
/// [h0, h0 + hs) of batches [b0, b0 + bs) as one tx.online_attention over
/// all keys from the initial state, then the epilogue
/// (emitAttentionEpilogue).
FailureOr<TilingResult>
AttentionOp::getTiledImplementation(OpBuilder &b,
                                    ArrayRef<OpFoldResult> offsets,
                                    ArrayRef<OpFoldResult> sizes) {
  Location loc = getLoc();
  OpFoldResult zero = b.getIndexAttr(0);
  OpFoldResult m0 = offsets[2];
  OpFoldResult bs = sizes[0], hs = sizes[1], ms = sizes[2];
  OpFoldResult sq = tensor::getMixedSize(b, loc, getQuery(), 2);
  OpFoldResult sk = tensor::getMixedSize(b, loc, getKey(), 2);
  // Per-sequence lengths: the tile's batch b0 has keys [0, Lk) and query
  // rows [0, Lq), each clamped into [0, Sk] / [0, Sq] (the CPU pipeline
  // checks the range at run time; the clamp keeps every slice in bounds).
  OpFoldResult keys = sk, rows = sq;
  if (getKvLengths() || getQLengths()) {
    if (!isConstantIntValue(bs, 1))
      return emitOpError("tiling a tx.attention with kv_lengths or q_lengths "
                         "needs a batch tile of 1 (each tile reads the "
                         "lengths of its batch)");
    auto lengthOf = [&](Value lens, OpFoldResult bound) -> OpFoldResult {
      Value b0 = getValueOrCreateConstantIndexOp(b, loc, offsets[0]);
      Value l = tensor::ExtractOp::create(b, loc, lens, ValueRange{b0});
      l = arith::IndexCastOp::create(b, loc, b.getIndexType(), l);
      l = arith::MaxSIOp::create(b, loc, l,
                                 arith::ConstantIndexOp::create(b, loc, 0));
      return OpFoldResult(arith::MinSIOp::create(
          b, loc, l, getValueOrCreateConstantIndexOp(b, loc, bound))
                              .getResult());
    };
    if (getKvLengths())
      keys = lengthOf(getKvLengths(), sk);
    if (getQLengths())
      rows = lengthOf(getQLengths(), sq);
  }
  SmallVector<Operation *> slices;
  FailureOr<AttentionTiles> t =
      sliceAttentionTile(*this, b, getQuery(), getKey(), getValue(),
                         getMask(), offsets, sizes, zero, keys, slices);
  if (failed(t))
    return failure();
  Value q = t->q, k = t->k, v = t->v, mask = t->mask;
  OpFoldResult d = t->d, dv = t->dv;
  // Scale: the attribute, 1/sqrt(D) for a static D, else the tile of Q
  // pre-scaled by rsqrt(D) at run time.
  double scale = 1.0;
  if (std::optional<double> st = getStaticScale()) {
    scale = *st;
  } else {
    Value dV = getValueOrCreateConstantIndexOp(b, loc, d);
    Value dI = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), dV);
    Value dF = arith::UIToFPOp::create(b, loc, b.getF32Type(), dI);
    q = scaleQuery(b, loc, q, math::RsqrtOp::create(b, loc, dF));
  }
  // The diagonal (causal, window): query i of the tile is query m0 + i, so
  // it sees key j iff j <= i + (Sk - Sq + m0) (+ the window's sides), with
  // Lk - Lq in place of Sk - Sq under per-sequence lengths.
  // (tx.online_attention needs the operand whenever it is causal or has a
  // window, even one that hides nothing, [-1, -1].)
  Value causalOffset, rowLimit;
  AffineExpr s0, s1, s2;
  bindSymbols(b.getContext(), s0, s1, s2);
  if (getCausal() || getWindowAttr())
    causalOffset = getValueOrCreateConstantIndexOp(
        b, loc,
        affine::makeComposedFoldedAffineApply(b, loc, s0 - s1 + s2,
                                              {keys, rows, m0}));
  if (getQLengths())
    rowLimit = getValueOrCreateConstantIndexOp(
        b, loc, affine::makeComposedFoldedAffineApply(b, loc, s0 - s1,
                                                      {rows, m0}));
  Value acc = filledF32(b, loc, {bs, hs, ms, dv}, 0.0);
  Value mx = filledF32(b, loc, {bs, hs, ms},
                       -std::numeric_limits<double>::infinity());
  Value sm = filledF32(b, loc, {bs, hs, ms}, 0.0);
  // Score and mask functions: the tile's first element is the op's (b0,
  // h0, m0) against key 0.
  SmallVector<Value> modOffsets = tileModOffsets(
      b, loc, hasMods(), {}, {offsets[0], offsets[1], m0, zero});
  auto tile = OnlineAttentionOp::create(
      b, loc, acc.getType(), mx.getType(), sm.getType(), q, k, v, mask,
      causalOffset, rowLimit, modOffsets, getScoreCaptures(),
      getMaskCaptures(), acc, mx, sm,
      b.getF32FloatAttr(static_cast<float>(scale)),
      getCausalAttr(), getSoftcapAttr(), getWindowAttr());
  cloneAttentionMods(getScoreMod(), getMaskMod(), tile);
  Type elt = getQuery().getType().getElementType();
  auto [out, lse] =
      emitAttentionEpilogue(b, loc, tile.getResult(0), tile.getResult(1),
                            tile.getResult(2), elt, static_cast<bool>(getLse()));
  SmallVector<Operation *> ops = {tile, out.getDefiningOp()};
  SmallVector<Value> values = {out};
  if (lse) {
    ops.push_back(lse.getDefiningOp());
    values.push_back(lse);
  }
  return TilingResult{ops, values, slices};
}

LogicalResult AttentionOp::getResultTilePosition(
    OpBuilder &b, unsigned resultNumber, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  attentionResultTile(b, getOperation(), getValue(), resultNumber, offsets,
                      sizes, resultOffsets, resultSizes);
  return success();
}

//===----------------------------------------------------------------------===//
// Decomposition (linalg::AggregatedOpInterface)
//===----------------------------------------------------------------------===//

/// One online-softmax step as linalg.generic ops on tensors
/// (OnlineAttentionStep.cpp).
FailureOr<SmallVector<Value>>
OnlineAttentionOp::decomposeOperation(OpBuilder &b) {
  std::optional<int64_t> g = groupOf(*this);
  if (!g)
    return emitOpError(
        "decomposition needs a static ratio H / Hkv of query to K/V heads "
        "(tile the head dimension by 1 first)");
  return buildOnlineAttentionStep(b, *this, *g);
}
