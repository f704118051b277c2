//===- SoftmaxStrategy.cpp - tx.softmax's GPU strategy --------------------===//
//
//   tx-softmax-strategy    the vector kernel and its scalar fallback for
//                          rows of N elements (planSoftmax: the one table of
//                          choices), stored as #tx.softmax_strategy
//
//===----------------------------------------------------------------------===//
#include "GPU/Strategy/SoftmaxStrategy.h"
#include "GPU/AttentionKernel.h"
#include "Transformer/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXSOFTMAXSTRATEGY
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

/// Of each SM's shared memory (GPUTarget), every resident CTA also takes
/// 1 KiB for the system.
static constexpr int64_t kSmemPerCta = GPUTarget::kReservedSharedMemoryPerCta;

/// Shared memory of one SM of the options' chip (sm = 0: sm_90's).
static int64_t smemPerSm(const SoftmaxOptions &o) {
  return GPUTarget::fromSm(o.sm > 0 ? o.sm : 90).sharedMemoryPerSm;
}

/// Dynamic shared memory of a bulk-row kernel (SoftmaxKernel.cpp): two
/// reduction slots (at most 32 warps), an 8-byte mbarrier per chunk slot
/// (+ 8, 16-byte aligned), the slots, 16 bytes of alignment slack.
static int64_t bulkSmemBytes(int64_t slots, int64_t chunk) {
  return 2 * 128 + (slots * 8 + 8 + 15) / 16 * 16 + slots * chunk + 16;
}
/// The configuration for rows of `n` elements (n < 0: dynamic).
static KernelConfig choose(const SoftmaxOptions &o, int64_t n, int64_t vw) {
  KernelConfig c;
  c.vectorWidth = vw;
  int64_t nv = n < 0 ? -1 : llvm::divideCeil(n, vw);
  // Short rows: a power-of-two group of 8 to 32 lanes (fewer for rows of
  // fewer than 8 vectors), about 2 vectors per lane up to 64 vectors,
  // about 4 beyond (at most 8 per lane); long rows: a whole CTA. (On an
  // H200, rows of 128 f16 ran 4% faster with 8 lanes of 2 vectors than
  // with 4 lanes of 4, and rows of 128 f32 2% faster with 16 lanes of 2
  // than with 8 lanes of 4: bench/RESULTS.md.)
  if (o.threadsPerRow > 0)
    c.threadsPerRow = o.threadsPerRow;
  else if (nv >= 0 && nv <= 32 * 8)
    c.threadsPerRow = std::clamp<int64_t>(
        llvm::PowerOf2Ceil(llvm::divideCeil(nv, nv <= 64 ? 2 : 4)),
        std::clamp<int64_t>(llvm::PowerOf2Ceil(nv), 2, 8), 32);
  else
    c.threadsPerRow = 0;
  if (o.blockSize > 0)
    c.blockSize = o.blockSize;
  else if (c.threadsPerRow > 0 && c.threadsPerRow <= 32)
    // 128-thread CTAs: 1-2% faster than 256 on rows of 128 f32, the same
    // elsewhere (bench/RESULTS.md).
    c.blockSize = 128;
  else if (nv < 0)
    c.blockSize = 256;
  else
    c.blockSize = std::clamp<int64_t>(
        llvm::PowerOf2Ceil(llvm::divideCeil(nv, 8)), 128, 1024);
  if (c.threadsPerRow == 0)
    c.threadsPerRow = c.blockSize;
  int64_t perThread = nv < 0 ? -1 : llvm::divideCeil(nv, c.threadsPerRow);
  c.cached =
      (perThread >= 0 && perThread <= o.maxCachedVectors) ? perThread : 0;
  // Streaming rows (not register-resident) ran faster on an H200 with at
  // most 512 threads per CTA (bench/RESULTS.md, 1024x50257).
  if (c.cached == 0 && o.blockSize == 0 && c.threadsPerRow > 32 &&
      c.blockSize > 512) {
    c.blockSize = 512;
    c.threadsPerRow = 512;
  }
  // A persistent grid for rows on warps or lane groups (a CTA per row
  // keeps one CTA per row: its shared-memory reduction would need a
  // barrier per iteration).
  if (c.threadsPerRow <= 32 && o.gridCtas > 0)
    c.gridCtas = o.gridCtas;
  c.prefetch = o.prefetch;
  c.unroll = o.streamUnroll > 0 ? o.streamUnroll : 4;
  return c;
}

