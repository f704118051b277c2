//===- SoftmaxKernelBuilder.h - tx.softmax's row-kernel builder -*- C++ -*-===//
//
// The builder of the kernel of one softmax configuration
// (buildSoftmaxKernel, SoftmaxKernel.h). One class whose methods live in
// one file per concern: SoftmaxKernel.cpp (the launch: shared memory, rows
// onto CTAs), SoftmaxRowOps.cpp (the row's loads and stores, exp, the online
// (max, sum), the all-reduces), SoftmaxRowBodies.cpp (a row's passes: in
// registers, streamed, peeled), SoftmaxBulkRows.cpp (rows streamed into
// shared memory by the copy engine, sm_90 cp.async.bulk). Private to
// lib/Transformer.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_GPU_SOFTMAXKERNELBUILDER_H
#define TRANSFORMER_GPU_SOFTMAXKERNELBUILDER_H

#include "GPU/SoftmaxKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir {
namespace tx {

/// Builds the kernel of one configuration inside `b`'s insertion point (host
/// code): a gpu.launch over ceil(R / rowsPerBlock) CTAs.
class SoftmaxKernelBuilder {
public:
  SoftmaxKernelBuilder(OpBuilder &b, Location loc, Value in, Value out,
                       Value rows, Value cols, int64_t staticCols, Type elt,
                       KernelConfig cfg)
      : b(b), loc(loc), in(in), out(out), rows(rows), cols(cols),
        staticCols(staticCols), elt(elt), cfg(cfg), f32(b.getF32Type()) {}

  /// The launch (SoftmaxKernel.cpp).
  void build();

private:
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value fcst(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  VectorType vecTy(Type t) { return VectorType::get({cfg.vectorWidth}, t); }

  // ---- SoftmaxRowOps.cpp: loads, stores, exp, online (max, sum), reductions
  /// Loads vector `vi` of the row as f32 (a vector, or a scalar when
  /// vectorWidth == 1).
  Value load(Value vi);
  void store(Value vi, Value y);
  /// Sets the insertion point inside `if (rowValid)` when threads may run
  /// past the last row (the caller holds an InsertionGuard).
  void guardRow();
  Value loadScalarAt(Value col);
  void storeScalarAt(Value col, Value y);
  /// 16-byte vector load/store at element `col` of the row (col must be a
  /// multiple of the vector width from an aligned base).
  Value loadVecAt(Value col);
  Value loadVecRawAt(Value col);
  Value toF32(Value x);
  /// The first pass of a streamed row: vector vi (global column `col`),
  /// also kept in shared memory (at vi * V) when the row has a copy there.
  Value loadVecKeep(Value vi, Value col);
  /// The second pass: vector vi from the shared-memory copy, else again
  /// from global memory (mostly from L2).
  Value loadVecAgain(Value vi, Value col);
  void storeVecAt(Value col, Value y);
  Value splat(Value s);
  Value reduceMax(Value v);
  Value reduceAdd(Value v);
  /// exp(v) for a scalar or a vector, as 2^(v log2 e) (one multiply, as
  /// FlashAttention folds log2(e) into its scale), the power by PTX
  /// ex2.approx.ftz.f32 per element (one MUFU.EX2; math.exp2 became the non-ftz ex2.approx.f32, which ptxas
  /// expands with a range test and two scalings around the MUFU). Results
  /// below 2^-126 flush to 0: an f16/bf16 output rounds them to 0 anyway,
  /// an f32 one is off by less than 1.2e-38. H200: 1.01-1.06x on the
  /// longest rows, bench/RESULTS.md session 11.
  Value exp(Value v);
  /// exp(x - m) for a scalar or vector x and a scalar m.
  Value expDiff(Value x, Value m);
  /// 2^x per element (PTX ex2.approx.ftz.f32, see exp()).
  Value exp2(Value x);
  /// s * exp(m - M), or s when m == M (so that m == M == -inf gives s, not
  /// NaN).
  Value rescale(Value s, Value m, Value M);
  Value shuffleXor(Value v, int64_t offset);
  /// All-reduce of a tuple of scalars over the threads of one row with
  /// `combine` (associative and commutative): xor shuffles within a warp,
  /// then, for a CTA per row, lane 0 of each warp publishes its tuple to
  /// shared memory (`smems`, one array per element) and every thread
  /// combines the warps' tuples.
  SmallVector<Value>
  allReduceTuple(SmallVector<Value> v, ArrayRef<Value> smems,
                 function_ref<SmallVector<Value>(ArrayRef<Value>,
                                                 ArrayRef<Value>)>
                     combine);
  /// All-reduce of a scalar (max or sum) over the threads of one row.
  Value allReduce(Value v, bool isMax, Value smem);
  /// All-reduce of an online (max, sum) pair over the threads of one row.
  std::pair<Value, Value> allReduceOnline(Value m, Value s);
  /// Online update of (m, s) with a scalar or a vector x.
  std::pair<Value, Value> onlineUpdate(Value m, Value s, Value x, bool vec);
  /// Folds vectors xs into the online (max, sum) acc.
  /// (One rescale of the sum per group: the group's max first.)
  SmallVector<Value> onlineFold(ValueRange acc, ArrayRef<Value> xs);

  // ---- SoftmaxRowBodies.cpp: a row's passes (registers, streamed, peeled)
  void body();
  /// Row r of a peeled kernel (see peeledBody): its head (elements up to
  /// the first 16-byte boundary) and its number of whole vectors after it.
  std::pair<Value, Value> peelGeometry(Value r);
  /// The scalar head and tail of row `row` (shorter than a vector: lanes
  /// below their length take one element each, -inf elsewhere).
  struct RowEnds {
    Value inHead, inTail, tailCol, xh, xt;
  };
  RowEnds loadEnds(Value head, Value nvec);
  /// Stores exp(x - M) * inv of the head and tail elements.
  void storeEnds(const RowEnds &e, Value M, Value inv);
  /// Rows of a length that is not a multiple of the vector width: each row
  /// is split into a scalar head up to the first 16-byte boundary, aligned
  /// vectors, and a scalar tail (head and tail are shorter than a vector,
  /// so lanes below their length take one element each). Needs a 16-byte
  /// aligned base (checked by the caller).
  void peeledBody();
  /// The row in registers: `cached` vectors per thread, fully unrolled.
  void cachedBody();
  /// Loads this thread's `cached` vectors of row `row` (as f32; vectors past
  /// the row end hold -inf) and sets `idx`/`valid` for cachedCompute.
  SmallVector<Value> cachedLoad();
  /// Row max, exp, row sum, scale and store of the vectors `xs` of row `row`
  /// (from cachedLoad).
  void cachedCompute(ValueRange xs);
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
      llvm::function_ref<void(Value, Value)> each = nullptr);
  /// Two passes over the row: online max/sum, then normalize.
  void streamingBody();

