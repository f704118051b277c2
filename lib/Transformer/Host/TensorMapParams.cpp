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
// Each buffer (one !llvm.array<16 x i64>, aligned to a multiple of 64) is
// zeroed where it is made, so a map whose encoding is never reached is all
// zero, which the runtime refuses to launch with. Every launch of a kernel
// must pass tensor-map buffers at the same parameters (< 64), and pass no
// other pointer there.
//
// convert-gpu-to-nvvm drops `llvm.byval` from a gpu.func argument and the
// NVVM verifier refuses `nvvm.grid_constant` there (LLVM 22.1.8), hence a
// pass on the lowered kernel.
//
//===----------------------------------------------------------------------===//
#include "Transformer/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"

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
  /// A tensor map buffer: one !llvm.array<16 x i64> (128 bytes), aligned to
  /// at least 64 bytes.
  static LogicalResult checkBuffer(LLVM::AllocaOp alloca, Type mapTy) {
    auto align = alloca.getAlignment();
    if (alloca.getElemType() != mapTy ||
        !matchPattern(alloca.getArraySize(), m_One()) || !align ||
        *align < 64 || *align % 64 != 0)
      return alloca.emitError("tx-tensor-map-params: a ")
             << kTensorMapAttr << " buffer must be one " << mapTy
             << " (128 bytes) aligned to a multiple of 64 bytes";
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    Type i64 = b.getI64Type();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    auto mapTy = LLVM::LLVMArrayType::get(i64, 16);

    // Every buffer is checked and zeroed where it is made, so that a map
    // whose encoding is never reached is all zero (the runtime refuses to
    // launch with one).
    SmallVector<LLVM::AllocaOp> buffers;
    module.walk([&](LLVM::AllocaOp a) {
      if (a->hasAttr(kTensorMapAttr))
        buffers.push_back(a);
    });
    for (LLVM::AllocaOp a : buffers) {
      if (failed(checkBuffer(a, mapTy)))
        return signalPassFailure();
      b.setInsertionPointAfter(a);
      Value zero = LLVM::ConstantOp::create(b, a.getLoc(), b.getI8Type(),
                                            b.getI8IntegerAttr(0));
      Value len = LLVM::ConstantOp::create(b, a.getLoc(), i64,
                                           b.getI64IntegerAttr(128));
      LLVM::MemsetOp::create(b, a.getLoc(), a.getResult(), zero, len,
                             /*isVolatile=*/false);
    }

    // Each launch's mask; every launch of one kernel must agree (also the
    // launches that pass no tensor map: they would pass a pointer where
    // the kernel reads 128 bytes).
    SmallVector<std::pair<gpu::LaunchFuncOp, uint64_t>> launches;
    WalkResult r = module.walk([&](gpu::LaunchFuncOp launch) {
      uint64_t mask = 0;
      for (auto [i, v] : llvm::enumerate(launch.getKernelOperands())) {
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
      launches.push_back({launch, mask});
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return signalPassFailure();
    llvm::DenseMap<Operation *, std::pair<uint64_t, gpu::LaunchFuncOp>>
        kernelMasks;
    for (auto [launch, mask] : launches) {
      if (!mask)
        continue;
      auto kernel = SymbolTable::lookupNearestSymbolFrom<LLVM::LLVMFuncOp>(
          launch, launch.getKernel());
      if (!kernel || kernel.getNumArguments() !=
                         launch.getKernelOperands().size()) {
        launch.emitError("tx-tensor-map-params: the launch passes a tensor "
                         "map, but its kernel ")
            << launch.getKernel()
            << " is not an llvm.func with one parameter per operand (run "
               "the pass after convert-gpu-to-nvvm and gpu-to-llvm)";
        return signalPassFailure();
      }
      kernelMasks.try_emplace(kernel, mask, launch);
    }
    for (auto [launch, mask] : launches) {
      auto kernel = SymbolTable::lookupNearestSymbolFrom<LLVM::LLVMFuncOp>(
          launch, launch.getKernel());
      auto it = kernel ? kernelMasks.find(kernel) : kernelMasks.end();
      if (it == kernelMasks.end() || it->second.first == mask)
        continue;
      InFlightDiagnostic d = launch.emitError("tx-tensor-map-params: kernel ")
                             << launch.getKernel()
                             << " is launched with tensor maps at different "
                                "parameters (mask 0x"
                             << llvm::utohexstr(it->second.first) << " and 0x"
                             << llvm::utohexstr(mask)
                             << "; each tensor map operand must be an "
                             << kTensorMapAttr << " buffer)";
      d.attachNote(it->second.second.getLoc()) << "the other launch";
      return signalPassFailure();
    }

    for (auto &[kernelOp, entry] : kernelMasks) {
      auto kernel = cast<LLVM::LLVMFuncOp>(kernelOp);
      uint64_t mask = entry.first;
      for (unsigned i = 0; i < kernel.getNumArguments() && i < 64; ++i) {
        if (!(mask >> i & 1))
          continue;
        if (kernel.getArgumentTypes()[i] != ptrTy) {
          entry.second.emitError("tx-tensor-map-params: parameter ")
              << i << " of kernel " << entry.second.getKernel()
              << " takes a tensor map but has type "
              << kernel.getArgumentTypes()[i] << ", not !llvm.ptr";
          return signalPassFailure();
        }
        kernel.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                          TypeAttr::get(mapTy));
        kernel.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                          b.getI64IntegerAttr(64));
        kernel.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                          b.getUnitAttr());
      }
    }

    auto fnTy =
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {i64});
    for (auto [launch, mask] : launches) {
      if (!mask)
        continue;
      // The declaration, in the launch's nearest symbol table.
      Operation *table = SymbolTable::getNearestSymbolTable(launch);
      auto decl = dyn_cast_or_null<LLVM::LLVMFuncOp>(
          SymbolTable::lookupSymbolIn(table, kEntry));
      if (!decl) {
        if (Operation *other = SymbolTable::lookupSymbolIn(table, kEntry)) {
          other->emitError("tx-tensor-map-params: the symbol ")
              << kEntry << " is taken by an op that is not an llvm.func";
          return signalPassFailure();
        }
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(&table->getRegion(0).front());
        decl = LLVM::LLVMFuncOp::create(b, table->getLoc(), kEntry, fnTy);
      } else if (decl.getFunctionType() != fnTy) {
        decl.emitError("tx-tensor-map-params: ")
            << kEntry << " must have the type " << fnTy << ", got "
            << decl.getFunctionType();
        return signalPassFailure();
      }
      b.setInsertionPoint(launch);
      Value m = LLVM::ConstantOp::create(b, launch.getLoc(), i64,
                                         b.getI64IntegerAttr(int64_t(mask)));
      LLVM::CallOp::create(b, launch.getLoc(), decl, ValueRange{m});
    }
  }
};
} // namespace
