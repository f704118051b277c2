//===- DecodeWarps.cpp - the split-KV decode kernel's key loop -------------===//
//
// The warps of a decode CTA (DecodeKernel.cpp) each run a cp.async
// pipeline over their key tiles and keep an online-softmax state (m, l, O)
// per packed query row, in one of two forms: on tensor cores (mma.sync
// m16n8k16, the P <= 16 packed rows as the M tile; f16/bf16 with 4 or more
// rows, cfg.decodeTC) or on CUDA cores (two lanes per key). Both end with
// the warp's state in its shared region, which emitDecodeCtaPart merges.
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Attention/FlashKernelBuilder.h"

using namespace mlir;
using namespace mlir::tx;

// ---- tensor cores: mma.sync m16n8k16, the P <= 16 packed rows as the M
// tile (rows >= P zero), 16 keys (two n8 blocks) per step ----

FlashKernelBuilder::DecodeTc FlashKernelBuilder::loadDecodeTcQ(DecodeCall &d) {
  const int64_t W = cfg.warps, Gs = cfg.decodeG, SqS = cfg.decodeSq;
  const int64_t P = Gs * SqS, D = cfg.D, KD = D / 16;
  DecodeTc t;
  Value lane = d.lane;
  Value qsT = decodeView(d, d.zero, {16, cfg.decodeQStride()}, elt);
  scf::ForOp::create(
      b, loc, tid, cst(16 * D), cst(32 * W), ValueRange{},
      [&](OpBuilder &, Location, Value idx, ValueRange) {
        Value r = arith::DivUIOp::create(b, loc, idx, cst(D));
        Value dd = arith::RemUIOp::create(b, loc, idx, cst(D));
        Value live = cmpi(arith::CmpIPredicate::ult, r, cst(P));
        Value rc = minui(r, cst(P - 1));
        Value gq = arith::DivUIOp::create(b, loc, rc, cst(SqS));
        Value i = arith::RemUIOp::create(b, loc, rc, cst(SqS));
        Value h = add(mul(d.kh, Gs), gq);
        Value x =
            memref::LoadOp::create(b, loc, q, ValueRange{d.bi, h, i, dd});
        Value z = arith::ConstantOp::create(b, loc, b.getZeroAttr(elt));
        memref::StoreOp::create(b, loc, select(live, x, z), qsT,
                                ValueRange{r, dd});
        scf::YieldOp::create(b, loc);
      });
  gpu::BarrierOp::create(b, loc); // Q is in shared memory
  t.lane16 = arith::RemUIOp::create(b, loc, lane, cst(16));
  t.laneHi8 = mul(arith::DivUIOp::create(b, loc, lane, cst(16)), 8);
  for (int64_t kk = 0; kk < KD; ++kk)
    t.qa.push_back(ldmatrix(qsT, t.lane16, add(t.laneHi8, kk * 16),
                            /*trans=*/false, 4));
  Value g = arith::DivUIOp::create(b, loc, lane, cst(4));
  t.t4 = arith::RemUIOp::create(b, loc, lane, cst(4));
  t.col2 = mul(t.t4, 2);
  t.kRow8 = arith::RemUIOp::create(b, loc, lane, cst(8));
  t.kCol8x4 = mul(arith::DivUIOp::create(b, loc, lane, cst(8)), 8);
  t.accTy = vec2(2, 2, f32);
  t.accZero = arith::ConstantOp::create(
      b, loc, t.accTy, DenseElementsAttr::get(t.accTy, 0.0f));
  // The thread's rows g and g + 8: packed row r is query row r % Sq.
  t.rowOf[0] = g;
  t.rowOf[1] = add(g, 8);
  for (int64_t hh = 0; hh < 2; ++hh) {
    t.qRow[hh] = arith::RemUIOp::create(b, loc, t.rowOf[hh], cst(SqS));
    t.rowLive[hh] = cmpi(arith::CmpIPredicate::ult, t.rowOf[hh], cst(P));
    if (batchRows)
      t.rowLive[hh] = arith::AndIOp::create(
          b, loc, t.rowLive[hh],
          cmpi(arith::CmpIPredicate::slt, t.qRow[hh], batchRows));
  }
  return t;
}

