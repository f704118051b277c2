//===- DecodeKernel.cpp - the split-KV decode kernel ------------------------===//
//
// FlashDecoding with grouped-query packing (issue #17): CTA (b, K/V head,
// split), each warp on its own cp.async pipeline of key tiles, the warps'
// and splits' states merged with the log-sum-exp rule. A warp computes a
// tile's products on CUDA cores (two lanes per key), or on tensor cores
// (mma.sync m16n8k16, the packed rows as the M tile) for f16 with 4 or more
// rows (cfg.decodeTC, chosen by the strategy); both write the same per-warp
// state, so the merges are shared.
//
//===----------------------------------------------------------------------===//
#include "GPU/FlashKernelBuilder.h"

using namespace mlir;
using namespace mlir::tx;

Value FlashKernelBuilder::ceilDiv(Value x, Value y) {
  return arith::CeilDivUIOp::create(b, loc, x, y);
}

Value FlashKernelBuilder::fmax(Value x, Value y) {
  return arith::MaximumFOp::create(b, loc, x, y);
}

Value FlashKernelBuilder::feq(Value x, Value y) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, y);
}

Value FlashKernelBuilder::decodeSwizzle(Value row, Value col, int64_t width) {
  if (!cfg.decodeSwizzled(width))
    return add(mul(row, cfg.decodeTileStride(width)), col); // padded rows
  const int64_t nv = 16 / cfg.eltBytes, rowBytes = width * cfg.eltBytes;
  // Lines per row: the XOR pattern follows the row when rows are whole
  // lines, else the line (64-byte rows: two rows per line).
  const int64_t lpr = rowBytes % 128 == 0 ? rowBytes / 128 : 1;
  Value f = add(mul(row, width / nv), arith::DivUIOp::create(b, loc, col,
                                                              cst(nv)));
  Value line = arith::DivUIOp::create(b, loc, f, cst(8));
  Value c8 = arith::RemUIOp::create(b, loc, f, cst(8));
  Value sel = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, line, cst(lpr)), cst(8));
  Value c8s = arith::XOrIOp::create(b, loc, c8, sel);
  return mul(add(mul(line, 8), c8s), nv);
}

std::pair<Value, Value> FlashKernelBuilder::emitPlainLaunch(Value blocks, int64_t threads,
                                        int64_t smemBytes, Value cluster) {
  Value one = cst(1);
  Value smem =
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), smemBytes);
  auto launch = gpu::LaunchOp::create(
      b, loc, blocks, one, one, cst(threads), one, one, smem,
      /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{},
      /*workgroupAttributions=*/{}, /*privateAttributions=*/{}, cluster,
      cluster ? one : Value(), cluster ? one : Value());
  // LLVM 22's builder gives the body the 12 arguments of a launch without
  // clusters; the op (its parser, verifier and outlining) expects 6 more,
  // the cluster ids and sizes, after them.
  if (cluster)
    for (int k = 0; k < 6; ++k)
      launch.getBody().front().addArgument(b.getIndexType(), loc);
  b.setInsertionPointToStart(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&launch.getBody().front());
  return {launch.getThreadIds().x, launch.getBlockIds().x};
}

void FlashKernelBuilder::emitDecode() {
  const int64_t C = cfg.decodeCluster;
  if (C == 0 || !cfg.decodeClusterShortOnly) {
    emitDecodeCall();
    return;
  }
  // The strategy's default on sm_90+: the cluster merge only for calls that
  // are few CTAs and short chunks, B * Hkv * C <= num-sms / 2 and
  // Sk <= 256 * C, where the workspace merge's fixed latency dominates;
  // else the workspace merge, whose kernel runs more CTAs per SM. H200
  // (bench/RESULTS.md session 19): B = 1, H/Hkv 32/8, Sk 2048: 6.7 us with
  // the cluster merge (8 splits), 8.6 us with the workspace merge, cuDNN
  // 7.1; but 14.0 vs 12.7 us at Sk 8192, and 5-20 % slower wherever the
  // clusters held more CTAs than half the SMs (MHA 32/32, B = 8).
  Value Hkv = arith::DivUIOp::create(b, loc, H, G);
  Value few = cmpi(arith::CmpIPredicate::ule, mul(mul(B, Hkv), C),
                   cst(cfg.numSms / 2));
  Value shortKeys = cmpi(arith::CmpIPredicate::ule, Sk, cst(256 * C));
  auto ifShort = scf::IfOp::create(
      b, loc, arith::AndIOp::create(b, loc, few, shortKeys), true);
  OpBuilder::InsertionGuard g(b);
  // A kernel's body rebinds the builder's Sk and batchRows (per-sequence
  // lengths, emitBatchLengths) and tid to values of that kernel: each
  // form starts from the call's.
  const Value sk = Sk, rows = batchRows, tid0 = tid;
  b.setInsertionPointToStart(ifShort.thenBlock());
  emitDecodeCall();
  Sk = sk, batchRows = rows, tid = tid0;
  b.setInsertionPointToStart(ifShort.elseBlock());
  cfg.decodeCluster = 0;
  emitDecodeCall();
  cfg.decodeCluster = C;
  Sk = sk, batchRows = rows, tid = tid0;
}

