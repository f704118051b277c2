//===- AttentionGradStep.cpp - the backward's block ops, decomposed -------===//
//
// tx.attention_dq and tx.attention_dkdv as linalg.generic ops on tensors
// (FlashAttention-2, Dao 2023, Algorithm 2, one block):
//   S0 = Q.K^T, dP = dO.V^T                                [B, H, M, N]
//   P  = exp(scored(S0) - LSE)  (0 where hidden or LSE = -inf)
//   dT = P (dP - Δ)  (* (1 - tanh²) under softcap)
//   dq:   dQ += scale dT.K
//   dkdv: dK += scale dT^T.Q, dV += P^T.dO, over the block's query heads
// No tensor larger than the block's M x N scores. K/V head h / G is read
// through the indexing maps (no copy).
//
//===----------------------------------------------------------------------===//
#include "IR/AttentionGradStep.h"
#include "IR/AttentionTiles.h"
#include "Transformer/AttentionShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include <limits>

using namespace mlir;
using namespace mlir::tx;
using utils::IteratorType;

namespace {
/// The operands and clauses both block ops share.
struct GradBlockOperands {
  Location loc;
  Value q, k, v, dO, lse, delta, mask, causalOffset, rowLimit, keyLimit;
  FloatAttr scale, softcap;
  bool causal;
  DenseI64ArrayAttr window;
};
template <typename OpT>
GradBlockOperands operandsOf(OpT op) {
  return {op.getLoc(),          op.getQuery(),      op.getKey(),
          op.getValue(),        op.getGradOutput(), op.getLse(),
          op.getDelta(),        op.getMask(),       op.getCausalOffset(),
          op.getRowLimit(),     op.getKeyLimit(),   op.getScaleAttr(),
          op.getSoftcapAttr(),  op.getCausal(),     op.getWindowAttr()};
}

class GradBlock {
public:
  GradBlock(OpBuilder &b, const GradBlockOperands &o, AffineExpr kvHead)
      : b(b), o(o), loc(o.loc), ctx(b.getContext()), f32(b.getF32Type()),
        kvHead(kvHead) {
    SmallVector<OpFoldResult> qs = tensor::getMixedSizes(b, loc, o.q);
    sShape = {qs[0], qs[1], qs[2], tensor::getMixedSize(b, loc, o.k, 2)};
    negInf = cst(-std::numeric_limits<float>::infinity());
    zero = cst(0.0f);
    scale = arith::ConstantOp::create(b, loc, o.scale);
  }

  /// P and dT of the block, [B, H, M, N] f32; with `dsInit`, dS = P (dP
  /// - Δ) written into it as well.
  std::tuple<Value, Value, Value>
  probabilitiesAndScoreGrads(Value dsInit = Value()) {
    Value s0 = contract(o.q, o.k);
    Value p = probabilities(s0);
    Value dp = contract(o.dO, o.v);
    Value ds = dsInit ? scoreGrads(p, dp, s0, false, dsInit) : Value();
    Value dt = ds && !o.softcap
                   ? ds
                   : scoreGrads(p, dp, s0, bool(o.softcap), Value());
    return {p, dt, ds};
  }

  /// init[b,h,i,x] + factor * sum_j g[b,h,i,j] * kv[b,kh,j,x]: dims
  /// (b, h, i, x, j).
  Value rowsTimesKV(Value g, Value kv, Value init, Value factor) {
    return generic(init, {g, kv},
                   {map(5, {d(0), d(1), d(2), d(4)}),
                    map(5, {d(0), kvHead, d(4), d(3)})},
                   map(5, {d(0), d(1), d(2), d(3)}), 1, factor);
  }

  /// init[b,kh,j,x] + factor * sum_{h of kh} sum_i g[b,h,i,j] * rows[b,h,i,x].
  /// With one K/V head (`single`): dims (b, kh, j, x, h, i); with H == Hkv:
  /// dims (b, h, j, x, i).
  Value keysTimesRows(Value g, Value rows, Value init, Value factor,
                      bool single) {
    if (single)
      return generic(init, {g, rows},
                     {map(6, {d(0), d(4), d(5), d(2)}),
                      map(6, {d(0), d(4), d(5), d(3)})},
                     map(6, {d(0), d(1), d(2), d(3)}), 2, factor);
    return generic(init, {g, rows},
                   {map(5, {d(0), d(1), d(4), d(2)}),
                    map(5, {d(0), d(1), d(4), d(3)})},
                   map(5, {d(0), d(1), d(2), d(3)}), 1, factor);
  }

  Value scaleValue() { return scale; }

private:
  OpBuilder &b;
  const GradBlockOperands &o;
  Location loc;
  MLIRContext *ctx;
  Type f32;
  AffineExpr kvHead;
  SmallVector<OpFoldResult> sShape;
  Value negInf, zero, scale;

