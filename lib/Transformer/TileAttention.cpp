//===- TileAttention.cpp - tx-tile-attention: FlashAttention-2 tiling ------===//
//
// tx.attention -> state init + tx.online_attention over the whole problem
// -> scf::tileUsingSCF (scf.forall over (B, H, Sq), tiles (1, 1, q-tile))
// -> scf::tileUsingSCF of the tile (scf.for over the keys, step kv-tile,
//    the state in iter_args: the FlashAttention-2 loop)
// -> causal: the scf.for stops after the query tile's last visible key
// -> [decompose each tile into linalg.generic ops]
// -> O = (sum == 0) ? 0 : acc / sum, rounded once.
//
// The loops come from upstream (TilingInterface + scf::tileUsingSCF); the
// op, its tiling and decomposition (OnlineAttention.cpp), the causal tile
// skipping and the finalization are ours.
//
//===----------------------------------------------------------------------===//
#include "Transformer/AttentionShapes.h"
#include "Transformer/Passes.h"
#include "Transformer/TilingUtils.h"
#include "Transformer/TxDialect.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"
#include <limits>

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXTILEATTENTION
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;
using utils::IteratorType;

namespace {

/// Q * factor (f32 product, rounded back to Q's element type).
Value scaleQuery(OpBuilder &b, Location loc, Value q, Value factor) {
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

struct TxTileAttentionPass
    : public tx::impl::TxTileAttentionBase<TxTileAttentionPass> {
  using Base::Base;

  LogicalResult checkOptions(Operation *op) {
    auto bad = [&](const Twine &msg) {
      mlir::emitError(op->getLoc(), "tx-tile-attention: ") << msg;
      return failure();
    };
    if (qTile < 1)
      return bad("q-tile must be >= 1, got " +
                 Twine(static_cast<int64_t>(qTile)));
    if (kvTile < 1)
      return bad("kv-tile must be >= 1, got " +
                 Twine(static_cast<int64_t>(kvTile)));
    if (kvSplits < 1 || kvSplits > 65536)
      return bad("kv-splits must be in [1, 65536], got " +
                 Twine(static_cast<int64_t>(kvSplits)));
    return success();
  }

  /// Split-KV (FlashDecoding, Dao et al. 2023) on tensors: the keys of
  /// `whole` (a tx.online_attention from the initial state) are split into
  /// kv-splits chunks of ceil(Sk / kv-splits) keys; an scf.forall computes
  /// each chunk's state (acc, max, sum) from the initial state into stacked
  /// [kv-splits, B, H, Sq, ...] tensors (`part` is the chunk's
  /// tx.online_attention, inside the loop), and linalg.generic ops merge
  /// them with the log-sum-exp rule: M = max_s m_s, w_s = exp(m_s - M)
  /// (0 for a chunk whose keys are all hidden, m_s = -inf; M = -inf taken
  /// as 0), sum = sum_s w_s l_s, acc = sum_s w_s acc_s (a chunk of weight 0
  /// adds nothing, whatever it holds). Returns the merged (acc, M, sum);
  /// erases `whole`.
  SmallVector<Value> splitKeys(IRRewriter &rewriter, AttentionOp op,
                               OnlineAttentionOp whole,
                               const AttentionSizes &sz,
                               OnlineAttentionOp &part) {
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    const int64_t S = kvSplits;
    const double negInfD = -std::numeric_limits<double>::infinity();
    rewriter.setInsertionPointAfter(whole);
    OpFoldResult sOfr = b.getIndexAttr(S);
    AffineExpr s0, s1, s2, d0;
    bindSymbols(ctx, s0, s1, s2);
    bindDims(ctx, d0);
    OpFoldResult chunk =
        affine::makeComposedFoldedAffineApply(b, loc, s0.ceilDiv(S), {sz.Sk});
    Value accS = filledF32(b, loc, {sOfr, sz.B, sz.H, sz.Sq, sz.Dv}, 0.0);
    Value mxS = filledF32(b, loc, {sOfr, sz.B, sz.H, sz.Sq}, negInfD);
    Value smS = filledF32(b, loc, {sOfr, sz.B, sz.H, sz.Sq}, 0.0);
    auto forall = scf::ForallOp::create(
        b, loc, ArrayRef<OpFoldResult>{sOfr}, ValueRange{accS, mxS, smS},
        std::nullopt);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(forall.getTerminator());
      Value sIv = forall.getInductionVar(0);
      // k0 = min(s * chunk, Sk), len = min(chunk, Sk - k0).
      OpFoldResult k0 = affine::makeComposedFoldedAffineMin(
          b, loc, AffineMap::get(1, 2, {d0 * s0, s1}, ctx),
          {sIv, chunk, sz.Sk});
      OpFoldResult len = affine::makeComposedFoldedAffineMin(
          b, loc, AffineMap::get(0, 3, {s0, s1 - s2}, ctx),
          {chunk, sz.Sk, k0});
      OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
      // The chunk's keys: K, V and the mask sliced along the key dimension
      // (the mask's key dimension is never broadcast); key j of the chunk
      // is key k0 + j, so the causal offset drops by k0.
      auto keySlice = [&](Value t, unsigned keyDim) -> Value {
        if (!t)
          return Value();
        SmallVector<OpFoldResult> offs(4, zero), szs =
            tensor::getMixedSizes(b, loc, t);
        offs[keyDim] = k0;
        szs[keyDim] = len;
        auto shape = cast<RankedTensorType>(t.getType()).getShape();
        return tensor::ExtractSliceOp::create(
            b, loc, t, zeroDimSafe(b, loc, offs, shape), szs,
            SmallVector<OpFoldResult>(4, one));
      };
      Value causalOffset;
      if (Value c = whole.getCausalOffset())
        causalOffset = getValueOrCreateConstantIndexOp(
            b, loc,
            affine::makeComposedFoldedAffineApply(b, loc, s0 - s1, {c, k0}));
      part = OnlineAttentionOp::create(
          b, loc, whole.getAcc().getType(), whole.getMax().getType(),
          whole.getSum().getType(), whole.getQuery(),
          keySlice(whole.getKey(), 2), keySlice(whole.getValue(), 2),
          keySlice(whole.getMask(), 3), causalOffset, whole.getAcc(),
          whole.getMax(), whole.getSum(), whole.getScaleAttr(),
          whole.getCausalAttr(), whole.getSoftcapAttr(),
          whole.getWindowAttr());
      auto term = forall.getTerminator();
      b.setInsertionPointToStart(term.getBody());
      auto outs = forall.getRegionIterArgs();
      auto insert = [&](Value src, Value dest,
                        SmallVector<OpFoldResult> sizes) {
        SmallVector<OpFoldResult> offs(sizes.size() + 1, zero);
        offs[0] = sIv;
        SmallVector<OpFoldResult> szs = {b.getIndexAttr(1)};
        szs.append(sizes.begin(), sizes.end());
        SmallVector<OpFoldResult> strides(szs.size(), b.getIndexAttr(1));
        SmallVector<int64_t> shape;
        for (OpFoldResult x : sizes) {
          std::optional<int64_t> c = getConstantIntValue(x);
          shape.push_back(c ? *c : ShapedType::kDynamic);
        }
        auto want = RankedTensorType::get(shape, b.getF32Type());
        if (src.getType() != want) {
          OpBuilder::InsertionGuard g2(b);
          b.setInsertionPoint(term);
          src = tensor::CastOp::create(b, loc, want, src);
        }
        tensor::ParallelInsertSliceOp::create(b, loc, src, dest, offs, szs,
                                              strides);
      };
      insert(part.getResult(0), outs[0], {sz.B, sz.H, sz.Sq, sz.Dv});
      insert(part.getResult(1), outs[1], {sz.B, sz.H, sz.Sq});
      insert(part.getResult(2), outs[2], {sz.B, sz.H, sz.Sq});
    }
    rewriter.eraseOp(whole);
    b.setInsertionPointAfter(forall);
    Value accAll = forall.getResult(0), mxAll = forall.getResult(1),
          smAll = forall.getResult(2);

    // M = max over the splits.
    auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    auto par = IteratorType::parallel, red = IteratorType::reduction;
    Value mInit = filledF32(b, loc, {sz.B, sz.H, sz.Sq}, negInfD);
    AffineMap sRow = AffineMap::get(4, 0, {dim(3), dim(0), dim(1), dim(2)}, ctx);
    AffineMap row = AffineMap::get(4, 0, {dim(0), dim(1), dim(2)}, ctx);
    Value M = linalg::GenericOp::create(
                  b, loc, mInit.getType(), ValueRange{mxAll}, mInit,
                  ArrayRef<AffineMap>{sRow, row},
                  ArrayRef<IteratorType>{par, par, par, red},
                  [&](OpBuilder &nb, Location nl, ValueRange a) {
                    linalg::YieldOp::create(
                        nb, nl,
                        Value(arith::MaximumFOp::create(nb, nl, a[0], a[1])));
                  })
                  .getResult(0);
    // w_s = exp(m_s - (M == -inf ? 0 : M)); x += w_s == 0 ? 0 : w_s * x_s.
    auto weighted = [&](OpBuilder &nb, Location nl, Value m, Value bigM,
                        Value x, Value accv) -> Value {
      Value fzero = arith::ConstantOp::create(nb, nl, nb.getF32FloatAttr(0.0));
      Value ninf = arith::ConstantOp::create(
          nb, nl, nb.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
      Value dead =
          arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ, bigM, ninf);
      Value mSafe = arith::SelectOp::create(nb, nl, dead, fzero, bigM);
      Value w = math::ExpOp::create(
          nb, nl, arith::SubFOp::create(nb, nl, m, mSafe));
      Value none =
          arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ, w, fzero);
      Value upd = math::FmaOp::create(nb, nl, w, x, accv);
      return arith::SelectOp::create(nb, nl, none, accv, upd);
    };
    Value lInit = filledF32(b, loc, {sz.B, sz.H, sz.Sq}, 0.0);
    Value L = linalg::GenericOp::create(
                  b, loc, lInit.getType(), ValueRange{mxAll, smAll, M}, lInit,
                  ArrayRef<AffineMap>{sRow, sRow, row, row},
                  ArrayRef<IteratorType>{par, par, par, red},
                  [&](OpBuilder &nb, Location nl, ValueRange a) {
                    linalg::YieldOp::create(
                        nb, nl, weighted(nb, nl, a[0], a[2], a[1], a[3]));
                  })
                  .getResult(0);
    Value aInit = filledF32(b, loc, {sz.B, sz.H, sz.Sq, sz.Dv}, 0.0);
    AffineMap sRow5 =
        AffineMap::get(5, 0, {dim(4), dim(0), dim(1), dim(2)}, ctx);
    AffineMap sAcc5 =
        AffineMap::get(5, 0, {dim(4), dim(0), dim(1), dim(2), dim(3)}, ctx);
    AffineMap row5 = AffineMap::get(5, 0, {dim(0), dim(1), dim(2)}, ctx);
    AffineMap acc5 = AffineMap::get(5, 0, {dim(0), dim(1), dim(2), dim(3)}, ctx);
    Value A = linalg::GenericOp::create(
                  b, loc, aInit.getType(), ValueRange{mxAll, accAll, M}, aInit,
                  ArrayRef<AffineMap>{sRow5, sAcc5, row5, acc5},
                  ArrayRef<IteratorType>{par, par, par, par, red},
                  [&](OpBuilder &nb, Location nl, ValueRange a) {
                    linalg::YieldOp::create(
                        nb, nl, weighted(nb, nl, a[0], a[2], a[1], a[3]));
                  })
                  .getResult(0);
    return {A, M, L};
  }

