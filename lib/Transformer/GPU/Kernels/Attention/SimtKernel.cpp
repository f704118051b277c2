//===- SimtKernel.cpp - the CUDA-core flash kernel --------------------------===//
//
// FlashAttention-2 on CUDA cores (f32, head dims the tensor-core kernels do
// not take, chips below sm_80, tensor-cores=false): the CTA's query tile,
// K/V tiles staged in shared memory as f32, lane j scoring keys j, j+32, ...
//
// FlashAttention-2 (Dao 2023, "FlashAttention-2: Faster Attention with Better
// Parallelism and Work Partitioning"), Algorithm 1, mapped onto CUDA cores:
//
//   grid   one CTA per (batch b, head h, query tile of q-tile rows)
//   CTA    `warps` warps; warp w owns rows [w*R, (w+1)*R) of the tile
//          (R = q-tile / warps), the running max m, sum l and the output
//          accumulator O of those rows in registers
//   step   the CTA walks the K/V tiles of kv-tile keys; each tile is staged
//          once in shared memory (converted to f32) and read by every warp:
//            S = Q·Kᵀ   lane j computes the scores of keys j, j+32, ...
//            m_new = max(m, rowmax S)  (one shuffle all-reduce per row)
//            P = exp(S - m_new), l = l*exp(m - m_new) + rowsum P
//            O = O*exp(m - m_new) + P·V   lane owns columns lane+32t of O
//   end    O / l (a row that saw no key gives zeros), cast once to Q's type
//
// Q is staged in shared memory once, pre-scaled by scale; exp(x - m) is
// computed as exp2((x - m) * log2(e)) after the max is subtracted (f32
// inputs need the subtraction in natural units to stay within 1e-5 for large
// scores). The tensor-core kernels (f16, bf16) fold log2(e) into the scale. The
// maximum starts at -inf and is guarded (`m_new == -inf` rescales by 0),
// never at NaN. Causal attention (aligned
// bottom-right: key j visible to query i iff j <= i + Sk - Sq) stops each
// CTA's K/V loop after the last tile its rows can see and evaluates the
// causal predicate only in tiles that cross the diagonal; key-length tails
// use the same predicated path. Masks (i1 or additive) are read per tile
// from global memory. GQA reads K/V head h / (H / Hkv) in place.
//
// f16 and bf16 have two tensor-core kernels with the same skeleton:
// mma.sync m16n8k16 (sm_80+, MmaLaunch.cpp) and wgmma.mma_async (sm_90a,
// WgmmaLaunch.cpp).
//
// No Sq x Sk buffer exists: shared memory holds q-tile x D, kv-tile x D,
// kv-tile x Dv and q-tile x kv-tile floats (dynamic shared memory; the tx
// runtime opts the kernel into more than 48 KiB when needed).
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Attention/FlashKernelBuilder.h"

using namespace mlir;
using namespace mlir::tx;

