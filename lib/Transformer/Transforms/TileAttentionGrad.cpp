//===- TileAttentionGrad.cpp - tx-tile-attention-grad ---------------------===//
//
// tx.attention_grad -> FlashAttention-2's backward (Dao 2023, Algorithm 2)
// as two parallel problems over the same recomputation, no atomics:
//   Δ = rowsum(dO ∘ O)
//   dK, dV: scf.forall (B, Hkv, key tiles) of tx.attention_dkdv, each an
//           scf.for over query tiles (dK, dV in iter_args)
//   dQ:     scf.forall (B, H, query tiles) of tx.attention_dq, each an
//           scf.for over key tiles (dQ in iter_args)
// Each forall iteration is the tile of a whole-problem block op (its
// TilingInterface), whose per-batch diagonal and limits are computed in the
// iteration; the inner loops come from upstream scf::tileUsingSCF.
//
//===----------------------------------------------------------------------===//
#include "Transforms/GradBuild.h"
#include "Transformer/AttentionShapes.h"
#include "Transformer/Passes.h"
#include "Transformer/TilingUtils.h"
#include "Transformer/TxDialect.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXTILEATTENTIONGRAD
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

namespace {

/// What every tile of one tx.attention_grad reads.
struct GradProblem {
  AttentionGradOp op;
  AttentionSizes sz;
  Value q, delta; // Q (pre-scaled for a dynamic default scale) and Δ
  FloatAttr scale;
  int64_t qTile, kvTile;
  DenseI64ArrayAttr strategy; // tx.grad_tiles (from-strategy), for the foralls
};

/// Index arithmetic on values (folded where both sides are constants).
struct IndexMath {
  OpBuilder &b;
  Location loc;
  Value v(OpFoldResult x) { return getValueOrCreateConstantIndexOp(b, loc, x); }
  Value c(int64_t x) { return arith::ConstantIndexOp::create(b, loc, x); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  /// floor(max(0, x) / t) * t.
  Value alignDown(Value x, int64_t t) {
    Value z = max(x, c(0));
    return mul(arith::DivSIOp::create(b, loc, z, c(t)), c(t));
  }
};

/// Band sides small enough for loop-bound arithmetic (a wider side bounds
/// nothing in practice; the per-score rule stays exact): -1 = none.
std::pair<int64_t, int64_t> boundedSides(bool causal,
                                         DenseI64ArrayAttr window) {
  constexpr int64_t kBounded = int64_t(1) << 40;
  KeyBand band = keyBand(causal, window);
  int64_t left = band.left && *band.left <= kBounded ? *band.left : -1;
  int64_t right = band.right && *band.right <= kBounded ? *band.right : -1;
  return {left, right};
}

/// Sets `loop`'s bounds to [begin, end) where given.
void restrict(RewriterBase &rewriter, Operation *loopOp, Value begin,
              Value end) {
  auto loop = cast<scf::ForOp>(loopOp);
  rewriter.modifyOpInPlace(loop, [&] {
    if (begin)
      loop.setLowerBound(begin);
    if (end)
      loop.setUpperBound(end);
  });
}

struct TxTileAttentionGradPass
    : public tx::impl::TxTileAttentionGradBase<TxTileAttentionGradPass> {
  using Base::Base;

  LogicalResult checkOptions(Operation *op) {
    for (auto [name, value] : {std::pair<StringRef, int64_t>{"q-tile", qTile},
                               {"kv-tile", kvTile}})
      if (value < 1)
        return mlir::emitError(op->getLoc(), "tx-tile-attention-grad: ")
               << name << " must be >= 1, got " << value;
    return success();
  }

  /// Lk and Lq of batch `bIv` (kv_lengths / q_lengths clamped into [0, Sk]
  /// / [0, Sq]; Sk / Sq without them).
  std::pair<Value, Value> lengths(OpBuilder &b, GradProblem &p,
                                  Value bIv) {
    Location loc = p.op.getLoc();
    IndexMath m{b, loc};
    auto lengthOf = [&](Value lens, OpFoldResult bound) -> Value {
      if (!lens)
        return m.v(bound);
      Value l = tensor::ExtractOp::create(b, loc, lens, ValueRange{bIv});
      l = arith::IndexCastOp::create(b, loc, b.getIndexType(), l);
      return m.min(m.max(l, m.c(0)), m.v(bound));
    };
    return {lengthOf(p.op.getKvLengths(), p.sz.Sk),
            lengthOf(p.op.getQLengths(), p.sz.Sq)};
  }

  /// The whole-problem diagonal and limits of batch `bIv`:
  /// (causal_offset, row_limit, key_limit), each null when unused.
  std::tuple<Value, Value, Value> clauses(OpBuilder &b, GradProblem &p,
                                          Value bIv) {
    auto [keys, rows] = lengths(b, p, bIv);
    IndexMath m{b, p.op.getLoc()};
    Value c = (p.op.getCausal() || p.op.getWindowAttr()) ? m.sub(keys, rows)
                                                         : Value();
    return {c, p.op.getQLengths() ? rows : Value(),
            p.op.getKvLengths() ? keys : Value()};
  }

  /// Inserts `src` into `dest` at `offsets`/`sizes` from the forall's
  /// terminator (a tensor.cast first where the static shapes differ).
  void insertTile(OpBuilder &b, scf::ForallOp forall, Value src, Value dest,
                  ArrayRef<OpFoldResult> offsets,
                  ArrayRef<OpFoldResult> sizes) {
    Location loc = forall.getLoc();
    SmallVector<int64_t> shape;
    for (OpFoldResult x : sizes) {
      std::optional<int64_t> cst = getConstantIntValue(x);
      shape.push_back(cst ? *cst : ShapedType::kDynamic);
    }
    auto want = RankedTensorType::get(shape, b.getF32Type());
    if (src.getType() != want)
      src = tensor::CastOp::create(b, loc, want, src);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToEnd(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(
        b, loc, src, dest, offsets, sizes,
        SmallVector<OpFoldResult>(sizes.size(), b.getIndexAttr(1)));
  }

  /// Tiles `step`'s reduction dimension (3) by `tile` with an scf.for,
  /// restricts its bounds, decomposes the tiled step.
  template <typename StepT>
  LogicalResult tileReduction(IRRewriter &rewriter, StepT step, int64_t tile,
                              Value begin, Value end) {
    OpBuilder &b = rewriter;
    scf::SCFTilingOptions opts;
    opts.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
    opts.setTileSizes({b.getIndexAttr(0), b.getIndexAttr(0),
                       b.getIndexAttr(0), b.getIndexAttr(tile)});
    FailureOr<scf::SCFTilingResult> r = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(step.getOperation()), opts);
    if (failed(r))
      return step.emitError("tx-tile-attention-grad: tiling the block's "
                            "reduction dimension failed");
    rewriter.replaceOp(step, r->replacements);
    restrict(rewriter, r->loops.front().getOperation(), begin, end);
    if (!decompose)
      return success();
    auto tiled = cast<StepT>(r->tiledOps.back());
    rewriter.setInsertionPoint(tiled);
    FailureOr<SmallVector<Value>> parts = tiled.decomposeOperation(b);
    if (failed(parts))
      return failure();
    rewriter.replaceOp(tiled, *parts);
    return success();
  }

  /// dK, dV (f32 [B, Hkv, Sk, D|Dv]): the forall over (B, Hkv, key tiles).
  FailureOr<std::pair<Value, Value>> keyTiles(IRRewriter &rewriter,
                                              GradProblem &p);
  /// dQ (f32 [B, H, Sq, D]) and, for a grad_mask, dS (f32 [B, H, Sq, Sk]):
  /// the forall over (B, H, query tiles).
  FailureOr<std::pair<Value, Value>> queryTiles(IRRewriter &rewriter,
                                                GradProblem &p);

  LogicalResult rewrite(AttentionGradOp op);

  void runOnOperation() override {
    if (failed(checkOptions(getOperation())))
      return signalPassFailure();
    if (failed(rewriteEach<AttentionGradOp>(
            getOperation(), [&](AttentionGradOp op) {
              if (fromStrategy && !op->hasAttr(kGradTilesAttr))
                return success(); // the reference lowering's
              if (op.hasMods())
                return success(); // score / mask functions: the reference's
              return rewrite(op);
            })))
      return signalPassFailure();
  }
};

} // namespace

FailureOr<std::pair<Value, Value>>
TxTileAttentionGradPass::keyTiles(IRRewriter &rewriter, GradProblem &p) {
  OpBuilder &b = rewriter;
  AttentionGradOp op = p.op;
  Location loc = op.getLoc();
  const AttentionSizes &sz = p.sz;
  IndexMath m{b, loc};
  Value dk0 = filledF32(b, loc, {sz.B, sz.Hkv, sz.Sk, sz.D}, 0.0);
  Value dv0 = filledF32(b, loc, {sz.B, sz.Hkv, sz.Sk, sz.Dv}, 0.0);
  AffineExpr s0;
  bindSymbols(b.getContext(), s0);
  OpFoldResult nTiles = affine::makeComposedFoldedAffineApply(
      b, loc, s0.ceilDiv(p.kvTile), {sz.Sk});
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{sz.B, sz.Hkv, nTiles},
      ValueRange{dk0, dv0}, std::nullopt);
  if (p.strategy)
    forall->setAttr(kGradTilesAttr, p.strategy);
  if (p.strategy && p.op->hasAttr(kGradDqReduceAttr))
    forall->setAttr(kGradDqReduceAttr, UnitAttr::get(b.getContext()));
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(forall.getTerminator());
  Value bIv = forall.getInductionVar(0), khIv = forall.getInductionVar(1);
  Value n0 = m.mul(forall.getInductionVar(2), m.c(p.kvTile));
  Value ns = m.min(m.c(p.kvTile), m.sub(m.v(sz.Sk), n0));
  auto [c, rowLimit, keyLimit] = clauses(b, p, bIv);
  auto outs = forall.getRegionIterArgs();
  auto whole = AttentionDkDvOp::create(
      b, loc, p.q, op.getKey(), op.getValue(), op.getGradOutput(), op.getLse(),
      p.delta, op.getMask(), c, rowLimit, keyLimit, outs[0], outs[1], p.scale,
      op.getCausalAttr(), op.getSoftcapAttr(), op.getWindowAttr());
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  FailureOr<TilingResult> t = whole.getTiledImplementation(
      b, {bIv, khIv, n0, zero}, {one, one, ns, sz.Sq});
  rewriter.eraseOp(whole);
  if (failed(t))
    return failure();
  auto step = cast<AttentionDkDvOp>(t->tiledOps.front());
  insertTile(b, forall, step.getResult(0), outs[0], {bIv, khIv, n0, zero},
             {one, one, ns, sz.D});
  insertTile(b, forall, step.getResult(1), outs[1], {bIv, khIv, n0, zero},
             {one, one, ns, sz.Dv});
  // The query tiles some row of which sees a key of this tile: rows i see
  // key 0 iff i >= -c - right, key ns - 1 iff i <= ns - 1 - c + left.
  b.setInsertionPoint(step);
  auto [left, right] = boundedSides(op.getCausal(), op.getWindowAttr());
  Value begin, end;
  if (Value tc = step.getCausalOffset()) {
    if (right >= 0)
      begin = m.alignDown(m.sub(m.c(-right), tc), p.qTile);
    if (left >= 0)
      end = m.min(m.v(sz.Sq), m.max(m.c(0), m.add(m.sub(ns, tc), m.c(left))));
  }
  if (Value r = step.getRowLimit())
    end = m.min(end ? end : m.v(sz.Sq), m.max(r, m.c(0)));
  if (Value k = step.getKeyLimit()) {
    Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, k,
                                       m.c(0));
    end = arith::SelectOp::create(b, loc, live, end ? end : m.v(sz.Sq),
                                  m.c(0));
  }
  if (failed(tileReduction(rewriter, step, p.qTile, begin, end)))
    return failure();
  return std::make_pair(forall.getResult(0), forall.getResult(1));
}

