//===- TxDialect.cpp - the tx dialect -------------------------------------===//
#include "Transformer/TxDialect.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tx;

#include "Transformer/TxOpsDialect.cpp.inc"

void TxDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Transformer/TxOps.cpp.inc"
      >();
  registerAttributes();
}

namespace {
/// `memref.dim %m, %c` with a negative constant `%c` is undefined behaviour,
/// and LLVM 22's gpu dialect canonicalization (`SimplifyDimOfAllocOp`, a
/// pattern on memref.dim registered by gpu.alloc) checks only `index < rank`
/// before indexing the shape with it: a segmentation fault whenever the gpu
/// dialect is loaded. `tx-check-dims` rejects such an index when it is
/// visible up front; this pattern, tried before upstream's (higher benefit),
/// covers indices that become negative constants only by folding, so that
/// canonicalize never crashes while tx is loaded. Poison is a valid
/// refinement of undefined behaviour.
struct NegativeMemRefDimToPoison : public OpRewritePattern<memref::DimOp> {
  NegativeMemRefDimToPoison(MLIRContext *ctx)
      : OpRewritePattern<memref::DimOp>(ctx, /*benefit=*/100) {}
  LogicalResult matchAndRewrite(memref::DimOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<int64_t> index = op.getConstantIndex();
    if (!index || *index >= 0)
      return failure();
    rewriter.replaceOpWithNewOp<ub::PoisonOp>(op, op.getType());
    return success();
  }
};
} // namespace

void TxDialect::getCanonicalizationPatterns(RewritePatternSet &results) const {
  results.add<NegativeMemRefDimToPoison>(getContext());
}
