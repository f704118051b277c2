//===- DecomposeSoftmax.cpp - linalg.softmax -> linalg.generic -------------===//
#include "Transformer/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXDECOMPOSESOFTMAX
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;

namespace {
struct TxDecomposeSoftmaxPass
    : public tx::impl::TxDecomposeSoftmaxBase<TxDecomposeSoftmaxPass> {
  void runOnOperation() override {
    SmallVector<linalg::SoftmaxOp> ops;
    getOperation()->walk([&](linalg::SoftmaxOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::SoftmaxOp op : ops) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> results =
          cast<linalg::AggregatedOpInterface>(op.getOperation())
              .decomposeOperation(rewriter);
      if (failed(results)) {
        op.emitError("tx-decompose-softmax: upstream decomposition of "
                     "linalg.softmax failed");
        return signalPassFailure();
      }
      rewriter.replaceOp(op, *results);
    }
  }
};
} // namespace
