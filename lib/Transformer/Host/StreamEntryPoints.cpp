//===- StreamEntryPoints.cpp - <f>_on_stream entry points -----------------===//
//
// tx-stream-entry-points: for every public function with a C interface
// (`llvm.emit_c_interface`), a function `<f>_on_stream` with the same
// arguments plus the CUDA stream to run on (`!llvm.ptr`), returning an i32
// status:
//
//   txRuntimeBeginCall(stream); f(args...); return txRuntimeEndCall();
//
// Between BeginCall and EndCall the runtime hands out `stream` for every
// mgpuStreamCreate of the calling thread, makes stream synchronization and
// destruction no-ops and allocation stream-ordered (docs/ABI.md), so the call
// enqueues its work on the caller's stream and returns without waiting.
//
//===----------------------------------------------------------------------===//
#include "Host/HostABI.h"
#include "Transformer/Passes.h"

#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXSTREAMENTRYPOINTS
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

namespace {

struct TxStreamEntryPointsPass
    : public tx::impl::TxStreamEntryPointsBase<TxStreamEntryPointsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SymbolTable symbols(module);
    OpBuilder b(ctx);
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);

    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal() || !func.isPublic() ||
          !func->hasAttr("llvm.emit_c_interface"))
        continue;
      if (func.getNumResults() != 0) {
        // Results that are not buffers would have nowhere to go.
        func.emitWarning() << "tx-stream-entry-points: no " << suffix
                           << " entry point for a function with results "
                              "that are not buffers";
        continue;
      }
      std::string name = (func.getSymName() + suffix).str();
      if (symbols.lookup(name)) {
        func.emitError() << "tx-stream-entry-points: cannot add '" << name
                         << "': the symbol exists";
        return signalPassFailure();
      }
      auto begin = LLVM::lookupOrCreateFn(b, module, kBeginCallFn, {ptrTy},
                                          LLVM::LLVMVoidType::get(ctx));
      auto end = LLVM::lookupOrCreateFn(b, module, kEndCallFn, {},
                                        b.getI32Type());
      if (failed(begin) || failed(end)) {
        module.emitError() << "tx-stream-entry-points: '" << kBeginCallFn
                           << "' or '" << kEndCallFn
                           << "' is declared with another type";
        return signalPassFailure();
      }

      Location loc = func.getLoc();
      SmallVector<Type> argTypes(func.getArgumentTypes());
      argTypes.push_back(ptrTy);
      b.setInsertionPointAfter(func);
      auto entry = func::FuncOp::create(
          b, loc, name, b.getFunctionType(argTypes, {b.getI32Type()}));
      entry->setAttr("llvm.emit_c_interface", UnitAttr::get(ctx));
      symbols.insert(entry);
      Block *body = entry.addEntryBlock();
      b.setInsertionPointToStart(body);
      LLVM::CallOp::create(b, loc, *begin, ValueRange{body->getArguments().back()});
      func::CallOp::create(b, loc, func, body->getArguments().drop_back());
      Value status = LLVM::CallOp::create(b, loc, *end, ValueRange{}).getResult();
      func::ReturnOp::create(b, loc, status);
    }
  }
};

} // namespace
