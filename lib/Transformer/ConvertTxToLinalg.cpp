//===- ConvertTxToLinalg.cpp - tx -> linalg on tensors ---------------------===//
//
// The reference lowering of tx ops. Every faster path (tiling, GPU mapping,
// tensor cores) is checked against what this produces.
//
// tx.softmax  -> [arith.extf] linalg.softmax [arith.truncf]  (f32 inside)
// tx.attention -> the textbook three-step form on the grouped view
//   Q5 = expand_shape(Q) : [B, Hkv, G, Sq, D]         (G = H / Hkv)
//   S  = scale * Q5 . K^T          (f32)              [B, Hkv, G, Sq, Sk]
//   S  = S + mask | select(keep, S, -inf) | causal
//   m  = max_j S;  P = (m == -inf) ? 0 : exp(S - m);  l = sum_j P
//   O5 = P . V;    O = (l == 0) ? 0 : O5 / l          [B, Hkv, G, Sq, Dv]
//   O  = collapse_shape(trunc(O)) : [B, H, Sq, Dv]
//
//===----------------------------------------------------------------------===//
#include "Transformer/Passes.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"
#include <limits>

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_CONVERTTXTOLINALG
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;
using utils::IteratorType;

namespace {

/// Sizes of a tensor as OpFoldResults (static sizes as attributes).
SmallVector<OpFoldResult> sizesOf(OpBuilder &b, Location loc, Value t) {
  return tensor::getMixedSizes(b, loc, t);
}

/// `tensor.empty` of the given sizes and element type.
Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type elt) {
  return tensor::EmptyOp::create(b, loc, sizes, elt);
}

/// `linalg.fill` of a fresh tensor with a float constant.
Value filledTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                   Type elt, double value) {
  Value empty = emptyTensor(b, loc, sizes, elt);
  Value cst = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(elt, value));
  return linalg::FillOp::create(b, loc, cst, empty).getResult(0);
}

/// Elementwise conversion of a float tensor to element type `to`.
Value convertElementType(OpBuilder &b, Location loc, Value input, Type to) {
  auto ty = cast<RankedTensorType>(input.getType());
  if (ty.getElementType() == to)
    return input;
  Value init = emptyTensor(b, loc, sizesOf(b, loc, input), to);
  unsigned rank = ty.getRank();
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(rank));
  SmallVector<IteratorType> iters(rank, IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), input, init, maps, iters,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value c = convertScalarToDtype(nb, nl, args[0], to,
                                       /*isUnsignedCast=*/false);
        linalg::YieldOp::create(nb, nl, c);
      });
  return generic.getResult(0);
}

/// Extends a scalar to f32 (no-op for f32).
Value toF32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isF32())
    return v;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

