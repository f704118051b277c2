//===- OnlineAttentionStep.cpp - tx.online_attention, decomposed ----------===//
//
// One online-softmax step as linalg.generic ops on tensors:
//   S     = scale * Q.K^T (+ mask, causal -> -inf)     [B, H, M, N]
//   rmax  = max_n S                                    [B, H, M]
//   m_new = max(m_old, rmax); alpha = exp(m_old - m_safe); l = alpha * l_old
//   P     = exp(S - m_safe)                            (in place of S)
//   l    += sum_n P;  acc = alpha * acc + P.V
// with m_safe = (m_new == -inf) ? 0 : m_new. K/V head h / G is read through
// the indexing map (no copy).
//
//===----------------------------------------------------------------------===//
#include "IR/AttentionMods.h"
#include "IR/OnlineAttentionStep.h"
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
class OnlineStep {
public:
  OnlineStep(OpBuilder &b, OnlineAttentionOp op, int64_t group)
      : b(b), op(op), loc(op.getLoc()), ctx(op.getContext()),
        f32(b.getF32Type()) {
    SmallVector<OpFoldResult> qs =
        tensor::getMixedSizes(b, loc, op.getQuery());
    OpFoldResult n = tensor::getMixedSize(b, loc, op.getKey(), 2);
    sShape = {qs[0], qs[1], qs[2], n};
    rowShape = {qs[0], qs[1], qs[2]};
    kvHead = group == 1 ? d(1) : d(1).floorDiv(group);
    negInf = arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
    zeroF = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
    id4 = b.getMultiDimIdentityMap(4);
    row4 = map(4, {d(0), d(1), d(2)});
  }

  SmallVector<Value> build() {
    Value s = maskedScores(scores());
    Value rmax = rowMax(s);
    auto state = updateState(rmax);
    Value mNew = state.getResult(0), lScaled = state.getResult(1),
          alpha = state.getResult(2);
    Value p = probabilities(s, mNew);
    Value lNew = rowSum(p, lScaled);
    Value accNew = accumulate(p, alpha);
    return {accNew, mNew, lNew};
  }

private:
  OpBuilder &b;
  OnlineAttentionOp op;
  Location loc;
  MLIRContext *ctx;
  Type f32;
  SmallVector<OpFoldResult> sShape, rowShape; // [B, H, M, N], [B, H, M]
  AffineExpr kvHead;                          // h / G
  Value negInf, zeroF;
  AffineMap id4, row4;
  static constexpr IteratorType par = IteratorType::parallel,
                                red = IteratorType::reduction;

