//===- AttentionShapes.cpp - sizes and run-time checks of tx.attention ----===//
#include "Transformer/AttentionShapes.h"
#include "Transformer/RunTimeChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include <limits>

using namespace mlir;
using namespace mlir::tx;

AttentionSizes mlir::tx::emitAttentionSizesAndChecks(OpBuilder &b,
                                                     AttentionOp op) {
  return emitAttentionSizesAndChecks(b, op.getLoc(), op.getQuery(),
                                     op.getKey(), op.getValue(), op.getMask(),
                                     /*checks=*/true, op.getKvLengths(),
                                     op.getQLengths());
}

AttentionSizes mlir::tx::emitAttentionSizesAndChecks(OpBuilder &b,
                                                     Location loc, Value query,
                                                     Value key, Value value,
                                                     Value mask, bool checks,
                                                     Value kvLengths,
                                                     Value qLengths) {
  SmallVector<OpFoldResult> qs = tensor::getMixedSizes(b, loc, query);
  SmallVector<OpFoldResult> ks = tensor::getMixedSizes(b, loc, key);
  SmallVector<OpFoldResult> vs = tensor::getMixedSizes(b, loc, value);
  AttentionSizes sz;
  sz.B = qs[0], sz.H = qs[1], sz.Sq = qs[2], sz.D = qs[3];
  sz.Hkv = ks[1], sz.Sk = ks[2], sz.Dv = vs[3];

  auto assertEq = [&](OpFoldResult a, OpFoldResult c, StringRef msg) {
    if (!checks || (getConstantIntValue(a) && getConstantIntValue(c)))
      return;
    Value av = getValueOrCreateConstantIndexOp(b, loc, a);
    Value cv = getValueOrCreateConstantIndexOp(b, loc, c);
    emitFormattedCheck(b, loc, arith::CmpIPredicate::eq, av, cv,
                       (msg + ": %lld vs %lld").str());
  };
  assertEq(sz.B, ks[0], "tx.attention: batch size of query and key differ");
  assertEq(sz.B, vs[0], "tx.attention: batch size of query and value differ");
  assertEq(sz.D, ks[3], "tx.attention: head dimension D of query and key differ");
  assertEq(sz.Hkv, vs[1], "tx.attention: K/V head counts of key and value differ");
  assertEq(sz.Sk, vs[2], "tx.attention: key lengths Sk of key and value differ");

  auto hC = getConstantIntValue(sz.H), hkvC = getConstantIntValue(sz.Hkv);
  if (hC && hkvC) {
    sz.G = b.getIndexAttr(*hkvC == 0 ? 0 : *hC / *hkvC);
  } else {
    Value hV = getValueOrCreateConstantIndexOp(b, loc, sz.H);
    Value hkvV = getValueOrCreateConstantIndexOp(b, loc, sz.Hkv);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    // Hkv == 0 is fine only with H == 0 (an empty result, as with static
    // shapes); divide by max(Hkv, 1) so that it never traps.
    Value hkvPos =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, hkvV, zero);
    Value hZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, hV, zero);
    if (checks)
      cf::AssertOp::create(b, loc,
                           arith::OrIOp::create(b, loc, hkvPos, hZero),
                           "tx.attention: K/V head count Hkv is 0 but H > 0");
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value divisor = arith::MaxUIOp::create(b, loc, hkvV, one);
    Value rem = arith::RemUIOp::create(b, loc, hV, divisor);
    Value divisible =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem, zero);
    if (checks)
      cf::AssertOp::create(
          b, loc, divisible,
          "tx.attention: query heads H are not a multiple of K/V heads Hkv");
    sz.G = arith::DivUIOp::create(b, loc, hV, divisor).getResult();
  }

  if (mask) {
    auto mTy = cast<RankedTensorType>(mask.getType());
    SmallVector<OpFoldResult> ms = tensor::getMixedSizes(b, loc, mask);
    if (mTy.getDimSize(0) != 1)
      assertEq(ms[0], sz.B, "tx.attention: mask batch dimension is neither 1 nor B");
    if (mTy.getDimSize(1) != 1)
      assertEq(ms[1], sz.H, "tx.attention: mask head dimension is neither 1 nor H");
    assertEq(ms[2], sz.Sq, "tx.attention: mask query length differs from Sq");
    assertEq(ms[3], sz.Sk, "tx.attention: mask key length differs from Sk");
  }
  if (kvLengths)
    assertEq(tensor::getMixedSize(b, loc, kvLengths, 0), sz.B,
             "tx.attention: kv_lengths does not have B entries");
  if (qLengths)
    assertEq(tensor::getMixedSize(b, loc, qLengths, 0), sz.B,
             "tx.attention: q_lengths does not have B entries");
  return sz;
}

