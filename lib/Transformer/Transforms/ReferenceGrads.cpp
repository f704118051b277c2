//===- ReferenceGrads.cpp - the backward ops -> linalg on tensors ---------===//
//
// The reference lowering of tx.softmax_grad and tx.attention_grad (the
// formulas of TxGradOps.td), part of convert-tx-to-linalg. Every faster
// path of the gradients is checked against what this produces.
//
// tx.softmax_grad:  r = sum_dim Y * dY;  dX = Y * (dY - r)           (f32)
// tx.attention_grad, per query head h (K/V head h / G read in place):
//   S0 = Q . K^T;  S = the scored S0 (scale, softcap, mask, band, lengths)
//   P  = exp(S - LSE);  dP = dO . V^T;  Δ = rowsum(dO ∘ O)
//   dS = P (dP - Δ);  dT = dS f'(capped) (1 - tanh²) with a score function
//   f (its derivative generated, AttentionModGrad.h) and softcap
//   dQ = scale dT . K;  dK_h = scale dT^T . Q;  dV_h = P^T . dO
//   dK, dV = sum of dK_h, dV_h over the G query heads of a K/V head
//   dMask = dS summed over the mask's broadcast dimensions
// each a linalg.generic in f32, rounded once to the result's type.
//
//===----------------------------------------------------------------------===//
#include "IR/AttentionModGrad.h"
#include "IR/AttentionMods.h"
#include "Transforms/GradBuild.h"
#include "Transforms/LinalgBuild.h"
#include "Transformer/AttentionShapes.h"
#include "Transformer/RunTimeChecks.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include <limits>

using namespace mlir;
using namespace mlir::tx;
using utils::IteratorType;

