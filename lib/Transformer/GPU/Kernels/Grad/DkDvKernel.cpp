//===- DkDvKernel.cpp - the backward's dK, dV kernel ----------------------===//
//
// buildAttentionDkDvKernel (GradKernels.h): one CTA per (batch, K/V head,
// key tile); the algorithm is in GradKernels.h.
//
// Shared memory: K and V tiles (kv-tile x pitch), then two stages of the
// query tile (the step's and the next step's, prefetched by cp.async while
// the step computes): Q and dO (q-tile x pitch each), the tile's q-tile
// values of LSE·log2 e (+inf for rows past Sq and rows that saw no key, so
// that their P is 0) and of Δ (0 past Sq).
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
  Value ks, vs;      // shared K and V tiles
  int64_t stagesAt;  // byte offset of the two query-tile stages
  int64_t Br, threads;
};

/// One stage of the query tile's shared buffers: Q, dO, LSE·log2 e, Δ.
struct QueryStage {
  Value qs, dos, lseS, deltaS;
};

int64_t stageBytes(const GradKernelParts &k, int64_t Br) {
  return 2 * Br * k.pitch * 2 + 2 * Br * 4;
}

QueryStage stageViews(GradKernelParts &k, const DkDvCta &c, Value stage) {
  Value at = k.add(k.mul(stage, stageBytes(k, c.Br)), c.stagesAt);
  const int64_t tile = c.Br * k.pitch * 2;
  return {k.tileView(at, c.Br), k.tileView(k.add(at, tile), c.Br),
          k.floatView(k.add(at, 2 * tile), c.Br),
          k.floatView(k.add(at, 2 * tile + c.Br * 4), c.Br)};
}

/// Starts loading rows m0.. of head h into `st`: cp.async of Q and dO, and
/// row r = tid (< q-tile) of LSE·log2 e and Δ stored by its thread.
void issueQueryTile(GradKernelParts &k, const DkDvCta &c, const QueryStage &st,
                    Value h, Value m0) {
  k.copyTile(c.q, c.bi, h, m0, c.Sq, c.Br, st.qs, c.threads);
  k.copyTile(c.dO, c.bi, h, m0, c.Sq, c.Br, st.dos, c.threads);
  k.stageRowStats(c.lse, c.delta, c.bi, h, m0, c.Sq, c.Br, st.lseS,
                  st.deltaS);
}

/// One query tile (rows m0.., staged in `st`): dK, dV accumulators in, out.
SmallVector<Value> dkdvStep(GradKernelParts &k, const DkDvCta &c,
                            const AttentionGradKernelProblem &p,
                            const QueryStage &st, Value m0, ValueRange acc) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  const int64_t DT = k.D / 8, NT = c.Br / 8;
  Value row0 = k.mul(k.warp, 16);
  SmallVector<Value> pT = k.productABt(c.ks, row0, st.qs, NT);
  SmallVector<Value> dpT = k.productABt(c.vs, row0, st.dos, NT);
  auto column = [&](int64_t nt, int64_t e) {
    return k.add(k.fragCol(e), nt * 8);
  };
  auto stats = [&](int64_t nt, int64_t e) -> std::pair<Value, Value> {
    Value col = column(nt, e);
    return {memref::LoadOp::create(b, loc, st.lseS, ValueRange{col}),
            memref::LoadOp::create(b, loc, st.deltaS, ValueRange{col})};
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
  k.accumulateAB(pT, st.dos, c.Br, dv);
  k.accumulateAB(dsT, st.qs, c.Br, dk);
  SmallVector<Value> out(dk);
  out.append(dv);
  return out;
}

/// The CTA's loop (GradKernelParts::queryTileLoop) with this kernel's
/// stages and step.
SmallVector<Value> dkdvLoop(GradKernelParts &k, const DkDvCta &c,
                            const AttentionGradKernelProblem &p, Value G) {
  return k.queryTileLoop(
      {c.n0, c.shift, c.Sq, c.kh, G, c.Br, p.causal, /*fenceAsync=*/false},
      [&] {
        SmallVector<Value> init = k.zeroAccumulators();
        init.append(k.zeroAccumulators());
        return init;
      },
      [&](Value stage, Value h, Value m0) {
        issueQueryTile(k, c, stageViews(k, c, stage), h, m0);
      },
      [&](Value stage, Value, Value m0, ValueRange acc) {
        return dkdvStep(k, c, p, stageViews(k, c, stage), m0, acc);
      });
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
  c.stagesAt = 2 * Bc * tileBytes;
  auto ifOp = scf::IfOp::create(
      b, loc, k.cmpi(arith::CmpIPredicate::sgt, blocks, k.cst(0)), false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value bid =
        k.enterLaunch(blocks, warps, c.stagesAt + 2 * stageBytes(k, c.Br));
    Value bkh = arith::DivUIOp::create(b, loc, bid, nKT);
    c.n0 = k.mul(arith::RemUIOp::create(b, loc, bid, nKT), Bc);
    c.kh = arith::RemUIOp::create(b, loc, bkh, Hkv);
    c.bi = arith::DivUIOp::create(b, loc, bkh, Hkv);
    c.shift = k.sub(Sk, c.Sq);
    c.ks = k.tileView(0, Bc);
    c.vs = k.tileView(Bc * tileBytes, Bc);
    k.copyTile(key, c.bi, c.kh, c.n0, Sk, Bc, c.ks, c.threads);
    k.copyTile(value, c.bi, c.kh, c.n0, Sk, Bc, c.vs, c.threads);
    SmallVector<Value> acc = dkdvLoop(k, c, p, G);
    Value row0 = k.add(c.n0, k.mul(k.warp, 16));
    k.storeRows(ArrayRef<Value>(acc).take_front(D / 8), p.scale, dK, c.bi,
                c.kh, row0, Sk);
    k.storeRows(ArrayRef<Value>(acc).drop_front(D / 8), 1.0, dV, c.bi, c.kh,
                row0, Sk);
  }
  return {k.toTensor(dK, dkType), k.toTensor(dV, dvType)};
}