/// The strategy of one softmax along the innermost dimension: rows of `n`
/// elements (-1: dynamic) of `elt`.
SoftmaxPlan mlir::tx::planSoftmax(const SoftmaxOptions &o, int64_t n, Type elt) {
  SoftmaxPlan plan;
  unsigned bits = elt.getIntOrFloatBitWidth();
  int64_t vw = o.vectorWidth > 0 ? o.vectorWidth : 128 / bits;
  plan.scalar = choose(o, n, 1);
  bool dividesRows = n < 0 || n % vw == 0;
  bool peel = vw > 1 && !dividesRows && n >= 4 * vw;
  if (vw == 1 || (!dividesRows && !peel))
    return plan;
  plan.hasVector = true;
  KernelConfig &vecCfg = plan.vec;
  vecCfg = choose(o, n, vw);
  if (peel) {
    // Rows are not vector-aligned: a scalar head and tail per row.
    vecCfg.cached = 0;
    vecCfg.peel = true;
    // Head and tail are shorter than a vector and take one element per
    // lane: a row needs at least vw lanes.
    if (vecCfg.threadsPerRow < vw) {
      vecCfg.threadsPerRow = vw;
      vecCfg.blockSize = std::max(vecCfg.blockSize, vw);
    }
    // Peeled rows stream (see choose()): at most 512 threads per CTA.
    if (o.blockSize == 0 && vecCfg.threadsPerRow > 512) {
      vecCfg.threadsPerRow = 512;
      vecCfg.blockSize = 512;
    }
  }
  // A streamed row of a CTA-per-row kernel is read from global memory
  // once: its vectors stay in dynamic shared memory for the second
  // pass when they fit (at most max-shared-memory bytes). Otherwise
  // the second pass reads the row again, from L2 only while the rows
  // in flight fit in it (vocabulary-size rows did not).
  // (Rows past 2^40 elements fit nowhere: -1, and no overflow.)
  int64_t rowBytes =
      n > 0 && n < (int64_t(1) << 40) ? n / vw * vw * (bits / 8) : -1;
  bool fitsSmem = o.smemRows && vecCfg.gridCtas == 0 &&
                  vecCfg.threadsPerRow == vecCfg.blockSize && rowBytes > 0 &&
                  rowBytes + 1024 + 16 <= o.maxSharedMemory;
  // 16-bit rows held in registers at more than 4 vectors (32 f32) per
  // thread keep one CTA per SM (4096x32768 f16: 91 registers x 512
  // threads, 0.78 of copy); streamed through shared memory they ran at
  // 0.86 on the H200 (bench/RESULTS.md, session 6).
  if (fitsSmem && bits == 16 && vecCfg.cached > 4 && o.maxCachedVectors == 16)
    vecCfg.cached = 0;
  if (fitsSmem && vecCfg.cached == 0)
    vecCfg.smemRowBytes = rowBytes;
  // sm_90: such rows arrive by cp.async.bulk into a persistent grid's row
  // buffers (KernelConfig::bulkChunkBytes), chunks of 16 bytes per thread
  // times 2 (16 KiB at 512 threads). 1024x50257 f32 on an H200: see
  // bench/RESULTS.md, session 14.
  // Only rows of which at most two fit per SM: with three or more
  // resident CTAs the thread-loaded kernel hid its latency better
  // (4096x32768 f16, 64 KiB rows: 3741 vs 3613 GB/s, session 14).
  bool fewPerSm = vecCfg.smemRowBytes > 0 &&
                  smemPerSm(o) / (vecCfg.smemRowBytes + 1024 + 16 +
                                kSmemPerCta) < 3;
  // (The copies move whole 16-byte vectors: vectors of 16 bytes only.)
  if (fewPerSm && o.sm >= 90 && o.bulkRows && o.gridCtas == 0 &&
      vecCfg.vectorWidth * bits == 128) {
    int64_t chunk = o.bulkChunkBytes > 0
                        ? int64_t(llvm::alignTo(o.bulkChunkBytes,
                                                vecCfg.blockSize * 16))
                        : vecCfg.blockSize * 16 * 2;
    int64_t nChunks = llvm::divideCeil(rowBytes, chunk);
    // CTAs per SM: as many row rings as fit, at most 2 (the kernel takes
    // up to 64 registers per thread, so two CTAs of 512 threads fill the
    // register file), unless the option sets it.
    int64_t perSm = o.bulkCtasPerSm;
    if (perSm == 0)
      perSm = std::clamp<int64_t>(
          smemPerSm(o) / (bulkSmemBytes(nChunks, chunk) + kSmemPerCta), 1,
          std::min<int64_t>(2, 2048 / vecCfg.blockSize));
    int64_t budget =
        std::min(o.maxSharedMemory, smemPerSm(o) / perSm - kSmemPerCta);
    // Slots: a row's chunks, plus spare ones (up to a second row) that
    // let the next row start loading before this row's second pass.
    int64_t slots = nChunks;
    while (slots < 2 * nChunks && bulkSmemBytes(slots + 1, chunk) <= budget)
      ++slots;
    if (bulkSmemBytes(slots, chunk) <= o.maxSharedMemory) {
      vecCfg.bulkChunkBytes = chunk;
      vecCfg.bulkSlots = slots;
      vecCfg.gridCtas = o.numSms * perSm;
    }
  }
  return plan;
}

