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

struct TxCheckAttentionLengthsPass
    : public tx::impl::TxCheckAttentionLengthsBase<
          TxCheckAttentionLengthsPass> {
  void runOnOperation() override {
    getOperation().walk([](tx::AttentionOp op) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      for (auto [lens, dim, what] :
           {std::tuple<Value, int64_t, const char *>{
                op.getKvLengths(), 2, "kv_lengths has an entry outside [0, Sk]"},
            {op.getQLengths(), 2, "q_lengths has an entry outside [0, Sq]"}}) {
        if (!lens)
          continue;
        Value bound = tensor::DimOp::create(
            b, loc, lens == op.getKvLengths() ? op.getKey() : op.getQuery(),
            dim);
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        Value one = arith::ConstantIndexOp::create(b, loc, 1);
        Value n = tensor::DimOp::create(b, loc, lens, 0);
        std::string msg = std::string("tx.attention: ") + what;
        std::string bound_name = lens == op.getKvLengths() ? "Sk" : "Sq";
        scf::ForOp::create(
            b, loc, zero, n, one, ValueRange{},
            [&](OpBuilder &nb, Location nl, Value i, ValueRange) {
              Value l = tensor::ExtractOp::create(nb, nl, lens, ValueRange{i});
              l = arith::IndexCastOp::create(nb, nl, nb.getIndexType(), l);
              tx::emitFormattedCheck(nb, nl, arith::CmpIPredicate::sge, l,
                                     zero, msg + ": %lld < %lld");
              tx::emitFormattedCheck(nb, nl, arith::CmpIPredicate::sle, l,
                                     bound,
                                     msg + ": %lld > " + bound_name + " = %lld");
              scf::YieldOp::create(nb, nl);
            });
      }
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