FlashKernelBuilder::Cta FlashKernelBuilder::emitCta(Value blocks, Value nQT) {
  Value one = cst(1), zero = cst(0);
  Value smemBytes = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                                 cfg.smemBytes());
  // Threads: the compute warps, plus the wgmma kernel's producer
  // warpgroup when it has one.
  auto launch = gpu::LaunchOp::create(
      b, loc, blocks, one, one, cst((cfg.warps + cfg.producerWarps) * 32),
      one, one, smemBytes);
  // The oldest chip the kernel's instructions exist on (mma.sync and
  // cp.async: sm_80; wgmma: only sm_90a). tx-check-gpu-target rejects a
  // pipeline whose chip is older, instead of LLVM's "Cannot select" abort
  // (issue #14, found by the fuzzer).
  if (cfg.wgmma || cfg.mma)
    launch->setAttr(kRequiredChipAttr,
                    b.getStringAttr(cfg.wgmma ? "sm_90a" : "sm_80"));
  b.setInsertionPointToStart(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&launch.getBody().front());

  Cta c;
  tid = launch.getThreadIds().x;
  Value bid = launch.getBlockIds().x;
  // Split-KV: CTA bid takes chunk bid % count of CTA bid / count's keys.
  if (split.count) {
    split.index = arith::RemUIOp::create(b, loc, bid, split.count);
    bid = arith::DivUIOp::create(b, loc, bid, split.count);
  }
  c.lane = arith::RemUIOp::create(b, loc, tid, cst(32));
  c.warp = arith::DivUIOp::create(b, loc, tid, cst(32));
  // Query tiles of a head in reverse order: with a causal mask the last
  // tiles have the most keys, and launching them first leaves the short
  // ones to fill the tail of the grid.
  Value qt = arith::SubIOp::create(
      b, loc, arith::SubIOp::create(b, loc, nQT, cst(1)),
      arith::RemUIOp::create(b, loc, bid, nQT));
  Value bh = arith::DivUIOp::create(b, loc, bid, nQT);
  c.h = arith::RemUIOp::create(b, loc, bh, H);
  c.bi = arith::DivUIOp::create(b, loc, bh, H);
  c.kh = arith::DivUIOp::create(b, loc, c.h, G);
  c.q0 = mul(qt, cfg.qTile);
  auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                       gpu::AddressSpace::Workgroup);
  c.smem = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), wg));
  // Key j is on row i's diagonal iff j == i + shift (Sk - Sq, or Lk - Lq
  // of the batch with per-sequence lengths, which also replace Sk here).
  c.shift = emitBatchLengths(c.bi);
  Value rows = batchRows ? batchRows : Sq;
  Value kvEnd = Sk;
  if (band.right) {
    // The last key the CTA's last row sees.
    Value lastRow = sub(minsi(add(c.q0, cfg.qTile), rows), one);
    kvEnd = minsi(
        maxsi(add(add(lastRow, c.shift), cst(*band.right + 1)), zero), Sk);
  }
  // A CTA whose rows all lie past the batch's q_lengths visits no key.
  if (batchRows)
    kvEnd = select(cmpi(arith::CmpIPredicate::slt, c.q0, batchRows), kvEnd,
                   zero);
  c.kvEnd = kvEnd;
  Value nEnd = arith::CeilDivUIOp::create(b, loc, kvEnd, cst(cfg.kvTile));
  c.kvStart = zero;
  c.kvBase = zero;
  c.nKT = nEnd;
  if (band.left) {
    // The first key the CTA's first row sees; the loop starts at its
    // tile (tiles stay aligned to kv-tile).
    c.kvStart =
        minsi(maxsi(sub(add(c.q0, c.shift), cst(*band.left)), zero), kvEnd);
    Value kt0 = arith::DivUIOp::create(b, loc, c.kvStart, cst(cfg.kvTile));
    c.kvBase = mul(kt0, cfg.kvTile);
    c.nKT = sub(nEnd, minui(kt0, nEnd));
  }
  ctaKvBase = c.kvBase;
  if (split.count)
    clipToSplit(c);
  if (keyTiles.list) { // block sparsity: the listed tiles only
    c.tileRow = keyTiles.row(b, loc, c.bi, c.h, qt);
    c.nKT = keyTiles.tiles(b, loc, c.tileRow);
  }
  if (mask) {
    c.mb = maskBatchBcast ? zero : c.bi;
    c.mh = maskHeadBcast ? zero : c.h;
  }
  return c;
}

void FlashKernelBuilder::emitLaunch(Value blocks, Value nQT) {
  if (cfg.wgmma)
    return emitWgmmaLaunch(blocks, nQT);
  if (cfg.mma)
    return emitMmaLaunch(blocks, nQT);
  const int64_t R = cfg.rowsPerWarp(), T = cfg.outPerLane();
  SimtCta s;
  s.one = cst(1);
  s.c = emitCta(blocks, nQT);
  Cta &c = s.c;
  Value base = c.smem;

  // Shared memory: Q | K | V | P, each 16-byte aligned.
  int64_t off = 0;
  s.qs = smemView(base, off, cfg.qFloats());
  off += 4 * FlashConfig::align4(cfg.qFloats());
  s.ks = smemView(base, off, cfg.kFloats());
  off += 4 * FlashConfig::align4(cfg.kFloats());
  s.vs = smemView(base, off, cfg.vFloats());
  off += 4 * FlashConfig::align4(cfg.vFloats());
  s.ps = smemView(base, off, cfg.pFloats());

  // Q tile, pre-scaled; rows past Sq are zeros (never stored).
  stageTile(q, c.bi, c.h, c.q0, Sq, cfg.qTile, cfg.D, cfg.D, s.qs, cfg.D,
            scaleNat);

  s.zero = cst(0);
  s.rowW = mul(c.warp, R);   // first row of this warp in the tile
  s.iW = add(c.q0, s.rowW);  // its query index

  s.negInf = fcst(-std::numeric_limits<double>::infinity());
  s.fzero = fcst(0.0);
  SmallVector<Value> init;
  for (int64_t r = 0; r < R; ++r)
    init.push_back(s.negInf); // m
  for (int64_t r = 0; r < R; ++r)
    init.push_back(s.fzero); // l (this lane's partial sum)
  for (int64_t x = 0; x < R * T; ++x)
    init.push_back(s.fzero); // O

  auto kvLoop = scf::ForOp::create(
      b, loc, s.zero, c.nKT, s.one, init,
      [&](OpBuilder &, Location, Value kt, ValueRange carried) {
        scf::YieldOp::create(b, loc, emitSimtStep(s, kt, carried));
      });
  storeSimtOutput(s, kvLoop.getResults());
}

