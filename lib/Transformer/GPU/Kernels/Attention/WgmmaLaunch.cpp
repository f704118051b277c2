//===- WgmmaLaunch.cpp - the sm_90a warpgroup kernel's body ----------------===//
//
// The CTA of the wgmma kernel (WgmmaKernel.cpp holds its PTX helpers): the
// shared-memory layout, the K/V copies of each pipeline slot, the two
// consumer warpgroups' ping-pong loops over the key tiles, and, with
// FlashConfig::producerWarps, the producer warpgroup that issues the copies
// and hands the slots over through mbarriers (FlashAttention-3's warp
// specialization, with cp.async instead of TMA).
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Attention/FlashKernelBuilder.h"
#include "GPU/Kernels/Common/WgmmaOps.h"

using namespace mlir;
using namespace mlir::tx;

// Registers per thread after setmaxnreg in a warp-specialized CTA of two
// consumer warpgroups and one producer warpgroup: FlashAttention-3's 240
// and 24. setmaxnreg.inc waits until the registers exist, so the counts
// must fit what the CTA was launched with (384 threads at 168: 256 * 240 +
// 128 * 24 = 64512); 32 for the producers would leave the consumers
// waiting forever. (ptxas allocates each role's code within its count:
// consumers at 232 spilled 28-76 bytes at D = 128; producers at 24 spill
// up to 16 bytes in the predicated tail-tile copies.)
static constexpr int64_t kConsumerRegs = 240, kProducerRegs = 24;

void FlashKernelBuilder::emitWgmmaLaunch(Value blocks, Value nQT) {
  WgmmaCta w;
  w.one = cst(1), w.zero = cst(0);
  w.c = emitCta(blocks, nQT);
  w.g = divui(w.c.lane, 4), w.t4 = remui(w.c.lane, 4);
  wgmmaSmemLayout(w);
  wgmmaPrologue(w);
  wgmmaConsumerState(w);
  if (!w.ws)
    return emitWgmmaConsume(w);

  // Warp-specialized CTA (FlashAttention-3's producer/consumer split, with
  // cp.async instead of TMA): the producer warpgroup copies Q with slot 0
  // and then slot j into stage j % S once the consumers have released the
  // slot S steps back (empty), and signals slot j (full) after its copies
  // have landed (its wait_group trails the newest slot by one) and are
  // fenced for wgmma's async proxy. setmaxnreg moves registers from the
  // producers to the consumers when the CTA has more than 256 threads.
  const int64_t consumers = w.consumers, producers = w.producers;
  const bool moveRegs = consumers + producers > 256;
  auto roles = scf::IfOp::create(
      b, loc, cmpi(arith::CmpIPredicate::uge, w.c.warp, cst(cfg.warps)),
      /*withElseRegion=*/true);
  OpBuilder::InsertionGuard gd(b);
  b.setInsertionPointToStart(roles.elseBlock());
  // The registers the CTA was launched with (ptxas: 65536 per SM over
  // the threads, in units of 8), of which the producers keep
  // kProducerRegs each; the consumers share the rest (multiple of 8).
  const int64_t launchRegs =
      std::min<int64_t>(255, 65536 / (consumers + producers) / 8 * 8);
  const int64_t consumerRegs = std::min<int64_t>(
      kConsumerRegs,
      (launchRegs * (consumers + producers) - kProducerRegs * producers) /
          consumers / 8 * 8);
  if (moveRegs)
    NVVM::SetMaxRegisterOp::create(b, loc, consumerRegs,
                                   NVVM::SetMaxRegisterAction::increase);
  emitWgmmaConsume(w);
  b.setInsertionPointToStart(roles.thenBlock());
  if (moveRegs)
    NVVM::SetMaxRegisterOp::create(b, loc, kProducerRegs,
                                   NVVM::SetMaxRegisterAction::decrease);
  emitWgmmaProducer(w);
}