struct SoftmaxLowering : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elt = op.getType().getElementType();
    Type f32 = rewriter.getF32Type();
    Value x = convertElementType(rewriter, loc, op.getInput(), f32);
    Value init = emptyTensor(rewriter, loc, sizesOf(rewriter, loc, x), f32);
    Value sm = linalg::SoftmaxOp::create(rewriter, loc, TypeRange{init.getType()},
                                         x, init,
                                         static_cast<uint64_t>(op.getNormalizedDim()))
                   .getResult()[0];
    Value result = convertElementType(rewriter, loc, sm, elt);
    if (result.getType() != op.getType())
      result = tensor::CastOp::create(rewriter, loc, op.getType(), result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct AttentionLowering : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Type f32 = b.getF32Type();
    Type elt = op.getQuery().getType().getElementType();
    Value q = op.getQuery(), k = op.getKey(), v = op.getValue();

    SmallVector<OpFoldResult> qs = sizesOf(b, loc, q), ks = sizesOf(b, loc, k),
                              vs = sizesOf(b, loc, v);
    OpFoldResult B = qs[0], H = qs[1], Sq = qs[2], D = qs[3];
    OpFoldResult Hkv = ks[1], Sk = ks[2], Dv = vs[3];

    // Sizes that the verifier could not compare statically are checked at
    // run time: a mismatch is an error, never wrong numbers.
    auto assertEq = [&](OpFoldResult a, OpFoldResult c, StringRef msg) {
      if (getConstantIntValue(a) && getConstantIntValue(c))
        return;
      Value av = getValueOrCreateConstantIndexOp(b, loc, a);
      Value cv = getValueOrCreateConstantIndexOp(b, loc, c);
      Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, av, cv);
      cf::AssertOp::create(b, loc, eq, msg);
    };
    assertEq(B, ks[0], "tx.attention: batch size of query and key differ");
    assertEq(B, vs[0], "tx.attention: batch size of query and value differ");
    assertEq(D, ks[3], "tx.attention: head dimension D of query and key differ");
    assertEq(Hkv, vs[1], "tx.attention: K/V head counts of key and value differ");
    assertEq(Sk, vs[2], "tx.attention: key lengths Sk of key and value differ");

    // G = H / Hkv query heads per K/V head.
    OpFoldResult G;
    auto hC = getConstantIntValue(H), hkvC = getConstantIntValue(Hkv);
    if (hC && hkvC) {
      G = b.getIndexAttr(*hkvC == 0 ? 0 : *hC / *hkvC);
    } else {
      Value hV = getValueOrCreateConstantIndexOp(b, loc, H);
      Value hkvV = getValueOrCreateConstantIndexOp(b, loc, Hkv);
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value hkvPos = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                           hkvV, zero);
      cf::AssertOp::create(b, loc, hkvPos,
                           "tx.attention: K/V head count Hkv is 0");
      Value rem = arith::RemUIOp::create(b, loc, hV, hkvV);
      Value divisible =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem, zero);
      cf::AssertOp::create(
          b, loc, divisible,
          "tx.attention: query heads H are not a multiple of K/V heads Hkv");
      G = arith::DivUIOp::create(b, loc, hV, hkvV).getResult();
    }

    // Grouped view of Q: [B, H, Sq, D] -> [B, Hkv, G, Sq, D].
    SmallVector<ReassociationIndices> groupHeads = {{0}, {1, 2}, {3}, {4}};
    auto expandHeads = [&](Value t, ArrayRef<OpFoldResult> sizes) -> Value {
      SmallVector<int64_t> shape;
      SmallVector<Value> dyn;
      for (OpFoldResult s : sizes) {
        if (auto c = getConstantIntValue(s))
          shape.push_back(*c);
        else
          shape.push_back(ShapedType::kDynamic);
      }
      auto ty = RankedTensorType::get(
          shape, cast<RankedTensorType>(t.getType()).getElementType());
      return tensor::ExpandShapeOp::create(b, loc, ty, t, groupHeads, sizes);
    };
    Value q5 = expandHeads(q, {B, Hkv, G, Sq, D});

    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    auto map = [&](unsigned n, ArrayRef<AffineExpr> r) {
      return AffineMap::get(n, 0, r, ctx);
    };
    auto par = IteratorType::parallel, red = IteratorType::reduction;

    // S[b,k,g,i,j] = sum_d Q5[b,k,g,i,d] * K[b,k,j,d]   (dims b k g i j d)
    SmallVector<OpFoldResult> sShape = {B, Hkv, G, Sq, Sk};
    Value sInit = filledTensor(b, loc, sShape, f32, 0.0);
    Value s =
        linalg::GenericOp::create(
            b, loc, sInit.getType(), ValueRange{q5, k}, sInit,
            {map(6, {d(0), d(1), d(2), d(3), d(5)}),
             map(6, {d(0), d(1), d(4), d(5)}),
             map(6, {d(0), d(1), d(2), d(3), d(4)})},
            {par, par, par, par, par, red},
            [&](OpBuilder &nb, Location nl, ValueRange a) {
              Value p = arith::MulFOp::create(nb, nl, toF32(nb, nl, a[0]),
                                              toF32(nb, nl, a[1]));
              linalg::YieldOp::create(nb, nl,
                                      Value(arith::AddFOp::create(nb, nl, a[2], p)));
            })
            .getResult(0);

    // Scale (1/sqrt(D) by default, computed at run time for a dynamic D).
    Value scale;
    if (std::optional<double> st = op.getStaticScale()) {
      scale = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(*st));
    } else {
      Value dV = getValueOrCreateConstantIndexOp(b, loc, D);
      Value dI = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), dV);
      Value dF = arith::UIToFPOp::create(b, loc, f32, dI);
      scale = math::RsqrtOp::create(b, loc, dF);
    }

    // Masked, scaled scores. Dims b k g i j.
    Value negInf = arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
    Value mask = op.getMask();
    SmallVector<Value> ins = {s};
    SmallVector<AffineMap> maps = {map(5, {d(0), d(1), d(2), d(3), d(4)})};
    bool maskIsKeep = false;
    if (mask) {
      auto mTy = cast<RankedTensorType>(mask.getType());
      maskIsKeep = mTy.getElementType().isInteger(1);
      AffineExpr bExpr = mTy.getDimSize(0) == 1 ? getAffineConstantExpr(0, ctx)
                                                : d(0);
      SmallVector<OpFoldResult> ms = sizesOf(b, loc, mask);
      if (mTy.getDimSize(0) != 1)
        assertEq(ms[0], B, "tx.attention: mask batch dimension is neither 1 nor B");
      assertEq(ms[2], Sq, "tx.attention: mask query length differs from Sq");
      assertEq(ms[3], Sk, "tx.attention: mask key length differs from Sk");
      if (mTy.getDimSize(1) == 1) {
        maps.push_back(map(5, {bExpr, getAffineConstantExpr(0, ctx), d(3), d(4)}));
      } else {
        assertEq(ms[1], H, "tx.attention: mask head dimension is neither 1 nor H");
        mask = expandHeads(mask, {ms[0], Hkv, G, ms[2], ms[3]});
        maps.push_back(map(5, {bExpr, d(1), d(2), d(3), d(4)}));
      }
      ins.push_back(mask);
    }
    maps.push_back(maps[0]);
    bool causal = op.getCausal();
    // Causal: key j is visible to query i iff j <= i + (Sk - Sq).
    Value skMinusSq;
    if (causal) {
      Value skV = getValueOrCreateConstantIndexOp(b, loc, Sk);
      Value sqV = getValueOrCreateConstantIndexOp(b, loc, Sq);
      skMinusSq = arith::SubIOp::create(b, loc, skV, sqV);
    }
    Value scored =
        linalg::GenericOp::create(
            b, loc, sInit.getType(), ins, emptyTensor(b, loc, sShape, f32), maps,
            {par, par, par, par, par},
            [&](OpBuilder &nb, Location nl, ValueRange a) {
              Value x = arith::MulFOp::create(nb, nl, a[0], scale);
              if (mask) {
                if (maskIsKeep)
                  x = arith::SelectOp::create(nb, nl, a[1], x, negInf);
                else
                  x = arith::AddFOp::create(nb, nl, x, toF32(nb, nl, a[1]));
              }
              if (causal) {
                Value i = linalg::IndexOp::create(nb, nl, 3);
                Value j = linalg::IndexOp::create(nb, nl, 4);
                Value last = arith::AddIOp::create(nb, nl, i, skMinusSq);
                Value visible = arith::CmpIOp::create(
                    nb, nl, arith::CmpIPredicate::sle, j, last);
                x = arith::SelectOp::create(nb, nl, visible, x, negInf);
              }
              linalg::YieldOp::create(nb, nl, x);
            })
            .getResult(0);

    // Row max m[b,k,g,i] (starts at -inf; an all-masked row stays -inf).
    SmallVector<OpFoldResult> rowShape = {B, Hkv, G, Sq};
    AffineMap full5 = map(5, {d(0), d(1), d(2), d(3), d(4)});
    AffineMap row5 = map(5, {d(0), d(1), d(2), d(3)});
    Value mInit = filledTensor(b, loc, rowShape, f32,
                               -std::numeric_limits<double>::infinity());
    Value m = linalg::GenericOp::create(
                  b, loc, mInit.getType(), scored, mInit, {full5, row5},
                  {par, par, par, par, red},
                  [&](OpBuilder &nb, Location nl, ValueRange a) {
                    linalg::YieldOp::create(
                        nb, nl, Value(arith::MaximumFOp::create(nb, nl, a[0], a[1])));
                  })
                  .getResult(0);

    // P = (m == -inf) ? 0 : exp(S - m).
    Value zeroF = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
    Value p = linalg::GenericOp::create(
                  b, loc, sInit.getType(), ValueRange{scored, m},
                  emptyTensor(b, loc, sShape, f32), {full5, row5, full5},
                  {par, par, par, par, par},
                  [&](OpBuilder &nb, Location nl, ValueRange a) {
                    Value diff = arith::SubFOp::create(nb, nl, a[0], a[1]);
                    Value e = math::ExpOp::create(nb, nl, diff);
                    Value dead = arith::CmpFOp::create(
                        nb, nl, arith::CmpFPredicate::OEQ, a[1], negInf);
                    linalg::YieldOp::create(
                        nb, nl, Value(arith::SelectOp::create(nb, nl, dead, zeroF, e)));
                  })
                  .getResult(0);

    // l = sum_j P.
    Value lInit = filledTensor(b, loc, rowShape, f32, 0.0);
    Value l = linalg::GenericOp::create(
                  b, loc, lInit.getType(), p, lInit, {full5, row5},
                  {par, par, par, par, red},
                  [&](OpBuilder &nb, Location nl, ValueRange a) {
                    linalg::YieldOp::create(
                        nb, nl, Value(arith::AddFOp::create(nb, nl, a[0], a[1])));
                  })
                  .getResult(0);

    // O5[b,k,g,i,e] = sum_j P[b,k,g,i,j] * V[b,k,j,e]   (dims b k g i e j)
    SmallVector<OpFoldResult> oShape = {B, Hkv, G, Sq, Dv};
    Value oInit = filledTensor(b, loc, oShape, f32, 0.0);
    Value o5 =
        linalg::GenericOp::create(
            b, loc, oInit.getType(), ValueRange{p, v}, oInit,
            {map(6, {d(0), d(1), d(2), d(3), d(5)}),
             map(6, {d(0), d(1), d(5), d(4)}),
             map(6, {d(0), d(1), d(2), d(3), d(4)})},
            {par, par, par, par, par, red},
            [&](OpBuilder &nb, Location nl, ValueRange a) {
              Value prod =
                  arith::MulFOp::create(nb, nl, a[0], toF32(nb, nl, a[1]));
              linalg::YieldOp::create(
                  nb, nl, Value(arith::AddFOp::create(nb, nl, a[2], prod)));
            })
            .getResult(0);

    // O = (l == 0) ? 0 : O5 / l, rounded once to the element type.
    Value out =
        linalg::GenericOp::create(
            b, loc, RankedTensorType::get(
                        cast<RankedTensorType>(oInit.getType()).getShape(), elt),
            ValueRange{o5, l}, emptyTensor(b, loc, oShape, elt),
            {full5, row5, full5}, {par, par, par, par, par},
            [&](OpBuilder &nb, Location nl, ValueRange a) {
              Value div = arith::DivFOp::create(nb, nl, a[0], a[1]);
              Value none = arith::CmpFOp::create(
                  nb, nl, arith::CmpFPredicate::OEQ, a[1], zeroF);
              Value r = arith::SelectOp::create(nb, nl, none, zeroF, div);
              if (elt != f32)
                r = arith::TruncFOp::create(nb, nl, elt, r);
              linalg::YieldOp::create(nb, nl, r);
            })
            .getResult(0);

    Value result = tensor::CollapseShapeOp::create(b, loc, out, groupHeads);
    if (result.getType() != op.getType())
      result = tensor::CastOp::create(b, loc, op.getType(), result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertTxToLinalgPass
    : public tx::impl::ConvertTxToLinalgBase<ConvertTxToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<SoftmaxLowering, AttentionLowering>(ctx);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TxDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