  LogicalResult rewrite(AttentionOp op) {
    IRRewriter rewriter(op.getContext());
    OpBuilder &b = rewriter;
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    Type f32 = b.getF32Type();
    Type elt = op.getQuery().getType().getElementType();

    AttentionSizes sz = emitAttentionSizesAndChecks(b, op);

    // Statically empty problems need no loops (and upstream's slice verifiers
    // reject static offsets into zero-size dimensions): an empty result when
    // B, H, Sq or Dv is 0, zeros when Sk is 0 (no row sees a key).
    auto isZero = [](OpFoldResult v) { return isConstantIntValue(v, 0); };
    SmallVector<OpFoldResult> oShape = {sz.B, sz.H, sz.Sq, sz.Dv};
    if (isZero(sz.B) || isZero(sz.H) || isZero(sz.Sq) || isZero(sz.Dv) ||
        isZero(sz.Sk)) {
      Value out = tensor::EmptyOp::create(b, loc, oShape, elt);
      if (isZero(sz.Sk)) {
        Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(elt, 0.0));
        out = linalg::FillOp::create(b, loc, zero, out).getResult(0);
      }
      Type oTy = op.getResult().getType();
      if (out.getType() != oTy)
        out = tensor::CastOp::create(b, loc, oTy, out);
      if (!op.getLse()) {
        rewriter.replaceOp(op, out);
        return success();
      }
      // Log-sum-exp of no key: -inf (an empty tensor when B, H or Sq is 0).
      Value lse = filledF32(b, loc, {sz.B, sz.H, sz.Sq},
                            -std::numeric_limits<double>::infinity());
      Type lTy = op.getLse().getType();
      if (lse.getType() != lTy)
        lse = tensor::CastOp::create(b, loc, lTy, lse);
      rewriter.replaceOp(op, ValueRange{out, lse});
      return success();
    }

