//===- TileSoftmax.cpp - tx.softmax: TilingInterface and tx-tile-softmax --===//
//
// - tx.softmax's TilingInterface: the iteration domain is the operand's
//   shape with the softmax dimension a reduction; a tile is tx.softmax on a
//   slice and must hold whole rows.
// - tx-tile-softmax (see its description in Passes.td): row tiles from
//   upstream scf::tileUsingSCF, then, optionally, each tile's rows split into
//   chunks: an online max/sum (Milakov & Gimelshein 2018) and a normalizing
//   pass, the algorithm of tx-softmax-to-gpu's streaming kernel.
//
//===----------------------------------------------------------------------===//
#include "Transformer/Passes.h"
#include "Transformer/TilingUtils.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include <limits>

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXTILESOFTMAX
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;
using utils::IteratorType;

//===----------------------------------------------------------------------===//
// TilingInterface
//===----------------------------------------------------------------------===//

SmallVector<IteratorType> SoftmaxOp::getLoopIteratorTypes() {
  SmallVector<IteratorType> r(getType().getRank(), IteratorType::parallel);
  r[getNormalizedDim()] = IteratorType::reduction;
  return r;
}

SmallVector<Range> SoftmaxOp::getIterationDomain(OpBuilder &b) {
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  SmallVector<Range> r;
  for (OpFoldResult size : tensor::getMixedSizes(b, getLoc(), getInput()))
    r.push_back(Range{zero, size, one});
  return r;
}

/// True when the tile spans the whole softmax dimension.
static bool holdsWholeRows(SoftmaxOp op, ArrayRef<OpFoldResult> offsets,
                           ArrayRef<OpFoldResult> sizes) {
  int64_t d = op.getNormalizedDim();
  return isConstantIntValue(offsets[d], 0) &&
         isSizeOf(sizes[d], op.getInput(), d);
}

FailureOr<TilingResult>
SoftmaxOp::getTiledImplementation(OpBuilder &b, ArrayRef<OpFoldResult> offsets,
                                  ArrayRef<OpFoldResult> sizes) {
  if (!holdsWholeRows(*this, offsets, sizes))
    return emitOpError("cannot tile the softmax dimension ")
           << getNormalizedDim()
           << ": a tile must hold whole rows (tx-tile-softmax cols-per-tile "
              "splits rows with an online softmax)";
  Location loc = getLoc();
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  auto slice = tensor::ExtractSliceOp::create(
      b, loc, getInput(),
      zeroDimSafe(b, loc, offsets, getType().getShape()), sizes, strides);
  auto tiled = SoftmaxOp::create(b, loc, slice.getType(), slice.getResult(),
                                 getDimAttr());
  return TilingResult{{tiled.getOperation()},
                      SmallVector<Value>{tiled.getResult()},
                      SmallVector<Operation *>{slice}};
}

LogicalResult SoftmaxOp::getResultTilePosition(
    OpBuilder &b, unsigned resultNumber, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  resultOffsets = zeroDimSafe(b, getLoc(), offsets, getType().getShape());
  resultSizes.assign(sizes.begin(), sizes.end());
  return success();
}

LogicalResult SoftmaxOp::getIterationDomainTileFromResultTile(
    OpBuilder &b, unsigned resultNumber, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVectorImpl<OpFoldResult> &iterOffsets,
    SmallVectorImpl<OpFoldResult> &iterSizes) {
  if (!holdsWholeRows(*this, offsets, sizes))
    return failure();
  iterOffsets.assign(offsets.begin(), offsets.end());
  iterSizes.assign(sizes.begin(), sizes.end());
  return success();
}

FailureOr<TilingResult>
SoftmaxOp::generateResultTileValue(OpBuilder &b, unsigned resultNumber,
                                   ArrayRef<OpFoldResult> offsets,
                                   ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> iterOffsets, iterSizes;
  if (failed(getIterationDomainTileFromResultTile(
          b, resultNumber, offsets, sizes, iterOffsets, iterSizes)))
    return failure();
  return getTiledImplementation(b, iterOffsets, iterSizes);
}

//===----------------------------------------------------------------------===//
// tx-tile-softmax
//===----------------------------------------------------------------------===//

