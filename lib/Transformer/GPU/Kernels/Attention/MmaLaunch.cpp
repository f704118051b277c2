//===- MmaLaunch.cpp - the mma.sync flash kernel's CTA ----------------------===//
//
// FlashAttention-2's CTA on mma.sync m16n8k16 (MmaKernel.cpp holds the
// tensor-core helpers it shares with the wgmma kernel): Q, K and V tiles in
// shared memory, Q's A fragments, and the key loop that overlaps the
// cp.async copies of the next K and V tiles with this tile's S = Q K^T,
// online softmax and O += P V.
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Attention/FlashKernelBuilder.h"

using namespace mlir;
using namespace mlir::tx;

void FlashKernelBuilder::emitMmaLaunch(Value blocks, Value nQT) {
  const int64_t N = cfg.kvTile, D = cfg.D, Dv = cfg.Dv;
  MmaCta m;
  m.one = cst(1), m.zero = cst(0);
  m.c = emitCta(blocks, nQT);
  Cta &c = m.c;
  Value zero = m.zero;
  mmaSetup(m);

  // Software pipeline (FlashAttention-2's): K and V tiles are separate
  // cp.async groups; K(t+1) is copied while the softmax and P V of tile t
  // run, V(t+1) while S of tile t+1 runs. Invariant at the top of
  // iteration t: groups K(t), V(t) in flight, in that order.
  {
    auto ifAny = scf::IfOp::create(
        b, loc, cmpi(arith::CmpIPredicate::ugt, c.nKT, zero), false);
    OpBuilder::InsertionGuard gd(b);
    b.setInsertionPointToStart(ifAny.thenBlock());
    Value first = keyTiles.list ? keyTile0(c, zero) : c.kvBase;
    asyncTile(k, c.bi, c.kh, first, c.kvEnd, N, D, m.ks, mmaFlagBuf(zero),
              m.kvLow);
    asyncCommit();
    asyncTile(v, c.bi, c.kh, first, c.kvEnd, N, Dv, m.vs,
              mmaFlagBuf(zero), m.kvLow);
    asyncCommit();
  }
  auto kvLoop = scf::ForOp::create(
      b, loc, zero, c.nKT, m.one, m.init,
      [&](OpBuilder &, Location, Value kt, ValueRange carried) {
        scf::YieldOp::create(b, loc, emitMmaStep(m, kt, carried));
      });
  asyncWaitAll(); // no copy outlives the kernel

  storeMmaOutput(m.mx, kvLoop.getResults(), c.bi, c.h);
}