void FlashKernelBuilder::emitDecodeTcWarps(DecodeCall &d) {
  const int64_t DT = cfg.Dv / 8;
  DecodeTc t = loadDecodeTcQ(d);
  SmallVector<Value> init = {d.negInf, d.negInf, d.fzero, d.fzero};
  init.append(DT, t.accZero);
  auto tcLoop = scf::ForOp::create(
      b, loc, d.zero, d.nLocal, d.one, init,
      [&](OpBuilder &, Location, Value u, ValueRange carried) {
        scf::YieldOp::create(b, loc, emitDecodeTcStep(d, t, u, carried));
      });
  asyncWaitAll();                 // no cp.async left in flight
  gpu::BarrierOp::create(b, loc); // every warp is done with its stages
  storeDecodeTcState(d, t, tcLoop.getResults());
}

SmallVector<Value> FlashKernelBuilder::emitDecodeTcStep(DecodeCall &d,
                                                        DecodeTc &t, Value u,
                                                        ValueRange carried) {
  const int64_t D = cfg.D, KD = D / 16;
  const int64_t Dv = cfg.Dv, DT = Dv / 8;
  Value negInf = d.negInf, fzero = d.fzero, accZero = t.accZero;
  DecodeStepTile tile = decodeStepBegin(d, u);
  Value ks = tile.ks, vs = tile.vs, j0 = tile.j0;
  // S = Q K^T (raw scores), sv[nt * 4 + e].
  SmallVector<Value> sv(8);
  for (int64_t nt = 0; nt < 2; ++nt) {
    Value acc = accZero;
    for (int64_t kk = 0; kk < KD; kk += 2) {
      auto [b0, b1] = splitX4(ldmatrix(
          ks,
          {decodeSwizzle(add(t.kRow8, nt * 8), add(t.kCol8x4, kk * 16), D)},
          /*trans=*/false, 4));
      acc = mmaSync(t.qa[kk], b0, acc);
      acc = mmaSync(t.qa[kk + 1], b1, acc);
    }
    for (int64_t e = 0; e < 4; ++e)
      sv[nt * 4 + e] = vector::ExtractOp::create(
          b, loc, acc, ArrayRef<int64_t>{e / 2, e % 2});
  }
  // Scores in the exp2 domain; hidden: past the chunk, rows past P (or
  // q_lengths), the causal diagonal.
  for (int64_t nt = 0; nt < 2; ++nt)
    for (int64_t e = 0; e < 4; ++e) {
      int64_t hh = e / 2;
      Value j = add(add(j0, t.col2), nt * 8 + e % 2);
      Value ok = arith::AndIOp::create(
          b, loc, cmpi(arith::CmpIPredicate::ult, j, d.kEnd), t.rowLive[hh]);
      if (prob.causal)
        ok = arith::AndIOp::create(
            b, loc, ok,
            cmpi(arith::CmpIPredicate::sle, j, add(d.shift, t.qRow[hh])));
      Value &x = sv[nt * 4 + e];
      x = select(ok, mulRn(x, scale), negInf);
    }
  SmallVector<Value> next(4 + DT);
  Value alpha[2];
  SmallVector<Value> pv(8);
  for (int64_t hh = 0; hh < 2; ++hh) {
    Value mx = fmax(fmax(sv[2 * hh], sv[2 * hh + 1]),
                    fmax(sv[4 + 2 * hh], sv[4 + 2 * hh + 1]));
    Value mNew = fmax(carried[hh], quadAllReduce(mx, true));
    Value mSafe = select(feq(mNew, negInf), fzero, mNew);
    alpha[hh] = fastExp2(fsub(carried[hh], mSafe));
    Value sum = fzero;
    for (int64_t nt = 0; nt < 2; ++nt)
      for (int64_t c = 0; c < 2; ++c) {
        Value p = fastExp2(fsub(sv[nt * 4 + 2 * hh + c], mSafe));
        pv[nt * 4 + 2 * hh + c] = p;
        sum = fadd(sum, p);
      }
    next[hh] = mNew;
    next[2 + hh] = fadd(fmul(carried[2 + hh], alpha[hh]), sum);
  }
  Value aVec = vector::FromElementsOp::create(
      b, loc, t.accTy, ValueRange{alpha[0], alpha[0], alpha[1], alpha[1]});
  Value pa = pack({pv[0], pv[1], pv[2], pv[3], pv[4], pv[5], pv[6], pv[7]},
                  elt);
  // O = O * alpha + P V: the step's P V from a zero accumulator, folded in
  // by one fma.rn (accumulated in O, the mma's truncating f32 addition
  // biased long rows low; issue #38).
  for (int64_t dt = 0; dt < DT; dt += 2) {
    auto [b0, b1] = splitX4(ldmatrix(
        vs, {decodeSwizzle(t.lane16, add(t.laneHi8, dt * 8), Dv)},
        /*trans=*/true, 4));
    for (int64_t j = 0; j < 2; ++j)
      next[4 + dt + j] = math::FmaOp::create(
          b, loc, carried[4 + dt + j], aVec,
          mmaSync(pa, j ? b1 : b0, accZero));
  }
  return next;
}