  AffineExpr d(unsigned i) { return getAffineDimExpr(i, ctx); }
  AffineMap map(unsigned n, ArrayRef<AffineExpr> r) {
    return AffineMap::get(n, 0, r, ctx);
  }
  Value cst(float x) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(x));
  }
  Value filled(Value c) {
    Value e = tensor::EmptyOp::create(b, loc, sShape, f32);
    return linalg::FillOp::create(b, loc, c, e).getResult(0);
  }

  /// init + factor * sum(x * y) over the `nRed` trailing dims, where x (an
  /// f32 block factor) gates: x == 0 adds nothing, whatever y holds.
  Value generic(Value init, ValueRange ins, ArrayRef<AffineMap> inMaps,
                AffineMap outMap, unsigned nRed, Value factor) {
    unsigned n = outMap.getNumDims();
    SmallVector<IteratorType> it(n - nRed, IteratorType::parallel);
    it.append(nRed, IteratorType::reduction);
    SmallVector<AffineMap> maps(inMaps);
    maps.push_back(outMap);
    return linalg::GenericOp::create(
               b, loc, init.getType(), ins, init, maps, it,
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 Value x = a[0];
                 Value prod = arith::MulFOp::create(
                     nb, nl, arith::MulFOp::create(nb, nl, x, factor),
                     toF32(nb, nl, a[1]));
                 Value sum = arith::AddFOp::create(nb, nl, a[2], prod);
                 Value off = arith::CmpFOp::create(
                     nb, nl, arith::CmpFPredicate::OEQ, x, zero);
                 linalg::YieldOp::create(
                     nb, nl,
                     Value(arith::SelectOp::create(nb, nl, off, a[2], sum)));
               })
        .getResult(0);
  }

  /// sum_x rows[b,h,i,x] * kv[b,kh,j,x] (Q K^T, dO V^T): dims
  /// (b, h, i, j, x).
  Value contract(Value rows, Value kv) {
    Value init = filled(zero);
    return linalg::GenericOp::create(
               b, loc, init.getType(), ValueRange{rows, kv}, init,
               ArrayRef<AffineMap>{map(5, {d(0), d(1), d(2), d(4)}),
                                   map(5, {d(0), kvHead, d(3), d(4)}),
                                   map(5, {d(0), d(1), d(2), d(3)})},
               ArrayRef<IteratorType>{
                   IteratorType::parallel, IteratorType::parallel,
                   IteratorType::parallel, IteratorType::parallel,
                   IteratorType::reduction},
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 Value p = arith::MulFOp::create(nb, nl, toF32(nb, nl, a[0]),
                                                 toF32(nb, nl, a[1]));
                 linalg::YieldOp::create(
                     nb, nl, Value(arith::AddFOp::create(nb, nl, a[2], p)));
               })
        .getResult(0);
  }

  /// The block's score rules on S0 (scale, softcap, mask, band, limits),
  /// inside a generic of dims (b, h, i, j).
  Value scored(OpBuilder &nb, Location nl, Value s0, Value maskEntry) {
    Value x = arith::MulFOp::create(nb, nl, s0, scale);
    if (o.softcap)
      x = applySoftcap(nb, nl, x, o.softcap);
    if (maskEntry)
      x = applyMask(nb, nl, x, maskEntry,
                    cast<RankedTensorType>(o.mask.getType())
                        .getElementType()
                        .isInteger(1),
                    negInf);
    Value i = linalg::IndexOp::create(nb, nl, 2);
    Value j = linalg::IndexOp::create(nb, nl, 3);
    if (o.causalOffset)
      x = applyKeyBand(nb, nl, x, i, j, o.causalOffset,
                       keyBand(o.causal, o.window), negInf);
    for (auto [idx, limit] :
         {std::pair<Value, Value>{i, o.rowLimit}, {j, o.keyLimit}})
      if (limit)
        x = arith::SelectOp::create(
            nb, nl,
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, idx,
                                  limit),
            x, negInf);
    return x;
  }

  /// P = exp(S - LSE), 0 where the LSE is -inf (a row that saw no key).
  Value probabilities(Value s0) {
    SmallVector<Value> ins = {s0, o.lse};
    SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(4),
                                   map(4, {d(0), d(1), d(2)})};
    if (o.mask) {
      auto mTy = cast<RankedTensorType>(o.mask.getType());
      AffineExpr c0 = getAffineConstantExpr(0, ctx);
      ins.push_back(o.mask);
      maps.push_back(map(4, {mTy.getDimSize(0) == 1 ? c0 : d(0),
                             mTy.getDimSize(1) == 1 ? c0 : d(1), d(2),
                             d(3)}));
    }
    maps.push_back(b.getMultiDimIdentityMap(4));
    Value init = tensor::EmptyOp::create(b, loc, sShape, f32);
    return linalg::GenericOp::create(
               b, loc, init.getType(), ins, init, maps,
               SmallVector<IteratorType>(4, IteratorType::parallel),
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 Value x = scored(nb, nl, a[0], o.mask ? a[2] : Value());
                 Value e = math::ExpOp::create(
                     nb, nl, arith::SubFOp::create(nb, nl, x, a[1]));
                 Value dead = arith::CmpFOp::create(
                     nb, nl, arith::CmpFPredicate::OEQ, a[1], negInf);
                 linalg::YieldOp::create(
                     nb, nl,
                     Value(arith::SelectOp::create(nb, nl, dead, zero, e)));
               })
        .getResult(0);
  }

  /// dS = P (dP - Δ), times 1 - tanh²(scale S0 / softcap) with `capped`
  /// (dT), into `init` (a new tensor when null); exactly 0 where P is 0 (dP
  /// may be NaN there).
  Value scoreGrads(Value p, Value dp, Value s0, bool capped, Value init) {
    AffineMap id = b.getMultiDimIdentityMap(4);
    SmallVector<Value> ins = {p, dp, o.delta};
    SmallVector<AffineMap> maps = {id, id, map(4, {d(0), d(1), d(2)})};
    if (capped) {
      ins.push_back(s0);
      maps.push_back(id);
    }
    maps.push_back(id);
    if (!init)
      init = tensor::EmptyOp::create(b, loc, sShape, f32);
    return linalg::GenericOp::create(
               b, loc, init.getType(), ins, init, maps,
               SmallVector<IteratorType>(4, IteratorType::parallel),
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 Value g = arith::SubFOp::create(nb, nl, a[1], a[2]);
                 Value ds = arith::MulFOp::create(nb, nl, a[0], g);
                 if (capped) {
                   Value c = arith::ConstantOp::create(nb, nl, o.softcap);
                   Value t = math::TanhOp::create(
                       nb, nl,
                       arith::DivFOp::create(
                           nb, nl, arith::MulFOp::create(nb, nl, a[3], scale),
                           c));
                   Value one = arith::ConstantOp::create(
                       nb, nl, nb.getF32FloatAttr(1.0));
                   ds = arith::MulFOp::create(
                       nb, nl, ds,
                       arith::SubFOp::create(
                           nb, nl, one, arith::MulFOp::create(nb, nl, t, t)));
                 }
                 Value off = arith::CmpFOp::create(
                     nb, nl, arith::CmpFPredicate::OEQ, a[0], zero);
                 linalg::YieldOp::create(
                     nb, nl,
                     Value(arith::SelectOp::create(nb, nl, off, zero, ds)));
               })
        .getResult(0);
  }
};

