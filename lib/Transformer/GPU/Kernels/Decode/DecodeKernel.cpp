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
#include "GPU/Kernels/Attention/FlashKernelBuilder.h"

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
    emitDecodeCall(C);
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
  emitDecodeCall(C);
  Sk = sk, batchRows = rows, tid = tid0;
  b.setInsertionPointToStart(ifShort.elseBlock());
  emitDecodeCall(0);
  Sk = sk, batchRows = rows, tid = tid0;
}

void FlashKernelBuilder::emitDecodeCall(int64_t cluster) {
  DecodeCall d;
  // The form's shared memory: the cluster merge adds the CTA's part.
  FlashConfig form = cfg;
  form.decodeCluster = cluster;
  d.cluster = cluster;
  d.smemBytes = form.decodeSmemBytes();
  d.partOffset = form.decodePartOffset();
  d.zero = cst(0), d.one = cst(1);
  d.negInf = fcst(-std::numeric_limits<double>::infinity());
  d.fzero = fcst(0.0);
  d.Hkv = arith::DivUIOp::create(b, loc, H, G);
  d.bh = mul(B, d.Hkv);
  chooseDecodeSplits(d);
  d.nRows = mul(mul(B, H), Sq);
  const int64_t C = d.cluster;
  d.mergeKernel = C == 0 && cfg.decodeMergeKernel;
  allocDecodeWorkspace(d);

  // ---- kernel 1: split-KV partial states ----
  d.blocks = mul(d.bh, d.nSplit);
  ifThen(cmpi(arith::CmpIPredicate::ugt, d.blocks, d.zero), [&] {
    OpBuilder::InsertionGuard g(b);
    auto [tidV, bid] = emitPlainLaunch(d.blocks, 32 * cfg.warps,
                                       d.smemBytes,
                                       C > 0 ? d.nSplit : Value());
    b.getBlock()->getParentOp()->setAttr(
        kRequiredChipAttr,
        b.getStringAttr(C > 0 || d.mergeKernel ? "sm_90" : "sm_80"));
    tid = tidV;
    emitDecodeCtaSetup(d, bid);
    if (cfg.decodeTC)
      emitDecodeTcWarps(d);
    else
      emitDecodeSimtWarps(d);
    gpu::BarrierOp::create(b, loc);
    emitDecodeCtaPart(d);
    if (C > 0) {
      emitDecodeClusterMerge(d);
      return;
    }
    // The merge kernel may be scheduled once every CTA of this one has
    // written its part (or exited); its CTAs then wait in
    // griddepcontrol.wait for this grid to complete and its stores to be
    // visible. At the end, not the start: merge CTAs made resident early
    // take registers from this kernel's later CTAs (H200, B = 8, 32/8, Sk
    // 2048: 23.6 us with the trigger at the start, 21.6 at the end;
    // bench/RESULTS.md session 20).
    if (d.mergeKernel) {
      NVVM::GriddepcontrolOp::create(
          b, loc, NVVM::GridDepActionKind::launch_dependents);
      return;
    }
    emitDecodeLastCtaMerge(d);
  });
  if (d.mergeKernel)
    emitMergeKernel(d.nSplit, d.blocks, d.nRows, d.oPart, d.mlPart);
}