namespace {

Value expOf(OpBuilder &b, Location loc, Value x) {
  return math::ExpOp::create(b, loc, x);
}

/// Rewrites `tile` (a tx.softmax on one row tile) into the chunked online
/// form described in Passes.td: scf.for over chunks of `chunk` elements of
/// the softmax dimension with the running (max, sum), then scf.for writing
/// exp(x - max) / sum chunk by chunk.
void emitOnlineChunks(RewriterBase &rewriter, SoftmaxOp tile, int64_t chunk) {
  OpBuilder &b = rewriter;
  rewriter.setInsertionPoint(tile);
  Location loc = tile.getLoc();
  MLIRContext *ctx = b.getContext();
  Value x = tile.getInput();
  auto ty = tile.getType();
  Type elt = ty.getElementType();
  Type f32 = b.getF32Type();
  int64_t rank = ty.getRank();
  int64_t d = tile.getNormalizedDim();

  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  SmallVector<OpFoldResult> stateSizes;
  SmallVector<AffineExpr> stateExprs;
  for (int64_t i = 0; i < rank; ++i) {
    if (i == d)
      continue;
    stateSizes.push_back(sizes[i]);
    stateExprs.push_back(getAffineDimExpr(i, ctx));
  }
  AffineMap id = b.getMultiDimIdentityMap(rank);
  AffineMap stateMap = AffineMap::get(rank, 0, stateExprs, ctx);
  SmallVector<IteratorType> reduceIters(rank, IteratorType::parallel);
  reduceIters[d] = IteratorType::reduction;
  SmallVector<IteratorType> parIters(rank, IteratorType::parallel);

  Value n = getValueOrCreateConstantIndexOp(b, loc, sizes[d]);
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value step = arith::ConstantIndexOp::create(b, loc, chunk);
  Value negInf = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));

  // The chunk [c, c + min(chunk, N - c)) of the softmax dimension of `t`.
  auto chunkOf = [&](OpBuilder &nb, Location nl, Value t, Value c) {
    AffineExpr d0, d1;
    bindDims(ctx, d0, d1);
    OpFoldResult len = affine::makeComposedFoldedAffineMin(
        nb, nl, AffineMap::get(2, 0, {d1 - d0, getAffineConstantExpr(chunk, ctx)},
                               ctx),
        {c, n});
    SmallVector<OpFoldResult> offs(rank, nb.getIndexAttr(0)), szs(sizes);
    offs[d] = c;
    szs[d] = len;
    return std::make_pair(offs, szs);
  };
  auto toF32 = [&](OpBuilder &nb, Location nl, Value v) {
    return elt.isF32() ? v : arith::ExtFOp::create(nb, nl, f32, v).getResult();
  };

  // (a) Online max and sum over the chunks.
  Value mx0 = filledF32(b, loc, stateSizes,
                        -std::numeric_limits<double>::infinity());
  Value sum0 = filledF32(b, loc, stateSizes, 0.0);
  auto stats = scf::ForOp::create(
      b, loc, c0, n, step, ValueRange{mx0, sum0},
      [&](OpBuilder &nb, Location nl, Value c, ValueRange st) {
        auto [offs, szs] = chunkOf(nb, nl, x, c);
        SmallVector<OpFoldResult> ones(rank, nb.getIndexAttr(1));
        Value xc = tensor::ExtractSliceOp::create(nb, nl, x, offs, szs, ones);
        auto upd = linalg::GenericOp::create(
            nb, nl, TypeRange{st[0].getType(), st[1].getType()}, xc,
            ValueRange{st[0], st[1]},
            ArrayRef<AffineMap>{id, stateMap, stateMap}, reduceIters,
            [&](OpBuilder &bb, Location bl, ValueRange a) {
              Value v = toF32(bb, bl, a[0]);
              Value m = a[1], s = a[2];
              Value mNew = arith::MaximumFOp::create(bb, bl, m, v);
              // An unchanged max keeps the sum (m == m' == -inf would give
              // 0 * exp(NaN)); a max still at -inf adds 0.
              Value same = arith::CmpFOp::create(
                  bb, bl, arith::CmpFPredicate::OEQ, m, mNew);
              Value scaled = arith::MulFOp::create(
                  bb, bl, s,
                  expOf(bb, bl, arith::SubFOp::create(bb, bl, m, mNew)));
              Value kept = arith::SelectOp::create(bb, bl, same, s, scaled);
              Value dead = arith::CmpFOp::create(
                  bb, bl, arith::CmpFPredicate::OEQ, mNew, negInf);
              Value e = expOf(bb, bl, arith::SubFOp::create(bb, bl, v, mNew));
              Value part = arith::SelectOp::create(bb, bl, dead, zero, e);
              linalg::YieldOp::create(
                  bb, bl,
                  ValueRange{mNew, arith::AddFOp::create(bb, bl, kept, part)});
            });
        scf::YieldOp::create(nb, nl, upd.getResults());
      });
  Value mx = stats.getResult(0), sum = stats.getResult(1);

  // (b) exp(x - max) / sum, chunk by chunk.
  Value out0 = tensor::EmptyOp::create(b, loc, sizes, elt);
  auto norm = scf::ForOp::create(
      b, loc, c0, n, step, ValueRange{out0},
      [&](OpBuilder &nb, Location nl, Value c, ValueRange acc) {
        auto [offs, szs] = chunkOf(nb, nl, x, c);
        SmallVector<OpFoldResult> ones(rank, nb.getIndexAttr(1));
        Value xc = tensor::ExtractSliceOp::create(nb, nl, x, offs, szs, ones);
        Value oc =
            tensor::ExtractSliceOp::create(nb, nl, acc[0], offs, szs, ones);
        Value y =
            linalg::GenericOp::create(
                nb, nl, oc.getType(), ValueRange{xc, mx, sum}, oc,
                ArrayRef<AffineMap>{id, stateMap, stateMap, id}, parIters,
                [&](OpBuilder &bb, Location bl, ValueRange a) {
                  Value v = toF32(bb, bl, a[0]);
                  Value e = expOf(bb, bl, arith::SubFOp::create(bb, bl, v, a[1]));
                  Value r = arith::DivFOp::create(bb, bl, e, a[2]);
                  if (!elt.isF32())
                    r = arith::TruncFOp::create(bb, bl, elt, r);
                  linalg::YieldOp::create(bb, bl, r);
                })
                .getResult(0);
        Value ins = tensor::InsertSliceOp::create(nb, nl, y, acc[0], offs,
                                                  szs, ones);
        scf::YieldOp::create(nb, nl, ins);
      });
  Value result = norm.getResult(0);
  if (result.getType() != ty)
    result = tensor::CastOp::create(b, loc, ty, result);
  rewriter.replaceOp(tile, result);
}