Value FlashKernelBuilder::keyTile0(const Cta &c, Value t) {
  if (keyTiles.list)
    return keyTiles.tileStart(b, loc, c.tileRow, t, cfg.kvTile);
  return add(c.kvBase, mul(t, cfg.kvTile));
}

SmallVector<Value> FlashKernelBuilder::emitSimtStep(SimtCta &s, Value kt,
                                                    ValueRange carried) {
  const int64_t R = cfg.rowsPerWarp(), KPL = cfg.keysPerLane(),
                T = cfg.outPerLane(), N = cfg.kvTile;
  Cta &c = s.c;
  Value lane = c.lane, negInf = s.negInf, fzero = s.fzero;
  Value k0 = keyTile0(c, kt);
  // Stage K (padded rows) and V (zero-padded to 32*T columns).
  gpu::BarrierOp::create(b, loc);
  stageTile(k, c.bi, c.kh, k0, Sk, N, cfg.D, cfg.D, s.ks, cfg.kStride(),
            Value());
  stageTile(v, c.bi, c.kh, k0, Sk, N, cfg.vWidth(), cfg.Dv, s.vs,
            cfg.vWidth(), Value());
  gpu::BarrierOp::create(b, loc);

  SmallVector<Value> sc = simtScores(s, k0);
  simtHideKeys(s, k0, sc);

  // Online softmax per row; P to shared memory for the P·V product.
  SmallVector<Value> next(R * (2 + T));
  SmallVector<Value> alpha(R);
  for (int64_t r = 0; r < R; ++r) {
    Value m = carried[r], l = carried[R + r];
    Value mt = sc[r * KPL];
    for (int64_t kk = 1; kk < KPL; ++kk)
      mt = arith::MaximumFOp::create(b, loc, mt, sc[r * KPL + kk]);
    mt = warpAllReduce(mt, /*isMax=*/true);
    Value mNew = arith::MaximumFOp::create(b, loc, m, mt);
    Value dead = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                       mNew, negInf);
    Value mSafe = select(dead, fzero, mNew);
    // Natural units until after the max is subtracted, so that s - m is
    // exact for large scores (CASES S2: 1000 vs 1001 in f32).
    alpha[r] = exp2Of(arith::SubFOp::create(b, loc, m, mSafe));
    Value lNew = arith::MulFOp::create(b, loc, l, alpha[r]);
    for (int64_t kk = 0; kk < KPL; ++kk) {
      Value p =
          exp2Of(arith::SubFOp::create(b, loc, sc[r * KPL + kk], mSafe));
      lNew = arith::AddFOp::create(b, loc, lNew, p);
      Value pOff = add(mul(add(s.rowW, r), N), add(lane, 32 * kk));
      memref::StoreOp::create(b, loc, p, s.ps, pOff);
    }
    next[r] = mNew;
    next[R + r] = lNew;
  }
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> o = simtPV(s, carried, alpha);
  for (int64_t x = 0; x < R * T; ++x)
    next[2 * R + x] = o[x];
  return next;
}

