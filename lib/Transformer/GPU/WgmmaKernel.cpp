//===- WgmmaKernel.cpp - the sm_90a warpgroup-MMA flash kernel --------------===//
//
// FlashAttention-2 on wgmma.mma_async (sm_90a, f16/bf16, D and Dv in
// {64, 128}): 128-byte swizzled shared-memory tiles, descriptors, inline
// PTX for the register-A form, two warpgroups in ping-pong; optionally a
// producer warpgroup that issues the K/V copies and hands the slots over
// through mbarriers (warp specialization, FlashAttention-3).
//
//===----------------------------------------------------------------------===//
#include "GPU/FlashKernelBuilder.h"

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

Value FlashKernelBuilder::i64c(int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}

Value FlashKernelBuilder::toI64(Value x) {
  return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), x);
}

Value FlashKernelBuilder::divui(Value x, int64_t y) {
  return arith::DivUIOp::create(b, loc, x, cst(y));
}

Value FlashKernelBuilder::remui(Value x, int64_t y) {
  return arith::RemUIOp::create(b, loc, x, cst(y));
}

void FlashKernelBuilder::asyncTileSwizzled(Value buf, Value i0, Value i1, Value row0,
                       Value rowLimit, int64_t rows, int64_t width,
                       Value view, Value viewRow0, Value flagBuf,
                       Value rowStart, Value copyTid, int64_t copyThreads) {
  const int64_t cpr = width / 8; // 16-byte chunks per row
  const int64_t threads = copyThreads ? copyThreads : cfg.warps * 32,
                total = rows * cpr;
  Value tid = copyTid ? copyTid : this->tid;
  auto tokTy = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  Value lastRow = sub(rowLimit, cst(1));
  auto copy = [&](Value r, Value ch) {
    Value gRow = add(row0, r);
    Value ok = cmpi(arith::CmpIPredicate::ult, gRow, rowLimit);
    if (rowStart) // keys below the window of every row: not read
      ok = arith::AndIOp::create(
          b, loc, ok, cmpi(arith::CmpIPredicate::uge, gRow, rowStart));
    if (flagBuf)
      ok = arith::AndIOp::create(b, loc, ok, keyVisible(flagBuf, r));
    Value n = select(ok, cst(8), cst(0));
    Value dRow = add(add(viewRow0, mul(divui(ch, 8), rows)), r);
    Value dCol = mul(arith::XOrIOp::create(b, loc, remui(ch, 8), remui(r, 8)),
                     8);
    nvgpu::DeviceAsyncCopyOp::create(
        b, loc, tokTy, view, ValueRange{dRow, dCol}, buf,
        ValueRange{i0, i1, minsi(gRow, lastRow), mul(ch, 8)},
        b.getIndexAttr(8), n, b.getUnitAttr());
  };
  if (total % threads == 0 && threads % cpr == 0) {
    // Unrolled: every thread copies the same chunk column of rows
    // tid / cpr + i * step.
    const int64_t step = threads / cpr;
    Value r0 = divui(tid, cpr), ch = remui(tid, cpr);
    auto predicated = [&] {
      for (int64_t i = 0; i < total / threads; ++i)
        copy(add(r0, i * step), ch);
    };
    if (flagBuf || rowStart || step % 8 != 0) {
      predicated();
      return;
    }
    // A tile whose rows are all below rowLimit (every tile but the last
    // of a row range): no predicate and no clamp, and the thread's copies
    // are `step` rows apart in both memories (the same swizzled column:
    // step is a multiple of 8), so each is one cp.async at a constant
    // shared offset and a loop-invariant global one. (Through memref
    // indices, the clamp and the stage index made each copy seven 64-bit
    // address instructions; H200: 1.04-1.17x the kernel's speed,
    // bench/RESULTS.md session 11.)
    auto ifFull = scf::IfOp::create(
        b, loc, cmpi(arith::CmpIPredicate::ule, add(row0, cst(rows)), rowLimit),
        /*withElseRegion=*/true);
    OpBuilder::InsertionGuard gd(b);
    b.setInsertionPointToStart(ifFull.elseBlock());
    predicated();
    b.setInsertionPointToStart(ifFull.thenBlock());
    const int64_t eb = cfg.eltBytes;
    Value sRow = add(add(viewRow0, mul(divui(ch, 8), rows)), r0);
    Value sCol =
        mul(arith::XOrIOp::create(b, loc, remui(ch, 8), remui(r0, 8)), 8);
    Value s0 = toI64(
        add(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, view),
            mul(add(mul(sRow, 64), sCol), eb)));
    stridedCopies(buf, i0, i1, add(row0, r0), mul(ch, 8), step, s0,
                  step * 64 * eb, total / threads);
    return;
  }
  scf::ForOp::create(b, loc, tid, cst(total), cst(threads), ValueRange{},
                     [&](OpBuilder &, Location, Value c, ValueRange) {
                       copy(divui(c, cpr), remui(c, cpr));
                       scf::YieldOp::create(b, loc);
                     });
}