Value mlir::tx::toF32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isF32())
    return v;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

Value mlir::tx::applyMask(OpBuilder &b, Location loc, Value x, Value mv,
                          bool keepMask, Value negInf) {
  if (keepMask)
    return arith::SelectOp::create(b, loc, mv, x, negInf);
  mv = toF32(b, loc, mv);
  Value hidden =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, mv, negInf);
  return arith::SelectOp::create(b, loc, hidden, negInf,
                                 arith::AddFOp::create(b, loc, x, mv));
}

Value mlir::tx::applySoftcap(OpBuilder &b, Location loc, Value s,
                             FloatAttr softcap) {
  Value c = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(float(softcap.getValueAsDouble())));
  Value t = math::TanhOp::create(b, loc, arith::DivFOp::create(b, loc, s, c));
  return arith::MulFOp::create(b, loc, c, t);
}

Value mlir::tx::emitNormalizedOutput(OpBuilder &b, Location loc, Value acc,
                                     Value sum, Type elt) {
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  Value div = arith::DivFOp::create(b, loc, acc, sum);
  Value none =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, sum, zero);
  Value r = arith::SelectOp::create(b, loc, none, zero, div);
  if (elt != r.getType())
    r = arith::TruncFOp::create(b, loc, elt, r);
  return r;
}

KeyBand mlir::tx::keyBand(bool causal, DenseI64ArrayAttr window) {
  KeyBand band;
  if (window && window.size() == 2) {
    if (window[0] >= 0)
      band.left = window[0];
    if (window[1] >= 0)
      band.right = window[1];
  }
  if (causal)
    band.right = band.right ? std::min<int64_t>(*band.right, 0) : 0;
  return band;
}

Value mlir::tx::applyKeyBand(OpBuilder &b, Location loc, Value x, Value i,
                             Value j, Value off, const KeyBand &band,
                             Value negInf) {
  // d = j - (i + off): the key's distance from the diagonal, compared with
  // the window's sides (never `diag + right`, which could overflow for a
  // huge window).
  Value d = arith::SubIOp::create(b, loc, j,
                                  arith::AddIOp::create(b, loc, i, off));
  Value visible;
  auto conj = [&](Value c) {
    visible = visible ? arith::AndIOp::create(b, loc, visible, c).getResult()
                      : c;
  };
  if (band.right)
    conj(arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::sle, d,
        arith::ConstantIndexOp::create(b, loc, *band.right)));
  if (band.left)
    conj(arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::sge, d,
        arith::ConstantIndexOp::create(b, loc, -*band.left)));
  if (!visible)
    return x;
  return arith::SelectOp::create(b, loc, visible, x, negInf);
}

LogicalResult mlir::tx::verifyWindow(Operation *op, DenseI64ArrayAttr window) {
  if (!window)
    return success();
  if (window.size() != 2)
    return op->emitOpError()
           << "window must have two entries [left, right], got "
           << window.size();
  for (int side = 0; side < 2; ++side)
    if (window[side] < -1)
      return op->emitOpError()
             << "window " << (side == 0 ? "left" : "right") << " = "
             << window[side]
             << " must be -1 (unbounded) or a key count >= 0";
  return success();
}

Value mlir::tx::scaleQuery(OpBuilder &b, Location loc, Value q, Value factor) {
  using utils::IteratorType;
  auto ty = cast<RankedTensorType>(q.getType());
  Type elt = ty.getElementType();
  Value init = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, q),
                                       elt);
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(4));
  SmallVector<IteratorType> iters(4, IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, init.getType(), q, init, maps, iters,
             [&](OpBuilder &nb, Location nl, ValueRange a) {
               Value x = a[0];
               if (!elt.isF32())
                 x = arith::ExtFOp::create(nb, nl, nb.getF32Type(), x);
               x = arith::MulFOp::create(nb, nl, x, factor);
               if (!elt.isF32())
                 x = arith::TruncFOp::create(nb, nl, elt, x);
               linalg::YieldOp::create(nb, nl, x);
             })
      .getResult(0);
}

