//===- SplitKv.cpp - split-KV: the parts' workspace and their merge ---------===//
//
// What the split-KV kernels share (FlashDecoding, Dao et al. 2023): the
// decode kernel (DecodeKernel.cpp) and the prefill tensor-core kernels
// (FlashConfig::prefillSplits) write each chunk's partial state of a query
// row to a workspace in global memory (part p of row r: max m at
// mlPart[p * nRows + r], sum l at mlPart[(nParts + p) * nRows + r],
// unnormalized O at oPart[(p * nRows + r) * Dv]; m in natural units, -inf
// for a part that saw no key), and a second kernel merges the parts of
// every row with the log-sum-exp rule.
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Attention/FlashKernelBuilder.h"

using namespace mlir;
using namespace mlir::tx;

void FlashKernelBuilder::emitMergeKernel(Value nSplit, Value blocks,
                                         Value nRows, Value oPart,
                                         Value mlPart) {
  Value zero = cst(0), one = cst(1);
  // Launched as a programmatic dependent of kernel 1 (PDL, through
  // kProgrammaticLaunchAttr and the runtime's cuLaunchKernelEx attribute
  // PROGRAMMATIC_STREAM_SERIALIZATION), so its CTAs are scheduled while
  // kernel 1's last CTAs finish; without that attribute (another runtime)
  // it is an ordinary
  // stream-ordered launch and griddepcontrol.wait returns at once. One
  // warp per query row, four rows per CTA, the rule of mergeDecodeRow.
  const int64_t MW = 4;
  ifThen(arith::AndIOp::create(b, loc,
                               cmpi(arith::CmpIPredicate::ugt, nSplit, one),
                               cmpi(arith::CmpIPredicate::ugt, blocks, zero)),
         [&] {
           OpBuilder::InsertionGuard g(b);
           auto [mt, mbid] =
               emitPlainLaunch(ceilDiv(nRows, cst(MW)), 32 * MW, 0);
           Operation *launch = b.getBlock()->getParentOp();
           launch->setAttr(kRequiredChipAttr, b.getStringAttr("sm_90"));
           launch->setAttr(kProgrammaticLaunchAttr, b.getUnitAttr());
           tid = mt;
           NVVM::GriddepcontrolOp::create(b, loc,
                                          NVVM::GridDepActionKind::wait);
           Value lane = arith::RemUIOp::create(b, loc, mt, cst(32));
           Value row = add(mul(mbid, MW),
                           arith::DivUIOp::create(b, loc, mt, cst(32)));
           ifThen(cmpi(arith::CmpIPredicate::ult, row, nRows), [&] {
             Value i = arith::RemUIOp::create(b, loc, row, Sq);
             Value bhq = arith::DivUIOp::create(b, loc, row, Sq);
             Value h = arith::RemUIOp::create(b, loc, bhq, H);
             Value bi = arith::DivUIOp::create(b, loc, bhq, H);
             mergeDecodeRow(row, bi, h, i, lane, nSplit, nRows, oPart,
                            mlPart);
           });
         });
}

Value FlashKernelBuilder::prefillSplitsAtRunTime(Value ctas) {
  // prefillSplitCount's rule (AttentionStrategy.cpp) before its rounding.
  Value one = cst(1);
  Value want = arith::DivUIOp::create(b, loc, cst(cfg.prefillSlots()),
                                      maxsi(ctas, one));
  Value most = ceilDiv(Sk, cst(kMinPrefillSplitKeys));
  Value least = ceilDiv(Sk, cst(kMaxPrefillSplitKeys));
  Value n = maxsi(maxsi(minsi(want, most), least), one);
  return select(cmpi(arith::CmpIPredicate::uge, want, cst(2)), n, one);
}

void FlashKernelBuilder::emitPrefillSplits(Value n) {
  Value one = cst(1), zero = cst(0);
  const int64_t N = cfg.kvTile;
  // Whole kv-tile steps per chunk, no empty chunk.
  split.keys = maxsi(mul(ceilDiv(ceilDiv(Sk, n), cst(N)), N), cst(N));
  split.count = maxsi(ceilDiv(Sk, split.keys), one);
  split.rows = mul(mul(B, H), Sq);
  // (Zero elements for one chunk, possible with a forced count: the
  // runtime's allocator returns null for zero bytes without a call to the
  // driver, and nothing reads it.)
  Value several = cmpi(arith::CmpIPredicate::ugt, split.count, one);
  auto buf1d = MemRefType::get({ShapedType::kDynamic}, f32);
  auto workspace = [&](int64_t perRow) -> Value {
    Value elems = mul(mul(split.count, split.rows), perRow);
    return memref::AllocOp::create(b, loc, buf1d,
                                   ValueRange{select(several, elems, zero)});
  };
  split.oPart = workspace(cfg.Dv);
  split.mlPart = workspace(2);
}