namespace {

/// Iterator types: `nPar` parallel loops, then `nRed` reductions.
SmallVector<IteratorType> iterators(unsigned nPar, unsigned nRed = 0) {
  SmallVector<IteratorType> it(nPar, IteratorType::parallel);
  it.append(nRed, IteratorType::reduction);
  return it;
}

/// Casts `v` to `ty` when their (static/dynamic) types differ.
Value castTo(OpBuilder &b, Location loc, Value v, Type ty) {
  return v.getType() == ty ? v : tensor::CastOp::create(b, loc, ty, v);
}

/// Inside a linalg.generic body: yields acc + x * y (x, y extended to f32).
void yieldMulAdd(OpBuilder &b, Location loc, Value acc, Value x, Value y) {
  Value p = arith::MulFOp::create(b, loc, toF32(b, loc, x), toF32(b, loc, y));
  linalg::YieldOp::create(b, loc, Value(arith::AddFOp::create(b, loc, acc, p)));
}

//===----------------------------------------------------------------------===//
// tx.softmax_grad
//===----------------------------------------------------------------------===//

struct SoftmaxGradLowering : OpRewritePattern<SoftmaxGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxGradOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Type f32 = b.getF32Type();
    Type elt = op.getType().getElementType();
    Value y = op.getOutput(), dy = op.getGradOutput();
    unsigned rank = op.getType().getRank();
    unsigned dim = op.getNormalizedDim();
    // r = sum_dim Y * dY over each row.
    SmallVector<OpFoldResult> sizes = sizesOf(b, loc, y);
    SmallVector<OpFoldResult> rowSizes(sizes);
    rowSizes.erase(rowSizes.begin() + dim);
    SmallVector<AffineExpr> rowExprs;
    for (unsigned i = 0; i < rank; ++i)
      if (i != dim)
        rowExprs.push_back(b.getAffineDimExpr(i));
    AffineMap id = b.getMultiDimIdentityMap(rank);
    AffineMap rowMap = AffineMap::get(rank, 0, rowExprs, b.getContext());
    SmallVector<IteratorType> it = iterators(rank);
    it[dim] = IteratorType::reduction;
    Value rInit = filledTensor(b, loc, rowSizes, f32, 0.0);
    Value r = linalg::GenericOp::create(
                  b, loc, rInit.getType(), ValueRange{y, dy}, rInit,
                  {id, id, rowMap}, it,
                  [&](OpBuilder &nb, Location nl, ValueRange a) {
                    yieldMulAdd(nb, nl, a[2], a[0], a[1]);
                  })
                  .getResult(0);
    // dX = Y * (dY - r), rounded once.
    Value init = emptyTensor(b, loc, sizes, elt);
    Value dx = linalg::GenericOp::create(
                   b, loc, init.getType(), ValueRange{y, dy, r}, init,
                   {id, id, rowMap, id}, iterators(rank),
                   [&](OpBuilder &nb, Location nl, ValueRange a) {
                     Value diff = arith::SubFOp::create(
                         nb, nl, toF32(nb, nl, a[1]), a[2]);
                     Value x = arith::MulFOp::create(nb, nl,
                                                     toF32(nb, nl, a[0]), diff);
                     if (elt != f32)
                       x = arith::TruncFOp::create(nb, nl, elt, x);
                     linalg::YieldOp::create(nb, nl, x);
                   })
                   .getResult(0);
    b.replaceOp(op, castTo(b, loc, dx, op.getType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// tx.attention_grad
//===----------------------------------------------------------------------===//

/// The reference backward of one tx.attention_grad, per query head (the
/// flat layout: every tensor indexed (b, h, ...), K/V head h / G read with
/// tensor.extract, the per-head dK/dV summed over each group at the end).
class ReferenceAttentionGrad {
public:
  ReferenceAttentionGrad(OpBuilder &b, AttentionGradOp op)
      : b(b), op(op), loc(op.getLoc()), ctx(op.getContext()),
        f32(b.getF32Type()), elt(op.getQuery().getType().getElementType()),
        sz(emitAttentionSizesAndChecks(b, loc, op.getQuery(), op.getKey(),
                                       op.getValue(), op.getMask(),
                                       /*checks=*/true, op.getKvLengths(),
                                       op.getQLengths())) {
    emitGradOperandChecks(b, op, sz);
    gIdx = getValueOrCreateConstantIndexOp(b, loc, sz.G);
    negInf = arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
    zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
    scale = scaleValue();
  }

  /// dQ, dK, dV and, when requested, the mask's gradient.
  SmallVector<Value> build() {
    Value s0 = contractKV(op.getQuery(), op.getKey());
    Value p = probabilities(scored(s0));
    Value dp = contractKV(op.getGradOutput(), op.getValue());
    Value delta = emitRowDot(b, loc, op.getGradOutput(), op.getOutput(), sz);
    Value ds = scoreGradient(p, dp, delta);
    Value dt = op.getSoftcapAttr() || !op.getScoreMod().empty()
                   ? throughScore(ds, s0)
                   : ds;
    Value dq = rowsTimesKV(dt, op.getKey(), sz.D);
    Value dk = groupSum(keysTimesRows(dt, op.getQuery(), sz.D), sz.D);
    Value dv = groupSum(keysTimesRows(p, op.getGradOutput(), sz.Dv), sz.Dv);
    SmallVector<Value> r = {
        emitRounded(b, loc, dq, scale, op.getGradQuery().getType()),
        emitRounded(b, loc, dk, scale, op.getGradKey().getType()),
        emitRounded(b, loc, dv, Value(), op.getGradValue().getType())};
    if (op.getGradMask())
      r.push_back(emitMaskGradient(b, op, sz, ds));
    return r;
  }

private:
  OpBuilder &b;
  AttentionGradOp op;
  Location loc;
  MLIRContext *ctx;
  Type f32, elt;
  AttentionSizes sz;
  Value gIdx, negInf, zero, scale;

  AffineExpr d(unsigned i) { return getAffineDimExpr(i, ctx); }
  AffineMap map(unsigned n, ArrayRef<unsigned> dims) {
    SmallVector<AffineExpr> r;
    for (unsigned i : dims)
      r.push_back(d(i));
    return AffineMap::get(n, 0, r, ctx);
  }
  /// [B, H, rows, cols] as sizes.
  SmallVector<OpFoldResult> perHead(OpFoldResult rows, OpFoldResult cols) {
    return {sz.B, sz.H, rows, cols};
  }

  /// The scale (1/sqrt(D) by default, computed at run time for a dynamic D).
  Value scaleValue() {
    if (std::optional<double> st = op.getStaticScale())
      return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(*st));
    Value dV = getValueOrCreateConstantIndexOp(b, loc, sz.D);
    Value dI = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), dV);
    return math::RsqrtOp::create(b, loc,
                                 arith::UIToFPOp::create(b, loc, f32, dI));
  }

