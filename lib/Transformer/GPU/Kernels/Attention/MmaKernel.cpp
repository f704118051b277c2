//===- MmaKernel.cpp - the mma.sync flash kernel and tensor-core helpers ----===//
//
// The tensor-core helpers of FlashAttention-2 on mma.sync m16n8k16 (f16
// through nvgpu.mma.sync, bf16 through nvvm.mma.sync; sm_80+), which the
// wgmma kernel shares: cp.async tiles, ldmatrix, the quad reductions, the
// per-tile key visibility flags of masks, the online softmax step on
// mma.sync's accumulator layout, the output stores. The mma.sync kernel's
// CTA is in MmaLaunch.cpp.
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Attention/FlashKernelBuilder.h"
#include "GPU/Kernels/Common/MmaFragments.h"

using namespace mlir;
using namespace mlir::tx;

VectorType FlashKernelBuilder::vec2(int64_t r, int64_t c, Type t) {
  return mma::fragmentType(r, c, t);
}

void FlashKernelBuilder::setupKeyFlags(Value smemBase, Value byteOffset) {
  auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                       gpu::AddressSpace::Workgroup);
  int64_t G = cfg.flagGroups(), n = cfg.flagBuffers() * cfg.kvTile;
  flagsW = memref::ViewOp::create(
      b, loc,
      MemRefType::get({n * G}, b.getI8Type(), MemRefLayoutAttrInterface(),
                      wg),
      smemBase, byteOffset, ValueRange{});
  flagsR = memref::ViewOp::create(
      b, loc,
      MemRefType::get({n}, b.getIntegerType(8 * G),
                      MemRefLayoutAttrInterface(), wg),
      smemBase, byteOffset, ValueRange{});
}

void FlashKernelBuilder::emitKeyVisibility(Value kt, Value flagBuf, Value q0, Value shift,
                       Value mb, Value mh) {
  const int64_t N = cfg.kvTile, G = cfg.flagGroups(),
                T = cfg.warps * 32, QT = cfg.qTile;
  Type i1 = b.getI1Type();
  Value k0 = add(ctaKvBase, mul(kt, N)), base = mul(flagBuf, N);
  Value sqLast = sub(Sq, cst(1)), skLast = sub(Sk, cst(1));
  Value negInf = fcst(-std::numeric_limits<double>::infinity());
  scf::ForOp::create(
      b, loc, tid, cst(G * N), cst(T), ValueRange{},
      [&](OpBuilder &, Location, Value c, ValueRange) {
        Value jj = arith::RemUIOp::create(b, loc, c, cst(N));
        Value g = arith::DivUIOp::create(b, loc, c, cst(N));
        Value j = add(k0, jj);
        Value keyOk = cmpi(arith::CmpIPredicate::ult, j, Sk);
        Value jc = minsi(j, skLast);
        Value no = arith::ConstantIntOp::create(b, loc, i1, 0);
        auto rows = scf::ForOp::create(
            b, loc, g, cst(QT), cst(G), ValueRange{no},
            [&](OpBuilder &, Location, Value r, ValueRange it) {
              auto ifSeen = scf::IfOp::create(b, loc, TypeRange{i1}, it[0],
                                              true);
              OpBuilder::InsertionGuard gd(b);
              b.setInsertionPointToStart(ifSeen.thenBlock());
              scf::YieldOp::create(b, loc, it[0]);
              b.setInsertionPointToStart(ifSeen.elseBlock());
              Value i = add(q0, r);
              Value ok = inBand(
                  arith::AndIOp::create(
                      b, loc, keyOk,
                      cmpi(arith::CmpIPredicate::ult, i,
                           batchRows ? batchRows : Sq)),
                  j, i, shift);
              Value mv = memref::LoadOp::create(
                  b, loc, mask, ValueRange{mb, mh, minsi(i, sqLast), jc});
              Value open =
                  keepMask ? mv
                           : arith::CmpFOp::create(
                                 b, loc, arith::CmpFPredicate::UNE, toF32(mv),
                                 negInf)
                                 .getResult();
              scf::YieldOp::create(b, loc,
                                   ValueRange{arith::AndIOp::create(
                                       b, loc, ok, open)});
              b.setInsertionPointAfter(ifSeen);
              scf::YieldOp::create(b, loc, ifSeen.getResults());
            });
        Value byte = arith::ExtUIOp::create(b, loc, b.getI8Type(),
                                            rows.getResult(0));
        memref::StoreOp::create(b, loc, byte, flagsW,
                                ValueRange{add(mul(add(base, jj), G), g)});
        scf::YieldOp::create(b, loc);
      });
}