void FlashKernelBuilder::clipToSplit(Cta &c) {
  Value zero = cst(0);
  Value lo = mul(split.index, split.keys);
  Value hi = minsi(add(lo, split.keys), c.kvEnd);
  Value base = maxsi(c.kvBase, lo);
  Value any = cmpi(arith::CmpIPredicate::sgt, hi, base);
  c.nKT = select(any, ceilDiv(sub(hi, base), cst(cfg.kvTile)), zero);
  c.kvBase = base;
  c.kvEnd = select(any, hi, base);
  ctaKvBase = c.kvBase;
}

void FlashKernelBuilder::storeMmaPart(Value row, Value mNat, Value l,
                                      Value col2, ArrayRef<Value> oPairs) {
  Value pr = add(mul(split.index, split.rows), row);
  Value none = feq(l, fcst(0.0));
  ifThen(cmpi(arith::CmpIPredicate::eq, col2, cst(0)), [&] {
    memref::StoreOp::create(
        b, loc, select(none, fcst(-std::numeric_limits<double>::infinity()),
                       mNat),
        split.mlPart, pr);
    memref::StoreOp::create(
        b, loc, l, split.mlPart,
        add(mul(add(split.count, split.index), split.rows), row));
  });
  Value oBase = add(mul(pr, cfg.Dv), col2);
  for (int64_t dt = 0; dt < int64_t(oPairs.size()); ++dt)
    vector::StoreOp::create(b, loc, oPairs[dt], split.oPart,
                            ValueRange{add(oBase, dt * 8)},
                            /*nontemporal=*/false, llvm::MaybeAlign(8));
}

void FlashKernelBuilder::mergeDecodeRow(Value row, Value bi, Value h, Value i, Value lane,
                    Value nParts, Value nRows, Value oPart, Value mlPart) {
  const int64_t Dv = cfg.Dv, Cv = Dv / 32;
  Value one = cst(1);

  Value lastPart = sub(nParts, one);
  // Up to 32 parts (the split counts of the short caches on the H200; long
  // ones may take 33 and more): one round trip to memory. Lane p loads
  // part p's (m, l); every part's O row is loaded before the reductions (parts past the last re-read the last
  // one, which the weight 0 drops), so the merge waits for one global
  // latency instead of three (max, weights, O). The 32 O rows take 32 * Cv
  // registers per lane: Dv > 128 keeps the grouped form.
  if (Cv > 4) {
    mergeManyParts(row, bi, h, i, lane, nParts, nRows, oPart, mlPart);
    return;
  }
  auto ifFew = scf::IfOp::create(
      b, loc, cmpi(arith::CmpIPredicate::ule, nParts, cst(32)), true);
  {
    OpBuilder::InsertionGuard gd(b);
    b.setInsertionPointToStart(ifFew.thenBlock());
    Value in = cmpi(arith::CmpIPredicate::ult, lane, nParts);
    Value pc = minsi(lane, lastPart);
    Value m = memref::LoadOp::create(
        b, loc, mlPart, ValueRange{add(mul(pc, nRows), row)});
    Value l = memref::LoadOp::create(
        b, loc, mlPart, ValueRange{add(mul(add(nParts, pc), nRows), row)});
    SmallVector<Value> ov(32);
    for (int64_t x = 0; x < 32; ++x) {
      Value px = minsi(cst(x), lastPart);
      ov[x] = loadGlobal(
          oPart, ValueRange{add(mul(add(mul(px, nRows), row), Dv),
                                mul(lane, Cv))},
          Cv);
    }
    mergeLoadedParts(in, m, l, ov, lane, bi, h, i);
    b.setInsertionPointToStart(ifFew.elseBlock());
    mergeManyParts(row, bi, h, i, lane, nParts, nRows, oPart, mlPart);
  }
}

void FlashKernelBuilder::mergeLoadedParts(Value in, Value m, Value l,
                                          ArrayRef<Value> ov, Value lane,
                                          Value bi, Value h, Value i) {
  const int64_t Cv = cfg.Dv / 32;
  Value negInf = fcst(-std::numeric_limits<double>::infinity());
  Value fzero = fcst(0.0);
  Value M = warpAllReduce(select(in, m, negInf), /*isMax=*/true);
  Value mSafe = select(feq(M, negInf), fzero, M);
  // 0 for an empty part and for lanes past the last part.
  Value w = select(in, exp2Of(fsub(m, mSafe)), fzero);
  Value L = warpAllReduce(select(feq(w, fzero), fzero, fmul(w, l)),
                          /*isMax=*/false);
  SmallVector<Value> o(Cv, fzero);
  for (int64_t x = 0; x < int64_t(ov.size()); ++x) {
    Value wx = gpu::ShuffleOp::create(b, loc, w, x, 32, gpu::ShuffleMode::IDX)
                   .getShuffleResult();
    Value deadX = feq(wx, fzero);
    for (int64_t c = 0; c < Cv; ++c)
      o[c] = select(deadX, o[c], fma(wx, lanePart(ov[x], c), o[c]));
  }
  storeDecodeRow(o, M, L, lane, bi, h, i);
}

