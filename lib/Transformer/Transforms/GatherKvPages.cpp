//===- GatherKvPages.cpp - tx-gather-kv-pages -----------------------------===//
//
// A paged tx.attention (K/V page pools read through a page table) becomes
// two linalg.generic gathers and an unpaged tx.attention (PagedKv.h).
//
//===----------------------------------------------------------------------===//
#include "Transforms/PagedKv.h"
#include "Transformer/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXGATHERKVPAGES
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

namespace {

/// Whether key `j` of batch `b` is live (below kv_lengths[b]; every key
/// without lengths) and its page id `id` lies in [0, numPages).
Value readable(OpBuilder &b, Location loc, Value kvLengths, Value batch,
               Value j, Value id, Value numPages) {
  using P = arith::CmpIPredicate;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value ok = arith::AndIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, P::sge, id, zero),
      arith::CmpIOp::create(b, loc, P::slt, id, numPages));
  if (!kvLengths)
    return ok;
  Value len = tensor::ExtractOp::create(b, loc, kvLengths, ValueRange{batch});
  len = arith::IndexCastOp::create(b, loc, b.getIndexType(), len);
  return arith::AndIOp::create(
      b, loc, ok, arith::CmpIOp::create(b, loc, P::slt, j, len));
}

/// The contiguous [B, Hkv, max_pages * page_size, D] of the page pool
/// `pool` [num_pages, page_size, Hkv, D] read through `table`: one
/// linalg.generic whose body reads the table and the pool (zeros where
/// `readable` is false).
Value gatherPool(OpBuilder &b, Location loc, Value pool, Value table,
                 Value kvLengths, RankedTensorType logical) {
  Value numPages = tensor::DimOp::create(b, loc, pool, 0);
  Value pageSize = tensor::DimOp::create(b, loc, pool, 1);
  Value maxPages = tensor::DimOp::create(b, loc, table, 1);
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < 4; ++i) {
    if (!logical.isDynamicDim(i))
      continue;
    if (i == 0)
      dyn.push_back(tensor::DimOp::create(b, loc, table, 0));
    else if (i == 2)
      dyn.push_back(arith::MulIOp::create(b, loc, maxPages, pageSize));
    else
      dyn.push_back(tensor::DimOp::create(b, loc, pool, i == 1 ? 2 : 3));
  }
  Value init = tensor::EmptyOp::create(b, loc, logical, dyn);
  Type elt = logical.getElementType();
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(4)};
  SmallVector<utils::IteratorType> iters(4, utils::IteratorType::parallel);
  auto gather = linalg::GenericOp::create(
      b, loc, TypeRange{logical}, ValueRange{}, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location nl, ValueRange) {
        Value bi = linalg::IndexOp::create(nb, nl, 0);
        Value h = linalg::IndexOp::create(nb, nl, 1);
        Value j = linalg::IndexOp::create(nb, nl, 2);
        Value d = linalg::IndexOp::create(nb, nl, 3);
        Value page = arith::DivUIOp::create(nb, nl, j, pageSize);
        Value row = arith::RemUIOp::create(nb, nl, j, pageSize);
        Value id =
            tensor::ExtractOp::create(nb, nl, table, ValueRange{bi, page});
        id = arith::IndexCastOp::create(nb, nl, nb.getIndexType(), id);
        Value ok = readable(nb, nl, kvLengths, bi, j, id, numPages);
        auto ifOp = scf::IfOp::create(
            nb, nl, ok,
            [&](OpBuilder &tb, Location tl) {
              Value x = tensor::ExtractOp::create(tb, tl, pool,
                                                  ValueRange{id, row, h, d});
              scf::YieldOp::create(tb, tl, x);
            },
            [&](OpBuilder &eb, Location el) {
              Value z = arith::ConstantOp::create(eb, el,
                                                  eb.getZeroAttr(elt));
              scf::YieldOp::create(eb, el, z);
            });
        linalg::YieldOp::create(nb, nl, ifOp.getResult(0));
      });
  gather->setAttr("tx.kv_page_gather", b.getUnitAttr());
  return gather.getResult(0);
}

struct TxGatherKvPagesPass
    : public tx::impl::TxGatherKvPagesBase<TxGatherKvPagesPass> {
  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation().walk([&](AttentionOp op) {
      if (op.isPaged())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (AttentionOp op : ops)
      gatherKvPages(rewriter, op);
  }
};

} // namespace

AttentionOp mlir::tx::gatherKvPages(RewriterBase &rewriter, AttentionOp op) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Value table = op.getPageTable(), lens = op.getKvLengths();
  Value k = gatherPool(rewriter, loc, op.getKey(), table, lens,
                       op.getLogicalKvType(op.getKey().getType()));
  Value v = gatherPool(rewriter, loc, op.getValue(), table, lens,
                       op.getLogicalKvType(op.getValue().getType()));
  Value lse = op.getLse();
  auto unpaged = AttentionOp::create(
      rewriter, loc, op.getResult().getType(), lse ? lse.getType() : Type(),
      op.getQuery(), k, v, op.getMask(),
      lens, op.getQLengths(), /*page_table=*/Value(), op.getScoreCaptures(),
      op.getMaskCaptures(), op.getScaleAttr(), op.getCausalAttr(),
      op.getSoftcapAttr(), op.getWindowAttr());
  // A score or mask function sees the logical key indices: unchanged.
  unpaged.getScoreMod().takeBody(op.getScoreMod());
  unpaged.getMaskMod().takeBody(op.getMaskMod());
  // Discardable attributes (a strategy a user wrote) carry over.
  for (NamedAttribute a : op->getDiscardableAttrs())
    unpaged->setAttr(a.getName(), a.getValue());
  rewriter.replaceOp(op, unpaged->getResults());
  return unpaged;
}

FailureOr<KvPageGather> mlir::tx::matchKvPageGather(Value logical) {
  auto gather = logical.getDefiningOp<linalg::GenericOp>();
  if (!gather || !gather->hasAttr("tx.kv_page_gather") ||
      gather.getNumDpsInputs() != 0 || gather->getNumResults() != 1)
    return failure();
  KvPageGather g;
  bool odd = false;
  gather.getRegion().walk([&](tensor::ExtractOp x) {
    Value t = x.getTensor();
    if (gather.getRegion().isAncestor(t.getParentRegion()))
      return; // not read from above
    int64_t rank = x.getTensor().getType().getRank();
    Value &slot = rank == 4   ? g.pool
                  : rank == 2 ? g.pageTable
                              : g.kvLengths;
    odd |= rank == 3 || rank > 4 || (slot && slot != t);
    slot = t;
  });
  if (odd || !g.pool || !g.pageTable ||
      !cast<RankedTensorType>(g.pageTable.getType())
           .getElementType()
           .isInteger(32))
    return failure();
  return g;
}
