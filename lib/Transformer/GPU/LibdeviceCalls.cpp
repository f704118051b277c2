//===- LibdeviceCalls.cpp - tx-gpu-libdevice-calls ------------------------===//
//
// arith.remf in a gpu.module -> a call of libdevice's __nv_fmodf (f32) or
// __nv_fmod (f64); f16/bf16 through f32 (fmod is exact, so its result is
// representable in the operands' type). Run before the module-wide
// convert-arith-to-llvm of tx-gpu-pipeline: that pass would turn the op
// into llvm.frem, which convert-gpu-to-nvvm marks illegal, so a score
// function with arith.remf (hand-written, or torch.fmod traced by tx.flex)
// failed to compile. gpu-module-to-binary links libdevice for __nv_*
// functions.
//
//===----------------------------------------------------------------------===//
#include "Transformer/Passes.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXGPULIBDEVICECALLS
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;

namespace {
/// The declaration `llvm.func @name(T, T) -> T` in `module`, added once.
LLVM::LLVMFuncOp declareBinary(gpu::GPUModuleOp module, StringRef name,
                               Type type) {
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return fn;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto fnType = LLVM::LLVMFunctionType::get(type, {type, type});
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, fnType);
}

/// Replaces one scalar arith.remf; false for a type libdevice lacks.
bool lowerRemF(gpu::GPUModuleOp module, arith::RemFOp op) {
  Type type = op.getType();
  if (!isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(type))
    return false;
  OpBuilder b(op);
  Location loc = op.getLoc();
  bool f64 = type.isF64();
  Type callType = f64 ? type : b.getF32Type();
  Value x = op.getLhs(), y = op.getRhs();
  if (type != callType) {
    x = arith::ExtFOp::create(b, loc, callType, x);
    y = arith::ExtFOp::create(b, loc, callType, y);
  }
  LLVM::LLVMFuncOp fn =
      declareBinary(module, f64 ? "__nv_fmod" : "__nv_fmodf", callType);
  Value r = LLVM::CallOp::create(b, loc, fn, ValueRange{x, y}).getResult();
  if (type != callType)
    r = arith::TruncFOp::create(b, loc, type, r);
  op.replaceAllUsesWith(r);
  op.erase();
  return true;
}

struct TxGpuLibdeviceCallsPass
    : public tx::impl::TxGpuLibdeviceCallsBase<TxGpuLibdeviceCallsPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    SmallVector<arith::RemFOp> rems;
    module.walk([&](arith::RemFOp op) { rems.push_back(op); });
    for (arith::RemFOp op : rems)
      (void)lowerRemF(module, op);
  }
};
} // namespace
