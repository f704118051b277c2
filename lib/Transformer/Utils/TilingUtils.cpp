//===- TilingUtils.cpp - helpers of tx's TilingInterface implementations ---===//
#include "Transformer/TilingUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

bool mlir::tx::isSizeOf(OpFoldResult size, Value tensor, int64_t dim) {
  int64_t st = cast<RankedTensorType>(tensor.getType()).getDimSize(dim);
  if (std::optional<int64_t> c = getConstantIntValue(size))
    return !ShapedType::isDynamic(st) && *c == st;
  auto dimOp = dyn_cast_or_null<tensor::DimOp>(
      dyn_cast<Value>(size) ? cast<Value>(size).getDefiningOp() : nullptr);
  if (!dimOp || dimOp.getSource() != tensor)
    return false;
  std::optional<int64_t> idx = dimOp.getConstantIndex();
  return idx && *idx == dim;
}

SmallVector<OpFoldResult> mlir::tx::zeroDimSafe(OpBuilder &b, Location loc,
                                                ArrayRef<OpFoldResult> offsets,
                                                ArrayRef<int64_t> shape) {
  SmallVector<OpFoldResult> r(offsets);
  for (auto [i, off] : llvm::enumerate(r))
    if (shape[i] == 0 && isa<Attribute>(off))
      off = getValueOrCreateConstantIndexOp(b, loc, off);
  return r;
}

Value mlir::tx::filledF32(OpBuilder &b, Location loc,
                          ArrayRef<OpFoldResult> sizes, double value) {
  Type f32 = b.getF32Type();
  Value empty = tensor::EmptyOp::create(b, loc, sizes, f32);
  Value cst = arith::ConstantOp::create(b, loc, b.getFloatAttr(f32, value));
  return linalg::FillOp::create(b, loc, cst, empty).getResult(0);
}
