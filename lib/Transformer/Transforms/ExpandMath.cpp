//===- ExpandMath.cpp - tx-expand-math ------------------------------------===//
//
// A score or mask function of tx.attention may use any side-effect-free
// arith or math op (issue #42); every pipeline must compile it. LLVM 22
// lowers neither math.clampf (anywhere) nor math.isinf (on the CPU), so
// this pass rewrites both exactly:
//  - math.isinf %x      -> arith.cmpf oeq, math.absf %x, +inf
//  - math.clampf x to [lo, hi] -> maximumf(minimumf(x, hi), lo): a clamp,
//    the semantics upstream fixed after LLVM 22 (llvm-project PR 175012,
//    "Fix the semantics of math.clampf", as CUDA and SPIR-V). LLVM 22's
//    text and its math-expand-ops say maxf(minf(x, lo), hi), which is hi
//    for every x when lo <= hi.
// Only those ops are touched, so kernels without them are unchanged.
//
//===----------------------------------------------------------------------===//
#include "Transformer/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXEXPANDMATH
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;

namespace {
/// |x| == +inf, ordered (false for NaN, as math.isinf).
void expandIsInf(math::IsInfOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type type = op.getOperand().getType();
  auto elem = cast<FloatType>(getElementTypeOrSelf(type));
  TypedAttr inf = b.getFloatAttr(
      elem, APFloat::getInf(elem.getFloatSemantics()).convertToDouble());
  if (auto shaped = dyn_cast<ShapedType>(type))
    inf = SplatElementsAttr::get(shaped, inf);
  Value abs = math::AbsFOp::create(b, loc, op.getOperand());
  Value infinity = arith::ConstantOp::create(b, loc, inf);
  Value isInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, abs,
                                      infinity);
  op.replaceAllUsesWith(isInf);
  op.erase();
}

/// A clamp of x into [lo, hi] (NaN in x, lo or hi gives NaN).
void expandClampF(math::ClampFOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value below = arith::MinimumFOp::create(b, loc, op.getValue(), op.getMax());
  Value r = arith::MaximumFOp::create(b, loc, below, op.getMin());
  op.replaceAllUsesWith(r);
  op.erase();
}

struct TxExpandMathPass
    : public tx::impl::TxExpandMathBase<TxExpandMathPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::IsInfOp, math::ClampFOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      if (auto isInf = dyn_cast<math::IsInfOp>(op))
        expandIsInf(isInf);
      else
        expandClampF(cast<math::ClampFOp>(op));
    }
  }
};
} // namespace