void FlashKernelBuilder::chooseDecodeSplits(DecodeCall &d) {
  const int64_t W = cfg.warps, Dv = cfg.Dv;
  Value one = d.one, bh = d.bh;
  // Splits: one wave of CTAs (as many as fit on num-sms SMs at once, from
  // the shared memory per CTA) over B * Hkv * splits, at least 2 tiles
  // per warp per split, a multiple of 32 keys each. Fewer, longer CTAs
  // keep each warp's pipeline full; B * Hkv beyond one wave takes 1 split.
  Value nSplit;
  if (cfg.kvSplits > 0) {
    nSplit = cst(cfg.kvSplits);
  } else {
    int64_t perSm = std::clamp<int64_t>(
        cfg.smemPerSm / (d.smemBytes + 1024), 1, 64 / W);
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
  const int64_t C = d.cluster;
  if (C > 0 && cfg.kvSplits == 0)
    nSplit = minsi(nSplit, cst(C));
  d.keysPerSplit =
      maxsi(mul(ceilDiv(ceilDiv(Sk, nSplit), cst(32)), 32), cst(32));
  d.nSplit = maxsi(ceilDiv(Sk, d.keysPerSplit), one); // (not above nSplit)
}

void FlashKernelBuilder::allocDecodeWorkspace(DecodeCall &d) {
  const int64_t C = d.cluster, Dv = cfg.Dv;
  Value one = d.one, nSplit = d.nSplit, nRows = d.nRows;
  // The workspace merge in a second kernel (FlashConfig::decodeMergeKernel):
  // no counters, memset, fence or ticket.
  if (C == 0) {
    auto buf1d = MemRefType::get({ShapedType::kDynamic}, f32);
    d.oPart = memref::AllocOp::create(
        b, loc, buf1d, ValueRange{maxsi(mul(mul(nSplit, nRows), Dv), one)});
    d.mlPart = memref::AllocOp::create(
        b, loc, buf1d, ValueRange{maxsi(mul(mul(nSplit, nRows), 2), one)});
    // Part p of row `row`: m at mlPart[p * nRows + row], l at
    // mlPart[(nSplit + p) * nRows + row], O at oPart[(p * nRows + row) * Dv].
  }
  if (C == 0 && !d.mergeKernel) {
    // Arrival counters, one per (batch, K/V head), zeroed before the launch:
    // the last CTA of each to finish merges its parts.
    d.counters = memref::AllocOp::create(
        b, loc, MemRefType::get({ShapedType::kDynamic}, b.getI32Type()),
        ValueRange{maxsi(d.bh, one)});
    ifThen(cmpi(arith::CmpIPredicate::ugt, nSplit, one), [&] {
      auto tokTy = gpu::AsyncTokenType::get(b.getContext());
      Value t0 =
          gpu::WaitOp::create(b, loc, tokTy, ValueRange{}).getAsyncToken();
      Value t1 = gpu::MemsetOp::create(
                     b, loc, tokTy, ValueRange{t0}, d.counters,
                     arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0))
                     .getAsyncToken();
      gpu::WaitOp::create(b, loc, Type(), ValueRange{t1});
    });
  }
}

// Shared memory (FlashConfig::decodeSmemBytes): Q (P x D f32, pre-scaled;
// tensor cores: 16 padded rows of Q's type), then per warp its P buffer
// (P x TK f32) and S stages of one TK-key tile each, K then V (layout
// below, decodeSwizzle). Each warp runs its own cp.async pipeline, S - 1
// tiles ahead, synchronized by warp barriers only.
void FlashKernelBuilder::emitDecodeCtaSetup(DecodeCall &d, Value bid) {
  const int64_t W = cfg.warps, P = cfg.decodeG * cfg.decodeSq, D = cfg.D;
  const int64_t S = cfg.decodeStages, TK = cfg.decodeTileKeys;
  Value zero = d.zero, one = d.one, nSplit = d.nSplit;
  d.lane = arith::RemUIOp::create(b, loc, tid, cst(32));
  d.warp = arith::DivUIOp::create(b, loc, tid, cst(32));
  d.sp = arith::RemUIOp::create(b, loc, bid, nSplit);
  d.bhk = arith::DivUIOp::create(b, loc, bid, nSplit);
  d.kh = arith::RemUIOp::create(b, loc, d.bhk, d.Hkv);
  d.bi = arith::DivUIOp::create(b, loc, d.bhk, d.Hkv);
  // Causal: key j visible to row i iff j <= i + shift (Sk - Sq, or
  // Lk - Lq of the batch; kv_lengths also replace Sk in this kernel).
  if (kvLens || qLens)
    d.shift = emitBatchLengths(d.bi);
  auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                       gpu::AddressSpace::Workgroup);
  d.base = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), wg));
  d.qs = smemView(d.base, 0, P * D);
  d.warpBase = add(cst(cfg.decodeQBytes()), mul(d.warp, cfg.decodeWarpStride()));
  d.ps = decodeView(d, d.warpBase, {P * TK}, f32);
  d.kBegin = mul(d.sp, d.keysPerSplit);
  d.kEnd = minsi(Sk, add(d.kBegin, d.keysPerSplit));
  Value nT = ceilDiv(maxsi(sub(d.kEnd, d.kBegin), zero), cst(TK));
  d.nLocal = ceilDiv(maxsi(sub(nT, d.warp), zero), cst(W));
  d.skLast = sub(Sk, one);
  if (!d.shift)
    d.shift = sub(Sk, Sq);
  d.mb = mask && !maskBatchBcast ? d.bi : zero;
  d.allLanes = arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1);
  // The first S - 1 tiles are in flight while Q is loaded (a paged cache:
  // their pages read together first).
  SmallVector<Value> page(S, Value());
  if (pages && pages->holdsTiles())
    for (int64_t s = 0; s + 1 < S; ++s)
      page[s] = ifElse(
          cmpi(arith::CmpIPredicate::ult, cst(s), d.nLocal),
          TypeRange{b.getIndexType()},
          [&] {
            return SmallVector<Value>{
                pages->tilePage(b, loc, d.bi, decodeTileStart(d, cst(s)))};
          },
          [&] { return SmallVector<Value>{zero}; })[0];
  for (int64_t s = 0; s + 1 < S; ++s)
    decodeIssue(d, cst(s), page[s]);
}