// The warp's state (m in natural units, l, O) to shared memory.
void FlashKernelBuilder::storeDecodeTcState(DecodeCall &d, DecodeTc &t,
                                            ValueRange state) {
  const int64_t P = cfg.decodeG * cfg.decodeSq, Dv = cfg.Dv, DT = Dv / 8;
  Value st = decodeView(d, d.warpBase, {P * (Dv + 2)}, f32);
  Value ln2 = fcst(0.69314718055994531);
  for (int64_t hh = 0; hh < 2; ++hh) {
    Value l = quadAllReduce(state[2 + hh], false);
    Value r = t.rowOf[hh];
    ifThen(cmpi(arith::CmpIPredicate::ult, r, cst(P)), [&] {
      ifThen(cmpi(arith::CmpIPredicate::eq, t.t4, d.zero), [&] {
        memref::StoreOp::create(b, loc, fmul(state[hh], ln2), st, r);
        memref::StoreOp::create(b, loc, l, st, add(r, P));
      });
      for (int64_t dt = 0; dt < DT; ++dt)
        for (int64_t c = 0; c < 2; ++c) {
          Value o = vector::ExtractOp::create(b, loc, state[4 + dt],
                                              ArrayRef<int64_t>{hh, c});
          memref::StoreOp::create(
              b, loc, o, st, add(add(mul(r, Dv), t.col2), 2 * P + dt * 8 + c));
        }
    });
  }
}

// ---- CUDA cores: lane (key kk, column part) of a TK-key tile; Q rows
// pre-scaled in f32 ----

void FlashKernelBuilder::emitDecodeSimtWarps(DecodeCall &d) {
  const int64_t W = cfg.warps, Gs = cfg.decodeG, SqS = cfg.decodeSq;
  const int64_t P = Gs * SqS, D = cfg.D, Dv = cfg.Dv, Cv = Dv / 32;
  const int64_t LPK = 32 / cfg.decodeTileKeys; // lanes per key
  Value qs = d.qs;
  // Q rows, pre-scaled, f32.
  scf::ForOp::create(
      b, loc, tid, cst(P * D), cst(32 * W), ValueRange{},
      [&](OpBuilder &, Location, Value idx, ValueRange) {
        Value r = arith::DivUIOp::create(b, loc, idx, cst(D));
        Value dd = arith::RemUIOp::create(b, loc, idx, cst(D));
        Value gq = arith::DivUIOp::create(b, loc, r, cst(SqS));
        Value i = arith::RemUIOp::create(b, loc, r, cst(SqS));
        Value h = add(mul(d.kh, Gs), gq);
        Value x = toF32(
            memref::LoadOp::create(b, loc, q, ValueRange{d.bi, h, i, dd}));
        memref::StoreOp::create(b, loc, fmul(x, scaleNat), qs, idx);
        scf::YieldOp::create(b, loc);
      });
  gpu::BarrierOp::create(b, loc); // Q is in shared memory

  SmallVector<Value> init;
  for (int64_t r = 0; r < P; ++r)
    init.push_back(d.negInf); // m
  for (int64_t r = 0; r < P; ++r)
    init.push_back(d.fzero); // l (this lane's keys)
  for (int64_t x = 0; x < P * Cv; ++x)
    init.push_back(d.fzero); // O (columns lane * Cv + c)
  auto tLoop = scf::ForOp::create(
      b, loc, d.zero, d.nLocal, d.one, init,
      [&](OpBuilder &, Location, Value u, ValueRange carried) {
        scf::YieldOp::create(b, loc, emitDecodeSimtStep(d, u, carried));
      });
  asyncWaitAll();                 // no cp.async left in flight
  gpu::BarrierOp::create(b, loc); // every warp is done with its stages

  // Each warp's state to shared memory (over its stages): m, l (summed
  // over lanes), O.
  Value st = decodeView(d, d.warpBase, {P * (Dv + 2)}, f32);
  for (int64_t r = 0; r < P; ++r) {
    Value l = warpAllReduce(tLoop.getResult(P + r), /*isMax=*/false);
    if (LPK > 1)
      l = fmul(l, fcst(1.0 / LPK));
    ifThen(cmpi(arith::CmpIPredicate::eq, d.lane, d.zero), [&] {
      memref::StoreOp::create(b, loc, tLoop.getResult(r), st, cst(r));
      memref::StoreOp::create(b, loc, l, st, cst(P + r));
    });
    for (int64_t c = 0; c < Cv; ++c)
      memref::StoreOp::create(b, loc, tLoop.getResult(2 * P + r * Cv + c), st,
                              add(mul(d.lane, Cv), 2 * P + r * Dv + c));
  }
}

