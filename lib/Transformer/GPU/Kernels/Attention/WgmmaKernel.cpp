//===- WgmmaKernel.cpp - the sm_90a warpgroup-MMA flash kernel --------------===//
//
// FlashAttention-2 on wgmma.mma_async (sm_90a, f16/bf16, D and Dv in
// {64, 128}): 128-byte swizzled shared-memory tiles, descriptors, inline
// PTX for the register-A form; the CTA's body (two warpgroups in
// ping-pong, optionally a producer warpgroup) is in WgmmaLaunch.cpp.
//
// FlashAttention-2's loop on Hopper's warpgroup MMA (wgmma.mma_async, PTX
// ISA 8.0, sm_90a), issued as FlashAttention-3 (Shah et al. 2024) issues
// it (warp specialization optional: FlashConfig::producerWarps, see
// emitWgmmaLaunch and Passes.td): warpgroup w (warps 4w..4w+3) owns
// query rows [64w, 64w + 64) of the CTA's tile. Per K/V tile:
//   S (64 x kv-tile, f32) = Q x K^T, both from shared memory (descriptors);
//   the accumulators are laid out as mma.sync's C fragments (warp w of the
//   group: rows 16w + g, 16w + g + 8), so the mask and online softmax are
//   the mma.sync kernel's (mmaSoftmaxStep);
//   P (f16 in registers: two 8-key blocks of S form one k16 A fragment)
//   O (64 x Dv, f32 registers) += P x V (V from shared memory, N-major).
// Q, K and V tiles live in shared memory in wgmma's 128-byte swizzled
// canonical layout: rows of 64 elements (128 bytes), the 16-byte chunk c of
// row r stored at chunk c ^ (r % 8), 8-row atoms of 1 KiB aligned to 1 KiB;
// a head dim of 128 is two such 64-column blocks. K/V tiles are
// double-buffered: cp.async copies tile t+1 while tile t is computed, and
// fence.proxy.async makes the copies visible to wgmma's async proxy.
// wgmma and its fences are inline PTX (llvm.inline_asm), the form upstream's
// NVVM dialect lowers nvvm.wgmma.mma_async to; the register-A form needed
// for P x V has no NVVM op, and nvgpu.warpgroup.mma's accumulator cannot be
// read element-wise for the softmax.
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Attention/FlashKernelBuilder.h"
#include "GPU/Kernels/Common/WgmmaOps.h"

using namespace mlir;
using namespace mlir::tx;

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
  // K/V of a paged cache: rows found through the page table (the tile's
  // page read once when it holds the whole tile).
  const bool paged = pages && (buf == k || buf == v);
  Value page = paged ? pages->tilePage(b, loc, i0, row0) : Value();
  // A copy's source (and whether it reads): paged rows read the table.
  struct Source {
    Value gRow, ok;
    SmallVector<Value> from;
  };
  auto source = [&](Value r, Value ch) {
    Source s{add(row0, r), Value(), {}};
    s.ok = copyRowOk(s.gRow, r, rowLimit, rowStart, flagBuf);
    if (paged)
      s.from = pages->index(b, loc, i0, i1, page, row0,
                            minsi(s.gRow, lastRow), mul(ch, 8), s.ok);
    return s;
  };
  auto issue = [&](Value r, Value ch, Source s) {
    Value gRow = s.gRow, ok = s.ok;
    SmallVector<Value> from = s.from;
    Value n = select(ok, cst(8), cst(0));
    Value dRow = add(add(viewRow0, mul(divui(ch, 8), rows)), r);
    Value dCol = mul(arith::XOrIOp::create(b, loc, remui(ch, 8), remui(r, 8)),
                     8);
    if (!paged)
      from = {i0, i1, minsi(gRow, lastRow), mul(ch, 8)};
    nvgpu::DeviceAsyncCopyOp::create(b, loc, tokTy, view,
                                     ValueRange{dRow, dCol}, buf, from,
                                     b.getIndexAttr(8), n, b.getUnitAttr());
  };
  auto copy = [&](Value r, Value ch) { issue(r, ch, source(r, ch)); };
  if (total % threads == 0 && threads % cpr == 0) {
    // Unrolled: every thread copies the same chunk column of rows
    // tid / cpr + i * step.
    const int64_t step = threads / cpr;
    Value r0 = divui(tid, cpr), ch = remui(tid, cpr);
    auto predicated = [&] {
      if (!paged) {
        for (int64_t i = 0; i < total / threads; ++i)
          copy(add(r0, i * step), ch);
        return;
      }
      // Every table read first, then the copies: the reads are in flight
      // together instead of one latency per copy (pages smaller than the
      // tile: one read per distinct page, rows at static offsets).
      SmallVector<Source> src;
      if (!pages->stridesPages(rows)) {
        for (int64_t i = 0; i < total / threads; ++i)
          src.push_back(source(add(r0, i * step), ch));
      } else {
        SmallVector<Value> ok;
        for (int64_t i = 0; i < total / threads; ++i) {
          Value r = add(r0, i * step);
          src.push_back({add(row0, r), Value(), {}});
          ok.push_back(copyRowOk(src[i].gRow, r, rowLimit, rowStart, flagBuf));
        }
        auto from = pages->stridedIndex(b, loc, i0, i1, row0, r0, step,
                                        mul(ch, 8), lastRow, ok);
        for (int64_t i = 0; i < total / threads; ++i)
          src[i].ok = ok[i], src[i].from = from[i];
      }
      for (int64_t i = 0; i < total / threads; ++i)
        issue(add(r0, i * step), ch, src[i]);
    };
    if (flagBuf || rowStart || step % 8 != 0 || paged) {
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
  return wgmma::descriptor(b, loc, addr);
}

Value FlashKernelBuilder::descPlus(Value desc, int64_t bytes) {
  return wgmma::descriptorPlus(b, loc, desc, bytes);
}

SmallVector<Value> FlashKernelBuilder::inlinePtx(StringRef text,
                                                 StringRef constraints,
                                                 ValueRange operands,
                                                 int64_t nOut) {
  return wgmma::inlinePtx(b, loc, text, constraints, operands, nOut);
}

std::string FlashKernelBuilder::regList(int64_t first, int64_t n) {
  return wgmma::regList(first, n);
}

// One asm statement of a warpgroup's tensor-core work for a K/V step:
//  - S (64 x n, f32; n / 2 per thread) = sum over t of Q_t x K_t^T,
//    wgmma.mma_async m64nNk16 f16 with both operands from shared memory
//    (K-major descriptors qDesc[t], kDesc[t]); the first product
//    overwrites S (scale-d false). Skipped when qDesc is empty.
//  - O (64 x 64 * blocks, f32; tied in/out) += sum over t of P_t x V_t
//    with P_t in registers (pRegs[4t..4t+3], f16x2: the k16 A fragment)
//    and V from shared memory, N-major (vDesc[t * blocks + cb] for the
//    64-column block cb): wgmma.mma_async m64n64k16, imm-trans-b = 1.
//    Skipped when oAcc is empty.
// wgmma.fence, commit and wait 0 are in the same statement, so no
// accumulator register is touched while a product is in flight. Returns
// S then O.
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