  /// Inside a generic: t[b, h / G, j, x] (K or V of query head h).
  Value kvAt(OpBuilder &nb, Location nl, Value t, unsigned jDim,
             unsigned xDim) {
    Value bi = linalg::IndexOp::create(nb, nl, 0);
    Value kh = arith::DivUIOp::create(
        nb, nl, linalg::IndexOp::create(nb, nl, 1), gIdx);
    Value ji = linalg::IndexOp::create(nb, nl, jDim);
    Value xi = linalg::IndexOp::create(nb, nl, xDim);
    return toF32(nb, nl,
                 tensor::ExtractOp::create(nb, nl, t, ValueRange{bi, kh, ji, xi}));
  }

  /// acc + x * y, or acc where `gate` (an f32 factor) is 0: a hidden key
  /// or row adds nothing, whatever the other factor holds (0 * NaN).
  Value gatedFma(OpBuilder &nb, Location nl, Value acc, Value gate, Value y) {
    Value sum = arith::AddFOp::create(
        nb, nl, acc, arith::MulFOp::create(nb, nl, gate, y));
    Value off =
        arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ, gate, zero);
    return arith::SelectOp::create(nb, nl, off, acc, sum);
  }

  /// [B, H, Sq, Sk]: sum_x rows[b, h, i, x] * kv[b, h / G, j, x] (Q K^T or
  /// dO V^T). Dims (b, h, i, j, x).
  Value contractKV(Value rows, Value kv) {
    Value init = filledTensor(b, loc, perHead(sz.Sq, sz.Sk), f32, 0.0);
    return linalg::GenericOp::create(
               b, loc, init.getType(), rows, init,
               {map(5, {0, 1, 2, 4}), map(5, {0, 1, 2, 3})}, iterators(4, 1),
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 yieldMulAdd(nb, nl, a[1], a[0], kvAt(nb, nl, kv, 3, 4));
               })
        .getResult(0);
  }

  /// The scores of tx.attention (-inf where hidden) from S0 = Q K^T.
  Value scored(Value s0) {
    SmallVector<Value> ins = {s0};
    SmallVector<AffineMap> maps = {map(4, {0, 1, 2, 3})};
    Value mask = op.getMask();
    bool keepMask = false;
    if (mask) {
      auto mTy = cast<RankedTensorType>(mask.getType());
      AffineExpr c0 = getAffineConstantExpr(0, ctx);
      maps.push_back(AffineMap::get(
          4, 0,
          {mTy.getDimSize(0) == 1 ? c0 : d(0),
           mTy.getDimSize(1) == 1 ? c0 : d(1), d(2), d(3)},
          ctx));
      ins.push_back(mask);
      keepMask = mTy.getElementType().isInteger(1);
    }
    int kvIdx = -1, qIdx = -1;
    for (auto [len, idx] : {std::pair<Value, int *>{op.getKvLengths(), &kvIdx},
                            {op.getQLengths(), &qIdx}})
      if (len) {
        *idx = ins.size();
        ins.push_back(len);
        maps.push_back(map(4, {0}));
      }
    maps.push_back(map(4, {0, 1, 2, 3}));
    ScoreRules rules = makeScoreRules(
        b, loc, sz, scale, negInf, op.getSoftcapAttr(), op.getCausal(),
        op.getWindowAttr(), keepMask, 2, 3);
    addMods(rules);
    return linalg::GenericOp::create(
               b, loc, s0.getType(), ins,
               emptyTensor(b, loc, perHead(sz.Sq, sz.Sk), f32), maps,
               iterators(4),
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 Value x = applyScoreRules(
                     nb, nl, a[0], mask ? a[1] : Value(),
                     kvIdx >= 0 ? a[kvIdx] : Value(),
                     qIdx >= 0 ? a[qIdx] : Value(), rules);
                 linalg::YieldOp::create(nb, nl, x);
               })
        .getResult(0);
  }

  /// P = exp(S - LSE), 0 where the LSE is -inf (a row that saw no key).
  Value probabilities(Value s) {
    return linalg::GenericOp::create(
               b, loc, s.getType(), ValueRange{s, op.getLse()},
               emptyTensor(b, loc, perHead(sz.Sq, sz.Sk), f32),
               {map(4, {0, 1, 2, 3}), map(4, {0, 1, 2}), map(4, {0, 1, 2, 3})},
               iterators(4),
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 Value e = math::ExpOp::create(
                     nb, nl, arith::SubFOp::create(nb, nl, a[0], a[1]));
                 Value dead = arith::CmpFOp::create(
                     nb, nl, arith::CmpFPredicate::OEQ, a[1], negInf);
                 linalg::YieldOp::create(
                     nb, nl,
                     Value(arith::SelectOp::create(nb, nl, dead, zero, e)));
               })
        .getResult(0);
  }

  /// dS = P (dP - Δ), exactly 0 where P is 0 (dP may be NaN there).
  Value scoreGradient(Value p, Value dp, Value delta) {
    AffineMap id = map(4, {0, 1, 2, 3});
    return linalg::GenericOp::create(
               b, loc, p.getType(), ValueRange{p, dp, delta},
               emptyTensor(b, loc, perHead(sz.Sq, sz.Sk), f32),
               {id, id, map(4, {0, 1, 2}), id}, iterators(4),
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 Value g = arith::SubFOp::create(nb, nl, a[1], a[2]);
                 linalg::YieldOp::create(
                     nb, nl, gatedFma(nb, nl, zero, a[0], g));
               })
        .getResult(0);
  }

  /// Inside a 4-d generic over (b, h, i, j): the indices a score or mask
  /// function takes (h the query head).
  SmallVector<Value> bhij(OpBuilder &nb, Location nl) {
    return {linalg::IndexOp::create(nb, nl, 0),
            linalg::IndexOp::create(nb, nl, 1),
            linalg::IndexOp::create(nb, nl, 2),
            linalg::IndexOp::create(nb, nl, 3)};
  }

  /// The op's score and mask functions as hooks of `rules`.
  void addMods(ScoreRules &rules) {
    if (!op.getScoreMod().empty())
      rules.scoreMod = [this](OpBuilder &nb, Location nl, Value x) {
        return inlineAttentionMod(nb, op.getScoreMod(), op.getScoreCaptures(),
                                  x, bhij(nb, nl));
      };
    if (!op.getMaskMod().empty())
      rules.maskMod = [this](OpBuilder &nb, Location nl) {
        return inlineAttentionMod(nb, op.getMaskMod(), op.getMaskCaptures(),
                                  Value(), bhij(nb, nl));
      };
  }

  /// dT = dS * f'(cap(x)) * (1 - tanh²(x / softcap)), x = scale S0: through
  /// the soft cap and the score function f (its derivative generated by
  /// inlineScoreModDerivative); each factor only where the op has it.
  Value throughScore(Value ds, Value s0) {
    AffineMap id = map(4, {0, 1, 2, 3});
    FloatAttr cap = op.getSoftcapAttr();
    Value c = cap ? arith::ConstantOp::create(
                        b, loc, b.getF32FloatAttr(float(cap.getValueAsDouble())))
                  : Value();
    Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0));
    return linalg::GenericOp::create(
               b, loc, ds.getType(), ValueRange{ds, s0},
               emptyTensor(b, loc, perHead(sz.Sq, sz.Sk), f32), {id, id, id},
               iterators(4),
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 Value x = arith::MulFOp::create(nb, nl, a[1], scale);
                 Value factor;
                 if (cap) {
                   Value t = math::TanhOp::create(
                       nb, nl, arith::DivFOp::create(nb, nl, x, c));
                   factor = arith::SubFOp::create(
                       nb, nl, one, arith::MulFOp::create(nb, nl, t, t));
                   if (!op.getScoreMod().empty()) // f's argument: the capped score
                     x = arith::MulFOp::create(nb, nl, c, t);
                 }
                 if (!op.getScoreMod().empty()) {
                   Value fd = inlineScoreModDerivative(
                                  nb, op.getScoreMod(), op.getScoreCaptures(),
                                  x, bhij(nb, nl))
                                  .second;
                   factor = factor ? arith::MulFOp::create(nb, nl, factor, fd)
                                         .getResult()
                                   : fd;
                 }
                 linalg::YieldOp::create(
                     nb, nl, gatedFma(nb, nl, zero, a[0], factor));
               })
        .getResult(0);
  }

  /// [B, H, Sq, X]: sum_j g[b, h, i, j] * kv[b, h / G, j, x] (dT K).
  /// Dims (b, h, i, x, j).
  Value rowsTimesKV(Value g, Value kv, OpFoldResult x) {
    Value init = filledTensor(b, loc, perHead(sz.Sq, x), f32, 0.0);
    return linalg::GenericOp::create(
               b, loc, init.getType(), g, init,
               {map(5, {0, 1, 2, 4}), map(5, {0, 1, 2, 3})}, iterators(4, 1),
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 linalg::YieldOp::create(
                     nb, nl,
                     gatedFma(nb, nl, a[1], a[0], kvAt(nb, nl, kv, 4, 3)));
               })
        .getResult(0);
  }

  /// [B, H, Sk, X]: sum_i g[b, h, i, j] * rows[b, h, i, x] (dT^T Q,
  /// P^T dO), per query head. Dims (b, h, j, x, i).
  Value keysTimesRows(Value g, Value rows, OpFoldResult x) {
    Value init = filledTensor(b, loc, perHead(sz.Sk, x), f32, 0.0);
    return linalg::GenericOp::create(
               b, loc, init.getType(), ValueRange{g, rows}, init,
               {map(5, {0, 1, 4, 2}), map(5, {0, 1, 4, 3}),
                map(5, {0, 1, 2, 3})},
               iterators(4, 1),
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 linalg::YieldOp::create(
                     nb, nl,
                     gatedFma(nb, nl, a[2], a[0], toF32(nb, nl, a[1])));
               })
        .getResult(0);
  }

  /// [B, Hkv, Sk, X]: the per-query-head t [B, H, Sk, X] summed over the G
  /// heads of each K/V head. Dims (b, kh, j, x, g).
  Value groupSum(Value t, OpFoldResult x) {
    if (isConstantIntValue(sz.G, 1))
      return t;
    Value init = filledTensor(b, loc, {sz.B, sz.Hkv, sz.Sk, x}, f32, 0.0);
    Value groups = filledTensor(b, loc, {sz.G}, f32, 0.0); // the g bound
    return linalg::GenericOp::create(
               b, loc, init.getType(), groups, init,
               {map(5, {4}), map(5, {0, 1, 2, 3})}, iterators(4, 1),
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 Value h = arith::AddIOp::create(
                     nb, nl,
                     arith::MulIOp::create(
                         nb, nl, linalg::IndexOp::create(nb, nl, 1), gIdx),
                     linalg::IndexOp::create(nb, nl, 4));
                 Value v = tensor::ExtractOp::create(
                     nb, nl, t,
                     ValueRange{linalg::IndexOp::create(nb, nl, 0), h,
                                linalg::IndexOp::create(nb, nl, 2),
                                linalg::IndexOp::create(nb, nl, 3)});
                 linalg::YieldOp::create(
                     nb, nl, Value(arith::AddFOp::create(nb, nl, a[1], v)));
               })
        .getResult(0);
  }

};

