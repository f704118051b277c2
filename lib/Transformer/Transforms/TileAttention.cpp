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
#include "IR/AttentionMods.h"
#include "Transformer/AttentionShapes.h"
#include "Transformer/Passes.h"
#include "Transformer/TilingUtils.h"
#include "Transformer/TxDialect.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
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

/// The split-KV merge of splitKeys: the S partial states (accAll [S, B,
/// H, Sq, Dv], mxAll and smAll [S, B, H, Sq]) merged into one (acc, M, sum)
/// at the builder's insertion point.
static std::tuple<Value, Value, Value>
mergeSplits(OpBuilder &b, Location loc, const AttentionSizes &sz,
            Value accAll, Value mxAll, Value smAll) {
  MLIRContext *ctx = b.getContext();
  const double negInfD = -std::numeric_limits<double>::infinity();
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

namespace {

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
      // Score and mask functions: key j of the chunk is key k0 + j.
      SmallVector<Value> modOffsets =
          tileModOffsets(b, loc, whole.hasMods(), whole.getModOffsets(),
                         {zero, zero, zero, k0});
      part = OnlineAttentionOp::create(
          b, loc, whole.getAcc().getType(), whole.getMax().getType(),
          whole.getSum().getType(), whole.getQuery(),
          keySlice(whole.getKey(), 2), keySlice(whole.getValue(), 2),
          keySlice(whole.getMask(), 3), causalOffset, whole.getRowLimit(),
          modOffsets, whole.getScoreCaptures(), whole.getMaskCaptures(),
          whole.getAcc(), whole.getMax(), whole.getSum(),
          whole.getScaleAttr(), whole.getCausalAttr(),
          whole.getSoftcapAttr(), whole.getWindowAttr());
      cloneAttentionMods(whole.getScoreMod(), whole.getMaskMod(), part);
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
    b.setInsertionPointAfter(forall);

    auto [A, M, L] = mergeSplits(b, loc, sz, forall.getResult(0),
                                 forall.getResult(1), forall.getResult(2));
    rewriter.replaceOp(whole, ValueRange{A, M, L});
    return {A, M, L};
  }

  /// Tiles the keys of one query tile's tx.online_attention (from the
  /// initial state): an scf.for with step kv-tile, the state in iter_args
  /// (FlashAttention-2's loop); causal / window: only the key tiles some
  /// row of the tile sees are visited. With `decompose`, each step becomes
  /// linalg.generic ops.
  LogicalResult tileKeys(IRRewriter &rewriter, AttentionOp op,
                         OnlineAttentionOp rowTile, int64_t kvT) {
    OpBuilder &b = rewriter;
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
            b, tl, d0.floorDiv(kvT) * kvT, {first});
        kvBegin = getValueOrCreateConstantIndexOp(b, tl, first);
      }
    }

    if (Value r = rowTile.getRowLimit()) {
      // A tile whose rows all lie past the sequence's length (q_lengths)
      // visits no key tile.
      Location tl = rowTile.getLoc();
      Value end = kvEnd ? kvEnd
                        : getValueOrCreateConstantIndexOp(
                              b, tl,
                              tensor::getMixedSize(b, tl, rowTile.getKey(), 2));
      Value zero = arith::ConstantIndexOp::create(b, tl, 0);
      Value live =
          arith::CmpIOp::create(b, tl, arith::CmpIPredicate::sgt, r, zero);
      kvEnd = arith::SelectOp::create(b, tl, live, end, zero);
    }

    scf::SCFTilingOptions inner;
    inner.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
    inner.setTileSizes({b.getIndexAttr(0), b.getIndexAttr(0),
                        b.getIndexAttr(0), b.getIndexAttr(kvT)});
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
    return success();
  }

  LogicalResult rewrite(AttentionOp op) {
    if (op.isPaged())
      return op.emitError("tx-tile-attention: a paged tx.attention "
                          "(page_table) is tiled once tx-gather-kv-pages has "
                          "rewritten it onto contiguous K/V; run that pass "
                          "first");
    IRRewriter rewriter(op.getContext());
    OpBuilder &b = rewriter;
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    Type elt = op.getQuery().getType().getElementType();

    // The GPU path: only ops with a strategy, with its tiles. The split-KV
    // decode family packs the G = H / Hkv query heads of one K/V head and
    // all Sq rows into one tile (grouped-query packing; its key loop's
    // step is the kernel's keys per warp step, and the kernel splits the
    // loop over CTAs).
    int64_t qT = qTile, kvT = kvTile, hT = 1;
    Attribute any = op->getAttr(kGpuStrategyAttr);
    auto strategy = dyn_cast_or_null<AttentionTilingAttr>(any);
    if (fromStrategy) {
      if (!any)
        return success();
      if (!strategy)
        return op.emitError("tx-tile-attention: ")
               << kGpuStrategyAttr << " must be an attention strategy, got "
               << any;
      if (strategy.packsQueryHeads()) {
        int64_t H = op.getQuery().getType().getDimSize(1);
        int64_t Sq = op.getQuery().getType().getDimSize(2);
        int64_t Hkv = op.getKey().getType().getDimSize(1);
        if (ShapedType::isDynamic(H) || ShapedType::isDynamic(Sq) ||
            ShapedType::isDynamic(Hkv) || Hkv < 1 || Sq < 1)
          return op.emitError("tx-tile-attention: the strategy packs the "
                              "query heads of a K/V head and needs static "
                              "H, Hkv and Sq (>= 1), got ")
                 << op.getQuery().getType() << " and "
                 << op.getKey().getType();
        hT = H / Hkv;
        qT = Sq;
      } else {
        qT = strategy.getQueryTileRows();
      }
      kvT = strategy.getKeyTileSize();
    }

    AttentionSizes sz = emitAttentionSizesAndChecks(b, op);

    // Statically empty problems need no loops (and upstream's slice verifiers
    // reject static offsets into zero-size dimensions): an empty result when
    // B, H, Sq or Dv is 0, zeros when Sk is 0 (no row sees a key).
    auto isZero = [](OpFoldResult v) { return isConstantIntValue(v, 0); };
    SmallVector<OpFoldResult> oShape = {sz.B, sz.H, sz.Sq, sz.Dv};
    if (isZero(sz.B) || isZero(sz.H) || isZero(sz.Sq) || isZero(sz.Dv) ||
        isZero(sz.Sk)) {
      // (An allocation, not tensor.empty: identical tensor.empty results
      // would be merged by CSE, and upstream's buffer-results-to-out-params
      // crashes on a function returning one buffer twice, LLVM 22.1.8.)
      SmallVector<int64_t> oStatic;
      SmallVector<Value> oDyn;
      dispatchIndexOpFoldResults(oShape, oDyn, oStatic);
      Value out = bufferization::AllocTensorOp::create(
          b, loc, RankedTensorType::get(oStatic, elt), oDyn);
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

    // (B, H, Sq) -> scf.forall with tiles (1, 1, q-tile): each tile is a
    // tx.online_attention of its rows over all keys and the epilogue
    // (tx.attention's TilingInterface).
    scf::SCFTilingOptions outer;
    outer.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    outer.setTileSizes(
        {b.getIndexAttr(1), b.getIndexAttr(hT), b.getIndexAttr(qT)});
    FailureOr<scf::SCFTilingResult> rows = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), outer);
    if (failed(rows))
      return op.emitError("tx-tile-attention: tiling the query rows of the "
                          "tx.attention failed");
    Operation *forall = rows->loops.front().getOperation();
    if (strategy && fromStrategy)
      forall->setAttr(kGpuStrategyAttr, strategy);
    OnlineAttentionOp rowTile;
    for (Operation *t : rows->tiledOps)
      if (auto o = dyn_cast<OnlineAttentionOp>(t))
        rowTile = o;
    auto done = [&](LogicalResult r) {
      rewriter.replaceOp(op, rows->replacements);
      return r;
    };
    if (kvSplits == 1)
      return done(tileKeys(rewriter, op, rowTile, kvT));
    // Split-KV: the tile's keys in kv-splits chunks, each tiled like the
    // whole tile's keys.
    Location tl = rowTile.getLoc();
    rewriter.setInsertionPoint(rowTile);
    AttentionSizes tsz;
    SmallVector<OpFoldResult> qs =
        tensor::getMixedSizes(b, tl, rowTile.getQuery());
    tsz.B = qs[0], tsz.H = qs[1], tsz.Sq = qs[2], tsz.D = qs[3];
    tsz.Sk = tensor::getMixedSize(b, tl, rowTile.getKey(), 2);
    tsz.Dv = tensor::getMixedSize(b, tl, rowTile.getValue(), 3);
    OnlineAttentionOp part;
    splitKeys(rewriter, op, rowTile, tsz, part);
    return done(tileKeys(rewriter, op, part, kvT));
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
