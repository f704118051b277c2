//===- Checks.cpp - tx-check-dims, tx-check-lowered -----------------------===//
//
// Checks the pipelines run so that bad input ends in one located diagnostic
// and a non-zero exit (issue #14, found by test/fuzz/txfuzz.py):
//  - tx-check-dims: tensor.dim / memref.dim whose index is provably outside
//    [0, rank) (a constant, or an integer range from upstream's
//    IntegerRangeAnalysis); such an index crashed LLVM 22's gpu dialect
//    canonicalization inside tx-gpu-pipeline.
//  - tx-check-lowered: the pipelines' output holds nothing but the LLVM
//    dialect (and gpu.binary / gpu.launch_func); upstream conversions that
//    cannot convert an op print an error and leave it, exit status 0.
//
//===----------------------------------------------------------------------===//
#include "Transformer/Passes.h"
#include "Transformer/TxDialect.h"
#include "Transformer/RunTimeChecks.h"

#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "Transformer/TxOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/SetVector.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ShapedOpInterfaces.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXCHECKDIMS
#define GEN_PASS_DEF_TXCHECKLOWERED
#define GEN_PASS_DEF_TXCHECKATTENTIONLENGTHS
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;

namespace {
struct TxCheckDimsPass : public tx::impl::TxCheckDimsBase<TxCheckDimsPass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    // Ranges are only needed when some index is not a plain constant.
    std::unique_ptr<DataFlowSolver> solver;
    bool failedAny = false;
    root->walk([&](ShapedDimOpInterface dimOp) {
      auto type = dyn_cast<ShapedType>(dimOp.getShapedValue().getType());
      if (!type || !type.hasRank())
        return;
      int64_t rank = type.getRank();
      OpFoldResult dim = dimOp.getDimension();
      Value index = dyn_cast<Value>(dim);
      int64_t lo, hi;
      APInt constant;
      if (auto attr = dyn_cast_if_present<IntegerAttr>(dyn_cast<Attribute>(dim))) {
        lo = hi = attr.getValue().getSExtValue();
      } else if (!index) {
        return;
      } else if (matchPattern(index, m_ConstantInt(&constant))) {
        if (constant.getBitWidth() > 64)
          return;
        lo = hi = constant.getSExtValue();
      } else {
        if (!solver) {
          solver = std::make_unique<DataFlowSolver>();
          dataflow::loadBaselineAnalyses(*solver);
          solver->load<dataflow::IntegerRangeAnalysis>();
          if (failed(solver->initializeAndRun(root)))
            return;
        }
        auto *lattice =
            solver->lookupState<dataflow::IntegerValueRangeLattice>(index);
        if (!lattice || lattice->getValue().isUninitialized())
          return;
        const ConstantIntRanges &range = lattice->getValue().getValue();
        if (range.smin().getBitWidth() > 64)
          return;
        lo = range.smin().getSExtValue();
        hi = range.smax().getSExtValue();
      }
      if (hi >= 0 && lo < rank)
        return;
      InFlightDiagnostic diag = dimOp->emitOpError();
      if (lo == hi)
        diag << "index " << lo;
      else
        diag << "index (always in [" << lo << ", " << hi << "])";
      diag << " is out of range for a value of rank " << rank;
      if (rank > 0)
        diag << "; expected 0.." << rank - 1;
      failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }
};

/// `for i in [0, n)` around `body(i)`.
void forEach(OpBuilder &b, Location loc, Value n,
             llvm::function_ref<void(OpBuilder &, Location, Value)> body) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  scf::ForOp::create(b, loc, zero, n, one, ValueRange{},
                     [&](OpBuilder &nb, Location nl, Value i, ValueRange) {
                       body(nb, nl, i);
                       scf::YieldOp::create(nb, nl);
                     });
}

/// `lens[i]` as an index.
Value lengthAt(OpBuilder &b, Location loc, Value lens, Value i) {
  Value l = tensor::ExtractOp::create(b, loc, lens, ValueRange{i});
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), l);
}

/// Every entry of `lens` in [0, bound] (`boundName` names the bound).
void checkLengths(OpBuilder &b, Location loc, Value lens, Value bound,
                  StringRef what, StringRef boundName) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  std::string msg = ("tx.attention: " + what).str();
  forEach(b, loc, tensor::DimOp::create(b, loc, lens, 0),
          [&](OpBuilder &nb, Location nl, Value i) {
            Value l = lengthAt(nb, nl, lens, i);
            tx::emitFormattedCheck(nb, nl, arith::CmpIPredicate::sge, l, zero,
                                   msg + ": %lld < %lld");
            tx::emitFormattedCheck(nb, nl, arith::CmpIPredicate::sle, l,
                                   bound,
                                   msg + ": %lld > " + boundName.str() +
                                       " = %lld");
          });
}

