//===- ResultsInPlace.cpp - results computed in the caller's buffers ------===//
//
// tx-results-in-place: after `buffer-results-to-out-params`, a public
// function whose result is computed into a buffer it allocates
// (`memref.alloc`, static or dynamic sizes) and then copied into its
// out-parameter computes it in the out-parameter itself. The allocation, the
// copy and any free of the buffer disappear; in their place, one run-time
// check per dimension that the out-parameter has the sizes the computation
// produces (a `cf.assert` that tx-host-checks-to-errors turns into
// txRuntimeFail + early return).
//
// Upstream's `hoist-static-allocs` does the same for static shapes without a
// check (the type fixes the sizes); its `hoist-dynamic-allocs` would trust
// the caller's descriptor, so a buffer too small would be written out of
// bounds. This pass is the checked version for every shape.
//
//===----------------------------------------------------------------------===//
#include "Host/HostABI.h"
#include "Transformer/Passes.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXRESULTSINPLACE
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

namespace {

/// True when `alloc` can become `copy`'s target: every use of the buffer (or
/// of a view or cast of it) comes before `copy` in its block, except reads by
/// later copies (`memref.copy %alloc, %other`) and frees, which are returned
/// in `deallocs`.
bool onlyUsedBefore(memref::AllocOp alloc, memref::CopyOp copy,
                    SmallVectorImpl<Operation *> &deallocs) {
  Block *block = copy->getBlock();
  SmallVector<Value> worklist{alloc.getResult()};
  llvm::SmallPtrSet<Value, 8> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (user == copy.getOperation())
        continue;
      if (isa<memref::DeallocOp>(user)) {
        deallocs.push_back(user);
        continue;
      }
      Operation *at = block->findAncestorOpInBlock(*user);
      if (!at)
        return false;
      if (at->isBeforeInBlock(copy)) {
        // A view or cast made before the copy may be used after it.
        for (Value r : user->getResults())
          if (isa<BaseMemRefType>(r.getType()))
            worklist.push_back(r);
        continue;
      }
      auto later = dyn_cast<memref::CopyOp>(user);
      if (!later || later.getSource() != v)
        return false;
    }
  }
  return true;
}

struct TxResultsInPlacePass
    : public tx::impl::TxResultsInPlaceBase<TxResultsInPlacePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // The out-parameter marks have done their job whatever happens here.
    llvm::scope_exit dropMarks([&] {
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        func.removeArgAttr(i, kOutParamAttr);
    });
    if (func.isExternal() || !func.isPublic())
      return;

    // Result numbers: the out-parameters carry `bufferize.result` when
    // buffer-results-to-out-params ran with add-result-attr; otherwise any
    // argument a copy writes is taken as one and named by position.
    Block &entry = func.front();
    SmallVector<int64_t> resultOf(func.getNumArguments(), -1);
    bool marked = false;
    for (unsigned i = 0, e = func.getNumArguments(), r = 0; i < e; ++i)
      if (func.getArgAttr(i, kOutParamAttr)) {
        resultOf[i] = r++;
        marked = true;
      }

    SmallVector<memref::CopyOp> copies;
    for (Block &block : func.getBody())
      for (Operation &op : block)
        if (auto copy = dyn_cast<memref::CopyOp>(op))
          copies.push_back(copy);

    for (memref::CopyOp copy : copies) {
      auto out = dyn_cast<BlockArgument>(copy.getTarget());
      if (!out || out.getOwner() != &entry || !out.hasOneUse())
        continue;
      if (marked && resultOf[out.getArgNumber()] < 0)
        continue;
      Value src = copy.getSource();
      while (auto cast = src.getDefiningOp<memref::CastOp>())
        src = cast.getSource();
      auto alloc = src.getDefiningOp<memref::AllocOp>();
      if (!alloc || alloc->getBlock() != copy->getBlock())
        continue;
      MemRefType allocTy = alloc.getType();
      auto outTy = dyn_cast<MemRefType>(out.getType());
      if (!outTy || !allocTy.getLayout().isIdentity() ||
          !outTy.getLayout().isIdentity() ||
          allocTy.getMemorySpace() != outTy.getMemorySpace() ||
          !memref::CastOp::areCastCompatible(outTy, allocTy))
        continue;
      SmallVector<Operation *> deallocs;
      if (!onlyUsedBefore(alloc, copy, deallocs))
        continue;

      // The check goes as early as it can: after the definitions of the
      // computed sizes and after the op's own shape checks (reported first:
      // with inputs that break an op's rules the computed sizes mean
      // nothing), before any temporary is allocated or kernel launched.
      Block *block = alloc->getBlock();
      Operation *after = nullptr;
      auto later = [&](Operation *op) {
        if (op && (!after || after->isBeforeInBlock(op)))
          after = op;
      };
      for (Value size : alloc.getDynamicSizes())
        if (Operation *def = size.getDefiningOp())
          later(block->findAncestorOpInBlock(*def));
      for (Operation &op : *block) {
        if (&op == alloc.getOperation())
          break;
        if (isa<cf::AssertOp>(op))
          later(&op);
      }
      OpBuilder b(&getContext());
      if (after)
        b.setInsertionPointAfter(after);
      else
        b.setInsertionPointToStart(block);

      Location loc = copy.getLoc();
      std::string who =
          resultOf[out.getArgNumber()] >= 0
              ? llvm::formatv("result #{0}", resultOf[out.getArgNumber()])
                    .str()
              : llvm::formatv("out-parameter (argument #{0})",
                              out.getArgNumber())
                    .str();
      int64_t dynIdx = 0;
      for (int64_t d = 0, rank = allocTy.getRank(); d < rank; ++d) {
        bool allocDyn = allocTy.isDynamicDim(d);
        Value expected = allocDyn ? alloc.getDynamicSizes()[dynIdx++] : Value();
        if (!allocDyn && !outTy.isDynamicDim(d))
          continue; // both static, equal (cast-compatible types)
        if (!expected)
          expected = arith::ConstantIndexOp::create(b, loc,
                                                    allocTy.getDimSize(d));
        Value actual =
            outTy.isDynamicDim(d)
                ? memref::DimOp::create(b, loc, out, d).getResult()
                : arith::ConstantIndexOp::create(b, loc, outTy.getDimSize(d))
                      .getResult();
        // (The function's name is the prefix every failure message gets.)
        std::string msg = llvm::formatv(
            "{0} has size %lld in dim {1}, but the computation produces %lld",
            who, d);
        emitFormattedCheck(b, loc, arith::CmpIPredicate::eq, actual, expected,
                           msg);
      }

      // The out-parameter takes the buffer's place.
      for (Operation *d : deallocs)
        d->erase();
      copy->erase();
      b.setInsertionPoint(alloc);
      Value replacement = out;
      if (outTy != allocTy)
        replacement = memref::CastOp::create(b, alloc.getLoc(), allocTy, out);
      alloc.getResult().replaceAllUsesWith(replacement);
      alloc->erase();
    }
  }
};

} // namespace
