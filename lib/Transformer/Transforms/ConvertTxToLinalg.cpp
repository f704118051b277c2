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
#include "IR/AttentionMods.h"
#include "Transforms/LinalgBuild.h"
#include "Transforms/PagedKv.h"
#include "Transformer/AttentionShapes.h"
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

/// The reference lowering of one tx.attention: S = Q K^T, the scaled,
/// capped and masked scores, the row max m, P = exp(S - m), the row sum l,
/// O = P V / l and the LSE m + log(l), each a linalg.generic on tensors in
/// f32 (the textbook softmax(Q K^T * scale) V, not a tiled one). Two layouts
/// of the head dimensions:
///  - grouped (G static): Q viewed as [B, Hkv, G, Sq, D] by expand_shape,
///    every tensor indexed (b, k, g, ...), K/V read through affine maps;
///  - flat (G dynamic): tensors indexed (b, h, ...) and K/V head h / G read
///    with tensor.extract. (Upstream expand-strided-metadata crashes on a
///    memref.expand_shape with two dynamic sizes in one group, LLVM 22.1.8.)
class ReferenceAttention {
public:
  ReferenceAttention(OpBuilder &b, AttentionOp op)
      : b(b), op(op), loc(op.getLoc()), ctx(op.getContext()),
        f32(b.getF32Type()), elt(op.getQuery().getType().getElementType()),
        sz(emitAttentionSizesAndChecks(b, op)) {
    grouped = getConstantIntValue(sz.G).has_value();
    nb = grouped ? 3 : 2;
    heads = grouped ? SmallVector<OpFoldResult>{sz.B, sz.Hkv, sz.G}
                    : SmallVector<OpFoldResult>{sz.B, sz.H};
    di = nb;
    dj = nb + 1;
    eDims = nb + 2;
  }

  /// The output and, when the op has one, the LSE.
  SmallVector<Value> build() {
    Value qv = grouped ? expandHeads(op.getQuery(), withHeads({sz.Sq, sz.D}))
                       : op.getQuery();
    // K/V access for the flat layout: element [b, h / G, j, x].
    gV = grouped ? Value() : getValueOrCreateConstantIndexOp(b, loc, sz.G);
    Value s = scores(qv);
    Value scored = maskedScores(s, scale());
    Value m = rowMax(scored);
    Value p = probabilities(scored, m);
    Value l = rowSum(p);
    SmallVector<Value> results = {output(p, l)};
    if (op.getLse())
      results.push_back(lse(m, l));
    return results;
  }

private:
  OpBuilder &b;
  AttentionOp op;
  Location loc;
  MLIRContext *ctx;
  Type f32, elt;
  AttentionSizes sz;
  bool grouped;
  unsigned nb;     // batch-like dims before (i, j)
  unsigned di, dj; // the dims of i and j in S and P
  unsigned eDims;  // dims of S and P
  SmallVector<OpFoldResult> heads;
  SmallVector<ReassociationIndices> groupHeads = {{0}, {1, 2}, {3}, {4}};
  Value gV;               // G as an index (flat layout)
  Type sType;             // S and P: f32 [heads..., Sq, Sk]
  Value negInf, zeroF;    // f32 constants
  AffineMap full, row;    // S/P and row maps