  // ---- SoftmaxBulkRows.cpp: rows streamed in by the copy engine
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
  Value addI(Value x, Value y);
  Value mulI(Value x, Value y);
  Value divuC(Value x, int64_t y);
  Value remuC(Value x, int64_t y);
  Value ultI(Value x, Value y);
  Value indexToI64(Value v);
  Value indexToI32(Value v);
  /// The integer address `a` as a pointer of address space `space`.
  Value ptrIn(unsigned space, Value a);
  Value addrOf(Value m);
  /// `body` inside `scf.if cond` (no results).
  void ifThen(Value cond, llvm::function_ref<void()> body);
  /// The mbarrier of ring slot `slot`.
  Value ringBar(const BulkRing &r, Value slot);
  /// Row `r`'s head (elements before its first vector) and whole vectors.
  std::pair<Value, Value> rowGeometry(Value r);
  /// Thread 0: the CTA's chunk g (chunk k of its row g / chunks) into slot
  /// g % slots, when that row exists.
  void issueChunk(const BulkRing &ring, Value g);
  /// Thread 0 initializes a ring's mbarriers, the CTA waits for it, and
  /// thread 0 issues the first `slots` chunks.
  void startRing(const BulkRing &ring);
  /// This thread's vectors of chunk k (CTA chunk g): row vector indices
  /// `vis`, loaded from the chunk's slot; `padding` (-inf) past the row's
  /// interior of `nvec` vectors when `guarded` (only the last chunk can be
  /// partly or wholly past it, since the interiors of two rows differ by at
  /// most one vector).
  SmallVector<Value> chunkVecs(const BulkRing &ring, Value k, Value g,
                               Value nvec, Value padding,
                               SmallVector<Value> &vis,
                               SmallVector<Value> &oks, bool guarded);
  /// The online (max, sum) of one row from its chunks as they arrive (the
  /// scalar head and tail first when peeled), all-reduced over the CTA.
  std::pair<Value, Value> bulkRowMaxSum(const BulkRing &ring, Value g0,
                                        Value nvec, Value padding,
                                        Value ticks, RowEnds *ends,
                                        Value head);
  /// The second pass of one row: each chunk normalized and stored, then
  /// its slot refilled with chunk g + slots.
  void bulkRowNormalize(const BulkRing &ring, Value g0, Value head,
                        Value nvec, Value padding, Value cV, Value M,
                        Value inv);
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
  void bulkRows(Value tid, Value bid, Value grid);

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

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_GPU_SOFTMAXKERNELBUILDER_H