Value FlashKernelBuilder::keyVisible(Value flagBuf, Value r) {
  Value w = memref::LoadOp::create(
      b, loc, flagsR, ValueRange{add(mul(flagBuf, cfg.kvTile), r)});
  Value zero = arith::ConstantIntOp::create(b, loc, w.getType(), 0);
  return cmpi(arith::CmpIPredicate::ne, w, zero);
}

void FlashKernelBuilder::asyncTile(Value buf, Value i0, Value i1, Value row0, Value rowLimit,
               int64_t rows, int64_t width, Value view,
               Value flagBuf, Value rowStart) {
  int64_t perCopy = 16 / cfg.eltBytes;
  int64_t chunksPerRow = width / perCopy;
  int64_t total = rows * chunksPerRow;
  auto tokTy = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  Value lastRow = sub(rowLimit, cst(1));
  const int64_t threads = cfg.warps * 32, step = threads / chunksPerRow;
  std::optional<scf::IfOp> ifFull;
  OpBuilder::InsertionGuard gd(b);
  // K/V of a paged cache: rows found through the page table (the tile's
  // page read once when it holds the whole tile); no strided fast path.
  const bool paged = pages && (buf == k || buf == v);
  Value page = paged ? pages->tilePage(b, loc, i0, row0) : Value();
  if (!flagBuf && !rowStart && !paged && total % threads == 0 &&
      threads % chunksPerRow == 0) {
    // A tile whose rows are all below rowLimit: the thread's copies are
    // `step` rows apart in both memories, one cp.async each, no predicate
    // (see asyncTileSwizzled).
    ifFull = scf::IfOp::create(
        b, loc, cmpi(arith::CmpIPredicate::ule, add(row0, cst(rows)), rowLimit),
        /*withElseRegion=*/true);
    b.setInsertionPointToStart(ifFull->thenBlock());
    int64_t rowBytes = cast<MemRefType>(view.getType()).getShape()[1] *
                       cfg.eltBytes;
    Value r0 = divui(tid, chunksPerRow);
    Value col = mul(remui(tid, chunksPerRow), perCopy);
    Value s0 = toI64(
        add(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, view),
            mul(add(mul(r0, rowBytes / cfg.eltBytes), col), cfg.eltBytes)));
    stridedCopies(buf, i0, i1, add(row0, r0), col, step, s0, step * rowBytes,
                  total / threads);
    b.setInsertionPointToStart(ifFull->elseBlock());
  }
  if (paged && total % threads == 0 && threads % chunksPerRow == 0) {
    // Paged rows, unrolled: every table read first, then the copies (the
    // reads in flight together, not one latency per copy).
    Value r0 = divui(tid, chunksPerRow);
    Value col = mul(remui(tid, chunksPerRow), perCopy);
    const int64_t count = total / threads;
    SmallVector<Value> ok;
    SmallVector<SmallVector<Value>> from;
    for (int64_t i = 0; i < count; ++i) {
      Value r = add(r0, i * step), gRow = add(row0, r);
      ok.push_back(copyRowOk(gRow, r, rowLimit, rowStart, flagBuf));
      if (!pages->stridesPages(rows))
        from.push_back(pages->index(b, loc, i0, i1, page, row0,
                                    minsi(gRow, lastRow), col, ok[i]));
    }
    if (pages->stridesPages(rows))
      from = pages->stridedIndex(b, loc, i0, i1, row0, r0, step, col,
                                 lastRow, ok);
    for (int64_t i = 0; i < count; ++i)
      nvgpu::DeviceAsyncCopyOp::create(
          b, loc, tokTy, view, ValueRange{add(r0, i * step), col}, buf,
          from[i], b.getIndexAttr(perCopy), select(ok[i], cst(perCopy), cst(0)),
          b.getUnitAttr());
    return;
  }
  scf::ForOp::create(
      b, loc, tid, cst(total), cst(threads), ValueRange{},
      [&](OpBuilder &, Location, Value c, ValueRange) {
        Value r = arith::DivUIOp::create(b, loc, c, cst(chunksPerRow));
        Value col = mul(arith::RemUIOp::create(b, loc, c, cst(chunksPerRow)),
                        perCopy);
        Value gRow = add(row0, r);
        Value ok = copyRowOk(gRow, r, rowLimit, rowStart, flagBuf);
        Value srcRow = minsi(gRow, lastRow);
        SmallVector<Value> from{i0, i1, srcRow, col};
        if (paged)
          from = pages->index(b, loc, i0, i1, page, row0, srcRow, col, ok);
        Value n = select(ok, cst(perCopy), cst(0));
        nvgpu::DeviceAsyncCopyOp::create(
            b, loc, tokTy, view, ValueRange{r, col}, buf, from,
            b.getIndexAttr(perCopy), n, b.getUnitAttr());
        scf::YieldOp::create(b, loc);
      });
}