void FlashKernelBuilder::mergeManyParts(Value row, Value bi, Value h, Value i,
                                        Value lane, Value nParts, Value nRows,
                                        Value oPart, Value mlPart) {
  const int64_t Dv = cfg.Dv, Cv = Dv / 32;
  Value zero = cst(0), one = cst(1);
  Value negInf = fcst(-std::numeric_limits<double>::infinity());
  Value fzero = fcst(0.0);
  // M = max over parts.
  auto mLoop =
      scf::ForOp::create(
          b, loc, lane, nParts, cst(32), ValueRange{negInf},
          [&](OpBuilder &, Location, Value pp, ValueRange acc) {
            Value m = memref::LoadOp::create(
                b, loc, mlPart, ValueRange{add(mul(pp, nRows), row)});
            scf::YieldOp::create(b, loc, ValueRange{fmax(acc[0], m)});
          });
  Value M = warpAllReduce(mLoop.getResult(0), /*isMax=*/true);
  Value mSafe = select(feq(M, negInf), fzero, M);
  // Parts in groups of 32: lane x loads part g + x's (m, l) and
  // weight; O rows of the group are then read with all 32 loads in
  // flight (the weights come by shuffles).
  SmallVector<Value> init(1 + Cv, fzero);
  Value lastPart = sub(nParts, one);
  auto pLoop =
      scf::ForOp::create(
          b, loc, zero, nParts, cst(32), init,
          [&](OpBuilder &, Location, Value g0, ValueRange acc) {
            Value pp = add(g0, lane);
            Value in = cmpi(arith::CmpIPredicate::ult, pp, nParts);
            Value pc = minsi(pp, lastPart);
            Value pr = add(mul(pc, nRows), row);
            Value m = memref::LoadOp::create(b, loc, mlPart, ValueRange{pr});
            Value l = memref::LoadOp::create(
                b, loc, mlPart,
                ValueRange{add(mul(add(nParts, pc), nRows), row)});
            // 0 for an empty part and for lanes past the last part.
            Value w = select(in, exp2Of(fsub(m, mSafe)), fzero);
            Value dead = feq(w, fzero);
            SmallVector<Value> nx;
            nx.push_back(fadd(acc[0], select(dead, fzero, fmul(w, l))));
            SmallVector<Value> o(acc.begin() + 1, acc.end());
            for (int64_t x = 0; x < 32; ++x) {
              Value wx = gpu::ShuffleOp::create(b, loc, w, x, 32,
                                                gpu::ShuffleMode::IDX)
                             .getShuffleResult();
              Value deadX = feq(wx, fzero);
              Value px = minsi(add(g0, x), lastPart);
              Value oBase = add(mul(add(mul(px, nRows), row), Dv),
                                mul(lane, Cv));
              Value ov = loadGlobal(oPart, ValueRange{oBase}, Cv);
              for (int64_t c = 0; c < Cv; ++c)
                o[c] = select(deadX, o[c], fma(wx, lanePart(ov, c), o[c]));
            }
            nx.append(o.begin(), o.end());
            scf::YieldOp::create(b, loc, nx);
          });
  Value L = warpAllReduce(pLoop.getResult(0), /*isMax=*/false);
  storeDecodeRow(SmallVector<Value>(pLoop.getResults().begin() + 1,
                                    pLoop.getResults().end()),
                 M, L, lane, bi, h, i);
}

void FlashKernelBuilder::storeDecodeRow(ArrayRef<Value> o, Value M, Value L, Value lane,
                    Value bi, Value h, Value i) {
  const int64_t Cv = cfg.Dv / 32;
  Value fzero = fcst(0.0);
  Value inv = select(feq(L, fzero), fzero,
                     arith::DivFOp::create(b, loc, fcst(1.0), L));
  for (int64_t c = 0; c < Cv; ++c) {
    Value y = fmul(o[c], inv);
    if (elt != f32)
      y = arith::TruncFOp::create(b, loc, elt, y);
    memref::StoreOp::create(b, loc, y, out,
                            ValueRange{bi, h, i, add(mul(lane, Cv), c)});
  }
  if (lseOut)
    ifThen(cmpi(arith::CmpIPredicate::eq, lane, cst(0)),
           [&] { storeLse(M, L, bi, h, i); });
}
