//===- PartialSums.cpp - O's running sum in two parts (tensor cores) ------===//
//
// See PartialSums.h for why and what.
//
//===----------------------------------------------------------------------===//
#include "GPU/PartialSums.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"
#include <limits>

using namespace mlir;
using namespace mlir::tx;

/// Floats before the first fragment: the 2 mTiles anchors, padded so that
/// every fragment is 16-byte aligned.
static int64_t fragmentsOffset(int64_t mTiles) {
  return llvm::alignTo(2 * mTiles, 4);
}

PartialSums::PartialSums(OpBuilder &b, Location loc, int64_t mTiles,
                         int64_t dTiles)
    : b(b), loc(loc), mTiles(mTiles), dTiles(dTiles) {
  const int64_t floats = fragmentsOffset(mTiles) + mTiles * dTiles * 4;
  Operation *launch = b.getInsertionBlock()->getParentOp();
  while (launch && !isa<gpu::LaunchOp>(launch))
    launch = launch->getParentOp();
  assert(launch && "PartialSums outside a gpu.launch");
  {
    // A static alloca: in the entry block of the kernel to be.
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&cast<gpu::LaunchOp>(launch).getBody().front());
    Value n = arith::ConstantIntOp::create(b, loc, b.getI64Type(), floats);
    base = LLVM::AllocaOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                                  b.getF32Type(), n, /*alignment=*/16);
    // The address escapes into an empty asm statement, so that LLVM keeps
    // the buffer in memory (SROA would turn it back into registers); its
    // loads and stores stay ordinary ones that ptxas schedules freely.
    LLVM::InlineAsmOp::create(
        b, loc, /*res=*/Type(), ValueRange{base}, /*asm_string=*/"",
        /*constraints=*/"l", /*has_side_effects=*/true,
        /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
        ArrayAttr());
  }
  Type f32 = b.getF32Type();
  Value negInf = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(f32, -std::numeric_limits<double>::infinity()));
  for (int64_t r = 0; r < 2 * mTiles; ++r)
    store(negInf, r);
  auto v2 = VectorType::get({2}, f32);
  Value zero = arith::ConstantOp::create(
      b, loc, v2, DenseElementsAttr::get(v2, 0.0f));
  for (int64_t f = 0; f < 2 * mTiles * dTiles; ++f)
    store(zero, fragmentsOffset(mTiles) + 2 * f);
}

Value PartialSums::slot(int64_t index) {
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getF32Type(), base,
                             ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)});
}

Value PartialSums::load(int64_t index, Type type) {
  unsigned align = isa<VectorType>(type) ? 8 : 4;
  return LLVM::LoadOp::create(b, loc, type, slot(index), align,
                              /*isVolatile=*/true);
}

void PartialSums::store(Value x, int64_t index) {
  unsigned align = isa<VectorType>(x.getType()) ? 8 : 4;
  LLVM::StoreOp::create(b, loc, x, slot(index), align,
                        /*isVolatile=*/true);
}

Value PartialSums::exp2(Value x) {
  return LLVM::CallIntrinsicOp::create(
             b, loc, b.getF32Type(),
             b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"), ValueRange{x})
      .getResult(0);
}

SmallVector<Value> PartialSums::combine(ValueRange o, ArrayRef<Value> anchor) {
  Type f32 = b.getF32Type();
  auto v2 = VectorType::get({2}, f32);
  SmallVector<Value> factor; // per row: 2^(a_L - a), 0 before any fold
  for (int64_t r = 0; r < 2 * mTiles; ++r) {
    Value aL = load(r, f32);
    Value f = exp2(arith::SubFOp::create(b, loc, aL, anchor[r]));
    factor.push_back(vector::BroadcastOp::create(b, loc, v2, f));
    store(anchor[r], r);
  }
  // Row by row (vector<2xf32>, 8 bytes): L = L * factor + O, one fma.rn;
  // `group` fragments at a time: their loads, then their stores.
  const int64_t frags = mTiles * dTiles;
  SmallVector<Value> res;
  for (int64_t g0 = 0; g0 < frags; g0 += group) {
    const int64_t g1 = std::min(frags, g0 + group);
    SmallVector<Value> old;
    for (int64_t frag = g0; frag < g1; ++frag)
      for (int64_t hh = 0; hh < 2; ++hh)
        old.push_back(load(fragmentsOffset(mTiles) + 4 * frag + 2 * hh, v2));
    SmallVector<Value> sums;
    for (int64_t frag = g0; frag < g1; ++frag) {
      const int64_t mt = frag / dTiles;
      Value sum = arith::ConstantOp::create(
          b, loc, o[frag].getType(),
          DenseElementsAttr::get(cast<VectorType>(o[frag].getType()), 0.0f));
      for (int64_t hh = 0; hh < 2; ++hh) {
        Value row = vector::ExtractOp::create(b, loc, o[frag],
                                              ArrayRef<int64_t>{hh});
        Value x = math::FmaOp::create(b, loc, old[2 * (frag - g0) + hh],
                                      factor[2 * mt + hh], row);
        sums.push_back(x);
        sum = vector::InsertOp::create(b, loc, x, sum, ArrayRef<int64_t>{hh});
      }
      res.push_back(sum);
    }
    for (int64_t frag = g0; frag < g1; ++frag)
        for (int64_t hh = 0; hh < 2; ++hh)
          store(sums[2 * (frag - g0) + hh],
                fragmentsOffset(mTiles) + 4 * frag + 2 * hh);
  }
  return res;
}

SmallVector<Value>
PartialSums::foldIf(Value now, ValueRange o,
                    function_ref<SmallVector<Value>()> anchor) {
  SmallVector<Type> types(o.getTypes());
  auto ifOp = scf::IfOp::create(b, loc, types, now, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    combine(o, anchor());
    SmallVector<Value> zeros;
    for (Value x : o) {
      auto ty = cast<VectorType>(x.getType());
      zeros.push_back(arith::ConstantOp::create(
          b, loc, ty, DenseElementsAttr::get(ty, 0.0f)));
    }
    scf::YieldOp::create(b, loc, zeros);
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, o);
  }
  return SmallVector<Value>(ifOp.getResults().begin(), ifOp.getResults().end());
}

SmallVector<Value> PartialSums::total(ValueRange o, ArrayRef<Value> anchor) {
  // (Stored back too, harmlessly: the stores between the groups keep
  // ptxas from loading the whole buffer into registers at once.)
  return combine(o, anchor);
}