void FlashKernelBuilder::stridedCopies(Value buf, Value i0, Value i1,
                                       Value row, Value col, int64_t stepRows,
                                       Value s0, int64_t sStepBytes,
                                       int64_t count) {
  // Global byte address of copy 0 (the innermost dimension is contiguous:
  // 16-byte chunks), then a loop-invariant row step.
  const int64_t eb = cfg.eltBytes;
  auto md = memref::ExtractStridedMetadataOp::create(b, loc, buf);
  ValueRange st = md.getStrides();
  Value g0 = add(add(md.getOffset(), mul(i0, st[0])),
                 add(mul(i1, st[1]), add(mul(row, st[2]), col)));
  g0 = toI64(add(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buf),
                 mul(g0, eb)));
  Value gStep = toI64(mul(st[2], stepRows * eb));
  auto ptr = [&](unsigned space, Value a) {
    return LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), space), a);
  };
  for (int64_t i = 0; i < count; ++i) {
    Value si = arith::AddIOp::create(b, loc, s0, i64c(i * sStepBytes));
    Value gi = arith::AddIOp::create(
        b, loc, g0, arith::MulIOp::create(b, loc, gStep, i64c(i)));
    NVVM::CpAsyncOp::create(b, loc, ptr(3, si), ptr(1, gi), 16,
                            NVVM::LoadCacheModifierKind::CG, Value());
  }
}

void FlashKernelBuilder::ifThen(Value cond, llvm::function_ref<void()> body) {
  auto ifOp = scf::IfOp::create(b, loc, cond, false);
  OpBuilder::InsertionGuard gd(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  body();
}

Value FlashKernelBuilder::asyncCommit() {
  auto tokTy = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  return nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, tokTy, ValueRange{});
}

void FlashKernelBuilder::asyncWait(Value tok, int64_t pending) {
  nvgpu::DeviceAsyncWaitOp::create(b, loc, tok, b.getI32IntegerAttr(pending));
}

Value FlashKernelBuilder::ldmatrix(Value view, Value row, Value col, bool trans, int64_t tiles) {
  return ldmatrix(view, ValueRange{row, col}, trans, tiles);
}

Value FlashKernelBuilder::ldmatrix(Value view, ValueRange idx, bool trans,
                                   int64_t tiles) {
  return mma::ldmatrix(b, loc, view, idx, trans, tiles, elt);
}

