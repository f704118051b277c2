//===- DkDvKernel.cpp - the backward's dK, dV kernel ----------------------===//
//
// buildAttentionDkDvKernel (GradKernels.h): one CTA per (batch, K/V head,
// key tile); the algorithm is in GradKernels.h.
//
// Shared memory: K and V tiles (kv-tile x pitch), Q and dO tiles (q-tile x
// pitch), then the tile's q-tile values of LSE·log2 e (+inf for rows past
// Sq and rows that saw no key, so that their P is 0) and of Δ (0 past Sq).
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Grad/GradKernelParts.h"
#include "GPU/Kernels/Grad/GradKernels.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tx;

namespace {

/// The values one dK/dV CTA's steps share.
struct DkDvCta {
  Value q, dO, lse, delta; // global buffers
  Value bi, kh, n0, Sq, shift;
  Value ks, vs, qs, dos, lseS, deltaS; // shared views
  int64_t Br, threads;
};

/// Stages row r = tid (< q-tile) of the query tile's LSE·log2 e and Δ.
void stageRowStats(GradKernelParts &k, const DkDvCta &c, Value h, Value m0) {
  auto ifOp = scf::IfOp::create(
      k.b, k.loc, k.cmpi(arith::CmpIPredicate::ult, k.tid, k.cst(c.Br)),
      false);
  OpBuilder::InsertionGuard guard(k.b);
  k.b.setInsertionPointToStart(ifOp.thenBlock());
  auto [lL2, d] =
      k.rowStats(c.lse, c.delta, c.bi, h, k.add(m0, k.tid), c.Sq);
  memref::StoreOp::create(k.b, k.loc, lL2, c.lseS, ValueRange{k.tid});
  memref::StoreOp::create(k.b, k.loc, d, c.deltaS, ValueRange{k.tid});
}

/// One query tile (rows m0.. of head h): dK, dV accumulators in, out.
SmallVector<Value> dkdvStep(GradKernelParts &k, const DkDvCta &c,
                            const AttentionGradKernelProblem &p, Value h,
                            Value m0, ValueRange acc) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  const int64_t DT = k.D / 8, NT = c.Br / 8;
  k.barrier(); // the previous tile's Q, dO, LSE, Δ are read
  k.copyTile(c.q, c.bi, h, m0, c.Sq, c.Br, c.qs, c.threads);
  k.copyTile(c.dO, c.bi, h, m0, c.Sq, c.Br, c.dos, c.threads);
  stageRowStats(k, c, h, m0);
  k.waitCopies();
  Value row0 = k.mul(k.warp, 16);
  SmallVector<Value> pT = k.productABt(c.ks, row0, c.qs, NT);
  SmallVector<Value> dpT = k.productABt(c.vs, row0, c.dos, NT);
  auto column = [&](int64_t nt, int64_t e) {
    return k.add(k.fragCol(e), nt * 8);
  };
  auto stats = [&](int64_t nt, int64_t e) -> std::pair<Value, Value> {
    Value col = column(nt, e);
    return {memref::LoadOp::create(b, loc, c.lseS, ValueRange{col}),
            memref::LoadOp::create(b, loc, c.deltaS, ValueRange{col})};
  };
  // Causal: key n0 + row0 + r is visible to query m0 + col iff it is at
  // most on the query's diagonal.
  auto visible = [&](int64_t nt, int64_t e) {
    Value key = k.add(k.add(c.n0, row0), k.fragRow(e));
    return k.cmpi(arith::CmpIPredicate::sle, key,
                  k.add(k.add(m0, column(nt, e)), c.shift));
  };
  SmallVector<Value> dsT = k.probabilitiesAndDs(
      pT, dpT, p.scale, stats,
      p.causal ? llvm::function_ref<Value(int64_t, int64_t)>(visible)
               : nullptr);
  SmallVector<Value> dk(acc.begin(), acc.begin() + DT);
  SmallVector<Value> dv(acc.begin() + DT, acc.end());
  k.accumulateAB(pT, c.dos, c.Br, dv);
  k.accumulateAB(dsT, c.qs, c.Br, dk);
  SmallVector<Value> out(dk);
  out.append(dv);
  return out;
}

