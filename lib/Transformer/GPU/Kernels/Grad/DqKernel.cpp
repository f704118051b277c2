//===- DqKernel.cpp - the backward's dQ kernel ----------------------------===//
//
// buildAttentionDqKernel (GradKernels.h): one CTA per (batch, head, query
// tile); the algorithm is in GradKernels.h.
//
// Shared memory: the Q and dO tiles (q-tile x pitch, staged once), then two
// stages of the K and V tiles (kv-tile x pitch; the step's and the next
// step's, prefetched by cp.async while the step computes). Each thread keeps
// LSE·log2 e and Δ of its two rows (g, g + 8 of its warp's 16) in
// registers: +inf and 0 for rows past Sq, +inf for rows that saw no key.
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Grad/GradKernelParts.h"
#include "GPU/Kernels/Grad/GradKernels.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include <tuple>

using namespace mlir;
using namespace mlir::tx;

namespace {

/// The values one dQ CTA's steps share.
struct DqCta {
  Value key, value;        // global buffers
  Value bi, kh, Sk, shift; //
  Value rowIdx[2], lseL2[2], delta[2];
  Value qs, dos;    // shared Q and dO tiles
  int64_t stagesAt; // byte offset of the two K/V stages
  int64_t Bc, threads;
};

/// The thread's two rows: index, LSE·log2 e, Δ.
void loadRowStats(GradKernelParts &k, DqCta &c, Value lse, Value delta,
                  Value h, Value Sq, Value row0) {
  for (int64_t hh = 0; hh < 2; ++hh) {
    c.rowIdx[hh] = k.add(k.add(row0, k.g), 8 * hh);
    std::tie(c.lseL2[hh], c.delta[hh]) =
        k.rowStats(lse, delta, c.bi, h, c.rowIdx[hh], Sq);
  }
}

/// Stage `stage` of the key tile's shared buffers: K, V (kv-tile x pitch).
std::pair<Value, Value> keyStage(GradKernelParts &k, const DqCta &c,
                                 Value stage) {
  const int64_t tile = c.Bc * k.pitch * 2;
  Value at = k.add(k.mul(stage, 2 * tile), c.stagesAt);
  return {k.tileView(at, c.Bc), k.tileView(k.add(at, tile), c.Bc)};
}

/// Starts the cp.async of key tile kt into stage kt % 2 when kt < nK.
void issueKeyTile(GradKernelParts &k, const DqCta &c, Value kt, Value nK) {
  auto ifOp = scf::IfOp::create(
      k.b, k.loc, k.cmpi(arith::CmpIPredicate::slt, kt, nK), false);
  OpBuilder::InsertionGuard guard(k.b);
  k.b.setInsertionPointToStart(ifOp.thenBlock());
  auto [ks, vs] = keyStage(k, c, k.remui(kt, 2));
  Value k0 = k.mul(kt, c.Bc);
  k.copyTile(c.key, c.bi, c.kh, k0, c.Sk, c.Bc, ks, c.threads);
  k.copyTile(c.value, c.bi, c.kh, k0, c.Sk, c.Bc, vs, c.threads);
}

/// One key tile (keys k0.., staged in ks, vs): the dQ accumulator in, out.
SmallVector<Value> dqStep(GradKernelParts &k, const DqCta &c,
                          const AttentionGradKernelProblem &p, Value ks,
                          Value vs, Value k0, ValueRange acc) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  const int64_t NT = c.Bc / 8;
  Value row0 = k.mul(k.warp, 16);
  SmallVector<Value> s = k.productABt(c.qs, row0, ks, NT);
  SmallVector<Value> dp = k.productABt(c.dos, row0, vs, NT);
  auto stats = [&](int64_t, int64_t e) -> std::pair<Value, Value> {
    return {c.lseL2[e / 2], c.delta[e / 2]};
  };
  // Keys past Sk (zero-filled) and, causal, past the row's diagonal.
  auto visible = [&](int64_t nt, int64_t e) {
    Value j = k.add(k.add(k0, k.fragCol(e)), nt * 8);
    Value vis = k.cmpi(arith::CmpIPredicate::slt, j, c.Sk);
    if (!p.causal)
      return vis;
    Value diag = k.add(c.rowIdx[e / 2], c.shift);
    return Value(arith::AndIOp::create(
        b, loc, vis, k.cmpi(arith::CmpIPredicate::sle, j, diag)));
  };
  SmallVector<Value> ds = k.probabilitiesAndDs(s, dp, p.scale, stats, visible);
  SmallVector<Value> dq(acc.begin(), acc.end());
  k.accumulateAB(ds, ks, c.Bc, dq);
  return dq;
}

} // namespace