Value FlashKernelBuilder::fastExp2(Value x) { return mma::fastExp2(b, loc, x); }

Value FlashKernelBuilder::mulRn(Value x, Value y) {
  return LLVM::CallIntrinsicOp::create(
             b, loc, f32, b.getStringAttr("llvm.nvvm.mul.rn.f"),
             ValueRange{x, y})
      .getResult(0);
}

Value FlashKernelBuilder::subRn(Value x, Value y) {
  Value negY = arith::NegFOp::create(b, loc, y);
  return LLVM::CallIntrinsicOp::create(
             b, loc, f32, b.getStringAttr("llvm.nvvm.add.rn.f"),
             ValueRange{x, negY})
      .getResult(0);
}

std::pair<Value, Value> FlashKernelBuilder::splitX4(Value x4) {
  return mma::splitX4(b, loc, x4, elt);
}

Value FlashKernelBuilder::mmaSync(Value a, Value bb, Value c) {
  return mma::mmaSync(b, loc, a, bb, c, elt);
}

Value FlashKernelBuilder::quadAllReduce(Value x, bool isMax) {
  for (int64_t off : {1, 2}) {
    Value o = gpu::ShuffleOp::create(b, loc, x, off, 32, gpu::ShuffleMode::XOR)
                  .getShuffleResult();
    x = isMax ? arith::MaximumFOp::create(b, loc, x, o).getResult()
              : arith::AddFOp::create(b, loc, x, o).getResult();
  }
  return x;
}

Value FlashKernelBuilder::pack(ArrayRef<Value> xs, Type t) {
  return mma::pack(b, loc, xs, t);
}

// Score and mask functions on the C fragments: the thread's element e of
// block (mt, nt) is row rowG[mt * 2 + e / 2] and key k0 + col2 + nt * 8 +
// e % 2, clamped into the tensors (keys past Sk are hidden afterwards).
// With block sparsity the mask function is evaluated only in the tiles
// the key-tile lists do not mark full (a uniform branch per tile).
void FlashKernelBuilder::mmaMods(const MmaCtx &cx, SmallVector<Value> &s,
                                 Value k0, bool score) {
  if (!(score ? mods.score : mods.mask))
    return;
  if (!score && cx.tileRow && keyTiles.full) {
    Value full = keyTiles.isFull(b, loc, cx.tileRow, k0, cfg.kvTile);
    auto partial = scf::IfOp::create(
        b, loc, TypeRange(ValueRange(s)),
        arith::XOrIOp::create(
            b, loc, full,
            arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1)),
        true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(partial.elseBlock());
    scf::YieldOp::create(b, loc, s);
    b.setInsertionPointToStart(partial.thenBlock());
    MmaCtx noLists = cx;
    noLists.tileRow = Value();
    SmallVector<Value> masked = s;
    mmaMods(noLists, masked, k0, score);
    scf::YieldOp::create(b, loc, masked);
    s.assign(partial.getResults().begin(), partial.getResults().end());
    return;
  }
  Value sqLast = sub(Sq, cst(1)), skLast = sub(Sk, cst(1));
  for (int64_t mt = 0; mt < cx.MT; ++mt)
    for (int64_t nt = 0; nt < cx.NT; ++nt)
      for (int64_t e = 0; e < 4; ++e) {
        Value i = minsi(cx.rowG[mt * 2 + e / 2], sqLast);
        Value j = minsi(add(add(k0, cx.col2), nt * 8 + e % 2), skLast);
        Value &x = s[(mt * cx.NT + nt) * 4 + e];
        if (!score) {
          x = mods.applyMask(b, loc, x, cx.negInf, {cx.bi, cx.h, i, j});
          continue;
        }
        Value nat = capScore(mulRn(x, scaleNat));
        nat = mods.applyScore(b, nat, {cx.bi, cx.h, i, j});
        x = mulRn(nat, maskScale);
      }
}