SmallVector<Value> FlashKernelBuilder::emitDecodeSimtStep(DecodeCall &d,
                                                          Value u,
                                                          ValueRange carried) {
  const int64_t P = cfg.decodeG * cfg.decodeSq, Cv = cfg.Dv / 32;
  const int64_t TK = cfg.decodeTileKeys;
  Value zero = d.zero, negInf = d.negInf, fzero = d.fzero, lane = d.lane;
  // Every lane is done with stage (u - 1) % S (and the P buffer) before
  // tile u + S - 1 is copied over it.
  DecodeStepTile tile = decodeStepBegin(d, u);
  Value ks = tile.ks, vs = tile.vs, j0 = tile.j0;
  // Lane: key kk of the tile, columns [part * DL, part * DL + DL).
  Value kk = arith::RemUIOp::create(b, loc, lane, cst(TK));
  Value part = arith::DivUIOp::create(b, loc, lane, cst(TK));
  Value j = add(j0, kk);
  SmallVector<Value> sc = decodeSimtScores(d, ks, kk, part, j);
  // Online softmax per row; P to the warp's P buffer (written by the first
  // lane of each key; l counts each key LPK times).
  SmallVector<Value> next(P * (2 + Cv));
  SmallVector<Value> pr(P);
  for (int64_t r = 0; r < P; ++r) {
    Value m = carried[r], l = carried[P + r];
    Value mNew = fmax(m, warpAllReduce(sc[r], /*isMax=*/true));
    Value mSafe = select(feq(mNew, negInf), fzero, mNew);
    Value alpha = exp2Of(fsub(m, mSafe));
    Value p = pr[r] = exp2Of(fsub(sc[r], mSafe));
    next[r] = mNew;
    next[P + r] = fadd(fmul(l, alpha), p);
    for (int64_t c = 0; c < Cv; ++c)
      next[2 * P + r * Cv + c] = fmul(carried[2 * P + r * Cv + c], alpha);
  }
  ifThen(cmpi(arith::CmpIPredicate::eq, part, zero), [&] {
    for (int64_t r = 0; r < P; ++r)
      memref::StoreOp::create(b, loc, pr[r], d.ps,
                              ValueRange{add(kk, r * TK)});
  });
  decodeSyncWarp(d);
  SmallVector<Value> oIn(next.begin() + 2 * P, next.end());
  SmallVector<Value> o;
  if (mask || mods.mask) {
    o = decodeSimtPV(d, vs, oIn, true);
  } else {
    // Only the chunk's last tile, and causal tiles that reach past the
    // first row's diagonal, can hold hidden keys (rows past the chunk are
    // zero-filled, but a causal key inside it may hold anything).
    Value need = cmpi(arith::CmpIPredicate::sgt, add(j0, TK), d.kEnd);
    if (prob.causal)
      need = arith::OrIOp::create(
          b, loc, need,
          cmpi(arith::CmpIPredicate::sgt, add(j0, TK - 1), d.shift));
    SmallVector<Type> types(P * Cv, f32);
    auto ifNeed = scf::IfOp::create(b, loc, types, need, true);
    OpBuilder::InsertionGuard gd(b);
    b.setInsertionPointToStart(ifNeed.thenBlock());
    scf::YieldOp::create(b, loc, decodeSimtPV(d, vs, oIn, true));
    b.setInsertionPointToStart(ifNeed.elseBlock());
    scf::YieldOp::create(b, loc, decodeSimtPV(d, vs, oIn, false));
    o.assign(ifNeed.getResults().begin(), ifNeed.getResults().end());
  }
  for (int64_t x = 0; x < P * Cv; ++x)
    next[2 * P + x] = o[x];
  return next;
}