/// The CTA's loops: the group's query heads, their query tiles (from the
/// first tile a causal row of which sees the key tile's first key).
SmallVector<Value> dkdvLoops(GradKernelParts &k, const DkDvCta &c,
                             const AttentionGradKernelProblem &p, Value G) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value qtBegin = k.cst(0);
  if (p.causal)
    qtBegin = k.divui(k.maxsi(k.sub(c.n0, c.shift), k.cst(0)), c.Br);
  Value nQT = k.ceilDiv(c.Sq, c.Br);
  SmallVector<Value> init = k.zeroAccumulators();
  init.append(k.zeroAccumulators());
  auto heads = scf::ForOp::create(
      b, loc, k.cst(0), G, k.cst(1), init,
      [&](OpBuilder &, Location, Value gh, ValueRange accH) {
        Value h = k.add(k.mul(c.kh, G), gh);
        auto tiles = scf::ForOp::create(
            b, loc, qtBegin, nQT, k.cst(1), accH,
            [&](OpBuilder &, Location, Value qt, ValueRange acc) {
              scf::YieldOp::create(
                  b, loc, dkdvStep(k, c, p, h, k.mul(qt, c.Br), acc));
            });
        scf::YieldOp::create(b, loc, tiles.getResults());
      });
  return heads.getResults();
}

} // namespace

SmallVector<Value> mlir::tx::buildAttentionDkDvKernel(
    OpBuilder &b, Location loc, const AttentionGradKernelProblem &p,
    RankedTensorType dkType, RankedTensorType dvType) {
  auto qTy = cast<RankedTensorType>(p.query.getType());
  GradKernelParts k(b, loc, qTy.getElementType(), qTy.getDimSize(3));
  DkDvCta c;
  c.q = k.toBuffer(p.query);
  Value key = k.toBuffer(p.key), value = k.toBuffer(p.value);
  c.dO = k.toBuffer(p.gradOutput);
  c.lse = k.toBuffer(p.lse);
  c.delta = k.toBuffer(p.delta);
  c.Br = p.qTile;
  const int64_t Bc = p.kvTile, warps = Bc / 16, D = k.D;
  c.threads = warps * 32;
  Value B = k.dim(c.q, 0), H = k.dim(c.q, 1), Hkv = k.dim(key, 1);
  c.Sq = k.dim(c.q, 2);
  Value Sk = k.dim(key, 2);
  Value G = arith::DivUIOp::create(b, loc, H, Hkv);
  Value dK = k.allocResult(dkType, {B, Hkv, Sk, k.cst(D)});
  Value dV = k.allocResult(dvType, {B, Hkv, Sk, k.cst(D)});
  Value nKT = k.ceilDiv(Sk, Bc);
  Value blocks = k.mul(k.mul(nKT, Hkv), B);
  const int64_t tileBytes = k.pitch * 2;
  const int64_t statsAt = (2 * Bc + 2 * c.Br) * tileBytes;
  auto ifOp = scf::IfOp::create(
      b, loc, k.cmpi(arith::CmpIPredicate::sgt, blocks, k.cst(0)), false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value bid = k.enterLaunch(blocks, warps, statsAt + 2 * c.Br * 4);
    Value bkh = arith::DivUIOp::create(b, loc, bid, nKT);
    c.n0 = k.mul(arith::RemUIOp::create(b, loc, bid, nKT), Bc);
    c.kh = arith::RemUIOp::create(b, loc, bkh, Hkv);
    c.bi = arith::DivUIOp::create(b, loc, bkh, Hkv);
    c.shift = k.sub(Sk, c.Sq);
    c.ks = k.tileView(0, Bc);
    c.vs = k.tileView(Bc * tileBytes, Bc);
    c.qs = k.tileView(2 * Bc * tileBytes, c.Br);
    c.dos = k.tileView((2 * Bc + c.Br) * tileBytes, c.Br);
    c.lseS = k.floatView(statsAt, c.Br);
    c.deltaS = k.floatView(statsAt + c.Br * 4, c.Br);
    k.copyTile(key, c.bi, c.kh, c.n0, Sk, Bc, c.ks, c.threads);
    k.copyTile(value, c.bi, c.kh, c.n0, Sk, Bc, c.vs, c.threads);
    k.waitCopies();
    SmallVector<Value> acc = dkdvLoops(k, c, p, G);
    Value row0 = k.add(c.n0, k.mul(k.warp, 16));
    k.storeRows(ArrayRef<Value>(acc).take_front(D / 8), p.scale, dK, c.bi,
                c.kh, row0, Sk);
    k.storeRows(ArrayRef<Value>(acc).drop_front(D / 8), 1.0, dV, c.bi, c.kh,
                row0, Sk);
  }
  return {k.toTensor(dK, dkType), k.toTensor(dV, dvType)};
}
