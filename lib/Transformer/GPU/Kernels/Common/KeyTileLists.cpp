//===- KeyTileLists.cpp - block sparsity from a mask function -------------===//
#include "GPU/Kernels/Common/KeyTileLists.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tx;
using namespace mlir::tx::kernel;

namespace {
/// Index arithmetic at one builder and location.
struct Ix {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value rem(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value cdiv(Value x, Value y) {
    return arith::CeilDivUIOp::create(b, loc, x, y);
  }
  Value ult(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value i32(Value x) {
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), x);
  }
  Value index(Value x) {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), x);
  }
  /// A launch of `blocks` CTAs of `threads` threads; the builder inside.
  std::pair<Value, Value> launch(Value blocks, int64_t threads) {
    Value one = c(1);
    auto l = gpu::LaunchOp::create(
        b, loc, blocks, one, one, c(threads), one, one,
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
    b.setInsertionPointToStart(&l.getBody().front());
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(&l.getBody().front());
    return {l.getThreadIds().x, l.getBlockIds().x};
  }
};
} // namespace

/// A CTA-wide reduction of `pred` (i1) by bar.red (`kind`: OR or AND), i32.
static Value ctaReduce(Ix &x, Value pred, NVVM::BarrierReduction kind) {
  OpBuilder &b = x.b;
  Value p = arith::ExtUIOp::create(b, x.loc, b.getI32Type(), pred);
  return NVVM::BarrierOp::create(
             b, x.loc, b.getI32Type(), Value(), Value(),
             NVVM::BarrierReductionAttr::get(b.getContext(), kind), p)
      .getRes();
}

/// Kernel 1: CTA (row, kt), one thread per query row of the tile, each
/// over the tile's keys; a CTA-wide OR (bar.red.or) of "some pair shown"
/// and a CTA-wide AND (bar.red.and) of "every pair shown" (rows past Sq
/// count as shown); thread 0 writes the first to list[row * nKT + kt],
/// the second to full[row * nKT + kt].
static void emitClassify(Ix &x, const ScoreMods &mods, const KeyTileLists &l,
                         Value rows, Value Sq, Value Sk, int64_t qTile,
                         int64_t kvTile, Value Hs) {
  OpBuilder &b = x.b;
  Location loc = x.loc;
  int64_t threads = (qTile + 31) / 32 * 32;
  auto [tid, bid] = x.launch(x.mul(rows, l.nKT), threads);
  Value kt = x.rem(bid, l.nKT), row = x.div(bid, l.nKT);
  Value qt = x.rem(row, l.nQT), bh = x.div(row, l.nQT);
  Value h = x.rem(bh, Hs), bi = x.div(bh, Hs);
  Value i = x.add(x.mul(qt, x.c(qTile)), tid);
  Value live = arith::AndIOp::create(b, loc, x.ult(tid, x.c(qTile)),
                                     x.ult(i, Sq));
  Value ic = x.min(i, arith::SubIOp::create(b, loc, Sq, x.c(1)));
  Value k0 = x.mul(kt, x.c(kvTile));
  Value kEnd = x.min(x.add(k0, x.c(kvTile)), Sk);
  Value no = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
  Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  auto loop = scf::ForOp::create(
      b, loc, k0, kEnd, x.c(1), ValueRange{no, yes},
      [&](OpBuilder &nb, Location nl, Value j, ValueRange acc) {
        Value shown = inlineModInKernel(nb, *mods.mask, mods.maskBuffers,
                                        Value(), {bi, h, ic, j}, mods.fastMath);
        scf::YieldOp::create(
            nb, nl,
            ValueRange{arith::OrIOp::create(nb, nl, acc[0], shown),
                       arith::AndIOp::create(nb, nl, acc[1], shown)});
      });
  Value any = arith::AndIOp::create(b, loc, loop.getResult(0), live);
  Value all = arith::OrIOp::create(
      b, loc, loop.getResult(1),
      arith::XOrIOp::create(b, loc, live, yes));
  Value anyRed = ctaReduce(x, any, NVVM::BarrierReduction::OR);
  Value allRed = ctaReduce(x, all, NVVM::BarrierReduction::AND);
  auto first = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, x.c(0)),
      false);
  b.setInsertionPointToStart(first.thenBlock());
  Value at = x.add(x.mul(row, l.nKT), kt);
  memref::StoreOp::create(b, loc, anyRed, l.list, ValueRange{at});
  memref::StoreOp::create(b, loc, allRed, l.full, ValueRange{at});
}