/// The K/V head of query head d1 in the block: 0 for a single K/V head,
/// d1 / G for a static G, else none.
std::optional<AffineExpr> kvHeadOf(OpBuilder &b, Value q, Value k, Value v) {
  AffineExpr h = b.getAffineDimExpr(1);
  if (cast<RankedTensorType>(k.getType()).getDimSize(1) == 1)
    return getAffineConstantExpr(0, b.getContext());
  std::optional<int64_t> g = staticGroup(q, k, v);
  if (!g)
    return std::nullopt;
  return *g == 1 ? h : h.floorDiv(*g);
}
} // namespace

FailureOr<SmallVector<Value>> mlir::tx::buildAttentionDqStep(OpBuilder &b,
                                                             AttentionDqOp op) {
  std::optional<AffineExpr> kvHead =
      kvHeadOf(b, op.getQuery(), op.getKey(), op.getValue());
  if (!kvHead)
    return op.emitOpError(
        "decomposition needs a static ratio H / Hkv of query to K/V heads "
        "(tile the head dimension by 1 first)");
  GradBlockOperands o = operandsOf(op);
  GradBlock blk(b, o, *kvHead);
  auto [p, dt, ds] = blk.probabilitiesAndScoreGrads(op.getGradScoresInit());
  (void)p;
  SmallVector<Value> r = {blk.rowsTimesKV(dt, op.getKey(),
                                          op.getGradQueryInit(),
                                          blk.scaleValue())};
  if (ds)
    r.push_back(ds);
  return r;
}

FailureOr<SmallVector<Value>>
mlir::tx::buildAttentionDkDvStep(OpBuilder &b, AttentionDkDvOp op) {
  bool single =
      cast<RankedTensorType>(op.getKey().getType()).getDimSize(1) == 1;
  std::optional<int64_t> g =
      staticGroup(op.getQuery(), op.getKey(), op.getValue());
  if (!single && !(g && *g == 1))
    return op.emitOpError(
        "decomposition needs one K/V head or H == Hkv (tile the K/V head "
        "dimension by 1 first)");
  GradBlockOperands o = operandsOf(op);
  AffineExpr kvHead = single ? getAffineConstantExpr(0, b.getContext())
                             : b.getAffineDimExpr(1);
  GradBlock blk(b, o, kvHead);
  auto [p, dt, ds] = blk.probabilitiesAndScoreGrads();
  (void)ds;
  Value one = arith::ConstantOp::create(b, op.getLoc(), b.getF32FloatAttr(1));
  return SmallVector<Value>{
      blk.keysTimesRows(dt, op.getQuery(), op.getGradKeyInit(),
                        blk.scaleValue(), single),
      blk.keysTimesRows(p, op.getGradOutput(), op.getGradValueInit(), one,
                        single)};
}