// Shared memory: Q [qTile x qStride], K [N x kStride], V [N x vStride],
// then the key flags. Keys hidden from every row of the CTA are
// zero-filled, never read: past kvEnd (causal, window, Sk) by the row
// limit, below kvStart (window) by kvLow, by the mask through the flags
// (buffer t % 2 holds tile t's). Then Q's tile, its fragments, the
// thread's rows and the loop's initial state.
void FlashKernelBuilder::mmaSetup(MmaCta &m) {
  const int64_t N = cfg.kvTile, D = cfg.D, Dv = cfg.Dv;
  const int64_t NT = N / 8, DT = Dv / 8;
  const int64_t MT = cfg.mTiles; // m16 tiles per warp (rows 16 * MT)
  Cta &c = m.c;
  Value lane = c.lane;
  Value g = arith::DivUIOp::create(b, loc, lane, cst(4));
  Value t4 = arith::RemUIOp::create(b, loc, lane, cst(4));
  auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                       gpu::AddressSpace::Workgroup);
  int64_t off = 0;
  auto view2d = [&](int64_t rows, int64_t cols) -> Value {
    auto ty =
        MemRefType::get({rows, cols}, elt, MemRefLayoutAttrInterface(), wg);
    Value v =
        memref::ViewOp::create(b, loc, ty, c.smem, cst(off), ValueRange{});
    off += rows * cols * cfg.eltBytes;
    return v;
  };
  m.qs = view2d(cfg.qTile, cfg.qStrideMma());
  m.ks = view2d(N, cfg.kStrideMma());
  m.vs = view2d(N, cfg.vStrideMma());
  m.kvLow = band.left ? c.kvStart : Value();
  if (cfg.keyFlags)
    setupKeyFlags(c.smem, cst(off));

  // Q tile -> shared -> A fragments.
  asyncTile(q, c.bi, c.h, c.q0, Sq, cfg.qTile, D, m.qs);
  mmaVisibility(m, m.zero); // ordered before K(0)'s copy by the barrier
  asyncWaitAll();
  gpu::BarrierOp::create(b, loc);
  m.lane16 = arith::RemUIOp::create(b, loc, lane, cst(16));
  m.laneHi8 = mul(arith::DivUIOp::create(b, loc, lane, cst(16)), 8);
  m.warpRow = mul(c.warp, 16 * MT);
  // Q's A fragments (MT * KD * 4 registers) stay in registers when they
  // are few: D <= 32, or D <= 64 with 32-key tiles (the S tile is then
  // half as large); otherwise they are re-read from shared memory per
  // K/V tile (D/16 ldmatrix x4), which frees 4*D/16 registers for the S
  // and O fragments and keeps the kernel within 255 registers (without
  // it ptxas spills at D = 64 causal and D = 128).
  m.qInRegisters = D <= 32 || (D <= 64 && cfg.kvTile <= 32);
  if (m.qInRegisters)
    m.qa = mmaLoadQ(m);

  Value rowBase = add(c.q0, m.warpRow); // query index of the warp's row 0
  // The thread's rows: rowG[mt * 2 + hh] = rowBase + 16 mt + g + 8 hh.
  SmallVector<Value> rowG;
  for (int64_t mt = 0; mt < MT; ++mt)
    for (int64_t hh = 0; hh < 2; ++hh)
      rowG.push_back(add(add(rowBase, g), 16 * mt + 8 * hh));
  Value negInf = fcst(-std::numeric_limits<double>::infinity());
  Value fzero = fcst(0.0);
  VectorType accTy = vec2(2, 2, f32);
  m.accZero = arith::ConstantOp::create(
      b, loc, accTy, DenseElementsAttr::get(accTy, 0.0f));
  // Carried: m[2 MT], l[2 MT], O[MT * DT] (O[mt * DT + dt]).
  m.init.assign(2 * MT, negInf);
  m.init.append(2 * MT, fzero);
  m.init.append(MT * DT, m.accZero);
  Value col2 = mul(t4, 2);
  m.kRow8 = arith::RemUIOp::create(b, loc, lane, cst(8));
  m.kCol8 = mul(arith::RemUIOp::create(
                    b, loc, arith::DivUIOp::create(b, loc, lane, cst(8)),
                    cst(2)),
                8);
  m.kCol8x4 = mul(arith::DivUIOp::create(b, loc, lane, cst(8)), 8);
  m.mx = MmaCtx{MT,   NT,   DT,     col2,  rowBase, c.shift,
                c.mb, c.mh, negInf, fzero, rowG};
  m.mx.bi = c.bi;
  m.mx.h = c.h;
  m.mx.tileRow = c.tileRow;
}

Value FlashKernelBuilder::mmaFlagBuf(Value t) {
  return cfg.keyFlags ? remui(t, 2) : Value();
}

void FlashKernelBuilder::mmaVisibility(MmaCta &m, Value t) {
  Cta &c = m.c;
  if (cfg.keyFlags)
    ifThen(cmpi(arith::CmpIPredicate::ult, t, c.nKT), [&] {
      emitKeyVisibility(t, remui(t, 2), c.q0, c.shift, c.mb, c.mh);
    });
}

// Q's A fragments, frags[mt * KD + kk].
SmallVector<Value> FlashKernelBuilder::mmaLoadQ(MmaCta &m) {
  const int64_t KD = cfg.D / 16, MT = cfg.mTiles;
  SmallVector<Value> frags;
  for (int64_t mt = 0; mt < MT; ++mt)
    for (int64_t kk = 0; kk < KD; ++kk)
      frags.push_back(ldmatrix(m.qs, add(add(m.warpRow, m.lane16), 16 * mt),
                               add(m.laneHi8, kk * 16), /*trans=*/false, 4));
  return frags;
}

SmallVector<Value> FlashKernelBuilder::emitMmaStep(MmaCta &m, Value kt,
                                                   ValueRange carried) {
  const int64_t N = cfg.kvTile, D = cfg.D, Dv = cfg.Dv;
  Cta &c = m.c;
  Value one = m.one;
  Value k0 = keyTile0(c, kt);
  Value kNext = keyTiles.list ? keyTile0(c, add(kt, one)) : add(k0, N);
  // Tile t+1's key visibility, read by its copies below (after the
  // barriers of this step).
  mmaVisibility(m, add(kt, one));
  asyncWait(asyncCommit(), 2); // an empty group: K(t) is complete
  // when at most V(t) and the empty group are in flight.
  gpu::BarrierOp::create(b, loc);

  // S = Q K^T on tensor cores.
  SmallVector<Value> qa = m.qInRegisters ? m.qa : mmaLoadQ(m);
  SmallVector<Value> s = mmaScores(m, qa);
  // Every warp is done with K(t): start copying K(t+1).
  gpu::BarrierOp::create(b, loc);
  Value more = cmpi(arith::CmpIPredicate::ult, add(kt, one), c.nKT);
  ifThen(more, [&] {
    asyncTile(k, c.bi, c.kh, kNext, c.kvEnd, N, D, m.ks,
              mmaFlagBuf(add(kt, one)), m.kvLow);
  });
  asyncCommit(); // possibly empty: the group count stays uniform
  MmaStep st = mmaSoftmaxStep(m.mx, s, k0, carried);
  SmallVector<Value> next = st.next, o = st.o;
  // O += P V on tensor cores, once V(t) has landed.
  asyncWait(asyncCommit(), 2);
  gpu::BarrierOp::create(b, loc);
  mmaPV(m, st.p, o);
  next.append(o.begin(), o.end());
  // Every warp is done with V(t): start copying V(t+1).
  gpu::BarrierOp::create(b, loc);
  ifThen(more, [&] {
    asyncTile(v, c.bi, c.kh, kNext, c.kvEnd, N, Dv, m.vs,
              mmaFlagBuf(add(kt, one)), m.kvLow);
  });
  asyncCommit();
  return next;
}