// S = Q·Kᵀ: lane owns keys lane + 32*kk; the soft cap, then the mask
// operand (applied to every tile).
SmallVector<Value> FlashKernelBuilder::simtScores(SimtCta &s, Value k0) {
  const int64_t R = cfg.rowsPerWarp(), KPL = cfg.keysPerLane();
  Cta &c = s.c;
  Value lane = c.lane, negInf = s.negInf;
  int64_t ds = cfg.dStep();
  SmallVector<Value> sInit(R * KPL, s.fzero);
  SmallVector<Value> keyRow;
  for (int64_t kk = 0; kk < KPL; ++kk)
    keyRow.push_back(mul(add(lane, 32 * kk), cfg.kStride()));
  auto dLoop = scf::ForOp::create(
      b, loc, s.zero, cst(cfg.D), cst(ds), sInit,
      [&](OpBuilder &, Location, Value d, ValueRange sAcc) {
        SmallVector<Value> kvv, qv, next(sAcc.begin(), sAcc.end());
        for (int64_t kk = 0; kk < KPL; ++kk)
          kvv.push_back(loadShared(s.ks, add(keyRow[kk], d), ds));
        for (int64_t r = 0; r < R; ++r)
          qv.push_back(
              loadShared(s.qs, add(mul(add(s.rowW, r), cfg.D), d), ds));
        for (int64_t e = 0; e < ds; ++e)
          for (int64_t r = 0; r < R; ++r)
            for (int64_t kk = 0; kk < KPL; ++kk)
              next[r * KPL + kk] = fma(lanePart(qv[r], e),
                                       lanePart(kvv[kk], e),
                                       next[r * KPL + kk]);
        scf::YieldOp::create(b, loc, next);
      });
  SmallVector<Value> sc(dLoop.getResults().begin(), dLoop.getResults().end());
  for (Value &x : sc)
    x = capScore(x);
  if (!mask && !mods.score && !mods.mask)
    return sc;
  Value sqLast = sub(Sq, s.one), skLast = sub(Sk, s.one);
  for (int64_t r = 0; r < R; ++r) {
    Value i = minsi(add(s.iW, r), sqLast);
    for (int64_t kk = 0; kk < KPL; ++kk) {
      Value j = minsi(add(k0, add(lane, 32 * kk)), skLast);
      Value &x = sc[r * KPL + kk];
      x = mods.applyScore(b, x, {c.bi, c.h, i, j});
      if (mask)
        x = applyMaskEntry(x, c.mb, c.mh, i, j, negInf,
                           [&](Value y, Value mf) {
                             return arith::AddFOp::create(b, loc, y, mf)
                                 .getResult();
                           });
      x = mods.applyMask(b, loc, x, negInf, {c.bi, c.h, i, j});
    }
  }
  return sc;
}