FailureOr<std::pair<Value, Value>>
TxTileAttentionGradPass::queryTiles(IRRewriter &rewriter, GradProblem &p) {
  OpBuilder &b = rewriter;
  AttentionGradOp op = p.op;
  Location loc = op.getLoc();
  const AttentionSizes &sz = p.sz;
  IndexMath m{b, loc};
  SmallVector<Value> inits = {
      filledF32(b, loc, {sz.B, sz.H, sz.Sq, sz.D}, 0.0)};
  bool withScores = static_cast<bool>(op.getGradMask());
  if (withScores) // blocks the loop skips hold dS = 0
    inits.push_back(filledF32(b, loc, {sz.B, sz.H, sz.Sq, sz.Sk}, 0.0));
  AffineExpr s0;
  bindSymbols(b.getContext(), s0);
  OpFoldResult mTiles = affine::makeComposedFoldedAffineApply(
      b, loc, s0.ceilDiv(p.qTile), {sz.Sq});
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{sz.B, sz.H, mTiles}, inits,
      std::nullopt);
  if (p.strategy)
    forall->setAttr(kGradTilesAttr, p.strategy);
  if (p.strategy && p.op->hasAttr(kGradDqReduceAttr))
    forall->setAttr(kGradDqReduceAttr, UnitAttr::get(b.getContext()));
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(forall.getTerminator());
  Value bIv = forall.getInductionVar(0), hIv = forall.getInductionVar(1);
  Value m0 = m.mul(forall.getInductionVar(2), m.c(p.qTile));
  Value ms = m.min(m.c(p.qTile), m.sub(m.v(sz.Sq), m0));
  auto [c, rowLimit, keyLimit] = clauses(b, p, bIv);
  auto outs = forall.getRegionIterArgs();
  auto whole = AttentionDqOp::create(
      b, loc, p.q, op.getKey(), op.getValue(), op.getGradOutput(), op.getLse(),
      p.delta, op.getMask(), c, rowLimit, keyLimit, outs[0],
      withScores ? outs[1] : Value(), p.scale, op.getCausalAttr(),
      op.getSoftcapAttr(), op.getWindowAttr());
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  FailureOr<TilingResult> t = whole.getTiledImplementation(
      b, {bIv, hIv, m0, zero}, {one, one, ms, sz.Sk});
  rewriter.eraseOp(whole);
  if (failed(t))
    return failure();
  auto step = cast<AttentionDqOp>(t->tiledOps.front());
  insertTile(b, forall, step.getResult(0), outs[0], {bIv, hIv, m0, zero},
             {one, one, ms, sz.D});
  if (withScores)
    insertTile(b, forall, step.getResult(1), outs[1], {bIv, hIv, m0, zero},
               {one, one, ms, sz.Sk});
  // The key tiles some row of this tile sees (tx-tile-attention's bounds):
  // up to ms - 1 + c + right, from c - left.
  b.setInsertionPoint(step);
  auto [left, right] = boundedSides(op.getCausal(), op.getWindowAttr());
  Value begin, end;
  if (Value tc = step.getCausalOffset()) {
    if (right >= 0)
      end = m.min(m.v(sz.Sk), m.max(m.c(0), m.add(m.add(ms, tc), m.c(right))));
    if (left >= 0)
      begin = m.alignDown(m.sub(tc, m.c(left)), p.kvTile);
  }
  if (Value k = step.getKeyLimit())
    end = m.min(end ? end : m.v(sz.Sk), m.max(k, m.c(0)));
  if (Value r = step.getRowLimit()) {
    Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, r,
                                       m.c(0));
    end = arith::SelectOp::create(b, loc, live, end ? end : m.v(sz.Sk),
                                  m.c(0));
  }
  if (failed(tileReduction(rewriter, step, p.kvTile, begin, end)))
    return failure();
  return std::make_pair(forall.getResult(0),
                        withScores ? forall.getResult(1) : Value());
}