void FlashKernelBuilder::emitDecodeCall() {
  const int64_t W = cfg.warps, Gs = cfg.decodeG, SqS = cfg.decodeSq;
  const int64_t P = Gs * SqS, D = cfg.D, Dv = cfg.Dv;
  const int64_t nv = 16 / cfg.eltBytes; // elements per 16-byte K load
  const int64_t Cv = Dv / 32;           // output columns per lane
  Value zero = cst(0), one = cst(1);
  Value negInf = fcst(-std::numeric_limits<double>::infinity());
  Value fzero = fcst(0.0);
  Value Hkv = arith::DivUIOp::create(b, loc, H, G);
  Value bh = mul(B, Hkv);

  // Splits: one wave of CTAs (as many as fit on num-sms SMs at once, from
  // the shared memory per CTA) over B * Hkv * splits, at least 2 tiles
  // per warp per split, a multiple of 32 keys each. Fewer, longer CTAs
  // keep each warp's pipeline full; B * Hkv beyond one wave takes 1 split.
  Value nSplit;
  if (cfg.kvSplits > 0) {
    nSplit = cst(cfg.kvSplits);
  } else {
    int64_t perSm = std::clamp<int64_t>(
        cfg.smemPerSm / (cfg.decodeSmemBytes() + 1024), 1, 64 / W);
    // With per-sequence lengths the chunks of the padded Sk hold unequal
    // work (a chunk past a sequence's length returns at once): four waves
    // of finer chunks even it out (H200, 16 sequences of random lengths
    // up to 8192: 126 -> 103 us, bench/RESULTS.md session 12).
    int64_t waves = kvLens ? 4 : 1;
    Value want = arith::DivUIOp::create(
        b, loc, cst(waves * perSm * cfg.numSms), maxsi(bh, one));
    Value most = ceilDiv(Sk, cst(2 * cfg.decodeTileKeys * W));
    nSplit = maxsi(minsi(want, most), one);
    // At most 32 splits where that still gives every SM a CTA: the merge
    // then reads every part of a row in one round trip (mergeDecodeRow;
    // more parts take one per group of 32 plus one for the maximum). H200,
    // B = 1, 32/8, Sk 131072: 128.3 us with 66 or 33 splits, 125.2 with
    // 32 (cuDNN 125.1; bench/RESULTS.md session 20). Not with per-sequence
    // lengths, whose finer chunks even out unequal sequences, nor for Dv
    // above 128 (always the grouped merge).
    if (!kvLens && Dv <= 128)
      nSplit = arith::SelectOp::create(
          b, loc,
          cmpi(arith::CmpIPredicate::uge, mul(bh, cst(32)), cst(cfg.numSms)),
          minsi(nSplit, cst(32)), nSplit);
  }
  // The cluster merge: at most decodeCluster splits (a forced kv-splits is
  // not above it), the CTAs of one (batch, K/V head) one thread-block
  // cluster.
  const int64_t C = cfg.decodeCluster;
  if (C > 0 && cfg.kvSplits == 0)
    nSplit = minsi(nSplit, cst(C));
  Value keysPerSplit =
      maxsi(mul(ceilDiv(ceilDiv(Sk, nSplit), cst(32)), 32), cst(32));
  nSplit = maxsi(ceilDiv(Sk, keysPerSplit), one); // (not above nSplit)
  Value nRows = mul(mul(B, H), Sq);
  // The workspace merge in a second kernel (FlashConfig::decodeMergeKernel):
  // no counters, memset, fence or ticket.
  const bool mergeKernel = C == 0 && cfg.decodeMergeKernel;
  Value oPart, mlPart, counters;
  if (C == 0) {
    auto buf1d = MemRefType::get({ShapedType::kDynamic}, f32);
    oPart = memref::AllocOp::create(
        b, loc, buf1d, ValueRange{maxsi(mul(mul(nSplit, nRows), Dv), one)});
    mlPart = memref::AllocOp::create(
        b, loc, buf1d, ValueRange{maxsi(mul(mul(nSplit, nRows), 2), one)});
    // Part p of row `row`: m at mlPart[p * nRows + row], l at
    // mlPart[(nSplit + p) * nRows + row], O at oPart[(p * nRows + row) * Dv].
  }
  if (C == 0 && !mergeKernel) {
    // Arrival counters, one per (batch, K/V head), zeroed before the launch:
    // the last CTA of each to finish merges its parts.
    counters = memref::AllocOp::create(
        b, loc, MemRefType::get({ShapedType::kDynamic}, b.getI32Type()),
        ValueRange{maxsi(bh, one)});
    ifThen(cmpi(arith::CmpIPredicate::ugt, nSplit, one), [&] {
      auto tokTy = gpu::AsyncTokenType::get(b.getContext());
      Value t0 =
          gpu::WaitOp::create(b, loc, tokTy, ValueRange{}).getAsyncToken();
      Value t1 = gpu::MemsetOp::create(
                     b, loc, tokTy, ValueRange{t0}, counters,
                     arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0))
                     .getAsyncToken();
      gpu::WaitOp::create(b, loc, Type(), ValueRange{t1});
    });
  }

  // ---- kernel 1: split-KV partial states ----
  // Shared memory (FlashConfig::decodeSmemBytes): Q (P x D f32,
  // pre-scaled; tensor cores: 16 padded rows of Q's type), then per warp
  // its P buffer (P x TK f32) and S stages of one TK-key tile each, K then
  // V (layout below, decodeSwizzle). Each warp runs its own cp.async
  // pipeline, S - 1 tiles ahead, synchronized by warp barriers only.
  const int64_t S = cfg.decodeStages;
  const int64_t TK = cfg.decodeTileKeys; // keys per warp step
  const int64_t LPK = 32 / TK;           // lanes per key
  const int64_t DL = D / LPK;            // K columns per lane
  const int64_t qStr = cfg.decodeQStride();
  const int64_t qBytes = cfg.decodeQBytes(), pBytes = cfg.decodePBytes();
  const int64_t kBytes = cfg.decodeKBytes(), vBytes = cfg.decodeVBytes();
  const int64_t warpBytes = cfg.decodeWarpStride();
  Value blocks = mul(bh, nSplit);
  ifThen(cmpi(arith::CmpIPredicate::ugt, blocks, zero), [&] {
    OpBuilder::InsertionGuard g(b);
    auto [tidV, bid] = emitPlainLaunch(blocks, 32 * W, cfg.decodeSmemBytes(),
                                       C > 0 ? nSplit : Value());
    b.getBlock()->getParentOp()->setAttr(
        kRequiredChipAttr,
        b.getStringAttr(C > 0 || mergeKernel ? "sm_90" : "sm_80"));
    tid = tidV;
    Value lane = arith::RemUIOp::create(b, loc, tid, cst(32));
    Value warp = arith::DivUIOp::create(b, loc, tid, cst(32));
    Value sp = arith::RemUIOp::create(b, loc, bid, nSplit);
    Value bhk = arith::DivUIOp::create(b, loc, bid, nSplit);
    Value kh = arith::RemUIOp::create(b, loc, bhk, Hkv);
    Value bi = arith::DivUIOp::create(b, loc, bhk, Hkv);
    // Causal: key j visible to row i iff j <= i + shift (Sk - Sq, or
    // Lk - Lq of the batch; kv_lengths also replace Sk in this kernel).
    Value shift;
    if (kvLens || qLens)
      shift = emitBatchLengths(bi);
    auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                         gpu::AddressSpace::Workgroup);
    Value base = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(), wg));
    auto view = [&](Value off, ArrayRef<int64_t> shape, Type et) -> Value {
      auto ty = MemRefType::get(shape, et, MemRefLayoutAttrInterface(), wg);
      return memref::ViewOp::create(b, loc, ty, base, off, ValueRange{});
    };
    Value qs = smemView(base, 0, P * D);
    Value warpBase = add(cst(qBytes), mul(warp, warpBytes));
    Value ps = view(warpBase, {P * TK}, f32);
    // Stage s of this warp: K at kView(s), V at vView(s).
    auto stageOff = [&](Value s) {
      return add(add(warpBase, pBytes), mul(s, kBytes + vBytes));
    };
    // K and V tiles in shared memory (decodeSwizzle): rows of whole
    // 128-byte lines (or 64 bytes) as the tile's global bytes (TK whole
    // rows, contiguous) with the 16-byte chunks of each line permuted by an
    // XOR with the row. A warp's cp.async of 512 contiguous bytes then
    // fills four aligned 128-byte lines: with rows padded by 16 bytes
    // instead, lines straddled the padding and the copies asked L2 for
    // 1.5x the sectors (H200 ncu, bench/RESULTS.md session 13); ldmatrix
    // and the CUDA-core K loads read 8 rows' same chunk from 8 distinct
    // bank groups. Other row widths (e.g. 80, 96 f16) stay padded by 16
    // bytes, where the permutation would cost bank conflicts. The
    // CUDA-core form's V rows (read along the row) stay in order.
    const bool swizzleV = cfg.decodeTC;
    auto kView = [&](Value s) {
      return view(stageOff(s), {TK * cfg.decodeTileStride(D)}, elt);
    };
    auto vView = [&](Value s) {
      return swizzleV
                 ? view(add(stageOff(s), kBytes),
                        {TK * cfg.decodeTileStride(Dv)}, elt)
                 : view(add(stageOff(s), kBytes), {TK, Dv}, elt);
    };
    // Packed row r: head kh * G + r / Sq, query row r % Sq.
    auto headOf = [&](int64_t r) { return add(mul(kh, Gs), r / SqS); };

    Value kBegin = mul(sp, keysPerSplit);
    Value kEnd = minsi(Sk, add(kBegin, keysPerSplit));
    Value nT = ceilDiv(maxsi(sub(kEnd, kBegin), zero), cst(TK));
    // This warp's tiles: warp, warp + W, ... (nLocal of them).
    Value nLocal = ceilDiv(maxsi(sub(nT, warp), zero), cst(W));
    Value skLast = sub(Sk, one);
    if (!shift)
      shift = sub(Sk, Sq);
    Value mb = mask && !maskBatchBcast ? bi : zero;
    auto tileStart = [&](Value u) {
      return add(kBegin, mul(add(warp, mul(u, W)), TK));
    };

    // cp.async of local tile u (when it exists) into stage u % S; rows
    // past the chunk are zero-filled, never read. Always one group.
    auto tokTy = nvgpu::DeviceAsyncTokenType::get(b.getContext());
    auto issue = [&](Value u) -> Value {
      ifThen(cmpi(arith::CmpIPredicate::ult, u, nLocal), [&] {
        Value j0 = tileStart(u);
        Value s = arith::RemUIOp::create(b, loc, u, cst(S));
        auto copyRows = [&](Value buf, Value dst, int64_t width, bool sw) {
          int64_t cpr = width / nv; // 16-byte chunks per row
          for (int64_t c0 = 0; c0 < TK * cpr; c0 += 32) {
            Value c = add(lane, c0);
            auto copy = [&] {
              Value r = arith::DivUIOp::create(b, loc, c, cst(cpr));
              Value col =
                  mul(arith::RemUIOp::create(b, loc, c, cst(cpr)), nv);
              Value gRow = add(j0, r);
              Value ok = cmpi(arith::CmpIPredicate::ult, gRow, kEnd);
              Value n = select(ok, cst(nv), zero);
              SmallVector<Value> at{r, col};
              if (sw)
                at = {decodeSwizzle(r, col, width)};
              nvgpu::DeviceAsyncCopyOp::create(
                  b, loc, tokTy, dst, at, buf,
                  ValueRange{bi, kh, minsi(gRow, skLast), col},
                  b.getIndexAttr(nv), n, b.getUnitAttr());
            };
            if (c0 + 32 <= TK * cpr)
              copy();
            else
              ifThen(cmpi(arith::CmpIPredicate::ult, c, cst(TK * cpr)),
                     copy);
          }
        };
        copyRows(k, kView(s), D, true);
        copyRows(v, vView(s), Dv, swizzleV);
      });
      return asyncCommit();
    };
    Value allLanes = arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1);
    auto syncWarp = [&] { NVVM::SyncWarpOp::create(b, loc, allLanes); };
    // The first S - 1 tiles are in flight while Q is loaded.
    for (int64_t s = 0; s + 1 < S; ++s)
      issue(cst(s));
    if (cfg.decodeTC) {
      // ---- tensor cores: mma.sync m16n8k16, the P <= 16 packed rows as
      // the M tile (rows >= P zero), 16 keys (two n8 blocks) per step ----
      const int64_t KD = D / 16, DT = Dv / 8;
      Value qsT = view(zero, {16, qStr}, elt);
      scf::ForOp::create(
          b, loc, tid, cst(16 * D), cst(32 * W), ValueRange{},
          [&](OpBuilder &, Location, Value idx, ValueRange) {
            Value r = arith::DivUIOp::create(b, loc, idx, cst(D));
            Value d = arith::RemUIOp::create(b, loc, idx, cst(D));
            Value live = cmpi(arith::CmpIPredicate::ult, r, cst(P));
            Value rc = minui(r, cst(P - 1));
            Value gq = arith::DivUIOp::create(b, loc, rc, cst(SqS));
            Value i = arith::RemUIOp::create(b, loc, rc, cst(SqS));
            Value h = add(mul(kh, Gs), gq);
            Value x = memref::LoadOp::create(b, loc, q, ValueRange{bi, h, i, d});
            Value z = arith::ConstantOp::create(b, loc, b.getZeroAttr(elt));
            memref::StoreOp::create(b, loc, select(live, x, z), qsT,
                                    ValueRange{r, d});
            scf::YieldOp::create(b, loc);
          });
      gpu::BarrierOp::create(b, loc); // Q is in shared memory
      Value lane16 = arith::RemUIOp::create(b, loc, lane, cst(16));
      Value laneHi8 = mul(arith::DivUIOp::create(b, loc, lane, cst(16)), 8);
      SmallVector<Value> qa;
      for (int64_t kk = 0; kk < KD; ++kk)
        qa.push_back(ldmatrix(qsT, lane16, add(laneHi8, kk * 16),
                              /*trans=*/false, 4));
      Value g = arith::DivUIOp::create(b, loc, lane, cst(4));
      Value t4 = arith::RemUIOp::create(b, loc, lane, cst(4));
      Value col2 = mul(t4, 2);
      Value kRow8 = arith::RemUIOp::create(b, loc, lane, cst(8));
      Value kCol8x4 = mul(arith::DivUIOp::create(b, loc, lane, cst(8)), 8);
      VectorType accTy = vec2(2, 2, f32);
      Value accZero = arith::ConstantOp::create(
          b, loc, accTy, DenseElementsAttr::get(accTy, 0.0f));
      // The thread's rows g and g + 8: packed row r is query row r % Sq.
      Value rowOf[2] = {g, add(g, 8)};
      Value qRow[2], rowLive[2];
      for (int64_t hh = 0; hh < 2; ++hh) {
        qRow[hh] = arith::RemUIOp::create(b, loc, rowOf[hh], cst(SqS));
        rowLive[hh] = cmpi(arith::CmpIPredicate::ult, rowOf[hh], cst(P));
        if (batchRows)
          rowLive[hh] = arith::AndIOp::create(
              b, loc, rowLive[hh],
              cmpi(arith::CmpIPredicate::slt, qRow[hh], batchRows));
      }
      SmallVector<Value> init = {negInf, negInf, fzero, fzero};
      init.append(DT, accZero);
      auto tcLoop = scf::ForOp::create(
          b, loc, zero, nLocal, one, init,
          [&](OpBuilder &, Location, Value u, ValueRange carried) {
            syncWarp();
            asyncWait(issue(add(u, S - 1)), S - 1); // tile u has landed
            syncWarp();
            Value s = arith::RemUIOp::create(b, loc, u, cst(S));
            Value ks = kView(s), vs = vView(s);
            Value j0 = tileStart(u);
            // S = Q K^T (raw scores), sv[nt * 4 + e].
            SmallVector<Value> sv(8);
            for (int64_t nt = 0; nt < 2; ++nt) {
              Value acc = accZero;
              for (int64_t kk = 0; kk < KD; kk += 2) {
                auto [b0, b1] = splitX4(ldmatrix(
                    ks,
                    {decodeSwizzle(add(kRow8, nt * 8), add(kCol8x4, kk * 16),
                                   D)},
                    /*trans=*/false, 4));
                acc = mmaSync(qa[kk], b0, acc);
                acc = mmaSync(qa[kk + 1], b1, acc);
              }
              for (int64_t e = 0; e < 4; ++e)
                sv[nt * 4 + e] = vector::ExtractOp::create(
                    b, loc, acc, ArrayRef<int64_t>{e / 2, e % 2});
            }
            // Scores in the exp2 domain; hidden: past the chunk, rows past
            // P (or q_lengths), the causal diagonal.
            for (int64_t nt = 0; nt < 2; ++nt)
              for (int64_t e = 0; e < 4; ++e) {
                int64_t hh = e / 2;
                Value j = add(add(j0, col2), nt * 8 + e % 2);
                Value ok = arith::AndIOp::create(
                    b, loc, cmpi(arith::CmpIPredicate::ult, j, kEnd),
                    rowLive[hh]);
                if (prob.causal)
                  ok = arith::AndIOp::create(
                      b, loc, ok,
                      cmpi(arith::CmpIPredicate::sle, j,
                           add(shift, qRow[hh])));
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
                b, loc, accTy,
                ValueRange{alpha[0], alpha[0], alpha[1], alpha[1]});
            Value pa = pack({pv[0], pv[1], pv[2], pv[3], pv[4], pv[5], pv[6],
                             pv[7]},
                            elt);
            // O = O * alpha + P V: the step's P V from a zero accumulator,
            // folded in by one fma.rn (accumulated in O, the mma's
            // truncating f32 addition biased long rows low; issue #38).
            for (int64_t dt = 0; dt < DT; dt += 2) {
              auto [b0, b1] = splitX4(ldmatrix(
                  vs, {decodeSwizzle(lane16, add(laneHi8, dt * 8), Dv)},
                  /*trans=*/true, 4));
              for (int64_t j = 0; j < 2; ++j)
                next[4 + dt + j] = math::FmaOp::create(
                    b, loc, carried[4 + dt + j], aVec,
                    mmaSync(pa, j ? b1 : b0, accZero));
            }
            scf::YieldOp::create(b, loc, next);
          });
      asyncWaitAll(); // no cp.async left in flight
      gpu::BarrierOp::create(b, loc); // every warp is done with its stages
      // The warp's state (m in natural units, l, O) to shared memory.
      Value st = view(warpBase, {P * (Dv + 2)}, f32);
      Value ln2 = fcst(0.69314718055994531);
      for (int64_t hh = 0; hh < 2; ++hh) {
        Value l = quadAllReduce(tcLoop.getResult(2 + hh), false);
        Value r = rowOf[hh];
        ifThen(cmpi(arith::CmpIPredicate::ult, r, cst(P)), [&] {
          ifThen(cmpi(arith::CmpIPredicate::eq, t4, zero), [&] {
            memref::StoreOp::create(b, loc, fmul(tcLoop.getResult(hh), ln2),
                                    st, r);
            memref::StoreOp::create(b, loc, l, st, add(r, P));
          });
          for (int64_t dt = 0; dt < DT; ++dt)
            for (int64_t c = 0; c < 2; ++c) {
              Value o = vector::ExtractOp::create(
                  b, loc, tcLoop.getResult(4 + dt), ArrayRef<int64_t>{hh, c});
              memref::StoreOp::create(
                  b, loc, o, st,
                  add(add(mul(r, Dv), col2), 2 * P + dt * 8 + c));
            }
        });
      }
    } else {
      // Q rows, pre-scaled, f32.
      scf::ForOp::create(
          b, loc, tid, cst(P * D), cst(32 * W), ValueRange{},
          [&](OpBuilder &, Location, Value idx, ValueRange) {
            Value r = arith::DivUIOp::create(b, loc, idx, cst(D));
            Value d = arith::RemUIOp::create(b, loc, idx, cst(D));
            Value gq = arith::DivUIOp::create(b, loc, r, cst(SqS));
            Value i = arith::RemUIOp::create(b, loc, r, cst(SqS));
            Value h = add(mul(kh, Gs), gq);
            Value x = toF32(
                memref::LoadOp::create(b, loc, q, ValueRange{bi, h, i, d}));
            memref::StoreOp::create(b, loc, fmul(x, scaleNat), qs, idx);
            scf::YieldOp::create(b, loc);
          });
      gpu::BarrierOp::create(b, loc); // Q is in shared memory

      SmallVector<Value> init;
      for (int64_t r = 0; r < P; ++r)
        init.push_back(negInf); // m
      for (int64_t r = 0; r < P; ++r)
        init.push_back(fzero); // l (this lane's keys)
      for (int64_t x = 0; x < P * Cv; ++x)
        init.push_back(fzero); // O (columns lane * Cv + c)

      auto tLoop = scf::ForOp::create(
          b, loc, zero, nLocal, one, init,
          [&](OpBuilder &, Location, Value u, ValueRange carried) {
            // Every lane is done with stage (u - 1) % S (and the P buffer)
            // before tile u + S - 1 is copied over it.
            syncWarp();
            asyncWait(issue(add(u, S - 1)), S - 1); // tile u has landed
            syncWarp();
            Value s = arith::RemUIOp::create(b, loc, u, cst(S));
            Value ks = kView(s), vs = vView(s);
            Value j0 = tileStart(u);
            // Lane: key kk of the tile, columns [part * DL, part * DL + DL).
            Value kk = arith::RemUIOp::create(b, loc, lane, cst(TK));
            Value part = arith::DivUIOp::create(b, loc, lane, cst(TK));
            Value j = add(j0, kk);
            Value valid = cmpi(arith::CmpIPredicate::ult, j, kEnd);
            Value jc = minsi(j, skLast);
            // S = Q K^T for the lane's key and every packed row.
            SmallVector<Value> sc(P, fzero);
            Value col0 = mul(part, DL);
            for (int64_t c = 0; c < DL; c += nv) {
              Value kv = toF32(vector::LoadOp::create(
                  b, loc, vec(nv, elt), ks,
                  ValueRange{decodeSwizzle(kk, add(col0, c), D)},
                  /*nontemporal=*/false, llvm::MaybeAlign(16)));
              for (int64_t e = 0; e < nv; e += 4)
                for (int64_t r = 0; r < P; ++r) {
                  Value qv = loadShared(qs, add(col0, r * D + c + e), 4);
                  for (int64_t x = 0; x < 4; ++x)
                    sc[r] = fma(lanePart(qv, x), lanePart(kv, e + x), sc[r]);
                }
            }
            // The LPK lanes of a key add their column shares.
            for (int64_t r = 0; r < P; ++r)
              for (int64_t off = TK; off < 32; off *= 2)
                sc[r] = fadd(sc[r], gpu::ShuffleOp::create(
                                        b, loc, sc[r], off, 32,
                                        gpu::ShuffleMode::XOR)
                                        .getShuffleResult());
            // Hidden keys: past the chunk, the causal diagonal, the mask.
            for (int64_t r = 0; r < P; ++r) {
              int64_t i = r % SqS;
              Value x = capScore(sc[r]);
              if (mask) {
                Value mh = maskHeadBcast ? zero : headOf(r);
                Value mv = memref::LoadOp::create(
                    b, loc, mask, ValueRange{mb, mh, cst(i), jc});
                if (keepMask) {
                  x = select(mv, x, negInf);
                } else {
                  Value mf = toF32(mv);
                  x = select(feq(mf, negInf), negInf, fadd(x, mf));
                }
              }
              Value ok = valid;
              if (batchRows) // rows past q_lengths see no key
                ok = arith::AndIOp::create(
                    b, loc, ok,
                    cmpi(arith::CmpIPredicate::slt, cst(i), batchRows));
              if (prob.causal)
                ok = arith::AndIOp::create(
                    b, loc, ok,
                    cmpi(arith::CmpIPredicate::sle, j, add(shift, cst(i))));
              sc[r] = select(ok, x, negInf);
            }
            // Online softmax per row; P to the warp's P buffer (written by
            // the first lane of each key; l counts each key LPK times).
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
                next[2 * P + r * Cv + c] =
                    fmul(carried[2 * P + r * Cv + c], alpha);
            }
            ifThen(cmpi(arith::CmpIPredicate::eq, part, zero), [&] {
              for (int64_t r = 0; r < P; ++r)
                memref::StoreOp::create(b, loc, pr[r], ps,
                                        ValueRange{add(kk, r * TK)});
            });
            syncWarp();
            // O += P V: each V row read once from shared memory, P of 4
            // keys per broadcast load.
            auto emitPV = [&](bool sel) -> SmallVector<Value> {
              SmallVector<Value> o(next.begin() + 2 * P, next.end());
              Value col = mul(lane, Cv);
              for (int64_t k4 = 0; k4 < TK; k4 += 4) {
                SmallVector<Value> p4(P);
                for (int64_t r = 0; r < P; ++r)
                  p4[r] = loadShared(ps, cst(r * TK + k4), 4);
                for (int64_t kk = k4; kk < k4 + 4; ++kk) {
                  Value vv = toF32(
                      Cv == 1 ? memref::LoadOp::create(b, loc, vs,
                                                       ValueRange{cst(kk), col})
                                    .getResult()
                              : vector::LoadOp::create(
                                    b, loc, vec(Cv, elt), vs,
                                    ValueRange{cst(kk), col},
                                    /*nontemporal=*/false,
                                    llvm::MaybeAlign(std::min<int64_t>(
                                        16, Cv * cfg.eltBytes)))
                                    .getResult());
                  for (int64_t r = 0; r < P; ++r) {
                    Value pk = lanePart(p4[r], kk - k4);
                    Value hidden = sel ? feq(pk, fzero) : Value();
                    for (int64_t c = 0; c < Cv; ++c) {
                      Value acc = fma(pk, lanePart(vv, c), o[r * Cv + c]);
                      // A hidden key (P == 0) contributes nothing, whatever
                      // V holds (0 * NaN is NaN).
                      o[r * Cv + c] =
                          sel ? select(hidden, o[r * Cv + c], acc) : acc;
                    }
                  }
                }
              }
              return o;
            };
            SmallVector<Value> o;
            if (mask) {
              o = emitPV(true);
            } else {
              // Only the chunk's last tile, and causal tiles that reach past
              // the first row's diagonal, can hold hidden keys (rows past
              // the chunk are zero-filled, but a causal key inside it may
              // hold anything).
              Value need = cmpi(arith::CmpIPredicate::sgt, add(j0, TK), kEnd);
              if (prob.causal)
                need = arith::OrIOp::create(
                    b, loc, need,
                    cmpi(arith::CmpIPredicate::sgt, add(j0, TK - 1), shift));
              SmallVector<Type> types(P * Cv, f32);
              auto ifNeed = scf::IfOp::create(b, loc, types, need, true);
              OpBuilder::InsertionGuard gd(b);
              b.setInsertionPointToStart(ifNeed.thenBlock());
              scf::YieldOp::create(b, loc, emitPV(true));
              b.setInsertionPointToStart(ifNeed.elseBlock());
              scf::YieldOp::create(b, loc, emitPV(false));
              o.assign(ifNeed.getResults().begin(), ifNeed.getResults().end());
            }
            for (int64_t x = 0; x < P * Cv; ++x)
              next[2 * P + x] = o[x];
            scf::YieldOp::create(b, loc, next);
          });
      asyncWaitAll(); // no cp.async left in flight
      gpu::BarrierOp::create(b, loc); // every warp is done with its stages

      // Each warp's state to shared memory (over its stages): m, l (summed
      // over lanes), O.
      Value st = view(warpBase, {P * (Dv + 2)}, f32);
      for (int64_t r = 0; r < P; ++r) {
        Value l = warpAllReduce(tLoop.getResult(P + r), /*isMax=*/false);
        if (LPK > 1)
          l = fmul(l, fcst(1.0 / LPK));
        ifThen(cmpi(arith::CmpIPredicate::eq, lane, zero), [&] {
          memref::StoreOp::create(b, loc, tLoop.getResult(r), st, cst(r));
          memref::StoreOp::create(b, loc, l, st, cst(P + r));
        });
        for (int64_t c = 0; c < Cv; ++c)
          memref::StoreOp::create(
              b, loc, tLoop.getResult(2 * P + r * Cv + c), st,
              add(mul(lane, Cv), 2 * P + r * Dv + c));
      }
    }
    gpu::BarrierOp::create(b, loc);
    // The CTA's part (split sp) of each row: warp w combines rows w,
    // w + W, ... with the log-sum-exp rule (as the merge kernel does).
    auto stOf = [&](int64_t w) {
      return view(cst(qBytes + w * warpBytes), {P * (Dv + 2)}, f32);
    };
    scf::ForOp::create(
        b, loc, warp, cst(P), cst(W), ValueRange{},
        [&](OpBuilder &, Location, Value r, ValueRange) {
          Value M = negInf;
          for (int64_t w = 0; w < W; ++w)
            M = fmax(M, memref::LoadOp::create(b, loc, stOf(w), r));
          Value mSafe = select(feq(M, negInf), fzero, M);
          Value L = fzero;
          SmallVector<Value> o(Cv, fzero);
          for (int64_t w = 0; w < W; ++w) {
            Value sw = stOf(w);
            Value wt = exp2Of(fsub(memref::LoadOp::create(b, loc, sw, r),
                                   mSafe)); // 0 for an empty warp
            Value dead = feq(wt, fzero);
            Value lw = memref::LoadOp::create(b, loc, sw, add(r, P));
            L = fadd(L, select(dead, fzero, fmul(wt, lw)));
            Value oBase = add(mul(r, Dv), add(mul(lane, Cv), 2 * P));
            for (int64_t c = 0; c < Cv; ++c) {
              Value ov = memref::LoadOp::create(b, loc, sw, add(oBase, c));
              o[c] = select(dead, o[c], fma(wt, ov, o[c]));
            }
          }
          // Packed row r: head kh * G + r / Sq, query row r % Sq.
          Value h = add(mul(kh, Gs), arith::DivUIOp::create(b, loc, r,
                                                            cst(SqS)));
          Value i = arith::RemUIOp::create(b, loc, r, cst(SqS));
          Value row = add(mul(add(mul(bi, H), h), Sq), i);
          auto ifOne = scf::IfOp::create(
              b, loc, cmpi(arith::CmpIPredicate::eq, nSplit, one), true);
          OpBuilder::InsertionGuard gd(b);
          // One split: the CTA's state is the row's; no merge kernel.
          b.setInsertionPointToStart(ifOne.thenBlock());
          storeDecodeRow(o, M, L, lane, bi, h, i);
          // Else the CTA's part: in its shared memory for the cluster
          // merge, or in the workspace for the last CTA's.
          b.setInsertionPointToStart(ifOne.elseBlock());
          if (C > 0) {
            Value part = view(cst(cfg.decodePartOffset()), {P * (Dv + 2)},
                              f32);
            ifThen(cmpi(arith::CmpIPredicate::eq, lane, zero), [&] {
              memref::StoreOp::create(b, loc, M, part, add(r, P * Dv));
              memref::StoreOp::create(b, loc, L, part, add(r, P * Dv + P));
            });
            Value pBase = add(mul(r, Dv), mul(lane, Cv));
            for (int64_t c = 0; c < Cv; ++c)
              memref::StoreOp::create(b, loc, o[c], part, add(pBase, c));
            b.setInsertionPointAfter(ifOne);
            scf::YieldOp::create(b, loc);
            return;
          }
          Value pr = add(mul(sp, nRows), row);
          ifThen(cmpi(arith::CmpIPredicate::eq, lane, zero), [&] {
            memref::StoreOp::create(b, loc, M, mlPart, pr);
            memref::StoreOp::create(b, loc, L, mlPart,
                                    add(mul(add(nSplit, sp), nRows), row));
          });
          Value oBase = add(mul(pr, Dv), mul(lane, Cv));
          for (int64_t c = 0; c < Cv; ++c)
            memref::StoreOp::create(b, loc, o[c], oPart, add(oBase, c));
          b.setInsertionPointAfter(ifOne);
          scf::YieldOp::create(b, loc);
        });

    // Several splits in a cluster: after a cluster barrier (release /
    // acquire: every CTA's part is visible), warp w of CTA s merges rows
    // s * W + w, s * W + w + nSplit * W, ..., reading each CTA's part
    // through distributed shared memory (mapa + ld.shared::cluster); a
    // second barrier keeps every CTA's shared memory alive until all reads
    // are done.
    if (C > 0) {
      ifThen(cmpi(arith::CmpIPredicate::ugt, nSplit, one), [&] {
        clusterBarrier();
        Value partAddr = arith::TruncIOp::create(
            b, loc, b.getI32Type(),
            toI64(add(memref::ExtractAlignedPointerAsIndexOp::create(b, loc,
                                                                     base),
                      cst(cfg.decodePartOffset()))));
        scf::ForOp::create(
            b, loc, add(mul(sp, W), warp), cst(P), mul(nSplit, W),
            ValueRange{},
            [&](OpBuilder &, Location, Value r, ValueRange) {
              Value h = add(mul(kh, Gs),
                            arith::DivUIOp::create(b, loc, r, cst(SqS)));
              Value i = arith::RemUIOp::create(b, loc, r, cst(SqS));
              // Byte address of element `e` of part `p`'s region.
              auto at = [&](Value p, Value e) {
                Value off = arith::IndexCastUIOp::create(
                    b, loc, b.getI32Type(), mul(e, 4));
                return mapaCluster(
                    arith::AddIOp::create(b, loc, partAddr, off),
                    arith::IndexCastUIOp::create(b, loc, b.getI32Type(), p));
              };
              Value lastPart = sub(nSplit, one);
              Value in = cmpi(arith::CmpIPredicate::ult, lane, nSplit);
              Value pc = minsi(lane, lastPart);
              Value m = loadCluster(at(pc, add(r, P * Dv)), 1);
              Value l = loadCluster(at(pc, add(r, P * Dv + P)), 1);
              SmallVector<Value> ov(C);
              for (int64_t x = 0; x < C; ++x)
                ov[x] = loadCluster(
                    at(minsi(cst(x), lastPart), add(mul(r, Dv), mul(lane, Cv))),
                    Cv);
              mergeLoadedParts(in, m, l, ov, lane, bi, h, i);
              scf::YieldOp::create(b, loc);
            });
        clusterBarrier();
      });
      return;
    }

    // The merge kernel may be scheduled once every CTA of this one has
    // written its part (or exited); its CTAs then wait in
    // griddepcontrol.wait for this grid to complete and its stores to be
    // visible. At the end, not the start: merge CTAs made resident early
    // take registers from this kernel's later CTAs (H200, B = 8, 32/8, Sk
    // 2048: 23.6 us with the trigger at the start, 21.6 at the end;
    // bench/RESULTS.md session 20).
    if (mergeKernel) {
      NVVM::GriddepcontrolOp::create(
          b, loc, NVVM::GridDepActionKind::launch_dependents);
      return;
    }
    // Several splits: the CTA that arrives last at its (batch, K/V head)
    // counter merges the parts (the threadFenceReduction pattern of the
    // CUDA samples: every thread fences its part's stores at GPU scope,
    // thread 0 takes a ticket after the CTA barrier).
    ifThen(cmpi(arith::CmpIPredicate::ugt, nSplit, one), [&] {
      auto gpuScope = NVVM::MemScopeKind::GPU;
      NVVM::MembarOp::create(b, loc, gpuScope);
      gpu::BarrierOp::create(b, loc);
      Value flag = view(zero, {1}, b.getI32Type());
      Value i32one = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
      ifThen(cmpi(arith::CmpIPredicate::eq, tid, zero), [&] {
        Value ticket =
            memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi,
                                        i32one, counters, ValueRange{bhk});
        Value last = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::eq,
            arith::IndexCastUIOp::create(b, loc, b.getIndexType(), ticket),
            sub(nSplit, one));
        memref::StoreOp::create(
            b, loc, arith::ExtUIOp::create(b, loc, b.getI32Type(), last),
            flag, zero);
      });
      gpu::BarrierOp::create(b, loc);
      Value isLast = cmpi(arith::CmpIPredicate::ne,
                          arith::IndexCastUIOp::create(
                              b, loc, b.getIndexType(),
                              memref::LoadOp::create(b, loc, flag, zero)),
                          zero);
      ifThen(isLast, [&] {
        NVVM::MembarOp::create(b, loc, gpuScope);
        scf::ForOp::create(
            b, loc, warp, cst(P), cst(W), ValueRange{},
            [&](OpBuilder &, Location, Value r, ValueRange) {
              Value h = add(mul(kh, Gs),
                            arith::DivUIOp::create(b, loc, r, cst(SqS)));
              Value i = arith::RemUIOp::create(b, loc, r, cst(SqS));
              Value row = add(mul(add(mul(bi, H), h), Sq), i);
              mergeDecodeRow(row, bi, h, i, lane, nSplit, nRows, oPart,
                             mlPart);
              scf::YieldOp::create(b, loc);
            });
      });
    });
  });
  if (mergeKernel)
    emitMergeKernel(nSplit, blocks, nRows, oPart, mlPart);
}

void FlashKernelBuilder::clusterBarrier() {
  NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
  NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
}

Value FlashKernelBuilder::mapaCluster(Value addr, Value rank) {
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, b.getI32Type(), ValueRange{addr, rank},
      "mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r",
      /*has_side_effects=*/false, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
  return asmOp.getRes();
}

Value FlashKernelBuilder::loadCluster(Value addr, int64_t n) {
  std::string text =
      n == 1 ? "ld.shared::cluster.f32 $0, [$1];"
             : "ld.shared::cluster.v" + std::to_string(n) + ".f32 " +
                   regList(0, n) + ", [$" + std::to_string(n) + "];";
  std::string cons;
  for (int64_t x = 0; x < n; ++x)
    cons += "=f,";
  SmallVector<Value> r = inlinePtx(text, cons + "r", ValueRange{addr}, n);
  if (n == 1)
    return r[0];
  return vector::FromElementsOp::create(b, loc, vec(n, f32), r);
}
