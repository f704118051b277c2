//===- ModRegions.cpp - score and mask functions inside a kernel ----------===//
#include "GPU/Kernels/Common/ModRegions.h"
#include "IR/AttentionMods.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tx;

SmallVector<Value> kernel::modCaptureBuffers(OpBuilder &b, Location loc,
                                             ValueRange captures) {
  SmallVector<Value> out;
  for (Value c : captures) {
    auto ty = dyn_cast<RankedTensorType>(c.getType());
    if (!ty) {
      out.push_back(c);
      continue;
    }
    out.push_back(bufferization::ToBufferOp::create(
        b, loc, MemRefType::get(ty.getShape(), ty.getElementType()), c,
        /*read_only=*/true));
  }
  return out;
}

/// `op` as a read of a buffer when it is a tensor.extract or tensor.dim of
/// one (a captured tensor replaced by its buffer): the memref.load or
/// memref.dim in its place (`op` erased), else null.
static Value readOfBuffer(OpBuilder &b, Operation *op) {
  auto e = dyn_cast<tensor::ExtractOp>(op);
  auto d = dyn_cast<tensor::DimOp>(op);
  Value src = e ? e.getTensor() : d ? d.getSource() : Value();
  if (!src || !isa<MemRefType>(src.getType()))
    return Value();
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(op);
  Value r = e ? memref::LoadOp::create(b, op->getLoc(), src, e.getIndices())
                    .getResult()
              : memref::DimOp::create(b, op->getLoc(), src, d.getIndex())
                    .getResult();
  op->getResult(0).replaceAllUsesWith(r);
  op->erase();
  return r;
}

/// `in` through the PTX instruction `text` with one f32 result.
static Value ptxF32(OpBuilder &b, Location loc, ValueRange in, StringRef text,
                    StringRef constraints) {
  return LLVM::InlineAsmOp::create(
             b, loc, b.getF32Type(), in, text, constraints,
             /*has_side_effects=*/false, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None,
             LLVM::AsmDialectAttr::get(b.getContext(),
                                       LLVM::AsmDialect::AD_ATT),
             ArrayAttr())
      .getRes();
}

/// `op` in its fast form when it is an f32 math.tanh or arith.divf
/// (inlineModInKernel's `fastMath`): the replacement (`op` erased), else
/// null.
static Value relaxFloatMath(OpBuilder &b, Operation *op) {
  Type f32 = b.getF32Type();
  if (op->getNumResults() != 1 || op->getResult(0).getType() != f32)
    return Value();
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(op);
  Location loc = op->getLoc();
  Value r;
  if (auto t = dyn_cast<math::TanhOp>(op)) {
    r = ptxF32(b, loc, t.getOperand(), "tanh.approx.f32 $0, $1;", "=f,f");
  } else if (auto d = dyn_cast<arith::DivFOp>(op)) {
    FloatAttr c;
    double inv = 0;
    if (matchPattern(d.getRhs(), m_Constant(&c)))
      inv = 1.0 / c.getValueAsDouble();
    if (std::isfinite(inv) && inv != 0)
      r = arith::MulFOp::create(
          b, loc, d.getLhs(),
          arith::ConstantOp::create(b, loc, FloatAttr::get(f32, inv)));
    else
      r = ptxF32(b, loc, ValueRange{d.getLhs(), d.getRhs()},
                 "div.full.f32 $0, $1, $2;", "=f,f,f");
  }
  if (!r)
    return Value();
  op->getResult(0).replaceAllUsesWith(r);
  op->erase();
  return r;
}

namespace {
/// The ops a builder inserts (clone also reports the ops nested in a
/// cloned op).
struct Inserted : OpBuilder::Listener {
  SmallVector<Operation *> ops;
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    ops.push_back(op);
  }
};
} // namespace

Value kernel::inlineModInKernel(OpBuilder &b, Region &mod, ValueRange buffers,
                                Value score, ValueRange bhij, bool fastMath) {
  // The region's body with the captured tensors bound to their buffers
  // (the IR's inlining, AttentionMods.h), then its tensor reads turned into
  // buffer reads: nested ones first, then the top-level ops.
  Inserted inserted;
  OpBuilder::Listener *prev = b.getListener();
  b.setListener(&inserted);
  Value yielded = inlineAttentionMod(b, mod, buffers, score, bhij);
  b.setListener(prev);
  for (Operation *op : inserted.ops) {
    if (op->getBlock() != b.getInsertionBlock())
      continue; // nested: rewritten with its top-level op below
    SmallVector<Operation *> nested;
    op->walk([&](Operation *inner) {
      if (inner != op)
        nested.push_back(inner);
    });
    for (Operation *inner : nested)
      if (!readOfBuffer(b, inner) && fastMath)
        relaxFloatMath(b, inner);
    Value old = op->getNumResults() == 1 ? op->getResult(0) : Value();
    Value r = readOfBuffer(b, op);
    if (!r && fastMath)
      r = relaxFloatMath(b, op);
    if (r && old == yielded)
      yielded = r;
  }
  return yielded;
}

kernel::ScoreMods kernel::ScoreMods::build(OpBuilder &b, Location loc,
                                           Region *score,
                                           ValueRange scoreCaptures,
                                           Region *mask,
                                           ValueRange maskCaptures,
                                           bool fastMath) {
  ScoreMods m;
  m.score = score;
  m.mask = mask;
  m.fastMath = fastMath;
  if (score)
    m.scoreBuffers = modCaptureBuffers(b, loc, scoreCaptures);
  if (mask)
    m.maskBuffers = modCaptureBuffers(b, loc, maskCaptures);
  return m;
}

Value kernel::ScoreMods::applyScore(OpBuilder &b, Value x,
                                    ValueRange bhij) const {
  if (!score)
    return x;
  return inlineModInKernel(b, *score, scoreBuffers, x, bhij, fastMath);
}

Value kernel::ScoreMods::applyMask(OpBuilder &b, Location loc, Value x,
                                   Value negInf, ValueRange bhij) const {
  if (!mask)
    return x;
  Value visible =
      inlineModInKernel(b, *mask, maskBuffers, Value(), bhij, fastMath);
  return arith::SelectOp::create(b, loc, visible, x, negInf);
}