// Shared memory from the first 1 KiB boundary: Q [QT * DB rows x 64],
// K [S stages x N * DB rows x 64], V [S stages x N * VB rows x 64], then
// (warp specialization) the mbarriers, then the key flags.
void FlashKernelBuilder::wgmmaSmemLayout(WgmmaCta &w) {
  const int64_t N = cfg.kvTile, QT = cfg.qTile, S = cfg.stages;
  const int64_t DB = cfg.D / 64, VB = cfg.Dv / 64; // 64-column blocks
  Value base = w.c.smem;
  w.addr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, base);
  w.pad = remui(sub(cst(1024), remui(w.addr, 1024)), 1024);
  w.qAddr = wgmmaRegion(w, QT * DB, w.qs);
  w.kAddr = wgmmaRegion(w, S * N * DB, w.ks);
  w.vAddr = wgmmaRegion(w, S * N * VB, w.vs);
  // Warp specialization (cfg.producerWarps): the last warpgroup copies,
  // the first cfg.warps warps compute. Stage s has two mbarriers after
  // the tiles: full[s] (the producers' copies of a slot have landed; 128
  // arrivals) and empty[s] (the consumers are done with it; one arrival
  // per consumer thread).
  w.ws = cfg.producerWarps > 0;
  w.consumers = cfg.warps * 32, w.producers = cfg.producerWarps * 32;
  w.barAddr = w.ws ? toI64(add(add(w.addr, w.pad), cst(w.off))) : Value();
  // Keys hidden from every row of the CTA are zero-filled, never read:
  // past kvEnd (causal, Sk) by the row limit, by the mask through the
  // flags (buffer u % 4 holds tile u's; tile u's are written in step
  // u - S, read by the copies of steps u - S + 1 (K) and u - S + 2 (V)).
  w.kvLow = band.left ? w.c.kvStart : Value(); // window: below every row's
  if (cfg.keyFlags)
    setupKeyFlags(base, add(w.pad, cst(w.off)));
}

Value FlashKernelBuilder::wgmmaRegion(WgmmaCta &w, int64_t rows,
                                      Value &view) {
  auto wgs = gpu::AddressSpaceAttr::get(b.getContext(),
                                        gpu::AddressSpace::Workgroup);
  auto ty =
      MemRefType::get({rows, 64}, elt, MemRefLayoutAttrInterface(), wgs);
  view = memref::ViewOp::create(b, loc, ty, w.c.smem, add(w.pad, w.off),
                                ValueRange{});
  Value a = toI64(add(add(w.addr, w.pad), w.off));
  w.off += rows * 64 * cfg.eltBytes;
  return a;
}

Value FlashKernelBuilder::i32cst(int64_t x) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), x);
}

// mbarrier i: full[s] = i s, empty[s] = i S + s.
Value FlashKernelBuilder::wgmmaBarPtr(WgmmaCta &w, Value i) {
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3),
      arith::AddIOp::create(b, loc, w.barAddr, toI64(mul(i, 8))).getResult());
}

void FlashKernelBuilder::wgmmaWaitBar(WgmmaCta &w, Value i, Value parity) {
  NVVM::MBarrierTryWaitParityOp::create(
      b, loc, wgmmaBarPtr(w, i),
      arith::IndexCastUIOp::create(b, loc, b.getI32Type(), parity),
      i32cst(10000000));
}

void FlashKernelBuilder::wgmmaArriveBar(WgmmaCta &w, Value i) {
  NVVM::MBarrierArriveOp::create(b, loc, b.getI64Type(), wgmmaBarPtr(w, i),
                                 Value());
}

void FlashKernelBuilder::fenceProxyAsync() {
  wgmma::fenceProxyAsync(b, loc);
}

Value FlashKernelBuilder::wgmmaFlagBuf(Value u) {
  return cfg.keyFlags ? remui(u, 4) : Value();
}

void FlashKernelBuilder::wgmmaVisibility(WgmmaCta &w, Value u) {
  if (cfg.keyFlags)
    ifThen(cmpi(arith::CmpIPredicate::ult, u, w.c.nKT), [&] {
      emitKeyVisibility(u, remui(u, 4), w.c.q0, w.c.shift, w.c.mb, w.c.mh);
    });
}

// Slot j (in stage j % S) holds K(j) and V(j - 1): step t computes S(t)
// and O += P(t - 1) V(t - 1) from slot t. K(j) when j < nKT, V(j - 1) when
// j - 1 < nKT.
void FlashKernelBuilder::wgmmaCopySlot(WgmmaCta &w, Value j, Value stageIdx) {
  const int64_t N = cfg.kvTile, DB = cfg.D / 64, VB = cfg.Dv / 64;
  Cta &c = w.c;
  ifThen(cmpi(arith::CmpIPredicate::ult, j, c.nKT), [&] {
    asyncTileSwizzled(k, c.bi, c.kh, keyTile0(c, j), c.kvEnd, N,
                      cfg.D, w.ks, mul(stageIdx, N * DB), wgmmaFlagBuf(j),
                      w.kvLow, w.copyTid, w.copyThreads);
  });
  ifThen(arith::AndIOp::create(
             b, loc, cmpi(arith::CmpIPredicate::ugt, j, w.zero),
             cmpi(arith::CmpIPredicate::ule, j, c.nKT)),
         [&] {
           asyncTileSwizzled(v, c.bi, c.kh,
                             keyTile0(c, sub(j, w.one)), c.kvEnd, N,
                             cfg.Dv, w.vs, mul(stageIdx, N * VB),
                             wgmmaFlagBuf(sub(j, w.one)), w.kvLow, w.copyTid,
                             w.copyThreads);
         });
}