SmallVector<Value> FlashKernelBuilder::decodeSimtScores(DecodeCall &d,
                                                        Value ks, Value kk,
                                                        Value part, Value j) {
  const int64_t Gs = cfg.decodeG, SqS = cfg.decodeSq, P = Gs * SqS;
  const int64_t D = cfg.D, TK = cfg.decodeTileKeys;
  const int64_t DL = D / (32 / TK);      // K columns per lane
  const int64_t nv = 16 / cfg.eltBytes; // elements per 16-byte K load
  Value zero = d.zero, negInf = d.negInf, fzero = d.fzero;
  Value valid = cmpi(arith::CmpIPredicate::ult, j, d.kEnd);
  Value jc = minsi(j, d.skLast);
  // S = Q K^T for the lane's key and every packed row.
  SmallVector<Value> sc(P, fzero);
  Value col0 = mul(part, DL);
  for (int64_t c = 0; c < DL; c += nv) {
    Value kv = toF32(vector::LoadOp::create(
        b, loc, vec(nv, elt), ks, ValueRange{decodeSwizzle(kk, add(col0, c), D)},
        /*nontemporal=*/false, llvm::MaybeAlign(16)));
    for (int64_t e = 0; e < nv; e += 4)
      for (int64_t r = 0; r < P; ++r) {
        Value qv = loadShared(d.qs, add(col0, r * D + c + e), 4);
        for (int64_t x = 0; x < 4; ++x)
          sc[r] = fma(lanePart(qv, x), lanePart(kv, e + x), sc[r]);
      }
  }
  // The LPK lanes of a key add their column shares.
  for (int64_t r = 0; r < P; ++r)
    for (int64_t off = TK; off < 32; off *= 2)
      sc[r] = fadd(sc[r], gpu::ShuffleOp::create(b, loc, sc[r], off, 32,
                                                 gpu::ShuffleMode::XOR)
                              .getShuffleResult());
  // Hidden keys: past the chunk, the causal diagonal, the mask.
  for (int64_t r = 0; r < P; ++r) {
    int64_t i = r % SqS;
    Value x = capScore(sc[r]);
    // Packed row r: query head kh * G + r / Sq, row r % Sq.
    Value head = add(mul(d.kh, Gs), r / SqS);
    x = mods.applyScore(b, x, {d.bi, head, cst(i), jc});
    if (mask) {
      Value mh = maskHeadBcast ? zero : head;
      Value mv = memref::LoadOp::create(b, loc, mask,
                                        ValueRange{d.mb, mh, cst(i), jc});
      if (keepMask) {
        x = select(mv, x, negInf);
      } else {
        Value mf = toF32(mv);
        x = select(feq(mf, negInf), negInf, fadd(x, mf));
      }
    }
    x = mods.applyMask(b, loc, x, negInf, {d.bi, head, cst(i), jc});
    Value ok = valid;
    if (batchRows) // rows past q_lengths see no key
      ok = arith::AndIOp::create(
          b, loc, ok, cmpi(arith::CmpIPredicate::slt, cst(i), batchRows));
    if (prob.causal)
      ok = arith::AndIOp::create(
          b, loc, ok,
          cmpi(arith::CmpIPredicate::sle, j, add(d.shift, cst(i))));
    sc[r] = select(ok, x, negInf);
  }
  return sc;
}

// O += P V: each V row read once from shared memory, P of 4 keys per
// broadcast load; `sel`: a hidden key (P == 0) contributes nothing,
// whatever V holds (0 * NaN is NaN).
SmallVector<Value> FlashKernelBuilder::decodeSimtPV(DecodeCall &d, Value vs,
                                                    ArrayRef<Value> oIn,
                                                    bool sel) {
  const int64_t P = cfg.decodeG * cfg.decodeSq, Cv = cfg.Dv / 32;
  const int64_t TK = cfg.decodeTileKeys;
  SmallVector<Value> o(oIn.begin(), oIn.end());
  Value col = mul(d.lane, Cv);
  for (int64_t k4 = 0; k4 < TK; k4 += 4) {
    SmallVector<Value> p4(P);
    for (int64_t r = 0; r < P; ++r)
      p4[r] = loadShared(d.ps, cst(r * TK + k4), 4);
    for (int64_t kk = k4; kk < k4 + 4; ++kk) {
      Value vv = toF32(
          Cv == 1 ? memref::LoadOp::create(b, loc, vs, ValueRange{cst(kk), col})
                        .getResult()
                  : vector::LoadOp::create(
                        b, loc, vec(Cv, elt), vs, ValueRange{cst(kk), col},
                        /*nontemporal=*/false,
                        llvm::MaybeAlign(
                            std::min<int64_t>(16, Cv * cfg.eltBytes)))
                        .getResult());
      for (int64_t r = 0; r < P; ++r) {
        Value pk = lanePart(p4[r], kk - k4);
        Value hidden = sel ? feq(pk, d.fzero) : Value();
        for (int64_t c = 0; c < Cv; ++c) {
          Value acc = fma(pk, lanePart(vv, c), o[r * Cv + c]);
          o[r * Cv + c] = sel ? select(hidden, o[r * Cv + c], acc) : acc;
        }
      }
    }
  }
  return o;
}