Value FlashKernelBuilder::wgmmaDesc(Value addr) {
  int64_t hi = (int64_t(1) << 62) | (int64_t(1024 >> 4) << 32) |
               (int64_t(16 >> 4) << 16);
  Value a = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, addr, i64c(4)), i64c(0x3FFF));
  return arith::OrIOp::create(b, loc, a, i64c(hi));
}

Value FlashKernelBuilder::descPlus(Value desc, int64_t bytes) {
  return bytes == 0 ? desc
                    : arith::AddIOp::create(b, loc, desc, i64c(bytes >> 4))
                          .getResult();
}

SmallVector<Value> FlashKernelBuilder::inlinePtx(StringRef text, StringRef constraints,
                             ValueRange operands, int64_t nOut) {
  MLIRContext *ctx = b.getContext();
  Type resTy = nOut ? LLVM::LLVMStructType::getLiteral(
                          ctx, SmallVector<Type>(nOut, f32))
                    : Type();
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, resTy, operands, text, constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT), ArrayAttr());
  SmallVector<Value> res;
  for (int64_t i = 0; i < nOut; ++i)
    res.push_back(
        LLVM::ExtractValueOp::create(b, loc, asmOp.getRes(), i).getResult());
  return res;
}

std::string FlashKernelBuilder::regList(int64_t first, int64_t n) {
  std::string r = "{";
  for (int64_t i = 0; i < n; ++i)
    r += (i ? ", $" : "$") + std::to_string(first + i);
  return r + "}";
}

SmallVector<Value> FlashKernelBuilder::wgmmaBlock(int64_t n, ArrayRef<Value> qDesc,
                              ArrayRef<Value> kDesc, ArrayRef<Value> oAcc,
                              ArrayRef<Value> pRegs, ArrayRef<Value> vDesc) {
  const int64_t nS = qDesc.empty() ? 0 : n / 2, sSteps = qDesc.size();
  const int64_t nO = oAcc.size(), blocks = nO / 32, pSteps = pRegs.size() / 4;
  // Operands: outputs S, O; inputs O (tied), Q/K descriptors, P, V
  // descriptors, the constant 0.
  const int64_t oIn = nS + nO, qkArg = oIn + nO, pArg = qkArg + 2 * sSteps,
                vArg = pArg + 4 * pSteps, zeroArg = vArg + vDesc.size();
  std::string z = std::to_string(zeroArg);
  // Operand types: f16 or bf16 (Q/K/V's type; P is converted to it).
  const std::string ab = elt.isBF16() ? "bf16.bf16" : "f16.f16";
  std::string text = "{\n.reg .pred p, q;\nsetp.ne.b32 p, $" + z +
                     ", 0;\nsetp.eq.b32 q, $" + z +
                     ", 0;\nwgmma.fence.sync.aligned;\n";
  for (int64_t t = 0; t < sSteps; ++t)
    text += "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) +
            "k16.f32." + ab + " " + regList(0, nS) + ", $" +
            std::to_string(qkArg + 2 * t) + ", $" +
            std::to_string(qkArg + 2 * t + 1) + (t == 0 ? ", p" : ", q") +
            ", 1, 1, 0, 0;\n";
  for (int64_t t = 0; t < pSteps; ++t)
    for (int64_t cb = 0; cb < blocks; ++cb)
      text += "wgmma.mma_async.sync.aligned.m64n64k16.f32." + ab + " " +
              regList(nS + 32 * cb, 32) + ", " + regList(pArg + 4 * t, 4) +
              ", $" + std::to_string(vArg + t * blocks + cb) +
              ", q, 1, 1, 1;\n";
  text += "wgmma.commit_group.sync.aligned;\n"
          "wgmma.wait_group.sync.aligned 0;\n}";
  std::string cons;
  for (int64_t i = 0; i < nS + nO; ++i)
    cons += "=f,";
  for (int64_t i = 0; i < nO; ++i)
    cons += std::to_string(nS + i) + ",";
  for (int64_t i = 0; i < 2 * sSteps; ++i)
    cons += "l,";
  for (int64_t i = 0; i < 4 * pSteps; ++i)
    cons += "r,";
  for (size_t i = 0; i < vDesc.size(); ++i)
    cons += "l,";
  cons += "r";
  SmallVector<Value> ops(oAcc.begin(), oAcc.end());
  for (int64_t t = 0; t < sSteps; ++t) {
    ops.push_back(qDesc[t]);
    ops.push_back(kDesc[t]);
  }
  ops.append(pRegs.begin(), pRegs.end());
  ops.append(vDesc.begin(), vDesc.end());
  ops.push_back(arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
  return inlinePtx(text, cons, ops, nS + nO);
}

void FlashKernelBuilder::ctaBarrierNonAligned() {
  LLVM::CallIntrinsicOp::create(
      b, loc, b.getStringAttr("llvm.nvvm.barrier.cta.sync.all"),
      ValueRange{arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0)});
}