// Who issues the K/V copies: every compute thread, or the producer
// warpgroup (emitWgmmaProducer). Slot j's copies are one cp.async group,
// issued S - 1 steps ahead. Prologue without producers: Q with slot 0 (V's
// half of stage 0 stays unused in step 0), then slots 1 .. S - 2; with
// them, the mbarriers' initialization.
void FlashKernelBuilder::wgmmaPrologue(WgmmaCta &w) {
  const int64_t S = cfg.stages;
  Value zero = w.zero;
  if (w.ws) {
    ifThen(cmpi(arith::CmpIPredicate::eq, tid, zero), [&] {
      for (int64_t s = 0; s < S; ++s) {
        NVVM::MBarrierInitOp::create(b, loc, wgmmaBarPtr(w, cst(s)),
                                     i32cst(w.producers), Value());
        NVVM::MBarrierInitOp::create(b, loc, wgmmaBarPtr(w, cst(S + s)),
                                     i32cst(w.consumers), Value());
      }
    });
    ctaBarrierNonAligned();
    return;
  }
  asyncTileSwizzled(q, w.c.bi, w.c.h, w.c.q0, Sq, cfg.qTile, cfg.D, w.qs,
                    zero);
  if (cfg.keyFlags) {
    for (int64_t u = 0; u < S; ++u)
      wgmmaVisibility(w, cst(u));
    gpu::BarrierOp::create(b, loc);
  }
  wgmmaCopySlot(w, zero, zero);
  // Exactly one group per slot from here on (no empty groups), so that
  // "slot t has landed" is always wait_group(S - 2). The token only
  // satisfies the op's syntax; the wait is by count.
  w.groupTok = asyncCommit();
  for (int64_t j = 1; j + 1 < S; ++j) {
    wgmmaCopySlot(w, cst(j), cst(j));
    asyncCommit();
  }
}

// The warpgroup's Q descriptors (k16 step t: column block t / 4, 32 bytes
// per step inside it), the thread's rows, the loop's initial state
// (carried: m[2], l[2], O[DT] as vector<2x2xf32>) and step count.
void FlashKernelBuilder::wgmmaConsumerState(WgmmaCta &w) {
  const int64_t N = cfg.kvTile, QT = cfg.qTile, KD = cfg.D / 16;
  const int64_t NT = N / 8, DT = cfg.Dv / 8;
  Cta &c = w.c;
  w.wgIdx = divui(c.warp, 4);
  Value qDesc0 = wgmmaDesc(arith::AddIOp::create(
      b, loc, w.qAddr, toI64(mul(w.wgIdx, 64 * 128))));
  for (int64_t t = 0; t < KD; ++t)
    w.qDesc.push_back(descPlus(qDesc0, (t / 4) * QT * 128 + (t % 4) * 32));

  Value rowBase = add(c.q0, mul(c.warp, 16)); // the warp's row 0
  SmallVector<Value> rowG{add(rowBase, w.g), add(add(rowBase, w.g), 8)};
  Value negInf = fcst(-std::numeric_limits<double>::infinity());
  w.fzero = fcst(0.0);
  VectorType accTy = vec2(2, 2, f32);
  Value accZero = arith::ConstantOp::create(
      b, loc, accTy, DenseElementsAttr::get(accTy, 0.0f));
  // Then X: the pending P(t) of an even warpgroup (N/4 f16x2 registers)
  // or the pending scores S(t) of an odd one (N/2 f32).
  w.init.assign(2, negInf);
  w.init.append(2, w.fzero);
  w.init.append(DT, accZero);
  w.mx = MmaCtx{1,      NT,     DT,      mul(w.t4, 2), rowBase, c.shift,
                c.mb,   c.mh,   negInf,  w.fzero,      rowG};
  w.mx.bi = c.bi;
  w.mx.h = c.h;
  w.mx.tileRow = c.tileRow;
  w.odd = cmpi(arith::CmpIPredicate::eq, remui(w.wgIdx, 2), w.one);
  // nKT + 1 steps, none when the CTA sees no key (Sk = 0, or causal rows
  // above the diagonal): the last step's P V would otherwise read a V
  // stage that no copy wrote (0 * Inf = NaN).
  w.steps = select(cmpi(arith::CmpIPredicate::ugt, c.nKT, w.zero),
                   add(c.nKT, w.one), w.zero);
}