Value mlir::tx::buildAttentionDqKernel(OpBuilder &b, Location loc,
                                       const AttentionGradKernelProblem &p,
                                       RankedTensorType dqType) {
  auto qTy = cast<RankedTensorType>(p.query.getType());
  GradKernelParts k(b, loc, qTy.getElementType(), qTy.getDimSize(3));
  DqCta c;
  Value q = k.toBuffer(p.query), dO = k.toBuffer(p.gradOutput);
  c.key = k.toBuffer(p.key);
  c.value = k.toBuffer(p.value);
  Value lse = k.toBuffer(p.lse), delta = k.toBuffer(p.delta);
  const int64_t Br = p.qTile, warps = Br / 16, D = k.D;
  c.Bc = p.kvTile;
  c.threads = warps * 32;
  Value B = k.dim(q, 0), H = k.dim(q, 1), Sq = k.dim(q, 2);
  Value Hkv = k.dim(c.key, 1);
  c.Sk = k.dim(c.key, 2);
  Value G = arith::DivUIOp::create(b, loc, H, Hkv);
  Value dQ = k.allocResult(dqType, {B, H, Sq, k.cst(D)});
  Value nQT = k.ceilDiv(Sq, Br);
  Value blocks = k.mul(k.mul(nQT, H), B);
  const int64_t tileBytes = k.pitch * 2;
  auto ifOp = scf::IfOp::create(
      b, loc, k.cmpi(arith::CmpIPredicate::sgt, blocks, k.cst(0)), false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    c.stagesAt = 2 * Br * tileBytes;
    Value bid =
        k.enterLaunch(blocks, warps, c.stagesAt + 4 * c.Bc * tileBytes);
    Value bh = arith::DivUIOp::create(b, loc, bid, nQT);
    Value m0 = k.mul(arith::RemUIOp::create(b, loc, bid, nQT), Br);
    Value h = arith::RemUIOp::create(b, loc, bh, H);
    c.bi = arith::DivUIOp::create(b, loc, bh, H);
    c.kh = arith::DivUIOp::create(b, loc, h, G);
    c.shift = k.sub(c.Sk, Sq);
    c.qs = k.tileView(0, Br);
    c.dos = k.tileView(Br * tileBytes, Br);
    k.copyTile(q, c.bi, h, m0, Sq, Br, c.qs, c.threads);
    k.copyTile(dO, c.bi, h, m0, Sq, Br, c.dos, c.threads);
    Value row0 = k.add(m0, k.mul(k.warp, 16));
    loadRowStats(k, c, lse, delta, h, Sq, row0);
    // The keys some row of the tile sees: up to the last row's diagonal.
    Value kvEnd = c.Sk;
    if (p.causal)
      kvEnd = k.minsi(k.maxsi(k.add(k.add(m0, Br), c.shift), k.cst(0)), c.Sk);
    Value nK = k.ceilDiv(kvEnd, c.Bc);
    issueKeyTile(k, c, k.cst(0), nK);
    k.commit(); // Q, dO and the first key tile: step 0's group
    // Each step prefetches the next key tile into the other stage before
    // it computes.
    auto loop = scf::ForOp::create(
        b, loc, k.cst(0), nK, k.cst(1), k.zeroAccumulators(),
        [&](OpBuilder &, Location, Value kt, ValueRange acc) {
          k.barrier(); // step kt - 1 has read the stage kt + 1 fills
          issueKeyTile(k, c, k.add(kt, 1), nK);
          k.commitAndWait(1); // step kt's group has landed
          k.barrier();
          auto [ks, vs] = keyStage(k, c, k.remui(kt, 2));
          scf::YieldOp::create(
              b, loc, dqStep(k, c, p, ks, vs, k.mul(kt, c.Bc), acc));
        });
    k.commitAndWait(0); // no copy outlives the CTA (a loop of no step)
    SmallVector<Value> dq(loop.getResults());
    k.storeRows(dq, p.scale, dQ, c.bi, h, row0, Sq);
  }
  return k.toTensor(dQ, dqType);
}