/// A dynamic page size a power of two from 1 to 256, and the page id of
/// every live key of every batch in [0, num_pages).
void checkPageTable(OpBuilder &b, Location loc, tx::AttentionOp op) {
  using P = arith::CmpIPredicate;
  Value table = op.getPageTable(), lens = op.getKvLengths();
  Value numPages = tensor::DimOp::create(b, loc, op.getKey(), 0);
  Value ps = tensor::DimOp::create(b, loc, op.getKey(), 1);
  Value maxPages = tensor::DimOp::create(b, loc, table, 1);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  if (op.getKey().getType().isDynamicDim(1)) {
    const char *msg = "tx.attention: the page size must be a power of two "
                      "from 1 to 256";
    tx::emitFormattedCheck(b, loc, P::sge, ps, one,
                           std::string(msg) + ": %lld < %lld");
    tx::emitFormattedCheck(
        b, loc, P::sle, ps, arith::ConstantIndexOp::create(b, loc, 256),
        std::string(msg) + ": %lld > %lld");
    Value low = arith::AndIOp::create(
        b, loc, ps, arith::SubIOp::create(b, loc, ps, one));
    tx::emitFormattedCheck(b, loc, P::eq, low, zero,
                           std::string(msg) +
                               ": page_size & (page_size - 1) = %lld, not "
                               "%lld");
  }
  std::string msg = "tx.attention: page_table has an entry outside "
                    "[0, num_pages) for a live key";
  forEach(b, loc, tensor::DimOp::create(b, loc, table, 0),
          [&](OpBuilder &nb, Location nl, Value bi) {
            Value live = maxPages; // pages [0, ceil(len / ps)), clamped
            if (lens) {
              Value l = arith::MaxSIOp::create(nb, nl,
                                               lengthAt(nb, nl, lens, bi),
                                               zero);
              l = arith::CeilDivUIOp::create(nb, nl, l, ps);
              live = arith::MinUIOp::create(nb, nl, l, maxPages);
            }
            forEach(nb, nl, live, [&](OpBuilder &ib, Location il, Value p) {
              Value id = tensor::ExtractOp::create(ib, il, table,
                                                   ValueRange{bi, p});
              id = arith::IndexCastOp::create(ib, il, ib.getIndexType(), id);
              tx::emitFormattedCheck(ib, il, P::sge, id, zero,
                                     msg + ": %lld < %lld");
              tx::emitFormattedCheck(ib, il, P::slt, id, numPages,
                                     msg + ": %lld >= num_pages = %lld");
            });
          });
}

struct TxCheckAttentionLengthsPass
    : public tx::impl::TxCheckAttentionLengthsBase<
          TxCheckAttentionLengthsPass> {
  void runOnOperation() override {
    getOperation().walk([](tx::AttentionOp op) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      if (Value lens = op.getKvLengths()) {
        Value sk;
        if (op.isPaged()) // Sk = max_pages * page_size
          sk = arith::MulIOp::create(
              b, loc, tensor::DimOp::create(b, loc, op.getPageTable(), 1),
              tensor::DimOp::create(b, loc, op.getKey(), 1));
        else
          sk = tensor::DimOp::create(b, loc, op.getKey(), 2);
        checkLengths(b, loc, lens, sk, "kv_lengths has an entry outside [0, Sk]",
                     "Sk");
      }
      if (Value lens = op.getQLengths())
        checkLengths(b, loc, lens, tensor::DimOp::create(b, loc, op.getQuery(), 2),
                     "q_lengths has an entry outside [0, Sq]", "Sq");
      if (op.isPaged())
        checkPageTable(b, loc, op);
    });
  }
};

struct TxCheckLoweredPass
    : public tx::impl::TxCheckLoweredBase<TxCheckLoweredPass> {
  using Base::Base;
  void runOnOperation() override {
    Operation *root = getOperation();
    // Pre-order, so that an op is named before the ops nested in it.
    Operation *first = nullptr;
    llvm::SetVector<StringRef> kinds;
    root->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == root || isa<LLVM::LLVMDialect>(op->getDialect()))
        return WalkResult::advance();
      if (gpu && isa<gpu::BinaryOp, gpu::LaunchFuncOp>(op))
        return WalkResult::skip();
      kinds.insert(op->getName().getStringRef());
      // Name a real op rather than a leftover cast when there is one.
      if (!first || (isa<UnrealizedConversionCastOp>(first) &&
                     !isa<UnrealizedConversionCastOp>(op)))
        first = op;
      return WalkResult::advance();
    });
    if (!first)
      return;
    // Without the op attached (no dump of a whole gpu.launch region).
    InFlightDiagnostic diag = mlir::emitError(first->getLoc());
    diag << pipeline << ": '" << first->getName()
         << "' was not lowered (the output must be the LLVM dialect"
         << (gpu ? ", gpu.binary and gpu.launch_func" : "")
         << " only): an earlier error, or an op this pipeline does not "
            "compile, left it";
    kinds.remove(first->getName().getStringRef());
    if (!kinds.empty()) {
      diag << "; also left: ";
      llvm::interleaveComma(kinds, diag);
    }
    signalPassFailure();
  }
};
} // namespace