/// Kernel 2: one thread per row compacts its flags in place (entry cnt <=
/// kt is written after flag kt is read) and writes the count.
static void emitCompact(Ix &x, const KeyTileLists &l, Value rows) {
  OpBuilder &b = x.b;
  Location loc = x.loc;
  auto [tid, bid] = x.launch(x.cdiv(rows, x.c(128)), 128);
  Value row = x.add(x.mul(bid, x.c(128)), tid);
  auto live = scf::IfOp::create(b, loc, x.ult(row, rows), false);
  b.setInsertionPointToStart(live.thenBlock());
  Value base = x.mul(row, l.nKT);
  auto loop = scf::ForOp::create(
      b, loc, x.c(0), l.nKT, x.c(1), ValueRange{x.c(0)},
      [&](OpBuilder &nb, Location nl, Value kt, ValueRange cnt) {
        Ix y{nb, nl};
        Value f = memref::LoadOp::create(nb, nl, l.list,
                                         ValueRange{y.add(base, kt)});
        Value on = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ne,
                                         f, arith::ConstantIntOp::create(
                                                nb, nl, nb.getI32Type(), 0));
        auto put = scf::IfOp::create(nb, nl, on, false);
        {
          OpBuilder::InsertionGuard g(nb);
          nb.setInsertionPointToStart(put.thenBlock());
          memref::StoreOp::create(nb, nl, y.i32(kt), l.list,
                                  ValueRange{y.add(base, cnt[0])});
        }
        Value step = arith::SelectOp::create(nb, nl, on, y.c(1), y.c(0));
        scf::YieldOp::create(nb, nl, ValueRange{y.add(cnt[0], step)});
      });
  memref::StoreOp::create(b, loc, x.i32(loop.getResult(0)), l.count,
                          ValueRange{row});
}

KeyTileLists KeyTileLists::build(OpBuilder &b, Location loc,
                                 const ScoreMods &mods, Value B, Value H,
                                 Value Sq, Value Sk, int64_t qTile,
                                 int64_t kvTile) {
  Ix x{b, loc};
  KeyTileLists l;
  Block &body = mods.mask->front();
  l.perBatch = !body.getArgument(0).use_empty();
  l.perHead = !body.getArgument(1).use_empty();
  l.nQT = x.cdiv(Sq, x.c(qTile));
  l.nKT = x.cdiv(Sk, x.c(kvTile));
  Value Bs = l.perBatch ? B : x.c(1);
  l.heads = l.perHead ? H : x.c(1);
  Value rows = x.mul(x.mul(Bs, l.heads), l.nQT);
  auto buf = MemRefType::get({ShapedType::kDynamic}, b.getI32Type());
  l.list = memref::AllocOp::create(b, loc, buf,
                                   ValueRange{x.mul(rows, l.nKT)});
  l.count = memref::AllocOp::create(b, loc, buf, ValueRange{rows});
  l.full = memref::AllocOp::create(b, loc, buf,
                                   ValueRange{x.mul(rows, l.nKT)});
  Value work = arith::AndIOp::create(b, loc, x.ult(x.c(0), rows),
                                     x.ult(x.c(0), l.nKT));
  auto any = scf::IfOp::create(b, loc, work, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(any.thenBlock());
  {
    OpBuilder::InsertionGuard g1(b);
    emitClassify(x, mods, l, rows, Sq, Sk, qTile, kvTile, l.heads);
  }
  emitCompact(x, l, rows);
  return l;
}

Value KeyTileLists::row(OpBuilder &b, Location loc, Value bi, Value h,
                        Value qt) const {
  Ix x{b, loc};
  Value zero = x.c(0);
  Value bh = x.add(x.mul(perBatch ? bi : zero, heads), perHead ? h : zero);
  return x.add(x.mul(bh, nQT), qt);
}

Value KeyTileLists::tiles(OpBuilder &b, Location loc, Value r) const {
  Ix x{b, loc};
  return x.index(memref::LoadOp::create(b, loc, count, ValueRange{r}));
}

Value KeyTileLists::tileStart(OpBuilder &b, Location loc, Value r, Value t,
                              int64_t kvTile) const {
  Ix x{b, loc};
  Value tc = x.min(t, arith::SubIOp::create(b, loc, nKT, x.c(1)));
  Value kt = x.index(memref::LoadOp::create(
      b, loc, list, ValueRange{x.add(x.mul(r, nKT), tc)}));
  return x.mul(kt, x.c(kvTile));
}

Value KeyTileLists::isFull(OpBuilder &b, Location loc, Value r, Value k0,
                           int64_t kvTile) const {
  Ix x{b, loc};
  Value kt = x.div(k0, x.c(kvTile));
  Value f = memref::LoadOp::create(b, loc, full,
                                   ValueRange{x.add(x.mul(r, nKT), kt)});
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne, f,
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
}