  AffineExpr d(unsigned i) { return getAffineDimExpr(i, ctx); }
  AffineMap map(unsigned nd, ArrayRef<AffineExpr> r) {
    return AffineMap::get(nd, 0, r, ctx);
  }
  Value filled(ArrayRef<OpFoldResult> shape, Value cst) {
    Value e = tensor::EmptyOp::create(b, loc, shape, f32);
    return linalg::FillOp::create(b, loc, cst, e).getResult(0);
  }
  /// m_safe = (m == -inf) ? 0 : m.
  Value safe(OpBuilder &nb, Location nl, Value m) {
    Value dead =
        arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ, m, negInf);
    return arith::SelectOp::create(nb, nl, dead, zeroF, m);
  }

  /// S[b,h,m,n] = sum_d Q[b,h,m,d] * K[b,h/G,n,d]. Dims (b, h, m, n, d).
  Value scores() {
    Value sInit = filled(sShape, zeroF);
    return linalg::GenericOp::create(
               b, loc, sInit.getType(),
               ValueRange{op.getQuery(), op.getKey()}, ValueRange{sInit},
               ArrayRef<AffineMap>{map(5, {d(0), d(1), d(2), d(4)}),
                                   map(5, {d(0), kvHead, d(3), d(4)}),
                                   map(5, {d(0), d(1), d(2), d(3)})},
               ArrayRef<IteratorType>{par, par, par, par, red},
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 Value p = arith::MulFOp::create(nb, nl, toF32(nb, nl, a[0]),
                                                 toF32(nb, nl, a[1]));
                 linalg::YieldOp::create(
                     nb, nl, Value(arith::AddFOp::create(nb, nl, a[2], p)));
               })
        .getResult(0);
  }

  /// Inside the scores' generic: the whole op's (b, h, i, j) of this
  /// element, the generic's indices plus the op's mod_offsets.
  SmallVector<Value> modIndices(OpBuilder &nb, Location nl) {
    SmallVector<Value> bhij;
    for (auto [d, off] : llvm::enumerate(op.getModOffsets()))
      bhij.push_back(arith::AddIOp::create(
          nb, nl, off, linalg::IndexOp::create(nb, nl, d)));
    return bhij;
  }

  /// Scale, soft cap, score function, mask, mask function, causal/window
  /// band and row limit, in place of S. Dims (b, h, m, n).
  Value maskedScores(Value s) {
    Value scale = arith::ConstantOp::create(b, loc, op.getScaleAttr());
    Value mask = op.getMask();
    SmallVector<Value> ins;
    SmallVector<AffineMap> maps;
    bool keepMask = false;
    if (mask) {
      auto mTy = cast<RankedTensorType>(mask.getType());
      keepMask = mTy.getElementType().isInteger(1);
      AffineExpr zero = getAffineConstantExpr(0, ctx);
      ins.push_back(mask);
      maps.push_back(map(4, {mTy.getDimSize(0) == 1 ? zero : d(0),
                             mTy.getDimSize(1) == 1 ? zero : d(1), d(2),
                             d(3)}));
    }
    maps.push_back(id4);
    Value causalOffset = op.getCausalOffset();
    Value rowLimit = op.getRowLimit();
    return linalg::GenericOp::create(
               b, loc, s.getType(), ins, s, maps,
               ArrayRef<IteratorType>{par, par, par, par},
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 Value x = arith::MulFOp::create(nb, nl, a.back(), scale);
                 if (FloatAttr softcap = op.getSoftcapAttr())
                   x = applySoftcap(nb, nl, x, softcap);
                 if (!op.getScoreMod().empty())
                   x = inlineAttentionMod(nb, op.getScoreMod(),
                                          op.getScoreCaptures(), x,
                                          modIndices(nb, nl));
                 if (mask)
                   x = applyMask(nb, nl, x, a[0], keepMask, negInf);
                 if (!op.getMaskMod().empty())
                   x = arith::SelectOp::create(
                       nb, nl,
                       inlineAttentionMod(nb, op.getMaskMod(),
                                          op.getMaskCaptures(), Value(),
                                          modIndices(nb, nl)),
                       x, negInf);
                 if (causalOffset) {
                   Value i = linalg::IndexOp::create(nb, nl, 2);
                   Value j = linalg::IndexOp::create(nb, nl, 3);
                   x = applyKeyBand(
                       nb, nl, x, i, j, causalOffset,
                       keyBand(op.getCausal(), op.getWindowAttr()), negInf);
                 }
                 if (rowLimit) {
                   // Rows past the limit (tx.attention's q_lengths) see no
                   // key.
                   Value i = linalg::IndexOp::create(nb, nl, 2);
                   Value live = arith::CmpIOp::create(
                       nb, nl, arith::CmpIPredicate::slt, i, rowLimit);
                   x = arith::SelectOp::create(nb, nl, live, x, negInf);
                 }
                 linalg::YieldOp::create(nb, nl, x);
               })
        .getResult(0);
  }

  /// Row max of this block, from -inf.
  Value rowMax(Value s) {
    Value rmaxInit = filled(rowShape, negInf);
    return linalg::GenericOp::create(
               b, loc, rmaxInit.getType(), ValueRange{s}, ValueRange{rmaxInit},
               ArrayRef<AffineMap>{id4, row4},
               ArrayRef<IteratorType>{par, par, par, red},
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 linalg::YieldOp::create(
                     nb, nl,
                     Value(arith::MaximumFOp::create(nb, nl, a[0], a[1])));
               })
        .getResult(0);
  }

  /// m_new = max(m_old, rmax), alpha = exp(m_old - m_safe), l = alpha *
  /// l_old; m_new and l are written in place of m_old and l_old. Results
  /// (m_new, l, alpha).
  linalg::GenericOp updateState(Value rmax) {
    AffineMap id3 = b.getMultiDimIdentityMap(3);
    Value alphaInit = tensor::EmptyOp::create(b, loc, rowShape, f32);
    return linalg::GenericOp::create(
        b, loc,
        TypeRange{op.getMax().getType(), op.getSum().getType(),
                  alphaInit.getType()},
        ValueRange{rmax}, ValueRange{op.getMax(), op.getSum(), alphaInit},
        ArrayRef<AffineMap>{id3, id3, id3, id3},
        ArrayRef<IteratorType>{par, par, par},
        [&](OpBuilder &nb, Location nl, ValueRange a) {
          Value mOld = a[1];
          Value mNew = arith::MaximumFOp::create(nb, nl, mOld, a[0]);
          Value diff = arith::SubFOp::create(nb, nl, mOld, safe(nb, nl, mNew));
          Value alpha = math::ExpOp::create(nb, nl, diff);
          Value l = arith::MulFOp::create(nb, nl, alpha, a[2]);
          linalg::YieldOp::create(nb, nl, ValueRange{mNew, l, alpha});
        });
  }

  /// P = exp(S - m_safe), in place of S.
  Value probabilities(Value s, Value mNew) {
    return linalg::GenericOp::create(
               b, loc, s.getType(), ValueRange{mNew}, ValueRange{s},
               ArrayRef<AffineMap>{row4, id4},
               ArrayRef<IteratorType>{par, par, par, par},
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 Value diff =
                     arith::SubFOp::create(nb, nl, a[1], safe(nb, nl, a[0]));
                 linalg::YieldOp::create(
                     nb, nl, Value(math::ExpOp::create(nb, nl, diff)));
               })
        .getResult(0);
  }

  /// l_new = alpha * l_old + sum_n P.
  Value rowSum(Value p, Value lScaled) {
    return linalg::GenericOp::create(
               b, loc, lScaled.getType(), ValueRange{p}, ValueRange{lScaled},
               ArrayRef<AffineMap>{id4, row4},
               ArrayRef<IteratorType>{par, par, par, red},
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 linalg::YieldOp::create(
                     nb, nl, Value(arith::AddFOp::create(nb, nl, a[0], a[1])));
               })
        .getResult(0);
  }

  /// acc = alpha * acc_old (in place), then acc += P.V. Dims (b, h, m, e[,
  /// n]).
  Value accumulate(Value p, Value alpha) {
    Value accScaled =
        linalg::GenericOp::create(
            b, loc, op.getAcc().getType(), ValueRange{alpha},
            ValueRange{op.getAcc()}, ArrayRef<AffineMap>{row4, id4},
            ArrayRef<IteratorType>{par, par, par, par},
            [&](OpBuilder &nb, Location nl, ValueRange a) {
              linalg::YieldOp::create(
                  nb, nl, Value(arith::MulFOp::create(nb, nl, a[0], a[1])));
            })
            .getResult(0);
    return linalg::GenericOp::create(
               b, loc, op.getAcc().getType(), ValueRange{p, op.getValue()},
               ValueRange{accScaled},
               ArrayRef<AffineMap>{map(5, {d(0), d(1), d(2), d(4)}),
                                   map(5, {d(0), kvHead, d(4), d(3)}),
                                   map(5, {d(0), d(1), d(2), d(3)})},
               ArrayRef<IteratorType>{par, par, par, par, red},
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 Value prod =
                     arith::MulFOp::create(nb, nl, a[0], toF32(nb, nl, a[1]));
                 // A hidden key (P == 0) contributes nothing, whatever V
                 // holds: 0 * NaN or 0 * Inf would poison the row.
                 Value zero =
                     arith::ConstantOp::create(nb, nl, nb.getF32FloatAttr(0.0));
                 Value hidden = arith::CmpFOp::create(
                     nb, nl, arith::CmpFPredicate::OEQ, a[0], zero);
                 Value sum = arith::AddFOp::create(nb, nl, a[2], prod);
                 linalg::YieldOp::create(
                     nb, nl,
                     Value(arith::SelectOp::create(nb, nl, hidden, a[2], sum)));
               })
        .getResult(0);
  }
};
} // namespace

SmallVector<Value> mlir::tx::buildOnlineAttentionStep(OpBuilder &b,
                                                      OnlineAttentionOp op,
                                                      int64_t group) {
  return OnlineStep(b, op, group).build();
}