// Raw scores (the scale is applied inside the exponent of the softmax);
// K's B fragments two k16 chunks per ldmatrix x4. s[(mt * NT + nt) * 4 +
// e]; each K fragment feeds MT mma.
SmallVector<Value> FlashKernelBuilder::mmaScores(MmaCta &m,
                                                 ArrayRef<Value> qa) {
  const int64_t NT = cfg.kvTile / 8, KD = cfg.D / 16, MT = cfg.mTiles;
  SmallVector<Value> s(MT * NT * 4);
  for (int64_t nt = 0; nt < NT; ++nt) {
    SmallVector<Value> acc(MT, m.accZero);
    for (int64_t kk = 0; kk < KD; kk += 2) {
      if (kk + 1 < KD) {
        auto [b0, b1] = splitX4(ldmatrix(m.ks, add(m.kRow8, nt * 8),
                                         add(m.kCol8x4, kk * 16),
                                         /*trans=*/false, 4));
        for (int64_t mt = 0; mt < MT; ++mt) {
          acc[mt] = mmaSync(qa[mt * KD + kk], b0, acc[mt]);
          acc[mt] = mmaSync(qa[mt * KD + kk + 1], b1, acc[mt]);
        }
      } else {
        Value b0 = ldmatrix(m.ks, add(m.kRow8, nt * 8),
                            add(m.kCol8, kk * 16), /*trans=*/false, 2);
        for (int64_t mt = 0; mt < MT; ++mt)
          acc[mt] = mmaSync(qa[mt * KD + kk], b0, acc[mt]);
      }
    }
    for (int64_t mt = 0; mt < MT; ++mt)
      for (int64_t e = 0; e < 4; ++e)
        s[(mt * NT + nt) * 4 + e] = vector::ExtractOp::create(
            b, loc, acc[mt], ArrayRef<int64_t>{e / 2, e % 2});
  }
  return s;
}

// O += P V: P (f32) packed into A fragments; each V fragment feeds MT mma.
void FlashKernelBuilder::mmaPV(MmaCta &m, ArrayRef<Value> p,
                               SmallVector<Value> &o) {
  const int64_t NT = cfg.kvTile / 8, KC = cfg.kvTile / 16;
  const int64_t DT = cfg.Dv / 8, MT = cfg.mTiles;
  for (int64_t kc = 0; kc < KC; ++kc) {
    SmallVector<Value> pa;
    for (int64_t mt = 0; mt < MT; ++mt) {
      auto P = [&](int64_t nt, int64_t e) {
        return p[(mt * NT + nt) * 4 + e];
      };
      pa.push_back(pack({P(2 * kc, 0), P(2 * kc, 1), P(2 * kc, 2),
                         P(2 * kc, 3), P(2 * kc + 1, 0), P(2 * kc + 1, 1),
                         P(2 * kc + 1, 2), P(2 * kc + 1, 3)},
                        elt));
    }
    for (int64_t dt = 0; dt < DT; dt += 2) {
      if (dt + 1 < DT) {
        auto [b0, b1] =
            splitX4(ldmatrix(m.vs, add(m.lane16, kc * 16),
                             add(m.laneHi8, dt * 8), /*trans=*/true, 4));
        for (int64_t mt = 0; mt < MT; ++mt) {
          o[mt * DT + dt] = mmaSync(pa[mt], b0, o[mt * DT + dt]);
          o[mt * DT + dt + 1] = mmaSync(pa[mt], b1, o[mt * DT + dt + 1]);
        }
      } else {
        Value b0 = ldmatrix(m.vs, add(m.lane16, kc * 16), cst(dt * 8),
                            /*trans=*/true, 2);
        for (int64_t mt = 0; mt < MT; ++mt)
          o[mt * DT + dt] = mmaSync(pa[mt], b0, o[mt * DT + dt]);
      }
    }
  }
}