// Key tail and the band (causal, window): only tiles that need it.
void FlashKernelBuilder::simtHideKeys(SimtCta &s, Value k0,
                                      SmallVector<Value> &sc) {
  const int64_t R = cfg.rowsPerWarp(), KPL = cfg.keysPerLane(),
                N = cfg.kvTile;
  Cta &c = s.c;
  Value tail = cmpi(arith::CmpIPredicate::ugt, add(k0, N), Sk);
  Value need = tail;
  if (Value crosses = bandCrosses(k0, N, s.iW, add(s.iW, R - 1), c.shift))
    need = arith::OrIOp::create(b, loc, tail, crosses);
  SmallVector<Type> types(R * KPL, f32);
  auto ifNeed = scf::IfOp::create(b, loc, types, need, true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(ifNeed.thenBlock());
  SmallVector<Value> masked;
  for (int64_t r = 0; r < R; ++r)
    for (int64_t kk = 0; kk < KPL; ++kk) {
      Value j = add(k0, add(c.lane, 32 * kk));
      Value ok = inBand(cmpi(arith::CmpIPredicate::ult, j, Sk), j,
                        add(s.iW, r), c.shift);
      masked.push_back(select(ok, sc[r * KPL + kk], s.negInf));
    }
  scf::YieldOp::create(b, loc, masked);
  b.setInsertionPointToStart(ifNeed.elseBlock());
  scf::YieldOp::create(b, loc, sc);
  b.setInsertionPointAfter(ifNeed);
  for (int64_t x = 0; x < R * KPL; ++x)
    sc[x] = ifNeed.getResult(x);
}

// O = O * alpha + P·V; lane owns columns lane + 32*t.
SmallVector<Value> FlashKernelBuilder::simtPV(SimtCta &s, ValueRange carried,
                                              ArrayRef<Value> alpha) {
  const int64_t R = cfg.rowsPerWarp(), T = cfg.outPerLane(), N = cfg.kvTile;
  Value lane = s.c.lane;
  SmallVector<Value> oInit;
  for (int64_t r = 0; r < R; ++r)
    for (int64_t t = 0; t < T; ++t)
      oInit.push_back(arith::MulFOp::create(
          b, loc, carried[2 * R + r * T + t], alpha[r]));
  // Keys hidden by the mask, the causal diagonal or the window may hold
  // anything (a KV cache's padding): P == 0 must not multiply V.
  const bool mayHide = mask || band.bounded() || mods.mask;
  auto jLoop = scf::ForOp::create(
      b, loc, s.zero, cst(N), cst(4), oInit,
      [&](OpBuilder &, Location, Value j, ValueRange oAcc) {
        SmallVector<Value> pv, o(oAcc.begin(), oAcc.end());
        for (int64_t r = 0; r < R; ++r)
          pv.push_back(loadShared(s.ps, add(mul(add(s.rowW, r), N), j), 4));
        for (int64_t e = 0; e < 4; ++e)
          for (int64_t t = 0; t < T; ++t) {
            Value vv = loadShared(
                s.vs, add(mul(add(j, e), cfg.vWidth()), add(lane, 32 * t)), 1);
            for (int64_t r = 0; r < R; ++r) {
              Value pe = lanePart(pv[r], e);
              Value acc = fma(pe, vv, o[r * T + t]);
              // A key hidden from this row (P == 0) contributes nothing,
              // whatever V holds (0 * NaN is NaN).
              if (mayHide)
                acc = select(arith::CmpFOp::create(
                                 b, loc, arith::CmpFPredicate::OEQ, pe,
                                 s.fzero),
                             o[r * T + t], acc);
              o[r * T + t] = acc;
            }
          }
        scf::YieldOp::create(b, loc, o);
      });
  return SmallVector<Value>(jLoop.getResults().begin(),
                            jLoop.getResults().end());
}

// O / l, stored once in Q's element type.
void FlashKernelBuilder::storeSimtOutput(SimtCta &s, ValueRange results) {
  const int64_t R = cfg.rowsPerWarp(), T = cfg.outPerLane();
  Cta &c = s.c;
  Value lane = c.lane, fzero = s.fzero;
  Value fone = fcst(1.0);
  for (int64_t r = 0; r < R; ++r) {
    Value l = warpAllReduce(results[R + r], /*isMax=*/false);
    Value i = add(s.iW, r);
    Value dead = deadRow(i); // past q_lengths: stores 0 (and lse -inf)
    if (dead)
      l = select(dead, fzero, l);
    Value none =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l, fzero);
    Value inv = select(none, fzero, arith::DivFOp::create(b, loc, fone, l));
    auto ifRow = scf::IfOp::create(
        b, loc, cmpi(arith::CmpIPredicate::ult, i, Sq), false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifRow.thenBlock());
    if (lseOut) // m in natural units (Q was pre-scaled by the scale)
      ifThen(cmpi(arith::CmpIPredicate::eq, lane, cst(0)),
             [&] { storeLse(results[r], l, c.bi, c.h, i); });
    for (int64_t t = 0; t < T; ++t) {
      Value y = arith::MulFOp::create(b, loc, results[2 * R + r * T + t], inv);
      if (dead) // (0 * NaN: a padding row of Q may hold anything)
        y = select(dead, fzero, y);
      if (elt != f32)
        y = arith::TruncFOp::create(b, loc, elt, y);
      Value col = add(lane, 32 * t);
      if (32 * (t + 1) > cfg.Dv) {
        auto ifCol = scf::IfOp::create(
            b, loc, cmpi(arith::CmpIPredicate::ult, col, cst(cfg.Dv)), false);
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(ifCol.thenBlock());
        memref::StoreOp::create(b, loc, y, out, ValueRange{c.bi, c.h, i, col});
      } else {
        memref::StoreOp::create(b, loc, y, out, ValueRange{c.bi, c.h, i, col});
      }
    }
  }
}
