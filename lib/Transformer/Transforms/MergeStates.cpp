//===- MergeStates.cpp - tx.merge_attention_states -> linalg ---------------===//
//
// The reference lowering of tx.merge_attention_states (TxOps.td): two
// linalg.generic ops, the merged log-sum-exp
//   m = max(lse_a, lse_b),  lse = m + log(exp(lse_a - m) + exp(lse_b - m))
// (-inf when both are), then the output
//   out = exp(lse_a - lse) * out_a + exp(lse_b - lse) * out_b
// in f32, a part whose log-sum-exp is -inf left out (whatever its row
// holds), 0 where lse = -inf, rounded once.
//
//===----------------------------------------------------------------------===//
#include "Transforms/LinalgBuild.h"
#include "Transformer/RunTimeChecks.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include <limits>

using namespace mlir;
using namespace mlir::tx;

namespace {

Value isNegInf(OpBuilder &b, Location loc, Value x) {
  Value ninf = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, ninf);
}

/// The merged log-sum-exp of `a` and `b` (f32, same shape).
Value mergedLse(OpBuilder &b, Location loc, Value a, Value lb) {
  auto ty = cast<RankedTensorType>(a.getType());
  unsigned rank = ty.getRank();
  Value init = emptyTensor(b, loc, sizesOf(b, loc, a), ty.getElementType());
  SmallVector<AffineMap> maps(3, b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto g = linalg::GenericOp::create(
      b, loc, ty, ValueRange{a, lb}, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location nl, ValueRange x) {
        Value m = arith::MaximumFOp::create(nb, nl, x[0], x[1]);
        Value ea = math::ExpOp::create(
            nb, nl, arith::SubFOp::create(nb, nl, x[0], m));
        Value eb = math::ExpOp::create(
            nb, nl, arith::SubFOp::create(nb, nl, x[1], m));
        Value s = arith::AddFOp::create(nb, nl, ea, eb);
        Value lse = arith::AddFOp::create(nb, nl, m,
                                          math::LogOp::create(nb, nl, s));
        Value r = arith::SelectOp::create(nb, nl, isNegInf(nb, nl, m), m, lse);
        linalg::YieldOp::create(nb, nl, r);
      });
  return g.getResult(0);
}

/// exp(l - lse) * o in f32, 0 where l = -inf.
Value weighted(OpBuilder &b, Location loc, Value o, Value l, Value lse) {
  Value w = math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, l, lse));
  Value f = convertScalarToDtype(b, loc, o, b.getF32Type(),
                                 /*isUnsignedCast=*/false);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  return arith::SelectOp::create(b, loc, isNegInf(b, loc, l), zero,
                                 arith::MulFOp::create(b, loc, w, f));
}

/// Run-time checks of the sizes the verifier could not compare (dynamic
/// ones): out_b's against out_a's, each LSE's against out_a's leading
/// dimensions.
void checkSizes(OpBuilder &b, Location loc, MergeAttentionStatesOp op) {
  Value oa = op.getOutA();
  int64_t rank = op.getOutA().getType().getRank();
  auto check = [&](Value x, StringRef name, int64_t d) {
    if (!cast<RankedTensorType>(x.getType()).isDynamicDim(d) &&
        !op.getOutA().getType().isDynamicDim(d))
      return;
    Value got = tensor::DimOp::create(b, loc, x, d);
    Value want = tensor::DimOp::create(b, loc, oa, d);
    emitFormattedCheck(b, loc, arith::CmpIPredicate::eq, got, want,
                       ("tx.merge_attention_states: dimension " + Twine(d) +
                        " of " + name + " differs from out_a's: %lld vs %lld")
                           .str());
  };
  for (int64_t d = 0; d < rank; ++d)
    check(op.getOutB(), "out_b", d);
  for (int64_t d = 0; d + 1 < rank; ++d) {
    check(op.getLseA(), "lse_a", d);
    check(op.getLseB(), "lse_b", d);
  }
}

struct MergeStatesLowering : OpRewritePattern<MergeAttentionStatesOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MergeAttentionStatesOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    checkSizes(b, loc, op);
    Value lse = mergedLse(b, loc, op.getLseA(), op.getLseB());
    auto oTy = op.getOutA().getType();
    unsigned rank = oTy.getRank();
    Value init = emptyTensor(b, loc, sizesOf(b, loc, op.getOutA()),
                             oTy.getElementType());
    AffineMap id = b.getMultiDimIdentityMap(rank);
    AffineMap row = id.dropResult(rank - 1);
    SmallVector<AffineMap> maps = {id, id, row, row, row, id};
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    auto g = linalg::GenericOp::create(
        b, loc, oTy,
        ValueRange{op.getOutA(), op.getOutB(), op.getLseA(), op.getLseB(), lse},
        ValueRange{init}, maps, iters,
        [&](OpBuilder &nb, Location nl, ValueRange x) {
          Value sum = arith::AddFOp::create(
              nb, nl, weighted(nb, nl, x[0], x[2], x[4]),
              weighted(nb, nl, x[1], x[3], x[4]));
          Value zero =
              arith::ConstantOp::create(nb, nl, nb.getF32FloatAttr(0.0f));
          sum = arith::SelectOp::create(nb, nl, isNegInf(nb, nl, x[4]), zero,
                                        sum);
          linalg::YieldOp::create(
              nb, nl,
              convertScalarToDtype(nb, nl, sum, oTy.getElementType(),
                                   /*isUnsignedCast=*/false));
        });
    b.replaceOp(op, {g.getResult(0), lse});
    return success();
  }
};

} // namespace

void mlir::tx::populateMergeStatesPatterns(RewritePatternSet &patterns) {
  patterns.add<MergeStatesLowering>(patterns.getContext());
}