//===----------------------------------------------------------------------===//
// The strategy as an attribute
//===----------------------------------------------------------------------===//

static SoftmaxKernelAttr configToAttr(Builder &b, const KernelConfig &c) {
  return SoftmaxKernelAttr::get(
      b.getContext(), c.vectorWidth, c.threadsPerRow, c.blockSize, c.cached,
      c.peel, c.gridCtas, c.prefetch, c.unroll, c.smemRowBytes,
      c.bulkChunkBytes, c.bulkSlots);
}

SoftmaxStrategyAttr mlir::tx::planToAttr(Builder &b, const SoftmaxPlan &p) {
  return SoftmaxStrategyAttr::get(
      b.getContext(), p.rowsPerCta(), configToAttr(b, p.scalar),
      p.hasVector ? configToAttr(b, p.vec) : SoftmaxKernelAttr());
}

/// A configuration from its attribute (whose verifier checked the ranges
/// that do not depend on the row), checked against what the kernel builder
/// supports for rows of `n` (-1: dynamic) elements of `bits` bits; `fail`
/// gets a message naming the parameter.
static FailureOr<KernelConfig>
configFromAttr(SoftmaxKernelAttr d, StringRef which, int64_t n, unsigned bits,
               llvm::function_ref<void(const Twine &)> fail) {
  KernelConfig c;
  auto bad = [&](const Twine &msg) -> FailureOr<KernelConfig> {
    fail("'" + which + "." + msg);
    return failure();
  };
  c.vectorWidth = d.getVectorWidth();
  c.threadsPerRow = d.getThreadsPerRow();
  c.blockSize = d.getBlockSize();
  c.cached = d.getCached();
  c.gridCtas = d.getGridCtas();
  c.unroll = d.getUnroll();
  c.smemRowBytes = d.getSmemRowBytes();
  c.bulkChunkBytes = d.getBulkChunkBytes();
  c.bulkSlots = d.getBulkSlots();
  c.peel = d.getPeel();
  c.prefetch = d.getPrefetch();
  bool scalar = which == "scalar";
  if (!scalar && c.vectorWidth * bits > 128)
    return bad(Twine("vector_width' must be a power of two of at most 16 "
                     "bytes, got ") +
               Twine(c.vectorWidth) + " elements of " + Twine(bits) +
               " bits");
  if (c.cached > 0 &&
      (n < 0 || static_cast<int64_t>(llvm::divideCeil(
                    llvm::divideCeil(n, c.vectorWidth), c.threadsPerRow)) !=
                    c.cached))
    return bad("cached' must be 0 or the vectors per thread of a static "
               "row (at most 64)");
  if (c.gridCtas > 0 && c.threadsPerRow > 32 && c.bulkChunkBytes == 0)
    return bad("grid_ctas' must be 0, or a CTA count for rows on warps or "
               "for bulk-copied rows");
  if (c.bulkChunkBytes != 0 &&
      (c.smemRowBytes <= 0 ||
       c.smemRowBytes > GPUTarget::largestSharedMemoryPerCta() ||
       c.gridCtas == 0 || scalar || c.vectorWidth * bits != 128 ||
       c.bulkChunkBytes % (c.blockSize * 16) != 0 ||
       bulkSmemBytes(std::max<int64_t>(c.bulkSlots, llvm::divideCeil(
                                               c.smemRowBytes,
                                               c.bulkChunkBytes)),
                     c.bulkChunkBytes) > GPUTarget::largestSharedMemoryPerCta()))
    return bad("bulk_chunk_bytes' must be 0, or a multiple of 16 x "
               "block_size bytes (at most 1 MiB; bulk_slots chunks, at least "
               "a row's, and an 8-byte mbarrier per slot within 227 KiB) for "
               "a vector kernel of 16-byte vectors with smem_row_bytes and "
               "grid_ctas");
  if (c.smemRowBytes != 0 &&
      (c.cached != 0 || (c.gridCtas != 0 && c.bulkChunkBytes == 0) ||
       c.threadsPerRow != c.blockSize ||
       n < 0 ||
       c.smemRowBytes != n / c.vectorWidth * c.vectorWidth * (bits / 8) ||
       c.smemRowBytes + 1024 + 16 > GPUTarget::largestSharedMemoryPerCta()))
    return bad("smem_row_bytes' must be 0 or the bytes of a streamed row "
               "of a CTA-per-row kernel that fits in shared memory");
  if (c.peel && (scalar || c.cached != 0 || n < 0 ||
                 n % c.vectorWidth == 0 || c.threadsPerRow < c.vectorWidth))
    return bad("peel' is only for streamed vector rows whose N is not a "
               "multiple of the vector width");
  if (!c.peel && !scalar && n >= 0 && n % c.vectorWidth != 0)
    return bad("peel' must be set: N is not a multiple of the vector width");
  return c;
}