// The consumers: each warpgroup's loop in its role, then the output.
void FlashKernelBuilder::emitWgmmaConsume(WgmmaCta &w) {
  SmallVector<Type> resTypes;
  for (Value v : w.init)
    resTypes.push_back(v.getType());
  SmallVector<Value> res = ifElse(
      w.odd, resTypes, [&] { return emitWgmmaLoop(w, true); },
      [&] { return emitWgmmaLoop(w, false); });
  if (!w.ws)
    asyncWaitAll(); // no copy outlives the kernel
  storeMmaOutput(w.mx, res, w.c.bi, w.c.h);
}

// The producer warpgroup: Q, then slot j once the consumers released the
// slot S steps back; slot j - 1 signalled full once its copies landed.
void FlashKernelBuilder::emitWgmmaProducer(WgmmaCta &w) {
  const int64_t S = cfg.stages;
  Value zero = w.zero, one = w.one, steps = w.steps;
  w.copyTid = sub(tid, cst(w.consumers));
  w.copyThreads = w.producers;
  asyncTileSwizzled(q, w.c.bi, w.c.h, w.c.q0, Sq, cfg.qTile, cfg.D, w.qs,
                    zero, Value(), Value(), w.copyTid, w.copyThreads);
  scf::ForOp::create(
      b, loc, zero, steps, one, ValueRange{},
      [&](OpBuilder &, Location, Value j, ValueRange) {
        Value stage = remui(j, S);
        ifThen(cmpi(arith::CmpIPredicate::uge, j, cst(S)), [&] {
          wgmmaWaitBar(w, add(stage, cst(S)), remui(add(divui(j, S), one), 2));
        });
        wgmmaCopySlot(w, j, stage);
        Value tok = asyncCommit();
        ifThen(cmpi(arith::CmpIPredicate::uge, j, one), [&] {
          asyncWait(tok, 1);
          fenceProxyAsync();
          wgmmaArriveBar(w, remui(sub(j, one), S));
        });
        scf::YieldOp::create(b, loc);
      });
  ifThen(cmpi(arith::CmpIPredicate::ugt, steps, zero), [&] {
    asyncWait(asyncCommit(), 0);
    fenceProxyAsync();
    wgmmaArriveBar(w, remui(sub(steps, one), S));
  });
  asyncWaitAll(); // no copy outlives the kernel (Q when no step runs)
}

// Steps t = 0 .. nKT: S(t) for t < nKT, O += P(t-1) V(t-1) for t > 0.
// Even warpgroups run [S(t), P(t-1) V(t-1)] then softmax(t); odd ones
// softmax(t-1) then [S(t), P(t-1) V(t-1)], so that in each step one
// warpgroup's softmax overlaps the other's tensor-core work
// (FlashAttention-3's ping-pong; here the one barrier per step keeps the
// two in their phases). The two roles are two loops with the same
// barriers, each carrying only what it needs.
SmallVector<Value> FlashKernelBuilder::emitWgmmaLoop(WgmmaCta &w,
                                                     bool oddRole) {
  const int64_t N = cfg.kvTile, DT = cfg.Dv / 8;
  SmallVector<Value> init2 = w.init;
  if (oddRole)
    init2.append(N / 2, w.fzero);
  else
    init2.append(N / 4, i32cst(0));
  auto loop = scf::ForOp::create(
      b, loc, w.zero, w.steps, w.one, init2,
      [&](OpBuilder &, Location, Value kt, ValueRange carried) {
        WgmmaStep st = wgmmaStepBegin(w, kt, carried);
        SmallVector<Value> next =
            oddRole ? wgmmaOddStep(w, st) : wgmmaEvenStep(w, st);
        scf::YieldOp::create(b, loc, next);
      });
  return SmallVector<Value>(loop.getResults().begin(),
                            loop.getResults().begin() + 4 + DT);
}

