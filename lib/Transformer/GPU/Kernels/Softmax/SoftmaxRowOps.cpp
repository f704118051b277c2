//===- SoftmaxRowOps.cpp - softmax rows: loads, exp, reductions -----------===//
//
// The element-level pieces of the softmax row kernels (SoftmaxKernelBuilder,
// SoftmaxKernelBuilder.h): loads and stores of a row's scalars and 16-byte
// vectors (in f32), the shared-memory copy of a streamed row, exp as
// ex2.approx.ftz, the online (max, sum) update and fold, and the
// all-reduces over a row's threads (warp shuffles, shared memory across
// warps).
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Softmax/SoftmaxKernelBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tx;

Value SoftmaxKernelBuilder::load(Value vi) {
  if (cfg.vectorWidth == 1)
    return loadScalarAt(vi);
  Value col = arith::MulIOp::create(b, loc, vi, cst(cfg.vectorWidth));
  return loadVecAt(col);
}

void SoftmaxKernelBuilder::store(Value vi, Value y) {
  if (cfg.vectorWidth == 1)
    return storeScalarAt(vi, y);
  storeVecAt(arith::MulIOp::create(b, loc, vi, cst(cfg.vectorWidth)), y);
}

void SoftmaxKernelBuilder::guardRow() {
  if (!rowValid)
    return;
  auto ifOp = scf::IfOp::create(b, loc, rowValid, false);
  b.setInsertionPointToStart(ifOp.thenBlock());
}

Value SoftmaxKernelBuilder::loadScalarAt(Value col) {
  Value x = memref::LoadOp::create(b, loc, in, ValueRange{row, col});
  return elt == f32 ? x : arith::ExtFOp::create(b, loc, f32, x).getResult();
}

void SoftmaxKernelBuilder::storeScalarAt(Value col, Value y) {
  OpBuilder::InsertionGuard g(b);
  guardRow();
  if (elt != f32)
    y = arith::TruncFOp::create(b, loc, elt, y);
  memref::StoreOp::create(b, loc, y, out, ValueRange{row, col});
}

Value SoftmaxKernelBuilder::loadVecAt(Value col) {
  return toF32(loadVecRawAt(col));
}

Value SoftmaxKernelBuilder::loadVecRawAt(Value col) {
  return vector::LoadOp::create(b, loc, vecTy(elt), in, ValueRange{row, col},
                                /*nontemporal=*/false, llvm::MaybeAlign(16));
}

Value SoftmaxKernelBuilder::toF32(Value x) {
  return elt == f32 ? x
                    : arith::ExtFOp::create(b, loc, vecTy(f32), x).getResult();
}

Value SoftmaxKernelBuilder::loadVecKeep(Value vi, Value col) {
  Value raw = loadVecRawAt(col);
  if (smemRow)
    vector::StoreOp::create(
        b, loc, raw, smemRow,
        ValueRange{arith::MulIOp::create(b, loc, vi, cst(cfg.vectorWidth))},
        /*nontemporal=*/false, llvm::MaybeAlign(16));
  return toF32(raw);
}

Value SoftmaxKernelBuilder::loadVecAgain(Value vi, Value col) {
  if (!smemRow)
    return loadVecAt(col);
  return toF32(vector::LoadOp::create(
      b, loc, vecTy(elt), smemRow,
      ValueRange{arith::MulIOp::create(b, loc, vi, cst(cfg.vectorWidth))},
      /*nontemporal=*/false, llvm::MaybeAlign(16)));
}

void SoftmaxKernelBuilder::storeVecAt(Value col, Value y) {
  OpBuilder::InsertionGuard g(b);
  guardRow();
  if (elt != f32)
    y = arith::TruncFOp::create(b, loc, vecTy(elt), y);
  vector::StoreOp::create(b, loc, y, out, ValueRange{row, col},
                          /*nontemporal=*/false, llvm::MaybeAlign(16));
}

Value SoftmaxKernelBuilder::splat(Value s) {
  if (cfg.vectorWidth == 1)
    return s;
  return vector::BroadcastOp::create(b, loc, vecTy(f32), s);
}

Value SoftmaxKernelBuilder::reduceMax(Value v) {
  if (cfg.vectorWidth == 1)
    return v;
  return vector::ReductionOp::create(b, loc, vector::CombiningKind::MAXIMUMF,
                                     v);
}

Value SoftmaxKernelBuilder::reduceAdd(Value v) {
  if (cfg.vectorWidth == 1)
    return v;
  return vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, v);
}

Value SoftmaxKernelBuilder::exp(Value v) {
  Value l2e = fcst(1.4426950408889634f);
  auto vt = dyn_cast<VectorType>(v.getType());
  if (vt)
    l2e = vector::BroadcastOp::create(b, loc, vt, l2e);
  return exp2(arith::MulFOp::create(b, loc, v, l2e));
}

Value SoftmaxKernelBuilder::expDiff(Value x, Value m) {
  auto vt = dyn_cast<VectorType>(x.getType());
  return exp(arith::SubFOp::create(b, loc, x, vt ? splat(m) : m));
}

