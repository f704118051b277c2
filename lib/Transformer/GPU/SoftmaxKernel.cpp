//===- SoftmaxKernel.cpp - tx.softmax: the kernel of one row configuration -===//
//
// tx's fast softmax (see the pass description in Passes.td). The row is the
// unit of work: a warp or a CTA reads it with 16-byte vector loads, reduces
// max and sum with warp shuffles (and shared memory across warps), and writes
// exp(x - max) / sum once. Memory traffic is one read and one write of the
// tensor when the row fits in registers; otherwise the normalizing pass reads
// the row a second time (from L2 for rows of the sizes this handles).
//
//===----------------------------------------------------------------------===//
#include "GPU/SoftmaxKernel.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"
#include <limits>

using namespace mlir;
using namespace mlir::tx;

namespace {

/// Builds the kernel of one configuration inside `b`'s insertion point (host
/// code): a gpu.launch over ceil(R / rowsPerBlock) CTAs.
class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc, Value in, Value out, Value rows,
                Value cols, int64_t staticCols, Type elt, KernelConfig cfg)
      : b(b), loc(loc), in(in), out(out), rows(rows), cols(cols),
        staticCols(staticCols), elt(elt), cfg(cfg), f32(b.getF32Type()) {}

  void build() {
    int64_t rowsPerBlock = cfg.blockSize / cfg.threadsPerRow;
    int64_t warps = cfg.blockSize / 32;
    Value one = cst(1);
    Value grid = arith::CeilDivUIOp::create(b, loc, rows, cst(rowsPerBlock));
    bool gridStride = cfg.gridCtas > 0;
    if (gridStride)
      grid = arith::MinUIOp::create(b, loc, grid, cst(cfg.gridCtas));
    auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                         gpu::AddressSpace::Workgroup);
    auto smemTy = MemRefType::get({std::max<int64_t>(warps, 1)}, f32,
                                  MemRefLayoutAttrInterface(), wg);
    SmallVector<Type> attributions;
    // With a shared-memory row the reduction slots live in the dynamic
    // shared memory too: MLIR 22 declares gpu.dynamic_shared_memory as a
    // 1-byte .shared variable, so static workgroup buffers placed after it
    // would overlap the row (and lose their 16-byte alignment).
    const int64_t slotBytes = (std::max<int64_t>(warps, 1) * 4 + 15) / 16 * 16;
    if (cfg.threadsPerRow > 32 && cfg.smemRowBytes == 0)
      attributions = {smemTy, smemTy};
    // cp.async.bulk rows: one 8-byte mbarrier per chunk slot of the ring.
    // The layout (KernelConfig::dynamicSmemBytes): two reduction slots,
    // [the mbarriers,] the row or the ring, 16 bytes of alignment slack.
    const int64_t bulkSlots = cfg.ringSlots();
    const int64_t bufBytes =
        bulkSlots > 0 ? bulkSlots * cfg.bulkChunkBytes : cfg.smemRowBytes;
    const int64_t barBytes = bulkSlots > 0 ? bulkSlots * 8 + 8 : 0;
    const int64_t barSlotBytes = (barBytes + 15) / 16 * 16;
    Value dynSmem;
    if (cfg.smemRowBytes > 0)
      dynSmem = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                             cfg.dynamicSmemBytes());
    auto launch = gpu::LaunchOp::create(
        b, loc, grid, one, one, cst(cfg.blockSize), one, one,
        /*dynamicSharedMemorySize=*/dynSmem, /*asyncTokenType=*/nullptr,
        /*asyncDependencies=*/ValueRange{}, attributions);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    if (cfg.smemRowBytes > 0) {
      Value base = gpu::DynamicSharedMemoryOp::create(
          b, loc,
          MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                          MemRefLayoutAttrInterface(), wg));
      int64_t elems = bufBytes * 8 / elt.getIntOrFloatBitWidth();
      // [reduction slot A | slot B | row], each 16-byte aligned (16-byte
      // accesses fault otherwise).
      Value addr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, base);
      Value pad = arith::RemUIOp::create(
          b, loc,
          arith::SubIOp::create(b, loc, cst(16),
                                arith::RemUIOp::create(b, loc, addr, cst(16))),
          cst(16));
      smemA = memref::ViewOp::create(b, loc, smemTy, base, pad, ValueRange{});
      smemB = memref::ViewOp::create(b, loc, smemTy, base,
                                     arith::AddIOp::create(b, loc, pad,
                                                           cst(slotBytes)),
                                     ValueRange{});
      if (barBytes > 0)
        bars = memref::ViewOp::create(
            b, loc,
            MemRefType::get({barBytes / 8}, b.getI64Type(),
                            MemRefLayoutAttrInterface(), wg),
            base, arith::AddIOp::create(b, loc, pad, cst(2 * slotBytes)),
            ValueRange{});
      smemRow = memref::ViewOp::create(
          b, loc,
          MemRefType::get({elems}, elt, MemRefLayoutAttrInterface(), wg), base,
          arith::AddIOp::create(b, loc, pad,
                                cst(2 * slotBytes + barSlotBytes)),
          ValueRange{});
    }
    if (cfg.threadsPerRow > 32 && cfg.smemRowBytes == 0) {
      smemA = launch.getWorkgroupAttributions()[0];
      smemB = launch.getWorkgroupAttributions()[1];
    }
    Value tid = launch.getThreadIds().x;
    Value bid = launch.getBlockIds().x;
    lane = arith::RemUIOp::create(b, loc, tid, cst(cfg.threadsPerRow));
    Value rowInBlock =
        arith::DivUIOp::create(b, loc, tid, cst(cfg.threadsPerRow));
    if (cfg.threadsPerRow > 32) {
      warp = arith::DivUIOp::create(b, loc, tid, cst(32));
      laneInWarp = arith::RemUIOp::create(b, loc, tid, cst(32));
    }
    numVec = cfg.vectorWidth == 1
                 ? cols
                 : arith::DivUIOp::create(b, loc, cols, cst(cfg.vectorWidth))
                       .getResult();
    negInf = fcst(-std::numeric_limits<float>::infinity());
    zero = fcst(0.0f);
    Value last = arith::SubIOp::create(b, loc, rows, cst(1));

    // The row of this thread in the row group starting at `base`. A
    // CTA-per-row kernel has one row per CTA and the grid covers exactly R
    // rows. With several rows per CTA (or a persistent grid) threads may run
    // past R: they compute on row R-1 (so that every lane of a warp takes
    // part in the shuffles) and store nothing.
    auto setRow = [&](Value base) {
      row = arith::AddIOp::create(b, loc, base, rowInBlock);
      if (rowsPerBlock > 1 || gridStride) {
        rowValid =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, rows);
        row = arith::MinUIOp::create(b, loc, row, last);
      }
    };
    Value firstRow = arith::MulIOp::create(b, loc, bid, cst(rowsPerBlock));
    if (cfg.bulkChunkBytes > 0) {
      bulkRows(tid, bid, launch.getGridSize().x);
    } else if (!gridStride) {
      setRow(firstRow);
      body();
    } else {
      // A persistent grid: CTA `bid` takes row groups bid, bid + grid, ...
      // The loop bounds are uniform over the CTA, so every lane of a warp
      // takes part in each iteration's shuffles.
      Value stride = arith::MulIOp::create(b, loc, grid, cst(rowsPerBlock));
      if (cfg.cached > 0 && !cfg.peel && cfg.prefetch) {
        // Software pipelined: the loads of the next row group are issued
        // before the current one is reduced, so that every warp keeps a
        // row group of loads in flight.
        setRow(firstRow);
        SmallVector<Value> xs0 = cachedLoad();
        auto loop = scf::ForOp::create(b, loc, firstRow, rows, stride, xs0);
        b.setInsertionPointToStart(loop.getBody());
        Value base = loop.getInductionVar();
        setRow(arith::AddIOp::create(b, loc, base, stride));
        SmallVector<Value> next = cachedLoad();
        setRow(base);
        cachedCompute(loop.getRegionIterArgs());
        scf::YieldOp::create(b, loc, next);
      } else {
        auto loop = scf::ForOp::create(b, loc, firstRow, rows, stride);
        b.setInsertionPointToStart(loop.getBody());
        setRow(loop.getInductionVar());
        body();
        // The next iteration reuses the shared-memory reduction slots.
        if (cfg.threadsPerRow > 32)
          gpu::BarrierOp::create(b, loc);
      }
    }
    b.setInsertionPointToEnd(&launch.getBody().front());
    gpu::TerminatorOp::create(b, loc);
  }