LogicalResult TxTileAttentionGradPass::rewrite(AttentionGradOp op) {
  IRRewriter rewriter(op.getContext());
  OpBuilder &b = rewriter;
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  GradProblem p{op,
                emitAttentionSizesAndChecks(b, loc, op.getQuery(), op.getKey(),
                                            op.getValue(), op.getMask(),
                                            /*checks=*/true, op.getKvLengths(),
                                            op.getQLengths()),
                op.getQuery(), Value(), FloatAttr(), qTile, kvTile,
                DenseI64ArrayAttr()};
  if (fromStrategy) {
    p.strategy = op->getAttrOfType<DenseI64ArrayAttr>(kGradTilesAttr);
    if (!p.strategy || p.strategy.size() != 2 || p.strategy[0] < 1 ||
        p.strategy[1] < 1)
      return op.emitError("tx-tile-attention-grad: ")
             << kGradTilesAttr
             << " must be array<i64: q_tile, kv_tile> with both >= 1";
    p.qTile = p.strategy[0];
    p.kvTile = p.strategy[1];
  }
  emitGradOperandChecks(b, op, p.sz);
  for (OpFoldResult s : {p.sz.B, p.sz.H, p.sz.Hkv, p.sz.Sq, p.sz.Sk, p.sz.D,
                         p.sz.Dv})
    if (isConstantIntValue(s, 0))
      return success(); // statically empty: the reference lowering
  // The scale: the attribute, 1/sqrt(D) for a static D, else Q pre-scaled
  // by rsqrt(D) (and dQ scaled back by it).
  Value dqFactor;
  if (std::optional<double> st = op.getStaticScale()) {
    p.scale = b.getF32FloatAttr(static_cast<float>(*st));
  } else {
    Value dI = arith::IndexCastUIOp::create(
        b, loc, b.getI64Type(), getValueOrCreateConstantIndexOp(b, loc, p.sz.D));
    dqFactor = math::RsqrtOp::create(
        b, loc, arith::UIToFPOp::create(b, loc, b.getF32Type(), dI));
    p.q = scaleQuery(b, loc, op.getQuery(), dqFactor);
    p.scale = b.getF32FloatAttr(1.0f);
  }
  p.delta = emitRowDot(b, loc, op.getGradOutput(), op.getOutput(), p.sz);
  FailureOr<std::pair<Value, Value>> kv = keyTiles(rewriter, p);
  if (failed(kv))
    return failure();
  FailureOr<std::pair<Value, Value>> dq = queryTiles(rewriter, p);
  if (failed(dq))
    return failure();
  SmallVector<Value> grads = {
      emitRounded(b, loc, dq->first, dqFactor, op.getGradQuery().getType()),
      emitRounded(b, loc, kv->first, Value(), op.getGradKey().getType()),
      emitRounded(b, loc, kv->second, Value(), op.getGradValue().getType())};
  if (op.getGradMask())
    grads.push_back(emitMaskGradient(b, op, p.sz, dq->second));
  rewriter.replaceOp(op, grads);
  return success();
}
