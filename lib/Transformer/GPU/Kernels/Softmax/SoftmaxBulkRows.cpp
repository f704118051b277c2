//===- SoftmaxBulkRows.cpp - softmax rows by cp.async.bulk ----------------===//
//
// The softmax row kernel whose rows the copy engine streams into shared
// memory (sm_90 cp.async.bulk into a ring of chunk slots, one mbarrier per
// slot; KernelConfig::bulkChunkBytes), for a persistent grid of
// CTA-per-row kernels: the ring, the producer thread's chunk copies, and
// the two passes over a row's chunks (SoftmaxKernelBuilder::bulkRows,
// SoftmaxKernelBuilder.h).
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Softmax/SoftmaxKernelBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tx;

Value SoftmaxKernelBuilder::addI(Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y).getResult();
}

Value SoftmaxKernelBuilder::mulI(Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y).getResult();
}

Value SoftmaxKernelBuilder::divuC(Value x, int64_t y) {
  return arith::DivUIOp::create(b, loc, x, cst(y)).getResult();
}

Value SoftmaxKernelBuilder::remuC(Value x, int64_t y) {
  return arith::RemUIOp::create(b, loc, x, cst(y)).getResult();
}

Value SoftmaxKernelBuilder::ultI(Value x, Value y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y)
      .getResult();
}

Value SoftmaxKernelBuilder::indexToI64(Value v) {
  return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), v)
      .getResult();
}

Value SoftmaxKernelBuilder::indexToI32(Value v) {
  return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), v)
      .getResult();
}

Value SoftmaxKernelBuilder::ptrIn(unsigned space, Value a) {
  return LLVM::IntToPtrOp::create(
             b, loc, LLVM::LLVMPointerType::get(b.getContext(), space), a)
      .getResult();
}

Value SoftmaxKernelBuilder::addrOf(Value m) {
  return indexToI64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, m));
}

void SoftmaxKernelBuilder::ifThen(Value cond,
                                  llvm::function_ref<void()> body) {
  auto ifOp = scf::IfOp::create(b, loc, cond, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  body();
}

Value SoftmaxKernelBuilder::ringBar(const BulkRing &r, Value slot) {
  return ptrIn(3, addI(r.barAddr, indexToI64(mulI(slot, cst(8)))));
}

std::pair<Value, Value> SoftmaxKernelBuilder::rowGeometry(Value r) {
  if (!cfg.peel)
    return {cst(0), numVec};
  return peelGeometry(r);
}

void SoftmaxKernelBuilder::issueChunk(const BulkRing &ring, Value g) {
  const int64_t C = ring.C;
  const int64_t eb = elt.getIntOrFloatBitWidth() / 8;
  Value r = addI(ring.bid, mulI(divuC(g, ring.nChunks), ring.grid));
  ifThen(ultI(r, rows), [&] {
    Value k = remuC(g, ring.nChunks), slot = remuC(g, ring.slots);
    auto [head, nvec] = rowGeometry(r);
    Value left = arith::SubIOp::create(b, loc, mulI(nvec, cst(16)),
                                       mulI(k, cst(C)));
    Value bytes = arith::MaxSIOp::create(
        b, loc, cst(0), arith::MinSIOp::create(b, loc, left, cst(C)));
    NVVM::MBarrierArriveExpectTxOp::create(
        b, loc, Type(), ringBar(ring, slot), indexToI32(bytes),
        NVVM::MemScopeKind::CTA, /*relaxed=*/false, Value());
    ifThen(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, bytes,
                                 cst(0)),
           [&] {
             Value src = addI(
                 ring.inAddr,
                 indexToI64(addI(mulI(addI(mulI(r, cols), head), cst(eb)),
                                 mulI(k, cst(C)))));
             // (A shared::cta address is a shared::cluster address of
             // this CTA; the shared::cta form needs PTX 8.6.)
             Value dst = addI(ring.ringAddr, indexToI64(mulI(slot, cst(C))));
             NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(
                 b, loc, ptrIn(7, dst), ptrIn(1, src), ringBar(ring, slot),
                 indexToI32(bytes), Value(), Value());
           });
  });
}

void SoftmaxKernelBuilder::startRing(const BulkRing &ring) {
  ifThen(ring.isProducer, [&] {
    for (int64_t k = 0; k < ring.slots; ++k)
      NVVM::MBarrierInitOp::create(
          b, loc, ringBar(ring, cst(k)),
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1), Value());
    NVVM::FenceMbarrierInitOp::create(b, loc);
  });
  gpu::BarrierOp::create(b, loc);
  ifThen(ring.isProducer, [&] {
    scf::ForOp::create(b, loc, cst(0), cst(ring.slots), cst(1),
                       ValueRange{},
                       [&](OpBuilder &, Location, Value g, ValueRange) {
                         issueChunk(ring, g);
                         scf::YieldOp::create(b, loc);
                       });
  });
}