// The CTA's part (split sp) of each row: warp w combines rows w, w + W,
// ... with the log-sum-exp rule (as the merge kernel does).
void FlashKernelBuilder::emitDecodeCtaPart(DecodeCall &d) {
  const int64_t W = cfg.warps, Gs = cfg.decodeG, SqS = cfg.decodeSq;
  const int64_t P = Gs * SqS, Dv = cfg.Dv, Cv = Dv / 32;
  const int64_t qBytes = cfg.decodeQBytes(), warpBytes = cfg.decodeWarpStride();
  Value negInf = d.negInf, fzero = d.fzero, lane = d.lane;
  auto stOf = [&](int64_t w) {
    return decodeView(d, cst(qBytes + w * warpBytes), {P * (Dv + 2)}, f32);
  };
  scf::ForOp::create(
      b, loc, d.warp, cst(P), cst(W), ValueRange{},
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
        Value h = add(mul(d.kh, Gs), arith::DivUIOp::create(b, loc, r,
                                                            cst(SqS)));
        Value i = arith::RemUIOp::create(b, loc, r, cst(SqS));
        Value row = add(mul(add(mul(d.bi, H), h), Sq), i);
        auto ifOne = scf::IfOp::create(
            b, loc, cmpi(arith::CmpIPredicate::eq, d.nSplit, d.one), true);
        OpBuilder::InsertionGuard gd(b);
        // One split: the CTA's state is the row's; no merge kernel.
        b.setInsertionPointToStart(ifOne.thenBlock());
        storeDecodeRow(o, M, L, lane, d.bi, h, i);
        // Else the CTA's part: in its shared memory for the cluster
        // merge, or in the workspace for the last CTA's.
        b.setInsertionPointToStart(ifOne.elseBlock());
        if (d.cluster > 0) {
          Value part =
              decodeView(d, cst(d.partOffset), {P * (Dv + 2)}, f32);
          ifThen(cmpi(arith::CmpIPredicate::eq, lane, d.zero), [&] {
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
        Value pr = add(mul(d.sp, d.nRows), row);
        ifThen(cmpi(arith::CmpIPredicate::eq, lane, d.zero), [&] {
          memref::StoreOp::create(b, loc, M, d.mlPart, pr);
          memref::StoreOp::create(
              b, loc, L, d.mlPart,
              add(mul(add(d.nSplit, d.sp), d.nRows), row));
        });
        Value oBase = add(mul(pr, Dv), mul(lane, Cv));
        for (int64_t c = 0; c < Cv; ++c)
          memref::StoreOp::create(b, loc, o[c], d.oPart, add(oBase, c));
        b.setInsertionPointAfter(ifOne);
        scf::YieldOp::create(b, loc);
      });
}

// Several splits in a cluster: after a cluster barrier (release / acquire:
// every CTA's part is visible), warp w of CTA s merges rows s * W + w,
// s * W + w + nSplit * W, ..., reading each CTA's part through distributed
// shared memory (mapa + ld.shared::cluster); a second barrier keeps every
// CTA's shared memory alive until all reads are done.
void FlashKernelBuilder::emitDecodeClusterMerge(DecodeCall &d) {
  const int64_t W = cfg.warps, Gs = cfg.decodeG, SqS = cfg.decodeSq;
  const int64_t P = Gs * SqS, Dv = cfg.Dv, Cv = Dv / 32;
  const int64_t C = d.cluster;
  Value nSplit = d.nSplit, lane = d.lane;
  ifThen(cmpi(arith::CmpIPredicate::ugt, nSplit, d.one), [&] {
    clusterBarrier();
    Value partAddr = arith::TruncIOp::create(
        b, loc, b.getI32Type(),
        toI64(add(memref::ExtractAlignedPointerAsIndexOp::create(b, loc,
                                                                 d.base),
                  cst(d.partOffset))));
    scf::ForOp::create(
        b, loc, add(mul(d.sp, W), d.warp), cst(P), mul(nSplit, W),
        ValueRange{},
        [&](OpBuilder &, Location, Value r, ValueRange) {
          Value h = add(mul(d.kh, Gs),
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
          Value lastPart = sub(nSplit, d.one);
          Value in = cmpi(arith::CmpIPredicate::ult, lane, nSplit);
          Value pc = minsi(lane, lastPart);
          Value m = loadCluster(at(pc, add(r, P * Dv)), 1);
          Value l = loadCluster(at(pc, add(r, P * Dv + P)), 1);
          SmallVector<Value> ov(C);
          for (int64_t x = 0; x < C; ++x)
            ov[x] = loadCluster(
                at(minsi(cst(x), lastPart), add(mul(r, Dv), mul(lane, Cv))),
                Cv);
          mergeLoadedParts(in, m, l, ov, lane, d.bi, h, i);
          scf::YieldOp::create(b, loc);
        });
    clusterBarrier();
  });
}

// Several splits: the CTA that arrives last at its (batch, K/V head)
// counter merges the parts (the threadFenceReduction pattern of the CUDA
// samples: every thread fences its part's stores at GPU scope, thread 0
// takes a ticket after the CTA barrier).
void FlashKernelBuilder::emitDecodeLastCtaMerge(DecodeCall &d) {
  const int64_t W = cfg.warps, Gs = cfg.decodeG, SqS = cfg.decodeSq;
  const int64_t P = Gs * SqS;
  Value zero = d.zero, nSplit = d.nSplit;
  ifThen(cmpi(arith::CmpIPredicate::ugt, nSplit, d.one), [&] {
    auto gpuScope = NVVM::MemScopeKind::GPU;
    NVVM::MembarOp::create(b, loc, gpuScope);
    gpu::BarrierOp::create(b, loc);
    Value flag = decodeView(d, zero, {1}, b.getI32Type());
    Value i32one = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
    ifThen(cmpi(arith::CmpIPredicate::eq, tid, zero), [&] {
      Value ticket =
          memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi,
                                      i32one, d.counters, ValueRange{d.bhk});
      Value last = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq,
          arith::IndexCastUIOp::create(b, loc, b.getIndexType(), ticket),
          sub(nSplit, d.one));
      memref::StoreOp::create(
          b, loc, arith::ExtUIOp::create(b, loc, b.getI32Type(), last), flag,
          zero);
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
          b, loc, d.warp, cst(P), cst(W), ValueRange{},
          [&](OpBuilder &, Location, Value r, ValueRange) {
            Value h = add(mul(d.kh, Gs),
                          arith::DivUIOp::create(b, loc, r, cst(SqS)));
            Value i = arith::RemUIOp::create(b, loc, r, cst(SqS));
            Value row = add(mul(add(mul(d.bi, H), h), Sq), i);
            mergeDecodeRow(row, d.bi, h, i, d.lane, nSplit, d.nRows,
                           d.oPart, d.mlPart);
            scf::YieldOp::create(b, loc);
          });
    });
  });
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