  Value expandHeads(Value t, ArrayRef<OpFoldResult> sizes) {
    SmallVector<int64_t> shape;
    for (OpFoldResult sz : sizes) {
      if (auto c = getConstantIntValue(sz))
        shape.push_back(*c);
      else
        shape.push_back(ShapedType::kDynamic);
    }
    auto ty = RankedTensorType::get(
        shape, cast<RankedTensorType>(t.getType()).getElementType());
    return tensor::ExpandShapeOp::create(b, loc, ty, t, groupHeads, sizes);
  }
  SmallVector<OpFoldResult> withHeads(ArrayRef<OpFoldResult> rest) {
    SmallVector<OpFoldResult> r(heads);
    r.append(rest.begin(), rest.end());
    return r;
  }
  AffineExpr d(unsigned i) { return getAffineDimExpr(i, ctx); }
  AffineMap map(unsigned n, ArrayRef<AffineExpr> r) {
    return AffineMap::get(n, 0, r, ctx);
  }
  /// Dims 0..nb-1 (heads), then the listed extra dims.
  AffineMap headMap(unsigned n, ArrayRef<unsigned> extra) {
    SmallVector<AffineExpr> r;
    for (unsigned i = 0; i < nb; ++i)
      r.push_back(d(i));
    for (unsigned e : extra)
      r.push_back(d(e));
    return map(n, r);
  }
  static SmallVector<IteratorType> iters(unsigned nPar, bool withRed) {
    SmallVector<IteratorType> it(nPar, IteratorType::parallel);
    if (withRed)
      it.push_back(IteratorType::reduction);
    return it;
  }
  Value kvExtract(OpBuilder &nb_, Location nl, Value t, unsigned jDim,
                  unsigned xDim) {
    Value bi = linalg::IndexOp::create(nb_, nl, 0);
    Value hi = linalg::IndexOp::create(nb_, nl, 1);
    Value kh = arith::DivUIOp::create(nb_, nl, hi, gV);
    Value ji = linalg::IndexOp::create(nb_, nl, jDim);
    Value xi = linalg::IndexOp::create(nb_, nl, xDim);
    return tensor::ExtractOp::create(nb_, nl, t, ValueRange{bi, kh, ji, xi});
  }

  /// S[heads, i, j] = sum_d Q[heads, i, d] * K[b, kvhead, j, d].
  /// Dims: heads..., i = nb, j = nb+1, d = nb+2.
  Value scores(Value qv) {
    Value k = op.getKey();
    unsigned sDims = nb + 3;
    unsigned dd = nb + 2;
    SmallVector<OpFoldResult> sShape = withHeads({sz.Sq, sz.Sk});
    Value sInit = filledTensor(b, loc, sShape, f32, 0.0);
    sType = sInit.getType();
    SmallVector<Value> sIns = {qv};
    SmallVector<AffineMap> sMaps = {headMap(sDims, {di, dd})};
    if (grouped) {
      sIns.push_back(k);
      sMaps.push_back(map(sDims, {d(0), d(1), d(dj), d(dd)}));
    }
    sMaps.push_back(headMap(sDims, {di, dj}));
    return linalg::GenericOp::create(
               b, loc, sInit.getType(), sIns, sInit, sMaps,
               iters(nb + 2, true),
               [&](OpBuilder &nb_, Location nl, ValueRange a) {
                 Value kv = grouped ? a[1] : kvExtract(nb_, nl, k, dj, dd);
                 Value acc = a.back();
                 Value p = arith::MulFOp::create(
                     nb_, nl, toF32(nb_, nl, a[0]), toF32(nb_, nl, kv));
                 linalg::YieldOp::create(
                     nb_, nl, Value(arith::AddFOp::create(nb_, nl, acc, p)));
               })
        .getResult(0);
  }

