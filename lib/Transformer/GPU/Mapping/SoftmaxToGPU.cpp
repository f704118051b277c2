//===- SoftmaxToGPU.cpp - tx.softmax's GPU path: the mapping --------------===//
//
//   tx-softmax-strategy    SoftmaxStrategy.cpp
//   tx-map-softmax-to-gpu  the scf.forall of row tiles that tx-tile-softmax
//                          makes from it -> the kernels (SoftmaxKernel.cpp)
//   tx-softmax-to-gpu      the two with tx-tile-softmax in between
//
//===----------------------------------------------------------------------===//
#include "GPU/AttentionKernel.h"
#include "GPU/SoftmaxKernel.h"
#include "GPU/Strategy/SoftmaxStrategy.h"
#include "Transformer/GPUTarget.h"
#include "Transformer/Passes.h"
#include "Transformer/TilingUtils.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"
#include <limits>

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXSOFTMAXTOGPU
#define GEN_PASS_DEF_TXMAPSOFTMAXTOGPU
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

/// The kernels of `plan` over the [R, N] buffers `in2` and `out2` at the
/// builder's insertion point (host code): nothing when R or N is 0; the
/// vector kernel when both buffers are 16-byte aligned (and a dynamic N is
/// a multiple of the vector width), else the scalar kernel.
static void emitSoftmaxKernels(OpBuilder &b, Location loc, Value in2,
                               Value out2, Type elt, const SoftmaxPlan &plan) {
  Value rows = memref::DimOp::create(b, loc, in2, 0);
  Value cols = memref::DimOp::create(b, loc, in2, 1);
  int64_t n = cast<MemRefType>(in2.getType()).getDimSize(1);
  if (ShapedType::isDynamic(n))
    n = -1;
  // Nothing to compute (and never a launch with an empty grid).
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value nonEmpty = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, rows, c0),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, cols, c0));
  auto ifNonEmpty = scf::IfOp::create(b, loc, nonEmpty, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(ifNonEmpty.thenBlock());
  if (!plan.hasVector) {
    buildSoftmaxKernel(b, loc, in2, out2, rows, cols, n, elt, plan.scalar);
    return;
  }
  // The vector kernel needs 16-byte aligned base pointers (and, for a
  // dynamic N, N % vw == 0); the scalar kernel runs otherwise.
  Value c16 = arith::ConstantIndexOp::create(b, loc, 16);
  auto aligned = [&](Value m) {
    Value p = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, m);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                 arith::RemUIOp::create(b, loc, p, c16), c0);
  };
  Value ok = arith::AndIOp::create(b, loc, aligned(in2), aligned(out2));
  if (n < 0) {
    Value cv = arith::ConstantIndexOp::create(b, loc, plan.vec.vectorWidth);
    ok = arith::AndIOp::create(
        b, loc, ok,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              arith::RemUIOp::create(b, loc, cols, cv), c0));
  }
  auto ifVec = scf::IfOp::create(b, loc, ok, /*withElse=*/true);
  b.setInsertionPointToStart(ifVec.thenBlock());
  buildSoftmaxKernel(b, loc, in2, out2, rows, cols, n, elt, plan.vec);
  b.setInsertionPointToStart(ifVec.elseBlock());
  buildSoftmaxKernel(b, loc, in2, out2, rows, cols, n, elt, plan.scalar);
}
namespace {

//===----------------------------------------------------------------------===//
// tx-map-softmax-to-gpu
//===----------------------------------------------------------------------===//

/// The row tile of a tx.softmax in an scf.forall, as tx-tile-softmax
/// from-strategy=true makes it or as a user's tiling (tile_using_forall
/// with tile sizes [k, 0]) does: scf.forall (%r) = (0) to (R) step (k) {
/// tx.softmax on rows [%r, %r + k) of an [R, N] tensor defined outside it,
/// all N columns, maybe staged in shared memory; parallel_insert_slice at
/// [%r, 0] }.
struct SoftmaxRowTile {
  scf::ForallOp forall;
  SoftmaxOp tile;
  tensor::ExtractSliceOp slice;     // the rows of the [R, N] input
  std::optional<StagedTile> staged; // the tile's staging, if any
  Value rowOffset;                  // the tile's first row
  int64_t n = -1;                   // N (-1: dynamic)
  int64_t k = 0;                    // rows per tile
  bool normalized = false;          // iv * k (tile_using_forall's form)
};

using FailFn = llvm::function_ref<LogicalResult(const Twine &)>;

/// The tile's input: its staging (at most one) and the slice of rows of a
/// 2-D tensor defined outside the forall.
static LogicalResult matchTileInput(SoftmaxRowTile &m, FailFn fail) {
  Value tileIn = m.tile.getInput();
  m.staged = stagedTile(tileIn);
  if (m.staged)
    tileIn = m.staged->source;
  if (stagedTile(tileIn))
    return fail("the row tile is staged in shared memory more than once; "
                "the kernels stage it once");
  m.slice = tileIn.getDefiningOp<tensor::ExtractSliceOp>();
  if (m.slice && stagedTile(m.slice.getSource()))
    return fail("the whole input is staged in shared memory (a copy "
                "outside the forall, on the host); stage the row tile "
                "inside the forall instead");
  if (!m.slice ||
      m.forall->isAncestor(
          m.slice.getSource().getParentRegion()->getParentOp()) ||
      m.slice.getSourceType().getRank() != 2)
    return fail("the tile must be rows of a [R, N] tensor defined outside "
                "the forall");
  m.n = m.slice.getSourceType().getDimSize(1);
  if (ShapedType::isDynamic(m.n))
    m.n = -1;
  return success();
}

/// A user's tiling in tile_using_forall's normalized form: iv = 0 ..
/// ceil(R / k) - 1 with step 1, the first row iv * k (affine.apply); k, or
/// nullopt when the offset is not of that form.
static std::optional<int64_t> normalizedRowTile(Value rowOffset, Value iv) {
  auto apply = rowOffset ? rowOffset.getDefiningOp<affine::AffineApplyOp>()
                         : affine::AffineApplyOp();
  if (!apply || apply.getAffineMap().getNumResults() != 1 ||
      apply.getOperands().size() != 1 || apply.getOperands()[0] != iv)
    return std::nullopt;
  auto bin = dyn_cast<AffineBinaryOpExpr>(apply.getAffineMap().getResult(0));
  if (!bin || bin.getKind() != AffineExprKind::Mul ||
      !isa<AffineDimExpr>(bin.getLHS()))
    return std::nullopt;
  if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
    return c.getValue();
  return std::nullopt;
}

/// Whether the tile's row count `sz` is k (a constant, or an affine.min
/// with k among its results: the last tile of a user's tiling).
static bool isRowTileSize(OpFoldResult sz, int64_t k) {
  if (std::optional<int64_t> c = getConstantIntValue(sz))
    return *c == k;
  auto mn = llvm::dyn_cast_if_present<Value>(sz)
                ? cast<Value>(sz).getDefiningOp<affine::AffineMinOp>()
                : affine::AffineMinOp();
  return mn && llvm::any_of(mn.getAffineMap().getResults(),
                            [&](AffineExpr e) {
                              auto c = dyn_cast<AffineConstantExpr>(e);
                              return c && c.getValue() == k;
                            });
}

/// Whether the forall's iterations cover all R rows: upper bound R, or
/// ceil(R / k) in the normalized form.
static bool coversAllRows(SoftmaxRowTile m) {
  OpFoldResult ub = m.forall.getMixedUpperBound()[0];
  Value src = m.slice.getSource();
  if (!m.normalized)
    return isSizeOf(ub, src, 0);
  int64_t r = m.slice.getSourceType().getDimSize(0);
  if (!ShapedType::isDynamic(r))
    return isConstantIntValue(ub, (r + m.k - 1) / m.k);
  auto apply = llvm::dyn_cast_if_present<Value>(ub)
                   ? cast<Value>(ub).getDefiningOp<affine::AffineApplyOp>()
                   : affine::AffineApplyOp();
  AffineMap map = apply ? apply.getAffineMap() : AffineMap();
  return map && map.getNumResults() == 1 &&
         apply.getOperands().size() == 1 &&
         map.getResult(0) ==
             getAffineBinaryOpExpr(
                 AffineExprKind::CeilDiv,
                 getAffineSymbolExpr(0, map.getContext()),
                 getAffineConstantExpr(m.k, map.getContext())) &&
         isSizeOf(apply.getOperands()[0], src, 0);
}

/// The forall's rows: from 0 with a constant step, the tile's first row
/// the induction variable (or iv * k for a user's tiling, `fromStrategy`
/// false), whole rows, all of them.
static LogicalResult matchTileRows(SoftmaxRowTile &m, bool fromStrategy,
                                   FailFn fail) {
  scf::ForallOp forall = m.forall;
  std::optional<int64_t> step =
      forall.getRank() == 1 ? getConstantIntValue(forall.getMixedStep()[0])
                            : std::nullopt;
  if (!step || !isConstantIntValue(forall.getMixedLowerBound()[0], 0))
    return fail(fromStrategy
                    ? "expected an scf.forall over rows from 0 with a "
                      "constant step (tx-tile-softmax from-strategy=true)"
                    : "expected a 1-D scf.forall over row tiles from 0 "
                      "with a constant step");
  Value iv = forall.getInductionVar(0);
  m.rowOffset = llvm::dyn_cast_if_present<Value>(m.slice.getMixedOffsets()[0]);
  m.k = *step;
  if (!fromStrategy && m.rowOffset != iv) {
    std::optional<int64_t> kk = normalizedRowTile(m.rowOffset, iv);
    if (!kk || *step != 1 || *kk < 1)
      return fail("a user's row tiling must give the tile's first row as "
                  "the induction variable (step k) or as iv * k "
                  "(tile_using_forall's normalized form)");
    m.k = *kk;
    m.normalized = true;
  }
  if (m.tile.getNormalizedDim() != 1 ||
      (!m.normalized && m.rowOffset != iv) ||
      !isConstantIntValue(m.slice.getMixedOffsets()[1], 0) ||
      !isSizeOf(m.slice.getMixedSizes()[1], m.slice.getSource(), 1) ||
      (!fromStrategy && !isRowTileSize(m.slice.getMixedSizes()[0], m.k)) ||
      !coversAllRows(m))
    return fail("the forall must run over all R rows of the [R, N] input "
                "and its tile be a softmax over whole rows [r, r + k) "
                "(dim 1)");
  return success();
}

/// The forall's one result: the tile's softmax written at rows [r, r + k)
/// by a parallel_insert_slice with unit strides.
static LogicalResult matchTileInsert(SoftmaxRowTile m, FailFn fail) {
  auto yielding = m.forall.getTerminator().getYieldingOps();
  auto ins = yielding.empty() ? tensor::ParallelInsertSliceOp()
                              : dyn_cast<tensor::ParallelInsertSliceOp>(
                                    *yielding.begin());
  auto unitStrides = [](ArrayRef<OpFoldResult> st) {
    return llvm::all_of(
        st, [](OpFoldResult x) { return isConstantIntValue(x, 1); });
  };
  if (m.forall.getNumResults() != 1 || !ins ||
      ins.getSource() != m.tile.getResult() ||
      llvm::dyn_cast_if_present<Value>(ins.getMixedOffsets()[0]) !=
          m.rowOffset ||
      !isConstantIntValue(ins.getMixedOffsets()[1], 0) ||
      !unitStrides(m.slice.getMixedStrides()) ||
      !unitStrides(ins.getMixedStrides()) ||
      !isEqualConstantIntOrValue(ins.getMixedSizes()[0],
                                 m.slice.getMixedSizes()[0]))
    return fail("the forall must write the tile's softmax into its one "
                "result at rows [r, r + k) (unit strides, the tile's "
                "rows)");
  return success();
}

/// The staging the plan's kernel needs: rows kept in shared memory
/// (smem_row_bytes > 0) come from a tile staged in workgroup memory, and
/// only they.
static LogicalResult checkTileStaging(SoftmaxRowTile m,
                                      const SoftmaxPlan &plan,
                                      bool fromStrategy, FailFn fail) {
  int64_t smemRow = plan.hasVector ? plan.vec.smemRowBytes : 0;
  if (m.staged && !isWorkgroupMemory(m.staged->memorySpace))
    return fail("the row tile is staged in " +
                memorySpaceText(m.staged->memorySpace) +
                "; the kernels keep rows in shared memory "
                "(#gpu.address_space<workgroup>)");
  if (fromStrategy && smemRow > 0 && !m.staged)
    return fail("its tx.gpu_strategy keeps each row in shared memory "
                "between the kernel's two passes (smem_row_bytes = " +
                Twine(smemRow) +
                "): stage the row tile (run tx-stage-softmax, or "
                "transform.structured.promote_tensor to "
                "#gpu.address_space<workgroup> on the tx.softmax's input)");
  if (m.staged && smemRow == 0)
    return fail(fromStrategy
                    ? Twine("the row tile is staged in shared memory, but "
                            "the strategy's kernel holds rows in "
                            "registers or streams them from global memory "
                            "(smem_row_bytes = 0)")
                    : "the row tile is staged in shared memory, but no "
                      "kernel keeps a tile of " +
                          Twine(m.k) +
                          " rows in shared memory (one row per CTA of a "
                          "row length whose 16-byte vectors fit in "
                          "max-shared-memory); leave it unstaged");
  return success();
}

/// The output buffer of the forall's result at the builder's insertion
/// point: [R, N], or, when the result is only viewed back to the op's
/// shape (tx-tile-softmax's tensor.expand_shape for rank > 2,
/// collapse_shape for rank 1), a buffer in the op's shape (`whole`) and an
/// [R, N] view of it, as the old direct lowering did: a
/// memref.expand_shape of a dynamic [R, N] result crashes upstream's
/// expand-strided-metadata (LLVM 22.1.8). `back` is that view op.
struct RowTileOutput {
  Value rows, whole;
  Operation *back = nullptr;
};
static RowTileOutput emitOutputBuffer(OpBuilder &b, Location loc,
                                      Value result, Value in) {
  auto ty = cast<RankedTensorType>(in.getType());
  auto memTy = MemRefType::get(ty.getShape(), ty.getElementType());
  RowTileOutput out;
  Operation *back = result.hasOneUse() ? *result.getUsers().begin() : nullptr;
  auto expandBack = dyn_cast_or_null<tensor::ExpandShapeOp>(back);
  auto collapseBack = dyn_cast_or_null<tensor::CollapseShapeOp>(back);
  if (collapseBack && collapseBack.getResultType().getRank() != 1)
    collapseBack = {};
  if (expandBack) {
    auto oTy = expandBack.getResultType();
    SmallVector<Value> dyn;
    for (auto [i, sz] : llvm::enumerate(expandBack.getMixedOutputShape()))
      if (oTy.isDynamicDim(i))
        dyn.push_back(getValueOrCreateConstantIndexOp(b, loc, sz));
    out.whole = memref::AllocOp::create(
        b, loc, MemRefType::get(oTy.getShape(), oTy.getElementType()), dyn);
    out.rows = memref::CollapseShapeOp::create(
        b, loc, out.whole, expandBack.getReassociationIndices());
    out.back = back;
  } else if (collapseBack) {
    auto oTy = collapseBack.getResultType();
    SmallVector<Value> dyn;
    if (oTy.isDynamicDim(0))
      dyn.push_back(tensor::DimOp::create(b, loc, in, 1));
    out.whole = memref::AllocOp::create(
        b, loc, MemRefType::get(oTy.getShape(), oTy.getElementType()), dyn);
    out.rows = memref::ExpandShapeOp::create(
        b, loc, memTy, out.whole, collapseBack.getReassociationIndices(),
        SmallVector<OpFoldResult>{b.getIndexAttr(1),
                                  memref::getMixedSize(b, loc, out.whole, 0)});
    out.back = back;
  } else {
    SmallVector<Value> dynSizes;
    for (int64_t i = 0; i < 2; ++i)
      if (ty.isDynamicDim(i))
        dynSizes.push_back(tensor::DimOp::create(b, loc, in, i));
    out.rows = memref::AllocOp::create(b, loc, memTy, dynSizes);
  }
  return out;
}

/// Replaces the matched forall by the plan's kernels on buffers of its
/// input and result.
static void emitRowTileKernels(SoftmaxRowTile m,
                               const SoftmaxPlan &plan) {
  Value in = m.slice.getSource();
  auto ty = cast<RankedTensorType>(in.getType());
  Location loc = m.tile.getLoc();
  OpBuilder b(m.forall);
  auto memTy = MemRefType::get(ty.getShape(), ty.getElementType());
  Value inM = bufferization::ToBufferOp::create(b, loc, memTy, in,
                                                /*read_only=*/true);
  Value result = m.forall.getResult(0);
  RowTileOutput out = emitOutputBuffer(b, loc, result, in);
  emitSoftmaxKernels(b, loc, inM, out.rows, ty.getElementType(), plan);
  if (out.whole) {
    Value res = bufferization::ToTensorOp::create(
        b, loc, out.back->getResult(0).getType(), out.whole,
        /*restrict=*/true, /*writable=*/true);
    out.back->getResult(0).replaceAllUsesWith(res);
    out.back->erase();
  } else {
    Value res = bufferization::ToTensorOp::create(
        b, loc, result.getType(), out.rows, /*restrict=*/true,
        /*writable=*/true);
    result.replaceAllUsesWith(res);
  }
  m.forall.erase();
}

struct TxMapSoftmaxToGPUPass
    : public tx::impl::TxMapSoftmaxToGPUBase<TxMapSoftmaxToGPUPass> {
  using Base::Base;

  /// A strategy made for another chip, or by hand (tx-softmax-strategy
  /// keeps one already on the op): its kernels must run on this one.
  LogicalResult checkPlanChip(const SoftmaxPlan &plan, FailFn fail) {
    for (auto [which, kc] :
         {std::pair<StringRef, const KernelConfig *>{"vector", &plan.vec},
          {"scalar", &plan.scalar}}) {
      if (which == "vector" && !plan.hasVector)
        continue;
      if (kc->bulkChunkBytes > 0 && sm < 90)
        return fail("its tx.gpu_strategy copies rows by cp.async.bulk ('" +
                    which + ".bulk_chunk_bytes' = " +
                    Twine(kc->bulkChunkBytes) +
                    "), which needs sm_90 or newer (this mapping targets "
                    "sm = " + Twine(int64_t(sm)) + ")");
      if (kc->dynamicSmemBytes() > maxSharedMemory)
        return fail("its tx.gpu_strategy's " + which + " kernel needs " +
                    Twine(kc->dynamicSmemBytes()) +
                    " bytes of dynamic shared memory ('" + which +
                    ".smem_row_bytes' = " + Twine(kc->smemRowBytes) +
                    "), more than max-shared-memory = " +
                    Twine(int64_t(maxSharedMemory)));
    }
    return success();
  }

  /// The plan of the matched tile: the strategy's (`attr`), or, for a
  /// user's tiling, one whose kernel runs exactly its k rows per CTA
  /// (planForRowTile).
  FailureOr<SoftmaxPlan> planOf(SoftmaxRowTile m,
                                SoftmaxStrategyAttr attr, FailFn fail) {
    Type elt = m.slice.getSourceType().getElementType();
    FailureOr<SoftmaxPlan> plan =
        attr ? planFromAttr(attr, m.n, elt,
                            [&](const Twine &msg) {
                              (void)fail(Twine(kGpuStrategyAttr) + ": " + msg);
                            })
             : planForRowTile(userOptions(m.staged.has_value()), m.n, elt,
                              m.k);
    if (failed(plan)) {
      if (attr)
        return failure();
      return fail("no softmax kernel runs a tile of " + Twine(m.k) +
                  " rows per CTA (rows per CTA = block size / threads "
                  "per row, at most 1024 threads per CTA)");
    }
    if (m.k != plan->rowsPerCta())
      return fail("the row tile " + Twine(m.k) + " differs from the " +
                  "strategy's rows per CTA " + Twine(plan->rowsPerCta()));
    if (attr && failed(checkPlanChip(*plan, fail)))
      return failure();
    return plan;
  }

  /// `attr`: the forall's strategy; null for a user's tiling (a forall
  /// without one, e.g. transform.structured.tile_using_forall on the
  /// tx.softmax with tile sizes [k, 0]), which gets a plan whose kernel
  /// runs exactly its k rows per CTA (planForRowTile).
  LogicalResult mapForall(scf::ForallOp forall, SoftmaxOp tile,
                          SoftmaxStrategyAttr attr) {
    auto fail = [&](const Twine &msg) -> LogicalResult {
      forall.emitError("tx-map-softmax-to-gpu: ") << msg;
      return failure();
    };
    SoftmaxRowTile m;
    m.forall = forall;
    m.tile = tile;
    if (failed(matchTileInput(m, fail)) ||
        failed(matchTileRows(m, /*fromStrategy=*/bool(attr), fail)))
      return failure();
    FailureOr<SoftmaxPlan> plan = planOf(m, attr, fail);
    if (failed(plan) ||
        failed(checkTileStaging(m, *plan, bool(attr), fail)) ||
        failed(matchTileInsert(m, fail)))
      return failure();
    emitRowTileKernels(m, *plan);
    return success();
  }

  /// The strategy options for foralls without a tx.gpu_strategy (rows in
  /// shared memory only when the user staged the tile there).
  SoftmaxOptions userOptions(bool smemRows = true) const {
    SoftmaxOptions o;
    o.smemRows = smemRows;
    o.sm = sm;
    o.numSms = numSms;
    o.maxSharedMemory = maxSharedMemory;
    return o;
  }

  void runOnOperation() override {
    SoftmaxOptions o = userOptions();
    if (failed(checkSoftmaxOptions(getOperation(), o, getArgument())))
      return signalPassFailure();
    if (o.maxSharedMemory < 0) {
      getOperation().emitError("tx-map-softmax-to-gpu: max-shared-memory "
                               "must be >= 0, got ")
          << o.maxSharedMemory;
      return signalPassFailure();
    }
    SmallVector<std::tuple<scf::ForallOp, SoftmaxOp, SoftmaxStrategyAttr>>
        tiles;
    SmallVector<SoftmaxOp> untiled;
    getOperation().walk([&](SoftmaxOp op) {
      auto forall = op->getParentOfType<scf::ForallOp>();
      auto attr = forall ? forall->getAttrOfType<SoftmaxStrategyAttr>(
                               kGpuStrategyAttr)
                         : SoftmaxStrategyAttr();
      bool direct = forall && op->getParentOp() == forall.getOperation();
      if ((attr && direct) || isUserRowTile(op))
        tiles.push_back({forall, op, attr});
      else if (op->hasAttr(kGpuStrategyAttr))
        untiled.push_back(op);
    });
    for (auto [forall, tile, attr] : tiles)
      if (failed(mapForall(forall, tile, attr)))
        return signalPassFailure();
    for (SoftmaxOp op : untiled) {
      // Statically empty: nothing to compute (tx-tile-softmax leaves it).
      auto ty = op.getType();
      if (llvm::is_contained(ty.getShape(), 0) &&
          op.getNormalizedDim() == ty.getRank() - 1) {
        OpBuilder b(op);
        // (An allocation, not tensor.empty: two identical tensor.empty
        // results would be merged by CSE, and upstream's
        // buffer-results-to-out-params crashes on a function returning one
        // buffer twice, LLVM 22.1.8.)
        SmallVector<Value> dyn;
        for (int64_t i = 0; i < ty.getRank(); ++i)
          if (ty.isDynamicDim(i))
            dyn.push_back(tensor::DimOp::create(b, op.getLoc(), op.getInput(), i));
        op.replaceAllUsesWith(
            bufferization::AllocTensorOp::create(b, op.getLoc(), ty, dyn)
                .getResult());
        op.erase();
        continue;
      }
      op.emitError("tx-map-softmax-to-gpu: this tx.softmax has a ")
          << kGpuStrategyAttr
          << " but is not tiled; run tx-tile-softmax from-strategy=true "
             "first (tx-softmax-to-gpu runs the whole path)";
      return signalPassFailure();
    }
  }
};

//===----------------------------------------------------------------------===//
// tx-softmax-to-gpu
//===----------------------------------------------------------------------===//

struct TxSoftmaxToGPUPass
    : public tx::impl::TxSoftmaxToGPUBase<TxSoftmaxToGPUPass> {
  using Base::Base;
  void runOnOperation() override {
    OpPassManager pm(func::FuncOp::getOperationName());
    TxSoftmaxStrategyOptions s;
    s.blockSize = blockSize;
    s.threadsPerRow = threadsPerRow;
    s.vectorWidth = vectorWidth;
    s.maxCachedVectors = maxCachedVectors;
    s.gridCtas = gridCtas;
    s.prefetch = prefetch;
    s.smemRows = smemRows;
    s.maxSharedMemory = maxSharedMemory;
    s.streamUnroll = streamUnroll;
    s.sm = sm;
    s.numSms = numSms;
    s.bulkRows = bulkRows;
    s.bulkChunkBytes = bulkChunkBytes;
    s.bulkCtasPerSm = bulkCtasPerSm;
    pm.addPass(createTxSoftmaxStrategy(s));
    TxTileSoftmaxOptions t;
    t.fromStrategy = true;
    pm.addPass(createTxTileSoftmax(t));
    pm.addPass(createTxStageSoftmax());
    pm.addPass(createTxMapSoftmaxToGPU());
    if (failed(runPipeline(pm, getOperation())))
      signalPassFailure();
  }
};

} // namespace