    // Scale: the attribute, 1/sqrt(D) for a static D, else Q pre-scaled by
    // rsqrt(D) at run time.
    Value q = op.getQuery();
    double scale = 1.0;
    if (std::optional<double> st = op.getStaticScale()) {
      scale = *st;
    } else {
      Value dV = getValueOrCreateConstantIndexOp(b, loc, sz.D);
      Value dI = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), dV);
      Value dF = arith::UIToFPOp::create(b, loc, f32, dI);
      q = scaleQuery(b, loc, q, math::RsqrtOp::create(b, loc, dF));
    }

    Value acc = filledF32(b, loc, {sz.B, sz.H, sz.Sq, sz.Dv}, 0.0);
    Value mx = filledF32(b, loc, {sz.B, sz.H, sz.Sq},
                         -std::numeric_limits<double>::infinity());
    Value sm = filledF32(b, loc, {sz.B, sz.H, sz.Sq}, 0.0);
    Value causalOffset;
    KeyBand band = keyBand(op.getCausal(), op.getWindowAttr());
    if (band.bounded()) {
      AffineExpr s0, s1;
      bindSymbols(b.getContext(), s0, s1);
      causalOffset = getValueOrCreateConstantIndexOp(
          b, loc,
          affine::makeComposedFoldedAffineApply(b, loc, s0 - s1,
                                                {sz.Sk, sz.Sq}));
    }
    auto whole = OnlineAttentionOp::create(
        b, loc, acc.getType(), mx.getType(), sm.getType(), q, op.getKey(), op.getValue(), op.getMask(), causalOffset, acc,
        mx, sm, b.getF32FloatAttr(static_cast<float>(scale)),
        op.getCausal() ? b.getUnitAttr() : UnitAttr(), op.getSoftcapAttr(),
        op.getWindowAttr());

    // Tiles one tx.online_attention: (B, H, Sq) -> scf.forall with tiles
    // (1, 1, q-tile), keys -> scf.for with step kv-tile (causal: stopping
    // after the last key the tile's rows see), each step decomposed. Returns
    // the final (acc, max, sum).
    auto tileState = [&](OnlineAttentionOp st) -> FailureOr<SmallVector<Value>> {
      scf::SCFTilingOptions outer;
      outer.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
      outer.setTileSizes({b.getIndexAttr(1), b.getIndexAttr(1),
                          b.getIndexAttr(qTile), b.getIndexAttr(0)});
      FailureOr<scf::SCFTilingResult> rows = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(st.getOperation()), outer);
      if (failed(rows))
        return op.emitError("tx-tile-attention: tiling the query rows of the "
                            "tx.online_attention failed");
      SmallVector<Value> state(rows->replacements.begin(),
                               rows->replacements.end());
      rewriter.replaceOp(st, state);
      auto rowTile = cast<OnlineAttentionOp>(rows->tiledOps.back());

      // Causal / window: the last key any row of the tile sees is
      // rows - 1 + offset + right (in the tile's coordinates), the first
      // offset - left; key tiles outside [first, last] are never visited
      // (the loop starts at the tile holding `first`, so tiles stay aligned).
      rewriter.setInsertionPoint(rowTile);
      Value kvBegin, kvEnd;
      KeyBand tb = keyBand(rowTile.getCausal(), rowTile.getWindowAttr());
      // Loop bounds only from sides that cannot overflow index arithmetic
      // (a wider window is unbounded for the loop; the per-key predicate of
      // the decomposition stays exact). -1: no bound from that side.
      constexpr int64_t kBoundedSide = int64_t(1) << 40;
      int64_t rightSide = -1, leftSide = -1;
      if (tb.right && *tb.right <= kBoundedSide)
        rightSide = *tb.right;
      if (tb.left && *tb.left <= kBoundedSide)
        leftSide = *tb.left;
      if (Value c = rowTile.getCausalOffset()) {
        Location tl = rowTile.getLoc();
        OpFoldResult m = tensor::getMixedSize(b, tl, rowTile.getQuery(), 2);
        OpFoldResult n = tensor::getMixedSize(b, tl, rowTile.getKey(), 2);
        AffineExpr d0, d1, d2;
        bindDims(b.getContext(), d0, d1, d2);
        MLIRContext *ctx = b.getContext();
        AffineExpr zeroE = getAffineConstantExpr(0, ctx);
        if (rightSide >= 0) {
          OpFoldResult end = affine::makeComposedFoldedAffineMin(
              b, tl, AffineMap::get(3, 0, {d0, d1 + d2 + rightSide}, ctx),
              {n, m, c});
          end = affine::makeComposedFoldedAffineMax(
              b, tl, AffineMap::get(1, 0, {d0, zeroE}, ctx), {end});
          kvEnd = getValueOrCreateConstantIndexOp(b, tl, end);
        }
        if (leftSide >= 0) {
          // floor(max(0, c - left) / kvTile) * kvTile.
          OpFoldResult first = affine::makeComposedFoldedAffineMax(
              b, tl, AffineMap::get(1, 0, {d0 - leftSide, zeroE}, ctx), {c});
          first = affine::makeComposedFoldedAffineApply(
              b, tl,
              d0.floorDiv(static_cast<int64_t>(kvTile)) *
                  static_cast<int64_t>(kvTile),
              {first});
          kvBegin = getValueOrCreateConstantIndexOp(b, tl, first);
        }
      }

      scf::SCFTilingOptions inner;
      inner.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
      inner.setTileSizes({b.getIndexAttr(0), b.getIndexAttr(0),
                          b.getIndexAttr(0), b.getIndexAttr(kvTile)});
      FailureOr<scf::SCFTilingResult> keys = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(rowTile.getOperation()), inner);
      if (failed(keys))
        return op.emitError("tx-tile-attention: tiling the keys of the "
                            "tx.online_attention failed");
      rewriter.replaceOp(rowTile, keys->replacements);
      if (kvEnd || kvBegin) {
        auto loop = cast<scf::ForOp>(keys->loops.front().getOperation());
        rewriter.modifyOpInPlace(loop, [&] {
          if (kvEnd)
            loop.setUpperBound(kvEnd);
          if (kvBegin)
            loop.setLowerBound(kvBegin);
        });
      }

      if (decompose) {
        auto step = cast<OnlineAttentionOp>(keys->tiledOps.back());
        rewriter.setInsertionPoint(step);
        FailureOr<SmallVector<Value>> parts = step.decomposeOperation(b);
        if (failed(parts))
          return failure();
        rewriter.replaceOp(step, *parts);
      }
      return state;
    };

    SmallVector<Value> state;
    if (kvSplits == 1) {
      FailureOr<SmallVector<Value>> st = tileState(whole);
      if (failed(st))
        return failure();
      state = *st;
    } else {
      OnlineAttentionOp part;
      state = splitKeys(rewriter, op, whole, sz, part);
      // The split's state is tiled like the whole op's.
      rewriter.setInsertionPoint(part);
      if (failed(tileState(part)))
        return failure();
    }

    // O = (sum == 0) ? 0 : acc / sum, rounded once.
    rewriter.setInsertionPoint(op);
    Value accF = state[0], sumF = state[2];
    Value oInit = tensor::EmptyOp::create(b, loc, oShape, elt);
    MLIRContext *ctx = b.getContext();
    AffineMap id4 = b.getMultiDimIdentityMap(4);
    AffineMap row4 = AffineMap::get(
        4, 0,
        {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx),
         getAffineDimExpr(2, ctx)},
        ctx);
    Value out =
        linalg::GenericOp::create(
            b, loc, oInit.getType(), ValueRange{accF, sumF}, oInit,
            ArrayRef<AffineMap>{id4, row4, id4},
            SmallVector<IteratorType>(4, IteratorType::parallel),
            [&](OpBuilder &nb, Location nl, ValueRange a) {
              linalg::YieldOp::create(
                  nb, nl, emitNormalizedOutput(nb, nl, a[0], a[1], elt));
            })
            .getResult(0);
    Type oTy = op.getResult().getType();
    if (out.getType() != oTy)
      out = tensor::CastOp::create(b, loc, oTy, out);
    if (!op.getLse()) {
      rewriter.replaceOp(op, out);
      return success();
    }
    // lse = (sum == 0) ? -inf : max + log(sum), from the final state (the
    // max and sum are in natural units of the scaled, masked scores).
    Value mxF = state[1];
    AffineMap id3 = b.getMultiDimIdentityMap(3);
    Value lInit = tensor::EmptyOp::create(
        b, loc, SmallVector<OpFoldResult>{sz.B, sz.H, sz.Sq}, f32);
    Value lse =
        linalg::GenericOp::create(
            b, loc, lInit.getType(), ValueRange{mxF, sumF}, lInit,
            ArrayRef<AffineMap>{id3, id3, id3},
            SmallVector<IteratorType>(3, IteratorType::parallel),
            [&](OpBuilder &nb, Location nl, ValueRange a) {
              Value zero =
                  arith::ConstantOp::create(nb, nl, nb.getF32FloatAttr(0.0));
              Value negInf = arith::ConstantOp::create(
                  nb, nl,
                  nb.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
              Value none = arith::CmpFOp::create(
                  nb, nl, arith::CmpFPredicate::OEQ, a[1], zero);
              Value v = arith::AddFOp::create(
                  nb, nl, a[0], math::LogOp::create(nb, nl, a[1]));
              linalg::YieldOp::create(
                  nb, nl, Value(arith::SelectOp::create(nb, nl, none, negInf, v)));
            })
            .getResult(0);
    Type lTy = op.getLse().getType();
    if (lse.getType() != lTy)
      lse = tensor::CastOp::create(b, loc, lTy, lse);
    rewriter.replaceOp(op, ValueRange{out, lse});
    return success();
  }

  void runOnOperation() override {
    // Options are checked even when there is nothing to rewrite.
    if (failed(checkOptions(getOperation())))
      return signalPassFailure();
    if (failed(rewriteEach<AttentionOp>(getOperation(),
                                [&](AttentionOp op) { return rewrite(op); })))
      return signalPassFailure();
  }
};

} // namespace