  /// The scale (1/sqrt(D) by default, computed at run time for a dynamic D).
  Value scale() {
    if (std::optional<double> st = op.getStaticScale())
      return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(*st));
    Value dV = getValueOrCreateConstantIndexOp(b, loc, sz.D);
    Value dI = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), dV);
    Value dF = arith::UIToFPOp::create(b, loc, f32, dI);
    return math::RsqrtOp::create(b, loc, dF);
  }

  /// The mask's operand and map (grouped: its heads expanded); appends
  /// them to `ins`/`maps`; whether it is an i1 keep-mask.
  bool addMask(Value mask, SmallVector<Value> &ins,
               SmallVector<AffineMap> &maps) {
    auto mTy = cast<RankedTensorType>(mask.getType());
    AffineExpr zero = getAffineConstantExpr(0, ctx);
    AffineExpr bExpr = mTy.getDimSize(0) == 1 ? zero : d(0);
    if (mTy.getDimSize(1) == 1) {
      maps.push_back(map(eDims, {bExpr, zero, d(di), d(dj)}));
    } else if (grouped) {
      SmallVector<OpFoldResult> ms = sizesOf(b, loc, mask);
      mask = expandHeads(mask, {ms[0], sz.Hkv, sz.G, ms[2], ms[3]});
      maps.push_back(map(eDims, {bExpr, d(1), d(2), d(di), d(dj)}));
    } else {
      maps.push_back(map(eDims, {bExpr, d(1), d(di), d(dj)}));
    }
    ins.push_back(mask);
    return mTy.getElementType().isInteger(1);
  }

  /// The scaled scores with the soft cap, the mask, the causal/window band
  /// and the per-sequence lengths applied (-inf where hidden).
  Value maskedScores(Value s, Value scale) {
    negInf = arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
    Value mask = op.getMask();
    full = headMap(eDims, {di, dj});
    row = headMap(eDims, {di});
    SmallVector<Value> ins = {s};
    SmallVector<AffineMap> maps = {full};
    bool maskIsKeep = mask && addMask(mask, ins, maps);
    // Per-sequence lengths, read per batch (dim 0).
    int kvLenIdx = -1, qLenIdx = -1;
    for (auto [len, idx] : {std::pair<Value, int *>{op.getKvLengths(), &kvLenIdx},
                            {op.getQLengths(), &qLenIdx}}) {
      if (!len)
        continue;
      *idx = ins.size();
      ins.push_back(len);
      maps.push_back(map(eDims, {d(0)}));
    }
    maps.push_back(full);
    // Causal and window: key j is visible to query i iff it lies in the
    // band around the diagonal i + (Sk - Sq) (Lk - Lq with lengths).
    ScoreRules rules = makeScoreRules(
        b, loc, sz, scale, negInf, op.getSoftcapAttr(), op.getCausal(),
        op.getWindowAttr(), maskIsKeep, di, dj);
    addMods(rules);
    SmallVector<OpFoldResult> sShape = withHeads({sz.Sq, sz.Sk});
    return linalg::GenericOp::create(
               b, loc, sType, ins, emptyTensor(b, loc, sShape, f32), maps,
               iters(eDims, false),
               [&](OpBuilder &nb_, Location nl, ValueRange a) {
                 Value x = applyScoreRules(
                     nb_, nl, a[0], mask ? a[1] : Value(),
                     kvLenIdx >= 0 ? a[kvLenIdx] : Value(),
                     qLenIdx >= 0 ? a[qLenIdx] : Value(), rules);
                 linalg::YieldOp::create(nb_, nl, x);
               })
        .getResult(0);
  }

  /// The op's score and mask functions as hooks of `rules`: each inlines
  /// its region in the scores' generic body with (b, h, i, j) from the
  /// generic's indices (h = k * G + g in the grouped layout).
  void addMods(ScoreRules &rules) {
    if (!op.hasMods())
      return;
    Value g = getValueOrCreateConstantIndexOp(b, loc, sz.G);
    auto bhij = [this, g](OpBuilder &nb_, Location nl) {
      Value h = linalg::IndexOp::create(nb_, nl, 1);
      if (grouped)
        h = arith::AddIOp::create(
            nb_, nl, arith::MulIOp::create(nb_, nl, h, g),
            linalg::IndexOp::create(nb_, nl, 2));
      return SmallVector<Value>{linalg::IndexOp::create(nb_, nl, 0), h,
                                linalg::IndexOp::create(nb_, nl, di),
                                linalg::IndexOp::create(nb_, nl, dj)};
    };
    if (!op.getScoreMod().empty())
      rules.scoreMod = [this, bhij](OpBuilder &nb_, Location nl, Value x) {
        return inlineAttentionMod(nb_, op, op.getScoreMod(), x, bhij(nb_, nl));
      };
    if (!op.getMaskMod().empty())
      rules.maskMod = [this, bhij](OpBuilder &nb_, Location nl) {
        return inlineAttentionMod(nb_, op, op.getMaskMod(), Value(),
                                  bhij(nb_, nl));
      };
  }

  /// The row max m (starts at -inf; an all-masked row stays -inf).
  Value rowMax(Value scored) {
    Value mInit = filledTensor(b, loc, withHeads({sz.Sq}), f32,
                               -std::numeric_limits<double>::infinity());
    return linalg::GenericOp::create(
               b, loc, mInit.getType(), scored, mInit, {full, row},
               iters(nb + 1, true),
               [&](OpBuilder &nb_, Location nl, ValueRange a) {
                 linalg::YieldOp::create(
                     nb_, nl,
                     Value(arith::MaximumFOp::create(nb_, nl, a[0], a[1])));
               })
        .getResult(0);
  }

  /// P = (m == -inf) ? 0 : exp(S - m).
  Value probabilities(Value scored, Value m) {
    zeroF = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
    return linalg::GenericOp::create(
               b, loc, sType, ValueRange{scored, m},
               emptyTensor(b, loc, withHeads({sz.Sq, sz.Sk}), f32),
               {full, row, full}, iters(eDims, false),
               [&](OpBuilder &nb_, Location nl, ValueRange a) {
                 Value diff = arith::SubFOp::create(nb_, nl, a[0], a[1]);
                 Value e = math::ExpOp::create(nb_, nl, diff);
                 Value dead = arith::CmpFOp::create(
                     nb_, nl, arith::CmpFPredicate::OEQ, a[1], negInf);
                 linalg::YieldOp::create(
                     nb_, nl,
                     Value(arith::SelectOp::create(nb_, nl, dead, zeroF, e)));
               })
        .getResult(0);
  }

  /// l = sum_j P.
  Value rowSum(Value p) {
    Value lInit = filledTensor(b, loc, withHeads({sz.Sq}), f32, 0.0);
    return linalg::GenericOp::create(
               b, loc, lInit.getType(), p, lInit, {full, row},
               iters(nb + 1, true),
               [&](OpBuilder &nb_, Location nl, ValueRange a) {
                 linalg::YieldOp::create(
                     nb_, nl, Value(arith::AddFOp::create(nb_, nl, a[0], a[1])));
               })
        .getResult(0);
  }

  /// O[heads, i, e] = sum_j P[heads, i, j] * V[b, kvhead, j, e], then
  /// O = (l == 0) ? 0 : O / l, rounded once to the element type, in the
  /// result's type. Dims: heads..., i = nb, e = nb+1, j = nb+2.
  Value output(Value p, Value l) {
    Value v = op.getValue();
    unsigned oDims = nb + 3;
    unsigned oe = nb + 1, oj = nb + 2;
    SmallVector<OpFoldResult> oShape = withHeads({sz.Sq, sz.Dv});
    Value oInit = filledTensor(b, loc, oShape, f32, 0.0);
    SmallVector<Value> oIns = {p};
    SmallVector<AffineMap> oMaps = {headMap(oDims, {di, oj})};
    if (grouped) {
      oIns.push_back(v);
      oMaps.push_back(map(oDims, {d(0), d(1), d(oj), d(oe)}));
    }
    oMaps.push_back(headMap(oDims, {di, oe}));
    Value o5 =
        linalg::GenericOp::create(
            b, loc, oInit.getType(), oIns, oInit, oMaps, iters(nb + 2, true),
            [&](OpBuilder &nb_, Location nl, ValueRange a) {
              Value vv = grouped ? a[1] : kvExtract(nb_, nl, v, oj, oe);
              Value prod =
                  arith::MulFOp::create(nb_, nl, a[0], toF32(nb_, nl, vv));
              // A hidden key (P == 0) contributes nothing, whatever V holds
              // (0 * NaN would be NaN).
              Value hidden = arith::CmpFOp::create(
                  nb_, nl, arith::CmpFPredicate::OEQ, a[0], zeroF);
              Value sum = arith::AddFOp::create(nb_, nl, a.back(), prod);
              linalg::YieldOp::create(
                  nb_, nl, Value(arith::SelectOp::create(nb_, nl, hidden,
                                                         a.back(), sum)));
            })
            .getResult(0);
    AffineMap oFull = headMap(eDims, {di, dj});
    Value out =
        linalg::GenericOp::create(
            b, loc, RankedTensorType::get(
                        cast<RankedTensorType>(oInit.getType()).getShape(), elt),
            ValueRange{o5, l}, emptyTensor(b, loc, oShape, elt),
            {oFull, row, oFull}, iters(eDims, false),
            [&](OpBuilder &nb_, Location nl, ValueRange a) {
              linalg::YieldOp::create(
                  nb_, nl, emitNormalizedOutput(nb_, nl, a[0], a[1], elt));
            })
            .getResult(0);
    Value result =
        grouped ? Value(tensor::CollapseShapeOp::create(b, loc, out, groupHeads))
                : out;
    Type oTy = op.getResult().getType();
    if (result.getType() != oTy)
      result = tensor::CastOp::create(b, loc, oTy, result);
    return result;
  }

  /// lse = (l == 0) ? -inf : m + log(l) (natural units: S holds the scale
  /// and the additive mask), in the LSE result's type.
  Value lse(Value m, Value l) {
    AffineMap rowId = b.getMultiDimIdentityMap(nb + 1);
    Value lseT =
        linalg::GenericOp::create(
            b, loc, m.getType(), ValueRange{m, l},
            emptyTensor(b, loc, withHeads({sz.Sq}), f32), {rowId, rowId, rowId},
            iters(nb + 1, false),
            [&](OpBuilder &nb_, Location nl, ValueRange a) {
              Value none = arith::CmpFOp::create(
                  nb_, nl, arith::CmpFPredicate::OEQ, a[1], zeroF);
              Value v = arith::AddFOp::create(
                  nb_, nl, a[0], math::LogOp::create(nb_, nl, a[1]));
              linalg::YieldOp::create(
                  nb_, nl, Value(arith::SelectOp::create(nb_, nl, none, negInf, v)));
            })
            .getResult(0);
    if (grouped)
      lseT = tensor::CollapseShapeOp::create(
          b, loc, lseT,
          SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}});
    Type lTy = op.getLse().getType();
    if (lseT.getType() != lTy)
      lseT = tensor::CastOp::create(b, loc, lTy, lseT);
    return lseT;
  }
};

struct AttentionLowering : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (op.isPaged()) { // gathers, then the unpaged op is lowered in turn
      gatherKvPages(rewriter, op);
      return success();
    }
    ReferenceAttention ref(rewriter, op);
    rewriter.replaceOp(op, ref.build());
    return success();
  }
};

/// tx.online_attention and the backward's block ops (tx.attention_dq,
/// tx.attention_dkdv) -> their decomposition (linalg.generic ops on
/// tensors).
template <typename OpT>
struct DecomposeLowering : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    FailureOr<SmallVector<Value>> parts = op.decomposeOperation(rewriter);
    if (failed(parts))
      return failure();
    rewriter.replaceOp(op, *parts);
    return success();
  }
};

struct ConvertTxToLinalgPass
    : public tx::impl::ConvertTxToLinalgBase<ConvertTxToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<SoftmaxLowering, AttentionLowering,
                 DecomposeLowering<OnlineAttentionOp>,
                 DecomposeLowering<AttentionDqOp>,
                 DecomposeLowering<AttentionDkDvOp>>(ctx);
    populateReferenceGradPatterns(patterns);
    populateMergeStatesPatterns(patterns);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TxDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
