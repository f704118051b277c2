//===- TensorMapParams.cpp - tensor maps passed to kernels by value -------===//
//
// tx-tensor-map-params: after gpu-to-llvm (kernels are llvm.func in their
// gpu.module, gpu.launch_func operands are LLVM values, one per kernel
// parameter), every launch operand defined by an `llvm.alloca` marked
// `tx.tensor_map` (a host buffer of 128 bytes, 64-byte aligned, that
// txRuntimeEncodeTensorMap fills) becomes a tensor map passed BY VALUE:
//
//  - the kernel's parameter gets `llvm.byval = !llvm.array<16 x i64>`,
//    `llvm.align = 64` and `nvvm.grid_constant`, so NVPTX declares it
//    `.param .align 64 .b8 name[128]` and its uses read the parameter space
//    (`cvta.param`), the form `cp.async.bulk.tensor` takes its map in;
//  - the launch gets a call of the runtime's
//      void txRuntimeTensorMapParamsNext(uint64_t mask)
//    right before it, bit i set for parameter i: the runtime then passes
//    the 128 bytes the operand points to instead of the pointer (MLIR
//    packs each operand as a pointer to a slot holding its value).
//
// convert-gpu-to-nvvm drops `llvm.byval` from a gpu.func argument and the
// NVVM verifier refuses `nvvm.grid_constant` there (LLVM 22.1.8), hence a
// pass on the lowered kernel. A launch taking such an operand must pass it
// at parameter index < 64 to a kernel that every launch of it treats alike.
//
//===----------------------------------------------------------------------===//
#include "Transformer/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXTENSORMAPPARAMS
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

namespace {
constexpr llvm::StringLiteral kEntry = "txRuntimeTensorMapParamsNext";

struct TxTensorMapParamsPass
    : public tx::impl::TxTensorMapParamsBase<TxTensorMapParamsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    Type i64 = b.getI64Type();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    auto mapTy = LLVM::LLVMArrayType::get(i64, 16);
    // The mask each kernel was given, to refuse two launches that disagree.
    llvm::DenseMap<Operation *, uint64_t> kernelMasks;
    LLVM::LLVMFuncOp decl;
    WalkResult r = module.walk([&](gpu::LaunchFuncOp launch) {
      uint64_t mask = 0;
      ValueRange operands = launch.getKernelOperands();
      for (auto [i, v] : llvm::enumerate(operands)) {
        auto alloca = v.getDefiningOp<LLVM::AllocaOp>();
        if (!alloca || !alloca->hasAttr(kTensorMapAttr))
          continue;
        if (i >= 64) {
          launch.emitError("tx-tensor-map-params: kernel operand ")
              << i << " is a tensor map; tensor maps must be among the first "
              << "64 parameters";
          return WalkResult::interrupt();
        }
        mask |= uint64_t(1) << i;
      }
      if (!mask)
        return WalkResult::advance();
      auto kernel = SymbolTable::lookupNearestSymbolFrom<LLVM::LLVMFuncOp>(
          launch, launch.getKernel());
      if (!kernel || kernel.getNumArguments() != operands.size()) {
        launch.emitError("tx-tensor-map-params: the launch passes a tensor "
                         "map, but its kernel ")
            << launch.getKernel()
            << " is not an llvm.func with one parameter per operand (run "
               "the pass after convert-gpu-to-nvvm and gpu-to-llvm)";
        return WalkResult::interrupt();
      }
      auto [it, inserted] = kernelMasks.try_emplace(kernel, mask);
      if (!inserted && it->second != mask) {
        launch.emitError("tx-tensor-map-params: kernel ")
            << launch.getKernel()
            << " is launched with tensor maps at different parameters "
               "(mask 0x"
            << llvm::utohexstr(it->second) << " and 0x"
            << llvm::utohexstr(mask) << ")";
        return WalkResult::interrupt();
      }
      for (unsigned i = 0; i < operands.size(); ++i) {
        if (!(mask >> i & 1))
          continue;
        if (kernel.getArgumentTypes()[i] != ptrTy) {
          launch.emitError("tx-tensor-map-params: parameter ")
              << i << " of kernel " << launch.getKernel()
              << " takes a tensor map but has type "
              << kernel.getArgumentTypes()[i] << ", not !llvm.ptr";
          return WalkResult::interrupt();
        }
        kernel.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                          TypeAttr::get(mapTy));
        kernel.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                          b.getI64IntegerAttr(64));
        kernel.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                          b.getUnitAttr());
      }
      if (!decl) {
        decl = module.lookupSymbol<LLVM::LLVMFuncOp>(kEntry);
        auto fnTy =
            LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {i64});
        if (!decl) {
          if (Operation *other = module.lookupSymbol(kEntry)) {
            other->emitError("tx-tensor-map-params: the symbol ")
                << kEntry << " is taken by an op that is not an llvm.func";
            return WalkResult::interrupt();
          }
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPointToStart(module.getBody());
          decl = LLVM::LLVMFuncOp::create(b, module.getLoc(), kEntry, fnTy);
        } else if (decl.getFunctionType() != fnTy) {
          decl.emitError("tx-tensor-map-params: ")
              << kEntry << " must have the type " << fnTy << ", got "
              << decl.getFunctionType();
          return WalkResult::interrupt();
        }
      }
      b.setInsertionPoint(launch);
      Value m = LLVM::ConstantOp::create(b, launch.getLoc(), i64,
                                         b.getI64IntegerAttr(int64_t(mask)));
      LLVM::CallOp::create(b, launch.getLoc(), decl, ValueRange{m});
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