struct TxTileSoftmaxPass
    : public tx::impl::TxTileSoftmaxBase<TxTileSoftmaxPass> {
  using Base::Base;

  LogicalResult checkOptions(Operation *op) {
    auto bad = [&](const Twine &msg) {
      mlir::emitError(op->getLoc(), "tx-tile-softmax: ") << msg;
      return failure();
    };
    if (rowsPerTile < 1)
      return bad("rows-per-tile must be >= 1, got " +
                 Twine(static_cast<int64_t>(rowsPerTile)));
    if (colsPerTile < 0)
      return bad("cols-per-tile must be >= 0 (0 = whole rows), got " +
                 Twine(static_cast<int64_t>(colsPerTile)));
    return success();
  }

  /// The GPU path (from-strategy): the op as a softmax over the rows of an
  /// [R, N] view of its operand (leading dimensions collapsed; rank 1 as one
  /// row), the rows tiled by the strategy's rows per CTA into an
  /// scf.forall that carries the strategy, the result viewed back.
  LogicalResult rewriteForGpu(SoftmaxOp op, RowTilingAttr strategy) {
    int64_t rowsPerTile = strategy.getRowsPerTile();
    auto ty = op.getType();
    if (op.getNormalizedDim() != ty.getRank() - 1)
      return op.emitError("tx-tile-softmax: ")
             << kGpuStrategyAttr
             << " on a softmax along dimension " << op.getNormalizedDim()
             << " of " << ty.getRank()
             << ": the GPU kernels take the innermost dimension only";
    // Statically empty: tx-map-softmax-to-gpu writes nothing.
    if (llvm::is_contained(ty.getShape(), 0))
      return success();
    int64_t rank = ty.getRank();
    Location loc = op.getLoc();
    IRRewriter rewriter(op.getContext());
    rewriter.setInsertionPoint(op);
    OpBuilder &b = rewriter;
    Value in = op.getInput();
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, in);
    int64_t n = ty.getDimSize(rank - 1);
    Value in2 = in;
    SmallVector<ReassociationIndices> re;
    if (rank == 1) {
      re = {{0, 1}};
      in2 = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get({1, n}, ty.getElementType()), in, re,
          SmallVector<OpFoldResult>{b.getIndexAttr(1), sizes[0]});
    } else if (rank > 2) {
      ReassociationIndices outer;
      for (int64_t i = 0; i < rank - 1; ++i)
        outer.push_back(i);
      re = {outer, {rank - 1}};
      in2 = tensor::CollapseShapeOp::create(b, loc, in, re);
    }
    auto sm2 = SoftmaxOp::create(b, loc, in2.getType(), in2,
                                 b.getI64IntegerAttr(1));
    scf::SCFTilingOptions opts;
    opts.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    opts.setTileSizes({b.getIndexAttr(rowsPerTile), b.getIndexAttr(0)});
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(sm2.getOperation()), opts);
    if (failed(tiled))
      return op.emitError("tx-tile-softmax: tiling the rows failed");
    tiled->loops.front()->setAttr(kGpuStrategyAttr, strategy);
    Value out2 = tiled->replacements.front();
    rewriter.eraseOp(sm2);
    Value out = out2;
    if (rank == 1)
      out = tensor::CollapseShapeOp::create(b, loc, out2, re);
    else if (rank > 2)
      out = tensor::ExpandShapeOp::create(b, loc, ty, out2, re, sizes);
    rewriter.replaceOp(op, out);
    return success();
  }

  LogicalResult rewrite(SoftmaxOp op) {
    if (fromStrategy) {
      Attribute any = op->getAttr(kGpuStrategyAttr);
      if (!any)
        return success();
      auto strategy = dyn_cast<RowTilingAttr>(any);
      if (!strategy)
        return op.emitError("tx-tile-softmax: ")
               << kGpuStrategyAttr << " must be a softmax strategy, got "
               << any;
      return rewriteForGpu(op, strategy);
    }
    auto ty = op.getType();
    // Nothing to tile in a statically empty tensor (and upstream's slice
    // verifiers reject static offsets into zero-size dimensions).
    if (llvm::is_contained(ty.getShape(), 0))
      return success();
    int64_t rank = ty.getRank();
    int64_t d = op.getNormalizedDim();
    IRRewriter rewriter(op.getContext());
    rewriter.setInsertionPoint(op);

    SmallVector<OpFoldResult> tiles(rank, rewriter.getIndexAttr(1));
    tiles[d] = rewriter.getIndexAttr(0);
    for (int64_t i = rank - 1; i >= 0; --i)
      if (i != d) {
        tiles[i] = rewriter.getIndexAttr(rowsPerTile);
        break;
      }
    SoftmaxOp tile = op;
    if (rank > 1) {
      scf::SCFTilingOptions opts;
      opts.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
      opts.setTileSizes(tiles);
      FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), opts);
      if (failed(tiled))
        return op.emitError("tx-tile-softmax: tiling the rows failed");
      rewriter.replaceOp(op, tiled->replacements);
      tile = cast<SoftmaxOp>(tiled->tiledOps.back());
    }

    int64_t n = ty.getDimSize(d);
    if (colsPerTile > 0 && (ShapedType::isDynamic(n) || n > colsPerTile))
      emitOnlineChunks(rewriter, tile, colsPerTile);
    return success();
  }

  void runOnOperation() override {
    // Options are checked even when there is nothing to rewrite.
    if (failed(checkOptions(getOperation())))
      return signalPassFailure();
    if (failed(rewriteEach<SoftmaxOp>(getOperation(),
                                [&](SoftmaxOp op) { return rewrite(op); })))
      return signalPassFailure();
  }
};

} // namespace
