//===- MmaFragments.cpp - mma.sync m16n8k16 building blocks ---------------===//
//
// See MmaFragments.h.
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Common/MmaFragments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tx;

VectorType mma::fragmentType(int64_t rows, int64_t cols, Type t) {
  return VectorType::get({rows, cols}, t);
}

Value mma::ldmatrix(OpBuilder &b, Location loc, Value view, ValueRange idx,
                    bool trans, int64_t tiles, Type elt) {
  VectorType ty = fragmentType(tiles, 2, elt);
  return nvgpu::LdMatrixOp::create(b, loc, ty, view, idx,
                                   b.getBoolAttr(trans),
                                   b.getI32IntegerAttr(tiles));
}

std::pair<Value, Value> mma::splitX4(OpBuilder &b, Location loc, Value x4,
                                     Type elt) {
  Value halves[2];
  for (int64_t hf = 0; hf < 2; ++hf) {
    VectorType ty = fragmentType(2, 2, elt);
    Value v = arith::ConstantOp::create(
        b, loc, ty, DenseElementsAttr::get(ty, b.getZeroAttr(elt)));
    for (int64_t r = 0; r < 2; ++r)
      v = vector::InsertOp::create(
          b, loc,
          vector::ExtractOp::create(b, loc, x4, ArrayRef<int64_t>{2 * hf + r}),
          v, ArrayRef<int64_t>{r});
    halves[hf] = v;
  }
  return {halves[0], halves[1]};
}

Value mma::mmaSync(OpBuilder &b, Location loc, Value a, Value bb, Value c,
                   Type elt) {
  if (!elt.isBF16())
    return nvgpu::MmaSyncOp::create(b, loc, a, bb, c,
                                    ArrayRef<int64_t>{16, 8, 16});
  // bf16: nvgpu.mma.sync (LLVM 22) cannot deduce bf16 PTX operand types,
  // so the NVVM op directly (PTX mma.sync.aligned.m16n8k16.row.col.f32.
  // bf16.bf16.f32): A is 4 and B 2 registers of two bf16 each, C and D 4
  // f32, in the same fragment layout as the f16 form.
  Type f32 = b.getF32Type();
  auto regs = [&](Value frag) {
    auto ty = cast<VectorType>(frag.getType());
    SmallVector<Value> r;
    for (int64_t i = 0; i < ty.getDimSize(0); ++i) {
      Value row = vector::ExtractOp::create(b, loc, frag, ArrayRef<int64_t>{i});
      Value w = vector::BitCastOp::create(
          b, loc, VectorType::get({1}, b.getI32Type()), row);
      r.push_back(vector::ExtractOp::create(b, loc, w, ArrayRef<int64_t>{0}));
    }
    return r;
  };
  SmallVector<Value> acc;
  for (int64_t i = 0; i < 4; ++i)
    acc.push_back(
        vector::ExtractOp::create(b, loc, c, ArrayRef<int64_t>{i / 2, i % 2}));
  auto resTy = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                SmallVector<Type>(4, f32));
  Value d = NVVM::MmaOp::create(
      b, loc, resTy, regs(a), regs(bb), acc, ArrayRef<int64_t>{16, 8, 16},
      std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                    NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> out;
  for (int64_t i = 0; i < 4; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
  return vector::FromElementsOp::create(b, loc, c.getType(), out);
}

Value mma::pack(OpBuilder &b, Location loc, ArrayRef<Value> xs, Type t) {
  Type f32 = b.getF32Type();
  int64_t rows = xs.size() / 2;
  VectorType ty = fragmentType(rows, 2, t);
  Value v = arith::ConstantOp::create(
      b, loc, ty, DenseElementsAttr::get(ty, b.getZeroAttr(t)));
  for (int64_t r = 0; r < rows; ++r) {
    Value row = vector::FromElementsOp::create(
        b, loc, VectorType::get({2}, f32), ValueRange{xs[2 * r], xs[2 * r + 1]});
    if (t != f32)
      row = arith::TruncFOp::create(b, loc, VectorType::get({2}, t), row);
    v = vector::InsertOp::create(b, loc, row, v, ArrayRef<int64_t>{r});
  }
  return v;
}

Value mma::fastExp2(OpBuilder &b, Location loc, Value x) {
  return LLVM::CallIntrinsicOp::create(
             b, loc, b.getF32Type(),
             b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"), ValueRange{x})
      .getResult(0);
}