FailureOr<SoftmaxPlan>
mlir::tx::planFromAttr(SoftmaxStrategyAttr d, int64_t n, Type elt,
             llvm::function_ref<void(const Twine &)> fail) {
  unsigned bits = elt.getIntOrFloatBitWidth();
  SoftmaxPlan p;
  FailureOr<KernelConfig> s =
      configFromAttr(d.getScalar(), "scalar", n, bits, fail);
  if (failed(s))
    return failure();
  p.scalar = *s;
  if (SoftmaxKernelAttr v = d.getVector()) {
    FailureOr<KernelConfig> vc = configFromAttr(v, "vector", n, bits, fail);
    if (failed(vc))
      return failure();
    p.hasVector = true;
    p.vec = *vc;
  }
  return p;
}

/// A plan for a user's row tile of `k` rows per CTA (a forall without a
/// tx.gpu_strategy): the strategy's own plan when it runs k rows per CTA,
/// else the same choice with the threads per row held and the CTA sized
/// k times that, else other threads per row (the strategy's first, then
/// 1024 down to 2); each candidate must pass the checks a strategy
/// attribute does (planFromAttr). Failure: no kernel runs k rows per CTA.
FailureOr<SoftmaxPlan> mlir::tx::planForRowTile(SoftmaxOptions o, int64_t n,
                                             Type elt, int64_t k) {
  SoftmaxPlan plan = planSoftmax(o, n, elt);
  if (plan.rowsPerCta() == k)
    return plan;
  const KernelConfig &c = plan.hasVector ? plan.vec : plan.scalar;
  SmallVector<int64_t> perRow = {c.threadsPerRow};
  for (int64_t t = 1024; t >= 2; t /= 2)
    if (t != c.threadsPerRow)
      perRow.push_back(t);
  MLIRContext *ctx = elt.getContext();
  // (A candidate outside the attributes' ranges is skipped silently.)
  ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
  auto emit = [&] { return emitError(UnknownLoc::get(ctx)); };
  auto checked = [&](const KernelConfig &c) {
    return SoftmaxKernelAttr::getChecked(
        emit, ctx, c.vectorWidth, c.threadsPerRow, c.blockSize, c.cached,
        c.peel, c.gridCtas, c.prefetch, c.unroll, c.smemRowBytes,
        c.bulkChunkBytes, c.bulkSlots);
  };
  for (int64_t t : perRow) {
    if (k < 1 || k > 1024 / t)
      continue;
    o.threadsPerRow = t;
    o.blockSize = k * t;
    if (o.blockSize < 32 || !llvm::isPowerOf2_64(o.blockSize) ||
        (t > 32 && t != o.blockSize))
      continue;
    SoftmaxPlan cand = planSoftmax(o, n, elt);
    if (cand.rowsPerCta() != k)
      continue;
    SoftmaxKernelAttr scalar = checked(cand.scalar);
    SoftmaxKernelAttr vec = cand.hasVector ? checked(cand.vec) : nullptr;
    if (!scalar || (cand.hasVector && !vec))
      continue;
    auto attr = SoftmaxStrategyAttr::getChecked(emit, ctx, cand.rowsPerCta(),
                                                scalar, vec);
    if (attr && succeeded(planFromAttr(attr, n, elt, [](const Twine &) {})))
      return cand;
  }
  return failure();
}
/// Whether `op` is the tile of a user's row tiling: a 2-D tx.softmax along
/// dim 1 without a tx.gpu_strategy, directly in an scf.forall without one,
/// on a slice (made in the forall) of a tensor defined outside it, e.g.
/// transform.structured.tile_using_forall with tile sizes [k, 0]. The
/// strategy leaves it alone and tx-map-softmax-to-gpu maps the forall.
bool mlir::tx::isUserRowTile(SoftmaxOp op) {
  auto forall = dyn_cast_or_null<scf::ForallOp>(op->getParentOp());
  Value in = op.getInput();
  while (std::optional<StagedTile> st = stagedTile(in)) // tx-stage-softmax's
    in = st->source;
  auto slice = in.getDefiningOp<tensor::ExtractSliceOp>();
  return forall && !forall->hasAttr(kGpuStrategyAttr) &&
         !op->hasAttr(kGpuStrategyAttr) && slice &&
         slice->getParentOp() == forall.getOperation() &&
         slice.getSourceType().getRank() == 2 && op.getNormalizedDim() == 1 &&
         !forall->isAncestor(
             slice.getSource().getParentRegion()->getParentOp());
}
//===----------------------------------------------------------------------===//
// tx-softmax-strategy
//===----------------------------------------------------------------------===//

