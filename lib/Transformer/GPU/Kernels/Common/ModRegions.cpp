//===- ModRegions.cpp - score and mask functions inside a kernel ----------===//
#include "GPU/Kernels/Common/ModRegions.h"
#include "IR/AttentionMods.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

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
                                Value score, ValueRange bhij) {
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
      readOfBuffer(b, inner);
    Value old = op->getNumResults() == 1 ? op->getResult(0) : Value();
    if (Value r = readOfBuffer(b, op); r && old == yielded)
      yielded = r;
  }
  return yielded;
}

kernel::ScoreMods kernel::ScoreMods::build(OpBuilder &b, Location loc,
                                           Region *score,
                                           ValueRange scoreCaptures,
                                           Region *mask,
                                           ValueRange maskCaptures) {
  ScoreMods m;
  m.score = score;
  m.mask = mask;
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
  return inlineModInKernel(b, *score, scoreBuffers, x, bhij);
}

Value kernel::ScoreMods::applyMask(OpBuilder &b, Location loc, Value x,
                                   Value negInf, ValueRange bhij) const {
  if (!mask)
    return x;
  Value visible = inlineModInKernel(b, *mask, maskBuffers, Value(), bhij);
  return arith::SelectOp::create(b, loc, visible, x, negInf);
}