// Slot kt has landed, the copies S - 1 slots ahead are issued, and the
// step's descriptors of K and V are built.
FlashKernelBuilder::WgmmaStep
FlashKernelBuilder::wgmmaStepBegin(WgmmaCta &w, Value kt, ValueRange carried) {
  const int64_t N = cfg.kvTile, S = cfg.stages, KD = cfg.D / 16;
  const int64_t DT = cfg.Dv / 8, KC = N / 16, VB = cfg.Dv / 64;
  const int64_t kStage = N * (cfg.D / 64) * 128, vStage = N * VB * 128;
  WgmmaStep st;
  // Every warp copies: slot kt has landed when at most the S - 2 newer
  // slots are in flight. The barrier also orders every read of stage
  // (kt + S - 1) % S (slot kt - 1, step kt - 1) before the copies into it
  // below.
  if (w.ws) {
    st.stage = remui(kt, S);
    // Slot kt has landed (the producers fenced their copies for the async
    // proxy before arriving); the consumers' named barrier keeps the two
    // warpgroups in their ping-pong phases.
    wgmmaWaitBar(w, st.stage, remui(divui(kt, S), 2));
    LLVM::CallIntrinsicOp::create(
        b, loc, b.getStringAttr("llvm.nvvm.barrier.cta.sync.count"),
        ValueRange{i32cst(1), i32cst(w.consumers)});
  } else {
    asyncWait(w.groupTok, S - 2);
    fenceProxyAsync();
    // The two roles run two copies of this loop, so the CTA's warpgroups
    // meet at two different barrier instructions: that needs the
    // non-aligned barrier.sync. (gpu.barrier is bar.sync, i.e.
    // barrier.sync.aligned, which requires every thread of the CTA to
    // execute the same instruction; compute-sanitizer's synccheck reports
    // the aligned form here as a divergent barrier.)
    ctaBarrierNonAligned();
    st.stage = remui(kt, S);
  }
  st.kt = kt;
  st.k0 = keyTile0(w.c, kt);
  st.hasS = cmpi(arith::CmpIPredicate::ult, kt, w.c.nKT);
  st.hasPV = cmpi(arith::CmpIPredicate::ugt, kt, w.zero);
  if (!w.ws) {
    Value ahead = add(kt, cst(S - 1));
    wgmmaCopySlot(w, ahead, remui(ahead, S));
    asyncCommit();
    wgmmaVisibility(w, add(kt, cst(S)));
  }

  Value kDesc0 = wgmmaDesc(arith::AddIOp::create(
      b, loc, w.kAddr, toI64(mul(st.stage, kStage))));
  for (int64_t t = 0; t < KD; ++t)
    st.kDesc.push_back(descPlus(kDesc0, (t / 4) * N * 128 + (t % 4) * 32));
  Value vDesc0 = wgmmaDesc(arith::AddIOp::create(
      b, loc, w.vAddr, toI64(mul(st.stage, vStage))));
  for (int64_t kc = 0; kc < KC; ++kc)
    for (int64_t cb = 0; cb < VB; ++cb)
      st.vDesc.push_back(descPlus(vDesc0, cb * N * 128 + kc * 16 * 128));

  // state = (m, l, O vectors), then the role's pending values.
  st.state.assign(carried.begin(), carried.begin() + 4 + DT);
  st.x.assign(carried.begin() + 4 + DT, carried.end());
  return st;
}

// The step's tensor-core work: S(t) (when t < nKT) and O += P V (when
// t > 0). Updates st.state's O; returns S (or `sDummy`).
SmallVector<Value> FlashKernelBuilder::wgmmaGemms(WgmmaCta &w, WgmmaStep &st,
                                                  ArrayRef<Value> pRegs,
                                                  ArrayRef<Value> sDummy) {
  const int64_t N = cfg.kvTile, DT = cfg.Dv / 8;
  SmallVector<Value> o;
  for (int64_t dt = 0; dt < DT; ++dt)
    for (int64_t e = 0; e < 4; ++e)
      o.push_back(vector::ExtractOp::create(b, loc, st.state[4 + dt],
                                            ArrayRef<int64_t>{e / 2, e % 2}));
  SmallVector<Type> types(N / 2 + DT * 4, f32);
  auto run = [&](bool doS, bool doPV) {
    SmallVector<Value> r = wgmmaBlock(
        N, doS ? ArrayRef<Value>(w.qDesc) : ArrayRef<Value>(), st.kDesc,
        doPV ? ArrayRef<Value>(o) : ArrayRef<Value>(),
        doPV ? pRegs : ArrayRef<Value>(), st.vDesc);
    SmallVector<Value> res;
    if (doS)
      res.append(r.begin(), r.begin() + N / 2);
    else
      res.append(sDummy.begin(), sDummy.end());
    if (doPV)
      res.append(r.end() - DT * 4, r.end());
    else
      res.append(o.begin(), o.end());
    return res;
  };
  SmallVector<Value> r = ifElse(
      arith::AndIOp::create(b, loc, st.hasS, st.hasPV), types,
      [&] { return run(true, true); },
      [&] {
        return ifElse(
            st.hasS, types, [&] { return run(true, false); },
            [&] { return run(false, true); });
      });
  for (int64_t dt = 0; dt < DT; ++dt) {
    Value *od = &r[N / 2 + 4 * dt];
    st.state[4 + dt] = pack({od[0], od[1], od[2], od[3]}, f32);
  }
  if (w.ws) // slot kt read (wgmma waited): the producers may refill
    wgmmaArriveBar(w, add(st.stage, cst(cfg.stages)));
  return SmallVector<Value>(r.begin(), r.begin() + N / 2);
}