struct AttentionGradLowering : OpRewritePattern<AttentionGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionGradOp op,
                                PatternRewriter &rewriter) const override {
    ReferenceAttentionGrad ref(rewriter, op);
    rewriter.replaceOp(op, ref.build());
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Shared with tx-tile-attention-grad (GradBuild.h)
//===----------------------------------------------------------------------===//

void mlir::tx::emitGradOperandChecks(OpBuilder &b, AttentionGradOp op,
                                     const AttentionSizes &sz) {
  Location loc = op.getLoc();
  OpFoldResult want[4] = {sz.B, sz.H, sz.Sq, sz.Dv};
  const char *names[4] = {"B", "H", "Sq", "Dv"};
  auto check = [&](Value t, StringRef what, unsigned rank) {
    SmallVector<OpFoldResult> got = sizesOf(b, loc, t);
    for (unsigned i = 0; i < rank; ++i) {
      if (getConstantIntValue(got[i]) && getConstantIntValue(want[i]))
        continue;
      emitFormattedCheck(
          b, loc, arith::CmpIPredicate::eq,
          getValueOrCreateConstantIndexOp(b, loc, got[i]),
          getValueOrCreateConstantIndexOp(b, loc, want[i]),
          ("tx.attention_grad: " + what + " dimension " + Twine(i) +
           " differs from " + names[i] + ": %lld vs %lld")
              .str());
    }
  };
  check(op.getOutput(), "output", 4);
  check(op.getGradOutput(), "grad_output", 4);
  check(op.getLse(), "lse", 3);
}

Value mlir::tx::emitRowDot(OpBuilder &b, Location loc, Value x, Value y,
                           const AttentionSizes &sz) {
  Value init = filledTensor(b, loc, {sz.B, sz.H, sz.Sq}, b.getF32Type(), 0.0);
  MLIRContext *ctx = b.getContext();
  AffineMap id = b.getMultiDimIdentityMap(4);
  AffineMap row = AffineMap::get(
      4, 0, {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx),
             getAffineDimExpr(2, ctx)},
      ctx);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{x, y}, init, {id, id, row},
             iterators(3, 1),
             [&](OpBuilder &nb, Location nl, ValueRange a) {
               yieldMulAdd(nb, nl, a[2], a[0], a[1]);
             })
      .getResult(0);
}