FlashKernelBuilder::MmaStep FlashKernelBuilder::mmaSoftmaxStep(const MmaCtx &cx, SmallVector<Value> s, Value k0,
                       ValueRange carried) {
  const int64_t MT = cx.MT, NT = cx.NT, DT = cx.DT, N = 8 * NT;
  Value one = cst(1), col2 = cx.col2, rowBase = cx.rowBase, shift = cx.shift,
        mb = cx.mb, mh = cx.mh, negInf = cx.negInf,
        fzero = cx.fzero;
  ArrayRef<Value> rowG = cx.rowG;

  auto colOf = [&](int64_t nt, int64_t e) {
    return add(add(k0, col2), nt * 8 + e % 2);
  };
  // The exponent (below) is 2^(x - a) with x = s * c and a = m * c, c =
  // scale * log2(e), each product rounded on its own. Where x is formed
  // is a scheduling choice measured on the H200 (bench/RESULTS.md,
  // session 6): the mma.sync kernel forms every x first and takes the max
  // over them (scaleFirst); the wgmma kernel keeps raw scores (max over
  // s, then a = round(m * c), the same value by monotonic rounding) and
  // forms each x right before its exponent. An additive mask joins raw
  // scores as mask / scale, scaled ones as mask * log2(e).
  // Softcap (capFolded, no additive mask): t = tanh(s * scale / c) takes
  // the raw score's place, the max is over t and each exponent is one FFMA
  // t * C - a (C = c log2(e); |t| <= 1 bounds its rounding error). With an
  // additive mask x = C * t is formed first, as in the mma.sync kernel.
  const bool capT = capFolded();
  const bool scaleFirst = scoresScaledFirst();
  Value rawC = rawScale();
  if (mods.score)
    mmaMods(cx, s, k0, /*score=*/true);
  else
    for (Value &x : s)
      x = capT ? capTanh(x)
          : !scaleFirst ? x
          : softcap ? capLog2(x)
                    : mulRn(x, scale);
  Value invScale = scaleFirst
                       ? maskScale
                       : arith::DivFOp::create(b, loc, maskScale, rawC)
                             .getResult();
  if (mask) {
    Value sqLast = sub(Sq, one), skLast = sub(Sk, one);
    for (int64_t mt = 0; mt < MT; ++mt)
    for (int64_t nt = 0; nt < NT; ++nt)
      for (int64_t e = 0; e < 4; ++e) {
        Value i = minsi(rowG[mt * 2 + e / 2], sqLast);
        Value j = minsi(colOf(nt, e), skLast);
        Value &x = s[(mt * NT + nt) * 4 + e];
        x = applyMaskEntry(x, mb, mh, i, j, negInf, [&](Value y, Value mf) {
          return fma(mf, invScale, y);
        });
      }
  }
  mmaMods(cx, s, k0, /*score=*/false);
  Value need = cmpi(arith::CmpIPredicate::ugt, add(k0, N), Sk);
  if (Value crosses =
          bandCrosses(k0, N, rowBase, add(rowBase, 16 * MT - 1), shift))
    need = arith::OrIOp::create(b, loc, need, crosses);
  {
    SmallVector<Type> types(MT * NT * 4, f32);
    auto ifNeed = scf::IfOp::create(b, loc, types, need, true);
    OpBuilder::InsertionGuard gd(b);
    b.setInsertionPointToStart(ifNeed.thenBlock());
    SmallVector<Value> masked;
    for (int64_t mt = 0; mt < MT; ++mt)
    for (int64_t nt = 0; nt < NT; ++nt)
      for (int64_t e = 0; e < 4; ++e) {
        Value j = colOf(nt, e);
        Value ok = inBand(cmpi(arith::CmpIPredicate::ult, j, Sk), j,
                          rowG[mt * 2 + e / 2], shift);
        masked.push_back(select(ok, s[(mt * NT + nt) * 4 + e], negInf));
      }
    scf::YieldOp::create(b, loc, masked);
    b.setInsertionPointToStart(ifNeed.elseBlock());
    scf::YieldOp::create(b, loc, s);
    b.setInsertionPointAfter(ifNeed);
    for (int64_t x = 0; x < MT * NT * 4; ++x)
      s[x] = ifNeed.getResult(x);
  }

  // Online softmax for the thread's rows (g and g + 8 of each m16
  // tile); r = mt * 2 + hh indexes them.
  SmallVector<Value> mNew(2 * MT), lNew(2 * MT), alpha(2 * MT);
  SmallVector<Value> p(MT * NT * 4);
  for (int64_t mt = 0; mt < MT; ++mt)
    for (int64_t hh = 0; hh < 2; ++hh) {
      int64_t r = mt * 2 + hh;
      Value mx = negInf;
      for (int64_t nt = 0; nt < NT; ++nt)
        for (int64_t e = 2 * hh; e < 2 * hh + 2; ++e)
          mx = arith::MaximumFOp::create(b, loc, mx,
                                         s[(mt * NT + nt) * 4 + e]);
      mx = quadAllReduce(mx, /*isMax=*/true);
      mNew[r] = arith::MaximumFOp::create(b, loc, carried[r], mx);
      Value dead = arith::CmpFOp::create(
          b, loc, arith::CmpFPredicate::OEQ, mNew[r], negInf);
      Value mSafe = select(dead, fzero, mNew[r]);
      // exp(scale * (s - m)) = 2^(x - a) with x = s * c and a = m * c,
      // c = scale * log2(e), each product rounded on its own: rounding is
      // monotonic, so a = max x exactly, x - a <= 0 and is exactly 0 at
      // the maximum, for any magnitude. (FlashAttention-2's single FFMA
      // s * c - a keeps the rounding error of the exact product s * c:
      // with a huge finite maximum, e.g. a K/V tile hidden by a -1e30
      // additive mask or logits of 1e10, that error exceeds 128 and exp2
      // gives inf, then inf * 0 = NaN, or 0; CASES.md H2/H3.) The rescale
      // uses the same rounded anchors: alpha = 2^(a_old - a_new).
      Value a = scaleFirst ? mSafe : mulRn(mSafe, rawC);
      Value aOld = scaleFirst ? carried[r] : mulRn(carried[r], rawC);
      alpha[r] = fastExp2(subRn(aOld, a));
      lNew[r] =
          arith::MulFOp::create(b, loc, carried[2 * MT + r], alpha[r]);
      Value negA = capT ? arith::NegFOp::create(b, loc, a).getResult() : a;
      for (int64_t nt = 0; nt < NT; ++nt)
        for (int64_t e = 2 * hh; e < 2 * hh + 2; ++e) {
          int64_t x = (mt * NT + nt) * 4 + e;
          p[x] = fastExp2(
              capT ? fma(s[x], rawC, negA)
                   : subRn(scaleFirst ? s[x] : mulRn(s[x], scale), a));
          lNew[r] = arith::AddFOp::create(b, loc, lNew[r], p[x]);
        }
    }
  SmallVector<Value> next(mNew.begin(), mNew.end());
  next.append(lNew.begin(), lNew.end());
  SmallVector<Value> o; // o[mt * DT + dt]
  for (int64_t mt = 0; mt < MT; ++mt) {
    Value alphaVec = pack({alpha[mt * 2], alpha[mt * 2],
                           alpha[mt * 2 + 1], alpha[mt * 2 + 1]},
                          f32);
    for (int64_t dt = 0; dt < DT; ++dt)
      o.push_back(arith::MulFOp::create(
          b, loc, carried[4 * MT + mt * DT + dt], alphaVec));
  }
  return {std::move(next), std::move(o), std::move(p)};
}

