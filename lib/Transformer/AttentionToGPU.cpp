//===- AttentionToGPU.cpp - tx.attention -> one online-softmax kernel ------===//
//
// A first flash-style attention path (FlashAttention-2's online softmax, Dao
// 2023, without its tiling yet): one warp per query row. The row's q and its
// output accumulator live in registers, spread over the 32 lanes (D/32 and
// Dv/32 values per lane); the warp walks the keys once, each score reduced
// across the lanes with shuffles, keeping a running max m, sum l and
// accumulator rescaled by exp(m_old - m_new). No Sq x Sk buffer exists at any
// size. Causal rows stop at their last visible key (bottom-right alignment).
// K/V rows are read from global memory (L2) by every warp that needs them:
// staging K/V tiles in shared memory and tensor cores are the next steps.
//
//===----------------------------------------------------------------------===//
#include "Transformer/AttentionShapes.h"
#include "Transformer/Passes.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include <limits>

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXATTENTIONTOGPU
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

namespace {

struct TxAttentionToGPUPass
    : public tx::impl::TxAttentionToGPUBase<TxAttentionToGPUPass> {
  using Base::Base;

  LogicalResult rewrite(AttentionOp op) {
    auto qTy = op.getQuery().getType(),
         vTy = op.getValue().getType();
    int64_t D = qTy.getDimSize(3), Dv = vTy.getDimSize(3);
    auto fits = [](int64_t d) {
      return !ShapedType::isDynamic(d) && d > 0 && d % 32 == 0 && d <= 256;
    };
    if (!fits(D) || !fits(Dv))
      return success(); // Left to the reference lowering.
    int64_t dq = D / 32, dv = Dv / 32;

    OpBuilder b(op);
    Location loc = op.getLoc();
    Type elt = qTy.getElementType();
    Type f32 = b.getF32Type();
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    auto fcst = [&](double v) -> Value {
      return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
    };
    auto toBuf = [&](Value t) -> Value {
      auto ty = cast<RankedTensorType>(t.getType());
      return bufferization::ToBufferOp::create(
          b, loc, MemRefType::get(ty.getShape(), ty.getElementType()), t,
          /*read_only=*/true);
    };
    Value q = toBuf(op.getQuery()), k = toBuf(op.getKey()),
          v = toBuf(op.getValue());
    Value mask = op.getMask() ? toBuf(op.getMask()) : Value();
    // Sizes and the run-time shape checks, shared with the reference
    // lowering.
    AttentionSizes sz = emitAttentionSizesAndChecks(b, op);
    auto val = [&](OpFoldResult f) {
      return getValueOrCreateConstantIndexOp(b, loc, f);
    };
    Value B = val(sz.B), H = val(sz.H), Sq = val(sz.Sq), Sk = val(sz.Sk),
          G = val(sz.G);
    Value zero = cst(0), one = cst(1);

    auto oTy = op.getType();
    SmallVector<Value> dynSizes;
    Value oDims[4] = {B, H, Sq, cst(Dv)};
    for (int64_t i = 0; i < 4; ++i)
      if (oTy.isDynamicDim(i))
        dynSizes.push_back(oDims[i]);
    Value out = memref::AllocOp::create(
        b, loc, MemRefType::get(oTy.getShape(), elt), dynSizes);

    // Scale folded with log2(e): scores live in the exp2 domain.
    const double log2e = 1.4426950408889634;
    Value scale;
    if (std::optional<double> st = op.getStaticScale())
      scale = fcst(*st * log2e);
    else
      scale = fcst(log2e / std::sqrt(static_cast<double>(D)));

    Value rows = arith::MulIOp::create(
        b, loc, arith::MulIOp::create(b, loc, B, H), Sq);
    int64_t warpsPerBlock = blockSize / 32;
    auto ifRows = scf::IfOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, rows, zero),
        false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifRows.thenBlock());
      Value grid = arith::CeilDivUIOp::create(b, loc, rows, cst(warpsPerBlock));
      auto launch = gpu::LaunchOp::create(b, loc, grid, one, one, cst(blockSize),
                                          one, one);
      b.setInsertionPointToStart(&launch.getBody().front());
      Value tid = launch.getThreadIds().x, bid = launch.getBlockIds().x;
      Value lane = arith::RemUIOp::create(b, loc, tid, cst(32));
      Value w = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, bid, cst(warpsPerBlock)),
          arith::DivUIOp::create(b, loc, tid, cst(32)));
      // All lanes of a warp share w, so the branch is warp-uniform.
      auto ifValid = scf::IfOp::create(
          b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, w, rows),
          false);
      gpu::TerminatorOp::create(b, loc);
      b.setInsertionPointToStart(ifValid.thenBlock());
      Value i = arith::RemUIOp::create(b, loc, w, Sq);
      Value bh = arith::DivUIOp::create(b, loc, w, Sq);
      Value h = arith::RemUIOp::create(b, loc, bh, H);
      Value bi = arith::DivUIOp::create(b, loc, bh, H);
      Value kh = arith::DivUIOp::create(b, loc, h, G);
      auto ext = [&](Value x) -> Value {
        return x.getType() == f32 ? x
                                  : arith::ExtFOp::create(b, loc, f32, x).getResult();
      };
      auto laneCol = [&](int64_t t) -> Value {
        return arith::AddIOp::create(b, loc, lane, cst(32 * t));
      };
      SmallVector<Value> qs;
      for (int64_t t = 0; t < dq; ++t)
        qs.push_back(arith::MulFOp::create(
            b, loc,
            ext(memref::LoadOp::create(b, loc, q, ValueRange{bi, h, i, laneCol(t)})),
            scale));
      // Causal: keys j <= i + Sk - Sq, i.e. j < min(Sk, max(0, i + Sk - Sq + 1)).
      Value jEnd = Sk;
      if (op.getCausal()) {
        Value lastPlus1 = arith::SubIOp::create(
            b, loc, arith::AddIOp::create(b, loc, arith::AddIOp::create(b, loc, i, Sk), one),
            Sq);
        lastPlus1 = arith::MaxSIOp::create(b, loc, lastPlus1, zero);
        jEnd = arith::MinSIOp::create(b, loc, lastPlus1, Sk);
      }
      Value negInf = fcst(-std::numeric_limits<double>::infinity());
      Value fzero = fcst(0.0), fone = fcst(1.0);
      SmallVector<Value> init = {negInf, fzero};
      for (int64_t e = 0; e < dv; ++e)
        init.push_back(fzero);
      Value mb, mh;
      bool keep = false;
      if (mask) {
        auto mTy = cast<MemRefType>(mask.getType());
        keep = mTy.getElementType().isInteger(1);
        mb = mTy.getDimSize(0) == 1 ? zero : bi;
        mh = mTy.getDimSize(1) == 1 ? zero : h;
      }
      auto loop = scf::ForOp::create(
          b, loc, zero, jEnd, one, init,
          [&](OpBuilder &, Location, Value j, ValueRange acc) {
            Value dot = fzero;
            for (int64_t t = 0; t < dq; ++t) {
              Value kv = ext(memref::LoadOp::create(
                  b, loc, k, ValueRange{bi, kh, j, laneCol(t)}));
              dot = math::FmaOp::create(b, loc, qs[t], kv, dot);
            }
            for (int64_t off = 16; off >= 1; off /= 2)
              dot = arith::AddFOp::create(
                  b, loc, dot,
                  gpu::ShuffleOp::create(b, loc, dot, off, 32, gpu::ShuffleMode::XOR)
                      .getShuffleResult());
            Value s = dot;
            if (mask) {
              Value mv = memref::LoadOp::create(b, loc, mask, ValueRange{mb, mh, i, j});
              if (keep)
                s = arith::SelectOp::create(b, loc, mv, s, negInf);
              else
                s = arith::AddFOp::create(
                    b, loc, s, arith::MulFOp::create(b, loc, ext(mv), fcst(log2e)));
            }
            Value m = acc[0], l = acc[1];
            Value mNew = arith::MaximumFOp::create(b, loc, m, s);
            Value same = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m, mNew);
            Value alpha = arith::SelectOp::create(
                b, loc, same, fone,
                math::Exp2Op::create(b, loc, arith::SubFOp::create(b, loc, m, mNew)));
            Value dead =
                arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, mNew, negInf);
            Value p = arith::SelectOp::create(
                b, loc, dead, fzero,
                math::Exp2Op::create(b, loc, arith::SubFOp::create(b, loc, s, mNew)));
            SmallVector<Value> next = {
                mNew, math::FmaOp::create(b, loc, l, alpha, p)};
            for (int64_t e = 0; e < dv; ++e) {
              Value vv = ext(memref::LoadOp::create(
                  b, loc, v, ValueRange{bi, kh, j, laneCol(e)}));
              next.push_back(math::FmaOp::create(
                  b, loc, p, vv, arith::MulFOp::create(b, loc, acc[2 + e], alpha)));
            }
            scf::YieldOp::create(b, loc, next);
          });
      Value l = loop.getResult(1);
      Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l, fzero);
      Value inv = arith::SelectOp::create(b, loc, none, fzero,
                                          arith::DivFOp::create(b, loc, fone, l));
      for (int64_t e = 0; e < dv; ++e) {
        Value y = arith::MulFOp::create(b, loc, loop.getResult(2 + e), inv);
        if (elt != f32)
          y = arith::TruncFOp::create(b, loc, elt, y);
        memref::StoreOp::create(b, loc, y, out, ValueRange{bi, h, i, laneCol(e)});
      }
    }
    Value result = bufferization::ToTensorOp::create(b, loc, oTy, out,
                                                     /*restrict=*/true,
                                                     /*writable=*/true);
    op.replaceAllUsesWith(result);
    op.erase();
    return success();
  }

  void runOnOperation() override {
    if (blockSize < 32 || blockSize > 1024 || blockSize % 32 != 0) {
      mlir::emitError(getOperation().getLoc(), "tx-attention-to-gpu: ")
          << "block-size must be a multiple of 32 in [32, 1024], got "
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    SmallVector<AttentionOp> ops;
    getOperation().walk([&](AttentionOp op) { ops.push_back(op); });
    for (AttentionOp op : ops)
      if (failed(rewrite(op)))
        return signalPassFailure();
  }
};

} // namespace