LogicalResult mlir::tx::checkSoftmaxOptions(Operation *op,
                                            const SoftmaxOptions &o,
                                            StringRef pass) {
  auto bad = [&](const Twine &msg) {
    mlir::emitError(op->getLoc(), pass) << ": " << msg;
    return failure();
  };
  if (o.blockSize != 0 && (o.blockSize < 32 || o.blockSize > 1024 ||
                           !llvm::isPowerOf2_64(o.blockSize)))
    return bad("block-size must be 0 or a power of two in [32, 1024], got " +
               Twine(o.blockSize));
  bool subWarp = o.threadsPerRow >= 2 && o.threadsPerRow <= 32 &&
                 llvm::isPowerOf2_64(o.threadsPerRow);
  if (o.threadsPerRow != 0 && !subWarp &&
      !(o.blockSize != 0 && o.threadsPerRow == o.blockSize))
    return bad("threads-per-row must be 0, a power of two in [2, 32], or "
               "equal to block-size, got " +
               Twine(o.threadsPerRow));
  if (o.vectorWidth < 0 || o.vectorWidth > 16 ||
      (o.vectorWidth != 0 && !llvm::isPowerOf2_64(o.vectorWidth)))
    return bad("vector-width must be 0 or a power of two up to 16, got " +
               Twine(o.vectorWidth));
  if (o.maxCachedVectors < 0 || o.maxCachedVectors > 64)
    return bad("max-cached-vectors must be in [0, 64], got " +
               Twine(o.maxCachedVectors));
  if (o.streamUnroll < 0 || o.streamUnroll > 16)
    return bad("stream-unroll must be 0 (4) or in [1, 16], got " +
               Twine(o.streamUnroll));
  if (o.gridCtas < 0 || o.gridCtas > (int64_t(1) << 31) - 1)
    return bad("grid-ctas must be 0 or a CTA count in [1, 2^31), got " +
               Twine(o.gridCtas));
  if (o.sm < 0 || o.sm > 1000)
    return bad("sm must be 0 (unknown) or a compute capability such as 90, "
               "got " + Twine(o.sm));
  if (o.bulkChunkBytes < 0 || o.bulkChunkBytes > (int64_t(1) << 20))
    return bad("bulk-chunk-bytes must be in [0, 1 MiB], got " +
               Twine(o.bulkChunkBytes));
  if (o.bulkCtasPerSm < 0 || o.bulkCtasPerSm > 32)
    return bad("bulk-ctas-per-sm must be in [0, 32], got " +
               Twine(o.bulkCtasPerSm));
  if (o.numSms < 1 || o.numSms > 4096)
    return bad("num-sms must be in [1, 4096], got " + Twine(o.numSms));
  return success();
}