Value SoftmaxKernelBuilder::exp2(Value x) {
  auto vt = dyn_cast<VectorType>(x.getType());
  auto ex2 = [&](Value s) {
    return LLVM::CallIntrinsicOp::create(
               b, loc, f32, b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"),
               ValueRange{s})
        .getResult(0);
  };
  if (!vt)
    return ex2(x);
  SmallVector<Value> parts;
  for (int64_t i = 0; i < vt.getNumElements(); ++i)
    parts.push_back(
        ex2(vector::ExtractOp::create(b, loc, x, ArrayRef<int64_t>{i})));
  return vector::FromElementsOp::create(b, loc, vt, parts);
}

Value SoftmaxKernelBuilder::rescale(Value s, Value m, Value M) {
  Value same = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m, M);
  Value f = exp(arith::SubFOp::create(b, loc, m, M));
  Value scaled = arith::MulFOp::create(b, loc, s, f);
  return arith::SelectOp::create(b, loc, same, s, scaled);
}

Value SoftmaxKernelBuilder::shuffleXor(Value v, int64_t offset) {
  return gpu::ShuffleOp::create(b, loc, v, offset, /*width=*/32,
                                gpu::ShuffleMode::XOR)
      .getShuffleResult();
}

SmallVector<Value>
SoftmaxKernelBuilder::allReduceTuple(
    SmallVector<Value> v, ArrayRef<Value> smems,
    function_ref<SmallVector<Value>(ArrayRef<Value>, ArrayRef<Value>)>
        combine) {
  for (int64_t off = std::min<int64_t>(cfg.threadsPerRow, 32) / 2; off >= 1;
       off /= 2) {
    SmallVector<Value> other;
    for (Value x : v)
      other.push_back(shuffleXor(x, off));
    v = combine(v, other);
  }
  if (cfg.threadsPerRow <= 32)
    return v;
  Value isLane0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        laneInWarp, cst(0));
  auto ifOp = scf::IfOp::create(b, loc, isLane0, false);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (auto [x, smem] : llvm::zip(v, smems))
      memref::StoreOp::create(b, loc, x, smem, ValueRange{warp});
  }
  gpu::BarrierOp::create(b, loc);
  auto loadAll = [&](int64_t w) {
    SmallVector<Value> r;
    for (Value smem : smems)
      r.push_back(memref::LoadOp::create(b, loc, smem, ValueRange{cst(w)}));
    return r;
  };
  SmallVector<Value> acc = loadAll(0);
  for (int64_t w = 1; w < cfg.blockSize / 32; ++w)
    acc = combine(acc, loadAll(w));
  return acc;
}

Value SoftmaxKernelBuilder::allReduce(Value v, bool isMax, Value smem) {
  return allReduceTuple(
      {v}, {smem}, [&](ArrayRef<Value> x, ArrayRef<Value> y) {
        Value r = isMax ? Value(arith::MaximumFOp::create(b, loc, x[0], y[0]))
                        : Value(arith::AddFOp::create(b, loc, x[0], y[0]));
        return SmallVector<Value>{r};
      })[0];
}

std::pair<Value, Value> SoftmaxKernelBuilder::allReduceOnline(Value m,
                                                              Value s) {
  SmallVector<Value> r = allReduceTuple(
      {m, s}, {smemA, smemB}, [&](ArrayRef<Value> x, ArrayRef<Value> y) {
        Value M = arith::MaximumFOp::create(b, loc, x[0], y[0]);
        Value S = arith::AddFOp::create(b, loc, rescale(x[1], x[0], M),
                                        rescale(y[1], y[0], M));
        return SmallVector<Value>{M, S};
      });
  return {r[0], r[1]};
}

std::pair<Value, Value> SoftmaxKernelBuilder::onlineUpdate(Value m, Value s,
                                                           Value x, bool vec) {
  Value xm = vec ? reduceMax(x) : x;
  Value mNew = arith::MaximumFOp::create(b, loc, m, xm);
  Value dead =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, mNew, negInf);
  Value e = expDiff(x, mNew);
  Value part = arith::SelectOp::create(b, loc, dead, zero,
                                       vec ? reduceAdd(e) : e);
  return {mNew, arith::AddFOp::create(b, loc, rescale(s, m, mNew), part)};
}

SmallVector<Value> SoftmaxKernelBuilder::onlineFold(ValueRange acc,
                                                    ArrayRef<Value> xs) {
  Value m = acc[0], s = acc[1];
  Value mNew = m;
  for (Value x : xs)
    mNew = arith::MaximumFOp::create(b, loc, mNew, reduceMax(x));
  // While the running max is -inf every element seen is -inf: add 0
  // (exp(-inf - -inf) would be NaN).
  Value dead =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, mNew, negInf);
  Value part = zero;
  for (Value x : xs)
    part = arith::AddFOp::create(
        b, loc, part,
        reduceAdd(expDiff(x, mNew)));
  part = arith::SelectOp::create(b, loc, dead, zero, part);
  return {mNew, arith::AddFOp::create(b, loc, rescale(s, m, mNew), part)};
}