Value mlir::tx::emitRounded(OpBuilder &b, Location loc, Value t, Value factor,
                            Type ty) {
  auto rt = cast<RankedTensorType>(ty);
  Type et = rt.getElementType();
  unsigned rank = rt.getRank();
  AffineMap id = b.getMultiDimIdentityMap(rank);
  Value init = emptyTensor(b, loc, sizesOf(b, loc, t), et);
  Value r = linalg::GenericOp::create(
                b, loc, init.getType(), t, init, {id, id}, iterators(rank),
                [&](OpBuilder &nb, Location nl, ValueRange a) {
                  Value x = a[0];
                  if (factor)
                    x = arith::MulFOp::create(nb, nl, x, factor);
                  if (et != nb.getF32Type())
                    x = arith::TruncFOp::create(nb, nl, et, x);
                  linalg::YieldOp::create(nb, nl, x);
                })
                .getResult(0);
  return castTo(b, loc, r, ty);
}

/// The additive mask's gradient: dS summed over the mask's broadcast
/// dimensions (a static 1 in dims 0 and 1), in the mask's type.
Value mlir::tx::emitMaskGradient(OpBuilder &b, AttentionGradOp op,
                                 const AttentionSizes &sz, Value ds) {
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  auto map = [&](unsigned n, ArrayRef<unsigned> dims) {
    SmallVector<AffineExpr> r;
    for (unsigned i : dims)
      r.push_back(d(i));
    return AffineMap::get(n, 0, r, ctx);
  };
  Value mask = op.getMask();
  auto mTy = cast<RankedTensorType>(mask.getType());
  bool bcast[2] = {mTy.getDimSize(0) == 1, mTy.getDimSize(1) == 1};
  // The kept dimensions of dS, then unit dims back by expand_shape.
  SmallVector<unsigned> kept;
  SmallVector<OpFoldResult> keptSizes;
  SmallVector<IteratorType> it = iterators(4);
  OpFoldResult full[4] = {sz.B, sz.H, sz.Sq, sz.Sk};
  for (unsigned i = 0; i < 4; ++i) {
    if (i < 2 && bcast[i]) {
      it[i] = IteratorType::reduction;
      continue;
    }
    kept.push_back(i);
    keptSizes.push_back(full[i]);
  }
  Value init = filledTensor(b, loc, keptSizes, f32, 0.0);
  Value sum = linalg::GenericOp::create(
                  b, loc, init.getType(), ds, init,
                  {map(4, {0, 1, 2, 3}), map(4, kept)}, it,
                  [&](OpBuilder &nb, Location nl, ValueRange a) {
                    linalg::YieldOp::create(
                        nb, nl,
                        Value(arith::AddFOp::create(nb, nl, a[1], a[0])));
                  })
                  .getResult(0);
  if (kept.size() < 4) {
    // [kept...] -> [B|1, H|1, Sq, Sk]: each unit dim joins the group of
    // the kept dimension after it.
    SmallVector<ReassociationIndices> re;
    ReassociationIndices group;
    for (unsigned i = 0; i < 4; ++i) {
      group.push_back(i);
      if (!(i < 2 && bcast[i])) {
        re.push_back(group);
        group.clear();
      }
    }
    SmallVector<int64_t> shape;
    SmallVector<OpFoldResult> outSizes;
    for (unsigned i = 0; i < 4; ++i) {
      bool unit = i < 2 && bcast[i];
      outSizes.push_back(unit ? b.getIndexAttr(1) : full[i]);
      std::optional<int64_t> c = getConstantIntValue(outSizes.back());
      shape.push_back(c ? *c : ShapedType::kDynamic);
    }
    sum = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(shape, f32), sum, re, outSizes);
  }
  return emitRounded(b, loc, sum, Value(), op.getGradMask().getType());
}

void mlir::tx::populateReferenceGradPatterns(RewritePatternSet &patterns) {
  patterns.add<SoftmaxGradLowering, AttentionGradLowering>(
      patterns.getContext());
}