namespace {

struct TxSoftmaxStrategyPass
    : public tx::impl::TxSoftmaxStrategyBase<TxSoftmaxStrategyPass> {
  using Base::Base;
  void runOnOperation() override {
    SoftmaxOptions o;
    o.blockSize = blockSize;
    o.threadsPerRow = threadsPerRow;
    o.vectorWidth = vectorWidth;
    o.maxCachedVectors = maxCachedVectors;
    o.gridCtas = gridCtas;
    o.streamUnroll = streamUnroll;
    o.maxSharedMemory = maxSharedMemory;
    o.prefetch = prefetch;
    o.smemRows = smemRows;
    o.sm = sm;
    o.numSms = numSms;
    o.bulkRows = bulkRows;
    o.bulkChunkBytes = bulkChunkBytes;
    o.bulkCtasPerSm = bulkCtasPerSm;
    // Options are checked even when there is nothing to rewrite.
    if (failed(checkSoftmaxOptions(getOperation(), o)))
      return signalPassFailure();
    Builder b(&getContext());
    WalkResult r = getOperation().walk([&](SoftmaxOp op) {
      auto ty = op.getType();
      int64_t n = ty.getDimSize(ty.getRank() - 1);
      if (ShapedType::isDynamic(n))
        n = -1;
      // A strategy already on the op (written by hand or by a tuner, or by
      // an earlier run of this pass) is kept, not replaced: it is checked
      // here as tx-map-softmax-to-gpu will check it.
      if (Attribute a = op->getAttr(kGpuStrategyAttr)) {
        constexpr llvm::StringLiteral kept =
            " (a strategy already on the op is kept, not replaced)";
        auto strategy = dyn_cast<SoftmaxStrategyAttr>(a);
        if (!strategy) {
          op.emitError("tx-softmax-strategy: ")
              << kGpuStrategyAttr << " must be a softmax strategy, got " << a
              << kept;
          return WalkResult::interrupt();
        }
        if (op.getNormalizedDim() != ty.getRank() - 1) {
          op.emitError("tx-softmax-strategy: ")
              << kGpuStrategyAttr << " is for a softmax along the last "
              << "dimension; this one is along dim "
              << op.getNormalizedDim() << " (the reference lowering takes "
              << "it without a strategy)" << kept;
          return WalkResult::interrupt();
        }
        bool bad = false;
        (void)planFromAttr(strategy, n, ty.getElementType(),
                           [&](const Twine &m) {
                             op.emitError("tx-softmax-strategy: ")
                                 << kGpuStrategyAttr << ": " << m << kept;
                             bad = true;
                           });
        return bad ? WalkResult::interrupt() : WalkResult::advance();
      }
      // Along another dimension: the reference lowering. A user's row
      // tile: tx-map-softmax-to-gpu plans it for the user's rows per CTA.
      if (op.getNormalizedDim() != ty.getRank() - 1 || isUserRowTile(op))
        return WalkResult::advance();
      op->setAttr(kGpuStrategyAttr,
                  planToAttr(b, planSoftmax(o, n, ty.getElementType())));
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