SmallVector<Value> SoftmaxKernelBuilder::chunkVecs(const BulkRing &ring,
                                                   Value k, Value g,
                                                   Value nvec, Value padding,
                                                   SmallVector<Value> &vis,
                                                   SmallVector<Value> &oks,
                                                   bool guarded) {
  const int64_t T = cfg.blockSize;
  SmallVector<Value> xs;
  Value slotVec0 = addI(mulI(remuC(g, ring.slots), cst(ring.vpc)), lane);
  for (int64_t j = 0; j < ring.perThread; ++j) {
    Value vi = addI(mulI(k, cst(ring.vpc)), addI(lane, cst(j * T)));
    Value si = addI(slotVec0, cst(j * T));
    vis.push_back(vi);
    if (!guarded) {
      xs.push_back(loadVecAgain(si, Value()));
      oks.push_back(Value());
      continue;
    }
    Value ok = ultI(vi, nvec);
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{padding.getType()}, ok,
                                  /*withElse=*/true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(b, loc, loadVecAgain(si, Value()));
      b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(b, loc, padding);
    }
    xs.push_back(ifOp.getResult(0));
    oks.push_back(ok);
  }
  return xs;
}

std::pair<Value, Value>
SoftmaxKernelBuilder::bulkRowMaxSum(const BulkRing &ring, Value g0, Value nvec,
                                    Value padding, Value ticks, RowEnds *ends,
                                    Value head) {
  Value m = negInf, s = zero;
  if (cfg.peel) {
    *ends = loadEnds(head, nvec);
    std::tie(m, s) = onlineUpdate(m, s, ends->xh, false);
    std::tie(m, s) = onlineUpdate(m, s, ends->xt, false);
  }
  auto fold1 = [&](Value k, ValueRange acc, bool guarded) {
    Value g = addI(g0, k);
    NVVM::MBarrierTryWaitParityOp::create(
        b, loc, ringBar(ring, remuC(g, ring.slots)),
        indexToI32(remuC(divuC(g, ring.slots), 2)), ticks);
    SmallVector<Value> vis, oks;
    SmallVector<Value> xs =
        chunkVecs(ring, k, g, nvec, padding, vis, oks, guarded);
    return onlineFold(acc, xs);
  };
  auto pass1 = scf::ForOp::create(
      b, loc, cst(0), cst(ring.nChunks - 1), cst(1), ValueRange{m, s},
      [&](OpBuilder &, Location, Value k, ValueRange acc) {
        scf::YieldOp::create(b, loc, fold1(k, acc, false));
      });
  SmallVector<Value> ms =
      fold1(cst(ring.nChunks - 1), pass1.getResults(), true);
  return allReduceOnline(ms[0], ms[1]);
}

void SoftmaxKernelBuilder::bulkRowNormalize(const BulkRing &ring, Value g0,
                                            Value head, Value nvec,
                                            Value padding, Value cV, Value M,
                                            Value inv) {
  Value invV = splat(inv);
  auto normalize = [&](Value k, bool guarded) {
    Value g = addI(g0, k);
    SmallVector<Value> vis, oks;
    SmallVector<Value> xs =
        chunkVecs(ring, k, g, nvec, padding, vis, oks, guarded);
    for (int64_t j = 0; j < ring.perThread; ++j) {
      auto st = [&, j] {
        Value e = expDiff(xs[j], M);
        storeVecAt(addI(head, mulI(vis[j], cV)),
                   arith::MulFOp::create(b, loc, e, invV));
      };
      if (oks[j])
        ifThen(oks[j], st);
      else
        st();
    }
    gpu::BarrierOp::create(b, loc);
    ifThen(ring.isProducer, [&] { issueChunk(ring, addI(g, cst(ring.slots))); });
  };
  scf::ForOp::create(b, loc, cst(0), cst(ring.nChunks - 1), cst(1),
                     ValueRange{},
                     [&](OpBuilder &, Location, Value k, ValueRange) {
                       normalize(k, false);
                       scf::YieldOp::create(b, loc);
                     });
  normalize(cst(ring.nChunks - 1), true);
}

void SoftmaxKernelBuilder::bulkRows(Value tid, Value bid, Value grid) {
  BulkRing ring;
  ring.C = cfg.bulkChunkBytes;
  ring.nChunks = llvm::divideCeil(cfg.smemRowBytes, ring.C);
  ring.slots = std::max(cfg.bulkSlots, ring.nChunks);
  ring.vpc = ring.C / 16;
  ring.perThread = ring.vpc / cfg.blockSize;
  ring.bid = bid;
  ring.grid = grid;
  ring.inAddr = addrOf(in);
  ring.ringAddr = addrOf(smemRow);
  ring.barAddr = addrOf(bars);
  ring.isProducer =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, cst(0));
  startRing(ring);
  auto rowLoop = scf::ForOp::create(b, loc, bid, rows, grid);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(rowLoop.getBody());
  row = rowLoop.getInductionVar();
  Value g0 = mulI(arith::DivUIOp::create(
                      b, loc, arith::SubIOp::create(b, loc, row, bid), grid),
                  cst(ring.nChunks));
  // (Created in the order of the one-function form, so that the PTX is
  // unchanged.)
  Value ticks =
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), 10000000);
  auto [head, nvec] = rowGeometry(row);
  Value padding = splat(negInf);
  Value cV = cst(cfg.vectorWidth);
  RowEnds ends;
  auto [M, S] = bulkRowMaxSum(ring, g0, nvec, padding, ticks, &ends, head);
  Value inv = arith::DivFOp::create(b, loc, fcst(1.0f), S);
  if (cfg.peel)
    storeEnds(ends, M, inv);
  bulkRowNormalize(ring, g0, head, nvec, padding, cV, M, inv);
}