Value FlashKernelBuilder::packF16x2(Value x0, Value x1) {
  Value v = vector::FromElementsOp::create(b, loc, vec(2, f32),
                                           ValueRange{x0, x1});
  v = arith::TruncFOp::create(b, loc, vec(2, elt), v);
  v = vector::BitCastOp::create(b, loc, vec(1, b.getI32Type()), v);
  return vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{0});
}

SmallVector<Value> FlashKernelBuilder::ifElse(Value cond, TypeRange types,
                          llvm::function_ref<SmallVector<Value>()> then,
                          llvm::function_ref<SmallVector<Value>()> otherwise) {
  auto ifOp = scf::IfOp::create(b, loc, types, cond, true);
  OpBuilder::InsertionGuard gd(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, loc, then());
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, loc, otherwise());
  return SmallVector<Value>(ifOp.getResults().begin(),
                            ifOp.getResults().end());
}

void FlashKernelBuilder::emitWgmmaLaunch(Value blocks, Value nQT) {
  const int64_t N = cfg.kvTile, D = cfg.D, Dv = cfg.Dv, QT = cfg.qTile;
  const int64_t NT = N / 8, KD = D / 16, DT = Dv / 8, KC = N / 16;
  const int64_t DB = D / 64, VB = Dv / 64; // 64-column blocks
  Value one = cst(1), zero = cst(0);
  Cta c = emitCta(blocks, nQT);
  Value lane = c.lane, warp = c.warp, h = c.h, bi = c.bi, kh = c.kh,
        q0 = c.q0, base = c.smem, nKT = c.nKT;
  Value g = divui(lane, 4), t4 = remui(lane, 4);

  // Shared memory from the first 1 KiB boundary: Q [QT * DB rows x 64],
  // K [S stages x N * DB rows x 64], V [S stages x N * VB rows x 64].
  Value addr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, base);
  Value pad = remui(sub(cst(1024), remui(addr, 1024)), 1024);
  auto wgs = gpu::AddressSpaceAttr::get(b.getContext(),
                                        gpu::AddressSpace::Workgroup);
  int64_t off = 0;
  auto region = [&](int64_t rows, Value &view) -> Value {
    auto ty = MemRefType::get({rows, 64}, elt, MemRefLayoutAttrInterface(),
                              wgs);
    view = memref::ViewOp::create(b, loc, ty, base, add(pad, off),
                                  ValueRange{});
    Value a = toI64(add(add(addr, pad), off));
    off += rows * 64 * cfg.eltBytes;
    return a;
  };
  Value qs, ks, vs;
  Value qAddr = region(QT * DB, qs);
  const int64_t S = cfg.stages;
  Value kAddr = region(S * N * DB, ks);
  Value vAddr = region(S * N * VB, vs);
  const int64_t kStage = N * DB * 128, vStage = N * VB * 128; // bytes
  // Warp specialization (cfg.producerWarps): the last warpgroup copies,
  // the first cfg.warps warps compute. Stage s has two mbarriers after
  // the tiles: full[s] (the producers' copies of a slot have landed; 128
  // arrivals) and empty[s] (the consumers are done with it; one arrival
  // per consumer thread).
  const bool ws = cfg.producerWarps > 0;
  const int64_t consumers = cfg.warps * 32,
                producers = cfg.producerWarps * 32;
  MLIRContext *ctx = b.getContext();
  Type i32 = b.getI32Type();
  auto i32c = [&](int64_t x) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, x);
  };
  auto toI32 = [&](Value x) -> Value {
    return arith::IndexCastUIOp::create(b, loc, i32, x);
  };
  Value barAddr = ws ? toI64(add(add(addr, pad), cst(off))) : Value();
  // mbarrier i: full[s] = i s, empty[s] = i S + s.
  auto barPtr = [&](Value i) -> Value {
    return LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(ctx, 3),
        arith::AddIOp::create(b, loc, barAddr, toI64(mul(i, 8))).getResult());
  };
  auto waitBar = [&](Value i, Value parity) {
    NVVM::MBarrierTryWaitParityOp::create(b, loc, barPtr(i), toI32(parity),
                                          i32c(10000000));
  };
  auto arriveBar = [&](Value i) {
    NVVM::MBarrierArriveOp::create(b, loc, b.getI64Type(), barPtr(i),
                                   Value());
  };
  auto fenceProxyAsync = [&] {
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  };
  // Keys hidden from every row of the CTA are zero-filled, never read:
  // past kvEnd (causal, Sk) by the row limit, by the mask through the
  // flags (buffer u % 4 holds tile u's; tile u's are written in step
  // u - S, read by the copies of steps u - S + 1 (K) and u - S + 2 (V)).
  Value kvEnd = c.kvEnd;
  Value kvLow = band.left ? c.kvStart : Value(); // window: below every row's
  if (cfg.keyFlags)
    setupKeyFlags(base, add(pad, cst(off)));
  auto flagBufOf = [&](Value u) -> Value {
    return cfg.keyFlags ? remui(u, 4) : Value();
  };
  auto visibility = [&](Value u) {
    if (cfg.keyFlags)
      ifThen(cmpi(arith::CmpIPredicate::ult, u, nKT), [&] {
        emitKeyVisibility(u, remui(u, 4), q0, c.shift, c.mb, c.mh);
      });
  };
  // Who issues the K/V copies: every compute thread (null: asyncTileSwizzled's
  // default), or the producer warpgroup (set below).
  Value copyTid;
  int64_t copyThreads = 0;

  // Slot j (in stage j % S) holds K(j) and V(j - 1): step t computes
  // S(t) and O += P(t - 1) V(t - 1) from slot t. Slot j's copies are one
  // cp.async group, issued S - 1 steps ahead. Prologue: Q with slot 0 (V's
  // half of stage 0 stays unused in step 0), then slots 1 .. S - 2.
  // copySlot(j, stage): K(j) when j < nKT, V(j - 1) when j - 1 < nKT.
  auto copySlot = [&](Value j, Value stageIdx) {
    ifThen(cmpi(arith::CmpIPredicate::ult, j, nKT), [&] {
      asyncTileSwizzled(k, bi, kh, add(c.kvBase, mul(j, N)), kvEnd, N, D,
                        ks, mul(stageIdx, N * DB), flagBufOf(j), kvLow,
                        copyTid, copyThreads);
    });
    ifThen(arith::AndIOp::create(
               b, loc, cmpi(arith::CmpIPredicate::ugt, j, zero),
               cmpi(arith::CmpIPredicate::ule, j, nKT)),
           [&] {
             asyncTileSwizzled(v, bi, kh, add(c.kvBase, mul(sub(j, one), N)),
                               kvEnd, N, Dv, vs, mul(stageIdx, N * VB),
                               flagBufOf(sub(j, one)), kvLow, copyTid,
                               copyThreads);
           });
  };
  Value groupTok;
  if (ws) {
    ifThen(cmpi(arith::CmpIPredicate::eq, tid, zero), [&] {
      for (int64_t s = 0; s < S; ++s) {
        NVVM::MBarrierInitOp::create(b, loc, barPtr(cst(s)), i32c(producers),
                                     Value());
        NVVM::MBarrierInitOp::create(b, loc, barPtr(cst(S + s)),
                                     i32c(consumers), Value());
      }
    });
    ctaBarrierNonAligned();
  } else {
    asyncTileSwizzled(q, bi, h, q0, Sq, QT, D, qs, zero);
    if (cfg.keyFlags) {
      for (int64_t u = 0; u < S; ++u)
        visibility(cst(u));
      gpu::BarrierOp::create(b, loc);
    }
    copySlot(zero, zero);
    // Exactly one group per slot from here on (no empty groups), so that
    // "slot t has landed" is always wait_group(S - 2). The token only
    // satisfies the op's syntax; the wait is by count.
    groupTok = asyncCommit();
    for (int64_t j = 1; j + 1 < S; ++j) {
      copySlot(cst(j), cst(j));
      asyncCommit();
    }
  }

  // The warpgroup's Q descriptors (k16 step t: column block t / 4, 32
  // bytes per step inside it).
  Value wgIdx = divui(warp, 4);
  Value qDesc0 = wgmmaDesc(arith::AddIOp::create(
      b, loc, qAddr, toI64(mul(wgIdx, 64 * 128))));
  SmallVector<Value> qDesc;
  for (int64_t t = 0; t < KD; ++t)
    qDesc.push_back(descPlus(qDesc0, (t / 4) * QT * 128 + (t % 4) * 32));

  Value rowBase = add(q0, mul(warp, 16)); // query index of the warp's row 0
  SmallVector<Value> rowG{add(rowBase, g), add(add(rowBase, g), 8)};
  Value negInf = fcst(-std::numeric_limits<double>::infinity());
  Value fzero = fcst(0.0);
  VectorType accTy = vec2(2, 2, f32);
  Value accZero = arith::ConstantOp::create(
      b, loc, accTy, DenseElementsAttr::get(accTy, 0.0f));
  // Carried: m[2], l[2], O[DT] (vector<2x2xf32>), then X: the pending
  // P(t) of an even warpgroup (N/4 f16x2 registers) or the pending scores
  // S(t) of an odd one (N/2 f32).
  SmallVector<Value> init(2, negInf);
  init.append(2, fzero);
  init.append(DT, accZero);
  MmaCtx mx{1,    NT,     DT,    mul(t4, 2), rowBase, c.shift, c.mb,
            c.mh, negInf, fzero, rowG};
  Value odd = cmpi(arith::CmpIPredicate::eq, remui(wgIdx, 2), one);

  // Steps t = 0 .. nKT: S(t) for t < nKT, O += P(t-1) V(t-1) for t > 0.
  // Even warpgroups run [S(t), P(t-1) V(t-1)] then softmax(t); odd ones
  // softmax(t-1) then [S(t), P(t-1) V(t-1)], so that in each step one
  // warpgroup's softmax overlaps the other's tensor-core work
  // (FlashAttention-3's ping-pong; here the one barrier per step keeps
  // the two in their phases). The two roles are two loops with the same
  // barriers, each carrying only what it needs.
  // nKT + 1 steps, none when the CTA sees no key (Sk = 0, or causal rows
  // above the diagonal): the last step's P V would otherwise read a V
  // stage that no copy wrote (0 * Inf = NaN).
  Value steps = select(cmpi(arith::CmpIPredicate::ugt, nKT, zero),
                       add(nKT, one), zero);
  auto emitLoop = [&](bool oddRole) -> SmallVector<Value> {
    SmallVector<Value> init2 = init;
    if (oddRole)
      init2.append(N / 2, fzero);
    else
      init2.append(N / 4, arith::ConstantIntOp::create(b, loc, i32, 0));
    auto loop = scf::ForOp::create(
        b, loc, zero, steps, one, init2,
        [&](OpBuilder &, Location, Value kt, ValueRange carried) {
          // Every warp copies: slot kt has landed when at most the S - 2
          // newer slots are in flight. The barrier also orders every read
          // of stage (kt + S - 1) % S (slot kt - 1, step kt - 1) before
          // the copies into it below.
          Value stage;
          if (ws) {
            stage = remui(kt, S);
            // Slot kt has landed (the producers fenced their copies for
            // the async proxy before arriving); the consumers' named
            // barrier keeps the two warpgroups in their ping-pong phases.
            waitBar(stage, remui(divui(kt, S), 2));
            LLVM::CallIntrinsicOp::create(
                b, loc, b.getStringAttr("llvm.nvvm.barrier.cta.sync.count"),
                ValueRange{i32c(1), i32c(consumers)});
          } else {
            asyncWait(groupTok, S - 2);
            fenceProxyAsync();
            // The two roles run two copies of this loop, so the CTA's
            // warpgroups meet at two different barrier instructions: that
            // needs the non-aligned barrier.sync. (gpu.barrier is bar.sync,
            // i.e. barrier.sync.aligned, which requires every thread of the
            // CTA to execute the same instruction; compute-sanitizer's
            // synccheck reports the aligned form here as a divergent
            // barrier.)
            ctaBarrierNonAligned();
            stage = remui(kt, S);
          }
          Value k0 = add(c.kvBase, mul(kt, N));
          Value hasS = cmpi(arith::CmpIPredicate::ult, kt, nKT);
          Value hasPV = cmpi(arith::CmpIPredicate::ugt, kt, zero);
          if (!ws) {
            Value ahead = add(kt, cst(S - 1));
            copySlot(ahead, remui(ahead, S));
            asyncCommit();
            visibility(add(kt, cst(S)));
          }

          Value kDesc0 = wgmmaDesc(arith::AddIOp::create(
              b, loc, kAddr, toI64(mul(stage, kStage))));
          SmallVector<Value> kDesc;
          for (int64_t t = 0; t < KD; ++t)
            kDesc.push_back(
                descPlus(kDesc0, (t / 4) * N * 128 + (t % 4) * 32));
          Value vDesc0 = wgmmaDesc(arith::AddIOp::create(
              b, loc, vAddr, toI64(mul(stage, vStage))));
          SmallVector<Value> vDesc;
          for (int64_t kc = 0; kc < KC; ++kc)
            for (int64_t cb = 0; cb < VB; ++cb)
              vDesc.push_back(
                  descPlus(vDesc0, cb * N * 128 + kc * 16 * 128));

          // state = (m, l, O vectors).
          SmallVector<Value> state(carried.begin(), carried.begin() + 4 + DT);
          SmallVector<Value> x(carried.begin() + 4 + DT, carried.end());
          auto stateTypes = [&]() {
            SmallVector<Type> t;
            for (Value v : state)
              t.push_back(v.getType());
            return t;
          };
          // The step's tensor-core work: S(t) (when t < nKT) and
          // O += P V (when t > 0). Returns (S or `sDummy`, O scalars).
          auto gemms = [&](ArrayRef<Value> pRegs, ArrayRef<Value> sDummy) {
            SmallVector<Value> o;
            for (int64_t dt = 0; dt < DT; ++dt)
              for (int64_t e = 0; e < 4; ++e)
                o.push_back(vector::ExtractOp::create(
                    b, loc, state[4 + dt], ArrayRef<int64_t>{e / 2, e % 2}));
            SmallVector<Type> types(N / 2 + DT * 4, f32);
            auto run = [&](bool doS, bool doPV) {
              SmallVector<Value> r = wgmmaBlock(
                  N, doS ? ArrayRef<Value>(qDesc) : ArrayRef<Value>(), kDesc,
                  doPV ? ArrayRef<Value>(o) : ArrayRef<Value>(),
                  doPV ? pRegs : ArrayRef<Value>(), vDesc);
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
                arith::AndIOp::create(b, loc, hasS, hasPV), types,
                [&] { return run(true, true); },
                [&] {
                  return ifElse(
                      hasS, types, [&] { return run(true, false); },
                      [&] { return run(false, true); });
                });
            for (int64_t dt = 0; dt < DT; ++dt) {
              Value *od = &r[N / 2 + 4 * dt];
              state[4 + dt] = pack({od[0], od[1], od[2], od[3]}, f32);
            }
            if (ws) // slot kt read (wgmma waited): the producers may refill
              arriveBar(add(stage, cst(S)));
            return SmallVector<Value>(r.begin(), r.begin() + N / 2);
          };
          // The online softmax of scores s (keys from key0): updates
          // state (m, l, O rescaled) and returns P as f16x2 registers.
          auto softmax = [&](ArrayRef<Value> s, Value key0) {
            MmaStep st = mmaSoftmaxStep(
                mx, SmallVector<Value>(s.begin(), s.end()), key0, state);
            state = st.next;
            state.append(st.o.begin(), st.o.end());
            auto P = [&](int64_t nt, int64_t e) { return st.p[nt * 4 + e]; };
            SmallVector<Value> p; // k16 step kc: rows g / g+8, keys +0 / +8
            for (int64_t kc = 0; kc < KC; ++kc)
              for (int64_t half = 0; half < 2; ++half)
                for (int64_t hh = 0; hh < 2; ++hh)
                  p.push_back(packF16x2(P(2 * kc + half, 2 * hh),
                                        P(2 * kc + half, 2 * hh + 1)));
            return p;
          };

          SmallVector<Value> next;
          if (oddRole) {
            // softmax(t - 1) (skipped in step 0), then the tensor cores.
            SmallVector<Type> types = stateTypes();
            types.append(N / 4, i32);
            SmallVector<Value> saved = state;
            SmallVector<Value> sm = ifElse(
                hasPV, types,
                [&] {
                  SmallVector<Value> p = softmax(x, sub(k0, cst(N)));
                  SmallVector<Value> r = state;
                  r.append(p.begin(), p.end());
                  return r;
                },
                [&] {
                  SmallVector<Value> r = saved;
                  r.append(N / 4, arith::ConstantIntOp::create(b, loc, i32, 0));
                  return r;
                });
            state.assign(sm.begin(), sm.begin() + 4 + DT);
            SmallVector<Value> p(sm.begin() + 4 + DT, sm.end());
            SmallVector<Value> s = gemms(p, x);
            next = state;
            next.append(s.begin(), s.end());
          } else {
            // The tensor cores, then softmax(t) (skipped in step nKT).
            SmallVector<Value> s = gemms(x, SmallVector<Value>(N / 2, fzero));
            SmallVector<Type> types = stateTypes();
            types.append(N / 4, i32);
            SmallVector<Value> saved = state;
            next = ifElse(
                hasS, types,
                [&] {
                  SmallVector<Value> p = softmax(s, k0);
                  SmallVector<Value> r = state;
                  r.append(p.begin(), p.end());
                  return r;
                },
                [&] {
                  SmallVector<Value> r = saved;
                  r.append(x.begin(), x.end());
                  return r;
                });
          }
          scf::YieldOp::create(b, loc, next);
        });
    return SmallVector<Value>(loop.getResults().begin(),
                              loop.getResults().begin() + 4 + DT);
  };
  SmallVector<Type> resTypes;
  for (Value v : init)
    resTypes.push_back(v.getType());
  auto consume = [&] {
    SmallVector<Value> res = ifElse(
        odd, resTypes, [&] { return emitLoop(true); },
        [&] { return emitLoop(false); });
    if (!ws)
      asyncWaitAll(); // no copy outlives the kernel
    storeMmaOutput(mx, res, bi, h);
  };
  if (!ws)
    return consume();

  // Warp-specialized CTA (FlashAttention-3's producer/consumer split, with
  // cp.async instead of TMA): the producer warpgroup copies Q with slot 0
  // and then slot j into stage j % S once the consumers have released the
  // slot S steps back (empty), and signals slot j (full) after its copies
  // have landed (its wait_group trails the newest slot by one) and are
  // fenced for wgmma's async proxy. setmaxnreg moves registers from the
  // producers to the consumers when the CTA has more than 256 threads.
  const bool moveRegs = consumers + producers > 256;
  auto roles = scf::IfOp::create(
      b, loc, cmpi(arith::CmpIPredicate::uge, warp, cst(cfg.warps)),
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
  consume();
  b.setInsertionPointToStart(roles.thenBlock());
  if (moveRegs)
    NVVM::SetMaxRegisterOp::create(b, loc, kProducerRegs,
                                   NVVM::SetMaxRegisterAction::decrease);
  copyTid = sub(tid, cst(consumers));
  copyThreads = producers;
  asyncTileSwizzled(q, bi, h, q0, Sq, QT, D, qs, zero, Value(), Value(),
                    copyTid, copyThreads);
  scf::ForOp::create(
      b, loc, zero, steps, one, ValueRange{},
      [&](OpBuilder &, Location, Value j, ValueRange) {
        Value stage = remui(j, S);
        ifThen(cmpi(arith::CmpIPredicate::uge, j, cst(S)), [&] {
          waitBar(add(stage, cst(S)), remui(add(divui(j, S), one), 2));
        });
        copySlot(j, stage);
        Value tok = asyncCommit();
        ifThen(cmpi(arith::CmpIPredicate::uge, j, one), [&] {
          asyncWait(tok, 1);
          fenceProxyAsync();
          arriveBar(remui(sub(j, one), S));
        });
        scf::YieldOp::create(b, loc);
      });
  ifThen(cmpi(arith::CmpIPredicate::ugt, steps, zero), [&] {
    asyncWait(asyncCommit(), 0);
    fenceProxyAsync();
    arriveBar(remui(sub(steps, one), S));
  });
  asyncWaitAll(); // no copy outlives the kernel (Q when no step runs)
}
