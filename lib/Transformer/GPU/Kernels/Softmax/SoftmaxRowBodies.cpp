//===- SoftmaxRowBodies.cpp - softmax: the passes over a row --------------===//
//
// The body of a softmax row kernel for one row (SoftmaxKernelBuilder,
// SoftmaxKernelBuilder.h): the row in registers (cachedLoad, cachedCompute;
// software pipelined by build()), streamed in two passes (online max/sum,
// then normalize; unrolledRowLoop), and peeled (a scalar head and tail
// around aligned vectors, for rows not a multiple of the vector width).
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Softmax/SoftmaxKernelBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tx;

void SoftmaxKernelBuilder::body() {
  if (cfg.peel)
    peeledBody();
  else if (cfg.cached > 0)
    cachedBody();
  else
    streamingBody();
}

std::pair<Value, Value> SoftmaxKernelBuilder::peelGeometry(Value r) {
  Value cV = cst(cfg.vectorWidth);
  Value start = arith::MulIOp::create(b, loc, r, cols);
  Value mis = arith::RemUIOp::create(b, loc, start, cV);
  Value head = arith::RemUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, cV, mis), cV);
  head = arith::MinUIOp::create(b, loc, head, cols);
  Value nvec = arith::DivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, cols, head), cV);
  return {head, nvec};
}

SoftmaxKernelBuilder::RowEnds SoftmaxKernelBuilder::loadEnds(Value head,
                                                             Value nvec) {
  Value cV = cst(cfg.vectorWidth);
  Value tailStart = arith::AddIOp::create(
      b, loc, head, arith::MulIOp::create(b, loc, nvec, cV));
  Value tailCount = arith::SubIOp::create(b, loc, cols, tailStart);
  RowEnds e;
  e.inHead =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane, head);
  e.inTail = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                   lane, tailCount);
  e.tailCol = arith::AddIOp::create(b, loc, tailStart, lane);
  // Scalar element at `col` if `cond`, else -inf.
  auto maybeLoad = [&](Value cond, Value col) -> Value {
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{f32}, cond, true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(b, loc, loadScalarAt(col));
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, negInf);
    return ifOp.getResult(0);
  };
  e.xh = maybeLoad(e.inHead, lane);
  e.xt = maybeLoad(e.inTail, e.tailCol);
  return e;
}

void SoftmaxKernelBuilder::storeEnds(const RowEnds &e, Value M, Value inv) {
  auto storeScalarIf = [&](Value cond, Value col, Value x) {
    auto ifOp = scf::IfOp::create(b, loc, cond, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value ex = expDiff(x, M);
    storeScalarAt(col, arith::MulFOp::create(b, loc, ex, inv));
  };
  storeScalarIf(e.inHead, lane, e.xh);
  storeScalarIf(e.inTail, e.tailCol, e.xt);
}

void SoftmaxKernelBuilder::peeledBody() {
  auto [head, nvec] = peelGeometry(row);
  Value cV = cst(cfg.vectorWidth);
  RowEnds ends = loadEnds(head, nvec);
  auto vecCol = [&](Value vi) {
    return arith::AddIOp::create(b, loc, head,
                                 arith::MulIOp::create(b, loc, vi, cV));
  };
  auto [m0, s0] = onlineUpdate(negInf, zero, ends.xh, false);
  auto [m1, s1] = onlineUpdate(m0, s0, ends.xt, false);
  SmallVector<Value> ms = unrolledRowLoop(
      lane, nvec, ValueRange{m1, s1},
      [&](Value vi) { return loadVecKeep(vi, vecCol(vi)); },
      [&](ValueRange acc, ArrayRef<Value> xs) { return onlineFold(acc, xs); });
  auto [M, S] = allReduceOnline(ms[0], ms[1]);
  Value inv = arith::DivFOp::create(b, loc, fcst(1.0f), S);
  storeEnds(ends, M, inv);
  Value invV = splat(inv);
  unrolledRowLoop(
      lane, nvec, ValueRange{},
      [&](Value vi) { return loadVecAgain(vi, vecCol(vi)); },
      [&](ValueRange, ArrayRef<Value>) { return SmallVector<Value>(); },
      [&](Value vi, Value x) {
        Value e = expDiff(x, M);
        storeVecAt(vecCol(vi), arith::MulFOp::create(b, loc, e, invV));
      });
}

void SoftmaxKernelBuilder::cachedBody() { cachedCompute(cachedLoad()); }

SmallVector<Value> SoftmaxKernelBuilder::cachedLoad() {
  assert(staticCols >= 0 && "the register path needs a static row length");
  int64_t nv = llvm::divideCeil(staticCols, cfg.vectorWidth);
  SmallVector<Value> xs;
  idx.clear();
  valid.clear();
  Value padding = splat(negInf);
  for (int64_t k = 0; k < cfg.cached; ++k) {
    Value vi = arith::AddIOp::create(b, loc, lane, cst(k * cfg.threadsPerRow));
    idx.push_back(vi);
    bool alwaysValid = (k + 1) * cfg.threadsPerRow <= nv;
    Value x;
    if (alwaysValid) {
      valid.push_back(nullptr);
      x = load(vi);
    } else {
      Value ok =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, vi, numVec);
      valid.push_back(ok);
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{padding.getType()}, ok,
                                    /*withElse=*/true);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        scf::YieldOp::create(b, loc, load(vi));
        b.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(b, loc, padding);
      }
      x = ifOp.getResult(0);
    }
    xs.push_back(x);
  }
  return xs;
}