void FlashKernelBuilder::storeLse(Value mNat, Value l, Value bi, Value h, Value i) {
  Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l,
                                     fcst(0.0));
  Value v = arith::AddFOp::create(b, loc, mNat,
                                  math::LogOp::create(b, loc, l));
  v = select(none, fcst(-std::numeric_limits<double>::infinity()), v);
  memref::StoreOp::create(b, loc, v, lseOut, ValueRange{bi, h, i});
}

void FlashKernelBuilder::storeMmaOutput(const MmaCtx &cx, ValueRange results, Value bi,
                    Value h) {
  const int64_t MT = cx.MT, DT = cx.DT;
  Value col2 = cx.col2, fzero = cx.fzero;
  ArrayRef<Value> rowG = cx.rowG;
  // O / l, two elements per store.
  Value fone = fcst(1.0);
  for (int64_t r = 0; r < 2 * MT; ++r) {
    int64_t mt = r / 2, hh = r % 2;
    Value l = quadAllReduce(results[2 * MT + r], /*isMax=*/false);
    Value dead = deadRow(rowG[r]); // past q_lengths: 0 (and lse -inf)
    if (dead)
      l = select(dead, fzero, l);
    Value none =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l, fzero);
    Value inv = select(none, fzero, arith::DivFOp::create(b, loc, fone, l));
    Value invVec = vector::BroadcastOp::create(b, loc, vec(2, f32), inv);
    auto ifRow = scf::IfOp::create(
        b, loc, cmpi(arith::CmpIPredicate::ult, rowG[r], Sq), false);
    OpBuilder::InsertionGuard gd(b);
    b.setInsertionPointToStart(ifRow.thenBlock());
    // The anchor a of the exponents 2^(x - a) (mmaSoftmaxStep): the
    // carried max in exp2 units (scoresScaledFirst) or raw, times ln 2.
    auto maxNat = [&] {
      Value m = results[r];
      Value a = scoresScaledFirst() ? m : mulRn(m, rawScale());
      return arith::MulFOp::create(b, loc, a, fcst(0.69314718055994531))
          .getResult();
    };
    if (split.count) {
      // Several chunks: the row's part, merged by emitMergeKernel; one
      // chunk (count 1 at run time): the output below.
      auto ifParts = scf::IfOp::create(
          b, loc, cmpi(arith::CmpIPredicate::ugt, split.count, cst(1)), true);
      b.setInsertionPointToStart(ifParts.thenBlock());
      SmallVector<Value> oPairs;
      for (int64_t dt = 0; dt < DT; ++dt)
        oPairs.push_back(vector::ExtractOp::create(
            b, loc, results[4 * MT + mt * DT + dt], ArrayRef<int64_t>{hh}));
      storeMmaPart(add(mul(add(mul(bi, H), h), Sq), rowG[r]), maxNat(), l,
                   col2, oPairs);
      b.setInsertionPointToStart(ifParts.elseBlock());
    }
    if (lseOut) {
      Value mNat = maxNat();
      ifThen(cmpi(arith::CmpIPredicate::eq, col2, cst(0)),
             [&] { storeLse(mNat, l, bi, h, rowG[r]); });
    }
    for (int64_t dt = 0; dt < DT; ++dt) {
      Value row = vector::ExtractOp::create(
          b, loc, results[4 * MT + mt * DT + dt],
          ArrayRef<int64_t>{hh});
      Value y = arith::MulFOp::create(b, loc, row, invVec);
      if (dead) // (0 * NaN: a padding row of Q may hold anything)
        y = select(dead,
                   vector::BroadcastOp::create(b, loc, vec(2, f32), fzero), y);
      y = arith::TruncFOp::create(b, loc, vec(2, elt), y);
      vector::StoreOp::create(b, loc, y, out,
                              ValueRange{bi, h, rowG[r], add(col2, dt * 8)},
                              /*nontemporal=*/false,
                              llvm::MaybeAlign(2 * cfg.eltBytes));
    }
  }
}