// The online softmax of scores s (keys from key0): updates st.state (m, l,
// O rescaled) and returns P as f16x2 registers (k16 step kc: rows g / g+8,
// keys +0 / +8).
SmallVector<Value> FlashKernelBuilder::wgmmaSoftmax(WgmmaCta &w,
                                                    WgmmaStep &st,
                                                    ArrayRef<Value> s,
                                                    Value key0) {
  const int64_t KC = cfg.kvTile / 16;
  MmaStep ms = mmaSoftmaxStep(w.mx, SmallVector<Value>(s.begin(), s.end()),
                              key0, st.state);
  st.state = ms.next;
  st.state.append(ms.o.begin(), ms.o.end());
  auto P = [&](int64_t nt, int64_t e) { return ms.p[nt * 4 + e]; };
  SmallVector<Value> p;
  for (int64_t kc = 0; kc < KC; ++kc)
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t hh = 0; hh < 2; ++hh)
        p.push_back(packF16x2(P(2 * kc + half, 2 * hh),
                              P(2 * kc + half, 2 * hh + 1)));
  return p;
}

SmallVector<Type> FlashKernelBuilder::wgmmaStepTypes(WgmmaStep &st) {
  SmallVector<Type> t;
  for (Value v : st.state)
    t.push_back(v.getType());
  t.append(cfg.kvTile / 4, b.getI32Type());
  return t;
}

// Odd role: softmax(t - 1) (skipped in step 0), then the tensor cores.
SmallVector<Value> FlashKernelBuilder::wgmmaOddStep(WgmmaCta &w,
                                                    WgmmaStep &st) {
  const int64_t N = cfg.kvTile, DT = cfg.Dv / 8;
  SmallVector<Type> types = wgmmaStepTypes(st);
  SmallVector<Value> saved = st.state;
  SmallVector<Value> sm = ifElse(
      st.hasPV, types,
      [&] {
        // (Tile t - 1's first key; t >= 1 here.)
        Value kPrev = keyTiles.list ? keyTile0(w.c, sub(st.kt, w.one))
                                    : sub(st.k0, cst(N));
        SmallVector<Value> p = wgmmaSoftmax(w, st, st.x, kPrev);
        SmallVector<Value> r = st.state;
        r.append(p.begin(), p.end());
        return r;
      },
      [&] {
        SmallVector<Value> r = saved;
        r.append(N / 4, i32cst(0));
        return r;
      });
  st.state.assign(sm.begin(), sm.begin() + 4 + DT);
  SmallVector<Value> p(sm.begin() + 4 + DT, sm.end());
  SmallVector<Value> s = wgmmaGemms(w, st, p, st.x);
  SmallVector<Value> next = st.state;
  next.append(s.begin(), s.end());
  return next;
}

// Even role: the tensor cores, then softmax(t) (skipped in step nKT).
SmallVector<Value> FlashKernelBuilder::wgmmaEvenStep(WgmmaCta &w,
                                                     WgmmaStep &st) {
  const int64_t N = cfg.kvTile;
  SmallVector<Value> s =
      wgmmaGemms(w, st, st.x, SmallVector<Value>(N / 2, w.fzero));
  SmallVector<Type> types = wgmmaStepTypes(st);
  SmallVector<Value> saved = st.state;
  return ifElse(
      st.hasS, types,
      [&] {
        SmallVector<Value> p = wgmmaSoftmax(w, st, s, st.k0);
        SmallVector<Value> r = st.state;
        r.append(p.begin(), p.end());
        return r;
      },
      [&] {
        SmallVector<Value> r = saved;
        r.append(st.x.begin(), st.x.end());
        return r;
      });
}