void SoftmaxKernelBuilder::cachedCompute(ValueRange xs) {
  Value localMax = negInf;
  for (Value x : xs)
    localMax = arith::MaximumFOp::create(b, loc, localMax, reduceMax(x));
  Value M = allReduce(localMax, /*isMax=*/true, smemA);
  SmallVector<Value> es;
  Value localSum = zero;
  for (int64_t k = 0; k < cfg.cached; ++k) {
    // Padding lanes hold -inf: exp(-inf - M) = 0 for a finite M.
    Value e = expDiff(xs[k], M);
    es.push_back(e);
    localSum = arith::AddFOp::create(b, loc, localSum, reduceAdd(e));
  }
  Value S = allReduce(localSum, /*isMax=*/false, smemB);
  Value inv = splat(arith::DivFOp::create(b, loc, fcst(1.0f), S));
  for (int64_t k = 0; k < cfg.cached; ++k) {
    Value y = arith::MulFOp::create(b, loc, es[k], inv);
    if (!valid[k]) {
      store(idx[k], y);
      continue;
    }
    auto ifOp = scf::IfOp::create(b, loc, valid[k], false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    store(idx[k], y);
  }
}

SmallVector<Value> SoftmaxKernelBuilder::unrolledRowLoop(
    Value first, Value n, ValueRange init,
    llvm::function_ref<Value(Value)> loadVec,
    llvm::function_ref<SmallVector<Value>(ValueRange, ArrayRef<Value>)>
        reduce,
    llvm::function_ref<void(Value, Value)> each) {
  const int64_t T = cfg.threadsPerRow, U = cfg.unroll;
  Value padding = splat(negInf);
  auto loop = scf::ForOp::create(
      b, loc, first, n, cst(T * U), init,
      [&](OpBuilder &, Location, Value base, ValueRange acc) {
        SmallVector<Value> xs, vis, oks;
        for (int64_t u = 0; u < U; ++u) {
          Value vi = arith::AddIOp::create(b, loc, base, cst(u * T));
          Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           vi, n);
          auto ifOp = scf::IfOp::create(b, loc, TypeRange{padding.getType()},
                                        ok, /*withElse=*/true);
          {
            OpBuilder::InsertionGuard g(b);
            b.setInsertionPointToStart(ifOp.thenBlock());
            scf::YieldOp::create(b, loc, loadVec(vi));
            b.setInsertionPointToStart(ifOp.elseBlock());
            scf::YieldOp::create(b, loc, padding);
          }
          xs.push_back(ifOp.getResult(0));
          vis.push_back(vi);
          oks.push_back(ok);
        }
        SmallVector<Value> next = reduce(acc, xs);
        if (each)
          for (int64_t u = 0; u < U; ++u) {
            auto ifOp = scf::IfOp::create(b, loc, oks[u], false);
            OpBuilder::InsertionGuard g(b);
            b.setInsertionPointToStart(ifOp.thenBlock());
            each(vis[u], xs[u]);
          }
        scf::YieldOp::create(b, loc, next);
      });
  return SmallVector<Value>(loop.getResults().begin(),
                            loop.getResults().end());
}

void SoftmaxKernelBuilder::streamingBody() {
  auto colOf = [&](Value vi) -> Value {
    return arith::MulIOp::create(b, loc, vi, cst(cfg.vectorWidth));
  };
  SmallVector<Value> ms = unrolledRowLoop(
      lane, numVec, ValueRange{negInf, zero},
      [&](Value vi) {
        return cfg.vectorWidth == 1 ? load(vi) : loadVecKeep(vi, colOf(vi));
      },
      [&](ValueRange acc, ArrayRef<Value> xs) { return onlineFold(acc, xs); });
  auto [M, S] = allReduceOnline(ms[0], ms[1]);
  // An all -inf row has M = -inf and S = 0: exp(NaN) * inf = NaN, as the
  // reference path.
  Value inv = splat(arith::DivFOp::create(b, loc, fcst(1.0f), S));
  unrolledRowLoop(
      lane, numVec, ValueRange{},
      [&](Value vi) {
        return cfg.vectorWidth == 1 ? load(vi) : loadVecAgain(vi, colOf(vi));
      },
      [&](ValueRange, ArrayRef<Value>) { return SmallVector<Value>(); },
      [&](Value vi, Value x) {
        Value e = expDiff(x, M);
        store(vi, arith::MulFOp::create(b, loc, e, inv));
      });
}