private:
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value fcst(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  VectorType vecTy(Type t) { return VectorType::get({cfg.vectorWidth}, t); }

  /// Loads vector `vi` of the row as f32 (a vector, or a scalar when
  /// vectorWidth == 1).
  Value load(Value vi) {
    if (cfg.vectorWidth == 1)
      return loadScalarAt(vi);
    Value col = arith::MulIOp::create(b, loc, vi, cst(cfg.vectorWidth));
    return loadVecAt(col);
  }

  void store(Value vi, Value y) {
    if (cfg.vectorWidth == 1)
      return storeScalarAt(vi, y);
    storeVecAt(arith::MulIOp::create(b, loc, vi, cst(cfg.vectorWidth)), y);
  }

  /// Sets the insertion point inside `if (rowValid)` when threads may run
  /// past the last row (the caller holds an InsertionGuard).
  void guardRow() {
    if (!rowValid)
      return;
    auto ifOp = scf::IfOp::create(b, loc, rowValid, false);
    b.setInsertionPointToStart(ifOp.thenBlock());
  }

  Value loadScalarAt(Value col) {
    Value x = memref::LoadOp::create(b, loc, in, ValueRange{row, col});
    return elt == f32 ? x : arith::ExtFOp::create(b, loc, f32, x).getResult();
  }
  void storeScalarAt(Value col, Value y) {
    OpBuilder::InsertionGuard g(b);
    guardRow();
    if (elt != f32)
      y = arith::TruncFOp::create(b, loc, elt, y);
    memref::StoreOp::create(b, loc, y, out, ValueRange{row, col});
  }
  /// 16-byte vector load/store at element `col` of the row (col must be a
  /// multiple of the vector width from an aligned base).
  Value loadVecAt(Value col) { return toF32(loadVecRawAt(col)); }
  Value loadVecRawAt(Value col) {
    return vector::LoadOp::create(b, loc, vecTy(elt), in, ValueRange{row, col},
                                  /*nontemporal=*/false, llvm::MaybeAlign(16));
  }
  Value toF32(Value x) {
    return elt == f32 ? x
                      : arith::ExtFOp::create(b, loc, vecTy(f32), x).getResult();
  }
  /// The first pass of a streamed row: vector vi (global column `col`),
  /// also kept in shared memory (at vi * V) when the row has a copy there.
  Value loadVecKeep(Value vi, Value col) {
    Value raw = loadVecRawAt(col);
    if (smemRow)
      vector::StoreOp::create(
          b, loc, raw, smemRow,
          ValueRange{arith::MulIOp::create(b, loc, vi, cst(cfg.vectorWidth))},
          /*nontemporal=*/false, llvm::MaybeAlign(16));
    return toF32(raw);
  }
  /// The second pass: vector vi from the shared-memory copy, else again
  /// from global memory (mostly from L2).
  Value loadVecAgain(Value vi, Value col) {
    if (!smemRow)
      return loadVecAt(col);
    return toF32(vector::LoadOp::create(
        b, loc, vecTy(elt), smemRow,
        ValueRange{arith::MulIOp::create(b, loc, vi, cst(cfg.vectorWidth))},
        /*nontemporal=*/false, llvm::MaybeAlign(16)));
  }
  void storeVecAt(Value col, Value y) {
    OpBuilder::InsertionGuard g(b);
    guardRow();
    if (elt != f32)
      y = arith::TruncFOp::create(b, loc, vecTy(elt), y);
    vector::StoreOp::create(b, loc, y, out, ValueRange{row, col},
                            /*nontemporal=*/false, llvm::MaybeAlign(16));
  }

  Value splat(Value s) {
    if (cfg.vectorWidth == 1)
      return s;
    return vector::BroadcastOp::create(b, loc, vecTy(f32), s);
  }
  Value reduceMax(Value v) {
    if (cfg.vectorWidth == 1)
      return v;
    return vector::ReductionOp::create(b, loc, vector::CombiningKind::MAXIMUMF,
                                       v);
  }
  Value reduceAdd(Value v) {
    if (cfg.vectorWidth == 1)
      return v;
    return vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, v);
  }

  /// exp(v) for a scalar or a vector, as 2^(v log2 e) (one multiply, as
  /// FlashAttention folds log2(e) into its scale), the power by PTX
  /// ex2.approx.ftz.f32 per element (one MUFU.EX2; math.exp2 became the non-ftz ex2.approx.f32, which ptxas
  /// expands with a range test and two scalings around the MUFU). Results
  /// below 2^-126 flush to 0: an f16/bf16 output rounds them to 0 anyway,
  /// an f32 one is off by less than 1.2e-38. H200: 1.01-1.06x on the
  /// longest rows, bench/RESULTS.md session 11.
  Value exp(Value v) {
    Value l2e = fcst(1.4426950408889634f);
    auto vt = dyn_cast<VectorType>(v.getType());
    if (vt)
      l2e = vector::BroadcastOp::create(b, loc, vt, l2e);
    return exp2(arith::MulFOp::create(b, loc, v, l2e));
  }

  /// exp(x - m) for a scalar or vector x and a scalar m.
  Value expDiff(Value x, Value m) {
    auto vt = dyn_cast<VectorType>(x.getType());
    return exp(arith::SubFOp::create(b, loc, x, vt ? splat(m) : m));
  }

  /// 2^x per element (PTX ex2.approx.ftz.f32, see exp()).
  Value exp2(Value x) {
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

  /// s * exp(m - M), or s when m == M (so that m == M == -inf gives s, not
  /// NaN).
  Value rescale(Value s, Value m, Value M) {
    Value same = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m, M);
    Value f = exp(arith::SubFOp::create(b, loc, m, M));
    Value scaled = arith::MulFOp::create(b, loc, s, f);
    return arith::SelectOp::create(b, loc, same, s, scaled);
  }

  Value shuffleXor(Value v, int64_t offset) {
    return gpu::ShuffleOp::create(b, loc, v, offset, /*width=*/32,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  }

  /// All-reduce of a tuple of scalars over the threads of one row with
  /// `combine` (associative and commutative): xor shuffles within a warp,
  /// then, for a CTA per row, lane 0 of each warp publishes its tuple to
  /// shared memory (`smems`, one array per element) and every thread
  /// combines the warps' tuples.
  SmallVector<Value>
  allReduceTuple(SmallVector<Value> v, ArrayRef<Value> smems,
                 function_ref<SmallVector<Value>(ArrayRef<Value>,
                                                 ArrayRef<Value>)>
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

  /// All-reduce of a scalar (max or sum) over the threads of one row.
  Value allReduce(Value v, bool isMax, Value smem) {
    return allReduceTuple(
        {v}, {smem}, [&](ArrayRef<Value> x, ArrayRef<Value> y) {
          Value r = isMax ? Value(arith::MaximumFOp::create(b, loc, x[0], y[0]))
                          : Value(arith::AddFOp::create(b, loc, x[0], y[0]));
          return SmallVector<Value>{r};
        })[0];
  }

  /// All-reduce of an online (max, sum) pair over the threads of one row.
  std::pair<Value, Value> allReduceOnline(Value m, Value s) {
    SmallVector<Value> r = allReduceTuple(
        {m, s}, {smemA, smemB}, [&](ArrayRef<Value> x, ArrayRef<Value> y) {
          Value M = arith::MaximumFOp::create(b, loc, x[0], y[0]);
          Value S = arith::AddFOp::create(b, loc, rescale(x[1], x[0], M),
                                          rescale(y[1], y[0], M));
          return SmallVector<Value>{M, S};
        });
    return {r[0], r[1]};
  }

  void body() {
    if (cfg.peel)
      peeledBody();
    else if (cfg.cached > 0)
      cachedBody();
    else
      streamingBody();
  }

  /// Online update of (m, s) with a scalar or a vector x.
  std::pair<Value, Value> onlineUpdate(Value m, Value s, Value x, bool vec) {
    Value xm = vec ? reduceMax(x) : x;
    Value mNew = arith::MaximumFOp::create(b, loc, m, xm);
    Value dead =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, mNew, negInf);
    Value e = expDiff(x, mNew);
    Value part = arith::SelectOp::create(b, loc, dead, zero,
                                         vec ? reduceAdd(e) : e);
    return {mNew, arith::AddFOp::create(b, loc, rescale(s, m, mNew), part)};
  }

  /// Row r of a peeled kernel (see peeledBody): its head (elements up to
  /// the first 16-byte boundary) and its number of whole vectors after it.
  std::pair<Value, Value> peelGeometry(Value r) {
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

  /// The scalar head and tail of row `row` (shorter than a vector: lanes
  /// below their length take one element each, -inf elsewhere).
  struct RowEnds {
    Value inHead, inTail, tailCol, xh, xt;
  };
  RowEnds loadEnds(Value head, Value nvec) {
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

  /// Stores exp(x - M) * inv of the head and tail elements.
  void storeEnds(const RowEnds &e, Value M, Value inv) {
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

  /// Rows of a length that is not a multiple of the vector width: each row
  /// is split into a scalar head up to the first 16-byte boundary, aligned
  /// vectors, and a scalar tail (head and tail are shorter than a vector,
  /// so lanes below their length take one element each). Needs a 16-byte
  /// aligned base (checked by the caller).
  void peeledBody() {
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

  /// The row in registers: `cached` vectors per thread, fully unrolled.
  void cachedBody() { cachedCompute(cachedLoad()); }

  /// Loads this thread's `cached` vectors of row `row` (as f32; vectors past
  /// the row end hold -inf) and sets `idx`/`valid` for cachedCompute.
  SmallVector<Value> cachedLoad() {
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

  /// Row max, exp, row sum, scale and store of the vectors `xs` of row `row`
  /// (from cachedLoad).
  void cachedCompute(ValueRange xs) {
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

  /// The vectors vi = first, first + T, ... < n of this thread (T threads
  /// per row), cfg.unroll at a time: every load of a group is issued before
  /// any is used (vectors past n read as -inf and are not stored), so a
  /// thread keeps unroll * 16 bytes in flight. `reduce` folds the group's
  /// vectors into the carried values; `each` sees every valid vector.
  SmallVector<Value> unrolledRowLoop(
      Value first, Value n, ValueRange init,
      llvm::function_ref<Value(Value)> loadVec,
      llvm::function_ref<SmallVector<Value>(ValueRange, ArrayRef<Value>)>
          reduce,
      llvm::function_ref<void(Value, Value)> each = nullptr) {
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
  /// Folds vectors xs into the online (max, sum) acc.
  /// (One rescale of the sum per group: the group's max first.)
  SmallVector<Value> onlineFold(ValueRange acc, ArrayRef<Value> xs) {
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

  /// Two passes over the row: online max/sum, then normalize.
  void streamingBody() {
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


  /// Rows streamed into shared memory by the copy engine (sm_90
  /// cp.async.bulk, completion counted on an mbarrier per slot), for a
  /// persistent grid of CTA-per-row kernels: CTA c takes rows c, c + G, ...
  /// The 16-byte aligned interior of a row arrives in chunks of
  /// cfg.bulkChunkBytes into a ring of cfg.bulkSlots chunk slots (at least
  /// a row's chunks; more let the next row's first chunks load during this
  /// row's first pass). The CTA's chunks are numbered g = (its rows so far)
  /// x chunks per row + k; chunk g lives in slot g % slots, whose mbarrier
  /// completes once per use (phase parity (g / slots) % 2). The scalar head
  /// and tail (rows whose start is not 16-byte aligned) are loaded by
  /// threads. Pass 1 waits for each chunk and folds it into the online
  /// (max, sum); pass 2 normalizes chunk by chunk from shared memory and,
  /// once every thread is past chunk g (a CTA barrier), thread 0 issues
  /// chunk g + slots into the freed slot. So the next rows are in flight
  /// while this one is written. A chunk past a shorter row's interior is
  /// an arrive with no bytes. (The TMA producer/consumer pipeline of
  /// CUTLASS's sm90 kernels, with one producer thread and a CTA barrier as
  /// the "empty" signal.)
  /// A bulk-row kernel's ring (bulkRows): its geometry and base addresses.
  struct BulkRing {
    int64_t C = 0;         // bytes per chunk
    int64_t nChunks = 0;   // chunks of a row
    int64_t slots = 0;     // chunk slots of the ring
    int64_t vpc = 0;       // 16-byte vectors per chunk
    int64_t perThread = 0; // of one chunk
    Value bid, grid, isProducer, inAddr, ringAddr, barAddr;
  };

  // Index arithmetic of the bulk-row kernel.
  Value addI(Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y).getResult();
  }
  Value mulI(Value x, Value y) {
    return arith::MulIOp::create(b, loc, x, y).getResult();
  }
  Value divuC(Value x, int64_t y) {
    return arith::DivUIOp::create(b, loc, x, cst(y)).getResult();
  }
  Value remuC(Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, cst(y)).getResult();
  }
  Value ultI(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y)
        .getResult();
  }
  Value indexToI64(Value v) {
    return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), v)
        .getResult();
  }
  Value indexToI32(Value v) {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), v)
        .getResult();
  }
  /// The integer address `a` as a pointer of address space `space`.
  Value ptrIn(unsigned space, Value a) {
    return LLVM::IntToPtrOp::create(
               b, loc, LLVM::LLVMPointerType::get(b.getContext(), space), a)
        .getResult();
  }
  Value addrOf(Value m) {
    return indexToI64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, m));
  }
  /// `body` inside `scf.if cond` (no results).
  void ifThen(Value cond, llvm::function_ref<void()> body) {
    auto ifOp = scf::IfOp::create(b, loc, cond, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    body();
  }
  /// The mbarrier of ring slot `slot`.
  Value ringBar(const BulkRing &r, Value slot) {
    return ptrIn(3, addI(r.barAddr, indexToI64(mulI(slot, cst(8)))));
  }
  /// Row `r`'s head (elements before its first vector) and whole vectors.
  std::pair<Value, Value> rowGeometry(Value r) {
    if (!cfg.peel)
      return {cst(0), numVec};
    return peelGeometry(r);
  }

  /// Thread 0: the CTA's chunk g (chunk k of its row g / chunks) into slot
  /// g % slots, when that row exists.
  void issueChunk(const BulkRing &ring, Value g) {
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

  /// Thread 0 initializes a ring's mbarriers, the CTA waits for it, and
  /// thread 0 issues the first `slots` chunks.
  void startRing(const BulkRing &ring) {
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

  /// This thread's vectors of chunk k (CTA chunk g): row vector indices
  /// `vis`, loaded from the chunk's slot; `padding` (-inf) past the row's
  /// interior of `nvec` vectors when `guarded` (only the last chunk can be
  /// partly or wholly past it, since the interiors of two rows differ by at
  /// most one vector).
  SmallVector<Value> chunkVecs(const BulkRing &ring, Value k, Value g,
                               Value nvec, Value padding,
                               SmallVector<Value> &vis,
                               SmallVector<Value> &oks, bool guarded) {
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

  /// The online (max, sum) of one row from its chunks as they arrive (the
  /// scalar head and tail first when peeled), all-reduced over the CTA.
  std::pair<Value, Value> bulkRowMaxSum(const BulkRing &ring, Value g0,
                                        Value nvec, Value padding,
                                        Value ticks, RowEnds *ends,
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

  /// The second pass of one row: each chunk normalized and stored, then
  /// its slot refilled with chunk g + slots.
  void bulkRowNormalize(const BulkRing &ring, Value g0, Value head,
                        Value nvec, Value padding, Value cV, Value M,
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

  void bulkRows(Value tid, Value bid, Value grid) {
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

  OpBuilder &b;
  Location loc;
  Value in, out, rows, cols;
  int64_t staticCols; // N when static, else -1
  Type elt;
  KernelConfig cfg;
  Type f32;
  Value lane, row, warp, laneInWarp, numVec, negInf, zero;
  Value smemA, smemB;
  Value smemRow;  // the row's copy in dynamic shared memory (smemRowBytes)
  Value bars;     // bulkChunkBytes: one mbarrier per chunk of smemRow
  Value rowValid; // set when threads may run past the last row
  SmallVector<Value> idx, valid; // of cachedLoad: vector indices, guards
};

} // namespace

void mlir::tx::buildSoftmaxKernel(OpBuilder &b, Location loc, Value in,
                                  Value out, Value rows, Value cols,
                                  int64_t staticCols, Type elt,
                                  const KernelConfig &cfg) {
  KernelBuilder(b, loc, in, out, rows, cols, staticCols, elt, cfg).build();
}