std::pair<Value, Value> mlir::tx::emitAttentionEpilogue(OpBuilder &b,
                                                        Location loc, Value acc,
                                                        Value max, Value sum,
                                                        Type elt,
                                                        bool withLse) {
  using utils::IteratorType;
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> oShape = tensor::getMixedSizes(b, loc, acc);
  Value oInit = tensor::EmptyOp::create(b, loc, oShape, elt);
  AffineMap id4 = b.getMultiDimIdentityMap(4);
  AffineMap row4 = AffineMap::get(
      4, 0,
      {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx),
       getAffineDimExpr(2, ctx)},
      ctx);
  auto outOp = linalg::GenericOp::create(
      b, loc, oInit.getType(), ValueRange{acc, sum}, oInit,
      ArrayRef<AffineMap>{id4, row4, id4},
      SmallVector<IteratorType>(4, IteratorType::parallel),
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        linalg::YieldOp::create(nb, nl,
                                emitNormalizedOutput(nb, nl, a[0], a[1], elt));
      });
  outOp->setAttr(kAttentionEpilogueAttr, b.getStringAttr("output"));
  if (!withLse)
    return {outOp.getResult(0), Value()};
  // lse = (sum == 0) ? -inf : max + log(sum): max and sum are in natural
  // units of the scaled, masked scores.
  AffineMap id3 = b.getMultiDimIdentityMap(3);
  Value lInit = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, max), b.getF32Type());
  auto lseOp = linalg::GenericOp::create(
      b, loc, lInit.getType(), ValueRange{max, sum}, lInit,
      ArrayRef<AffineMap>{id3, id3, id3},
      SmallVector<IteratorType>(3, IteratorType::parallel),
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value zero = arith::ConstantOp::create(nb, nl, nb.getF32FloatAttr(0.0));
        Value negInf = arith::ConstantOp::create(
            nb, nl,
            nb.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
        Value none = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ,
                                           a[1], zero);
        Value v = arith::AddFOp::create(nb, nl, a[0],
                                        math::LogOp::create(nb, nl, a[1]));
        linalg::YieldOp::create(
            nb, nl, Value(arith::SelectOp::create(nb, nl, none, negInf, v)));
      });
  lseOp->setAttr(kAttentionEpilogueAttr, b.getStringAttr("lse"));
  return {outOp.getResult(0), lseOp.getResult(0)};
}

Value mlir::tx::applyScoreRules(OpBuilder &b, Location loc, Value raw,
                                Value maskEntry, Value kvLen, Value qLen,
                                const ScoreRules &r) {
  Value x = arith::MulFOp::create(b, loc, raw, r.scale);
  if (r.softcap)
    x = applySoftcap(b, loc, x, r.softcap);
  if (r.scoreMod)
    x = r.scoreMod(b, loc, x);
  if (maskEntry)
    x = applyMask(b, loc, x, maskEntry, r.keepMask, r.negInf);
  if (r.maskMod)
    x = arith::SelectOp::create(b, loc, r.maskMod(b, loc), x, r.negInf);
  // A length clamped into [0, bound] (the CPU pipeline checks the range at
  // run time).
  auto length = [&](Value len, Value bound) -> Value {
    Value l = arith::IndexCastOp::create(b, loc, b.getIndexType(), len);
    l = arith::MaxSIOp::create(b, loc, l,
                               arith::ConstantIndexOp::create(b, loc, 0));
    return arith::MinSIOp::create(b, loc, l, bound);
  };
  Value kl = kvLen ? length(kvLen, r.sk) : r.sk;
  Value ql = qLen ? length(qLen, r.sq) : r.sq;
  bool banded = r.band.bounded();
  if (!banded && !kvLen && !qLen)
    return x;
  Value i = linalg::IndexOp::create(b, loc, r.iDim);
  Value j = linalg::IndexOp::create(b, loc, r.jDim);
  auto hideUnless = [&](Value v, Value idx, Value bound) -> Value {
    return arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx, bound),
        v, r.negInf);
  };
  if (banded) {
    Value off = r.skMinusSq;
    if (kvLen || qLen)
      off = arith::SubIOp::create(b, loc, kl, ql);
    x = applyKeyBand(b, loc, x, i, j, off, r.band, r.negInf);
  }
  // Keys past Lk and rows past Lq: hidden.
  if (kvLen)
    x = hideUnless(x, j, kl);
  if (qLen)
    x = hideUnless(x, i, ql);
  return x;
}

ScoreRules mlir::tx::makeScoreRules(OpBuilder &b, Location loc,
                                    const AttentionSizes &sz, Value scale,
                                    Value negInf, FloatAttr softcap,
                                    bool causal, DenseI64ArrayAttr window,
                                    bool keepMask, unsigned iDim,
                                    unsigned jDim) {
  ScoreRules rules;
  rules.scale = scale;
  rules.softcap = softcap;
  rules.keepMask = keepMask;
  rules.band = keyBand(causal, window);
  rules.negInf = negInf;
  rules.sk = getValueOrCreateConstantIndexOp(b, loc, sz.Sk);
  rules.sq = getValueOrCreateConstantIndexOp(b, loc, sz.Sq);
  if (rules.band.bounded())
    rules.skMinusSq = arith::SubIOp::create(b, loc, rules.sk, rules.sq);
  rules.iDim = iDim;
  rules.jDim = jDim;
  return rules;
}
