//===- CallStream.cpp - one stream per host function call -----------------===//
//
// tx-call-stream: after gpu-to-llvm, the host code of a function creates,
// synchronizes and destroys a stream around every launch, allocation, copy
// and free (`gpu.launch_func` without a stream is translated that way too).
// This pass puts all of them on one stream, created at the function's entry
// and synchronized and destroyed once before each return:
//
//   %s = mgpuStreamCreate()
//   mgpuMemAlloc(size, %s) ... gpu.launch_func <%s> ... mgpuMemcpy(.., %s)
//   mgpuStreamSynchronize(%s); mgpuMemFree(ptr, %s)   (a free waits first)
//   mgpuStreamSynchronize(%s); mgpuStreamDestroy(%s); return
//
// A synchronous call then waits once (or once per free) instead of once per
// launch; inside txRuntimeBeginCall/EndCall the stream is the caller's and
// the synchronizations are no-ops, as before. A function that uses other
// stream or event calls of the mgpu ABI is left alone.
//
//===----------------------------------------------------------------------===//
#include "Transformer/Passes.h"

#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/IR/Dominance.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXCALLSTREAM
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

namespace {

StringRef calleeName(LLVM::CallOp call) {
  if (auto callee = call.getCallee())
    return *callee;
  return {};
}

struct TxCallStreamPass
    : public tx::impl::TxCallStreamBase<TxCallStreamPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : llvm::to_vector(module.getOps<LLVM::LLVMFuncOp>()))
      if (!func.isExternal())
        rewrite(func, module);
  }

  void rewrite(LLVM::LLVMFuncOp func, ModuleOp module) {
    SmallVector<LLVM::CallOp> creates, syncs, destroys, frees;
    SmallVector<Value> streamUses; // stream operands of the calls
    SmallVector<Operation *> users; // the ops that enqueue work
    SmallVector<gpu::LaunchFuncOp> launches;
    SmallVector<LLVM::ReturnOp> returns;
    bool other = false;
    func.walk([&](Operation *op) {
      if (auto l = dyn_cast<gpu::LaunchFuncOp>(op)) {
        launches.push_back(l);
      } else if (auto r = dyn_cast<LLVM::ReturnOp>(op)) {
        returns.push_back(r);
      } else if (auto c = dyn_cast<LLVM::CallOp>(op)) {
        StringRef name = calleeName(c);
        // Position of the stream operand of the calls this pass knows.
        int streamArg = llvm::StringSwitch<int>(name)
                            .Case("mgpuStreamSynchronize", 0)
                            .Case("mgpuStreamDestroy", 0)
                            .Cases({"mgpuMemAlloc", "mgpuMemFree"}, 1)
                            .Cases({"mgpuMemcpy", "mgpuMemset32", "mgpuMemset16"}, 3)
                            .Default(-1);
        if (streamArg >= 0 &&
            static_cast<int>(c.getArgOperands().size()) > streamArg) {
          streamUses.push_back(c.getArgOperands()[streamArg]);
          if (streamArg > 0)
            users.push_back(c);
        }
        if (name == "mgpuStreamCreate")
          creates.push_back(c);
        else if (name == "mgpuStreamSynchronize")
          syncs.push_back(c);
        else if (name == "mgpuStreamDestroy")
          destroys.push_back(c);
        else if (name == "mgpuMemFree")
          frees.push_back(c);
        else if (name.starts_with("mgpu") && streamArg < 0)
          other = true;
      }
    });
    if (other || (creates.empty() && launches.empty()))
      return;
    // Every stream must come straight from an mgpuStreamCreate of this
    // function (not through a block argument, a load or a call).
    for (gpu::LaunchFuncOp l : launches)
      if (Value s = l.getAsyncObject())
        streamUses.push_back(s);
    for (Value s : streamUses) {
      auto def = s.getDefiningOp<LLVM::CallOp>();
      if (!def || !llvm::is_contained(creates, def))
        return;
    }
    // ... and be used by those calls and launches only.
    for (LLVM::CallOp c : creates)
      for (Operation *u : c.getResult().getUsers())
        if (!isa<gpu::LaunchFuncOp>(u) &&
            !llvm::is_contained(users, u) &&
            !llvm::is_contained(syncs, u) && !llvm::is_contained(destroys, u))
          return;

    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    auto voidTy = LLVM::LLVMVoidType::get(ctx);
    auto createFn = LLVM::lookupOrCreateFn(b, module, "mgpuStreamCreate", {},
                                           ptrTy);
    auto syncFn = LLVM::lookupOrCreateFn(b, module, "mgpuStreamSynchronize",
                                         {ptrTy}, voidTy);
    auto destroyFn = LLVM::lookupOrCreateFn(b, module, "mgpuStreamDestroy",
                                            {ptrTy}, voidTy);
    if (failed(createFn) || failed(syncFn) || failed(destroyFn)) {
      func.emitError() << "tx-call-stream: an mgpuStream* function is "
                          "declared with an unexpected type";
      return signalPassFailure();
    }

    // The stream is created in the latest block that dominates every use
    // and every return reachable from it: after the run-time checks, so a
    // failed check returns without touching the GPU.
    for (gpu::LaunchFuncOp l : launches)
      users.push_back(l);
    DominanceInfo dom(func);
    Block *home = &func.getBody().front();
    if (!users.empty()) {
      home = users.front()->getBlock();
      for (Operation *u : users)
        home = dom.findNearestCommonDominator(home, u->getBlock());
    }
    auto reachable = [](Block *from, Block *to) {
      SmallVector<Block *> worklist{from};
      llvm::SmallPtrSet<Block *, 16> seen;
      while (!worklist.empty()) {
        Block *b = worklist.pop_back_val();
        if (b == to)
          return true;
        if (seen.insert(b).second)
          llvm::append_range(worklist, b->getSuccessors());
      }
      return false;
    };
    auto closes = [&](Block *x) {
      return llvm::all_of(returns, [&](LLVM::ReturnOp r) {
        return dom.dominates(x, r->getBlock()) ||
               !reachable(x, r->getBlock());
      });
    };
    while (!closes(home))
      home = dom.getNode(home)->getIDom()->getBlock();

    Location loc = func.getLoc();
    b.setInsertionPointToStart(home);
    Value stream = LLVM::CallOp::create(b, loc, *createFn, ValueRange{})
                       .getResult();
    for (LLVM::CallOp c : destroys)
      c.erase();
    for (LLVM::CallOp c : syncs)
      c.erase();
    for (LLVM::CallOp c : creates) {
      c.getResult().replaceAllUsesWith(stream);
      c.erase();
    }
    for (gpu::LaunchFuncOp l : launches)
      if (!l.getAsyncObject())
        l.getAsyncObjectMutable().assign(stream);
    // A free may not be stream-ordered outside txRuntimeBeginCall: the
    // stream's work finishes first.
    for (LLVM::CallOp c : frees) {
      b.setInsertionPoint(c);
      LLVM::CallOp::create(b, c.getLoc(), *syncFn, ValueRange{stream});
    }
    for (LLVM::ReturnOp r : returns) {
      if (!dom.dominates(home, r->getBlock()))
        continue; // a path that never created the stream
      b.setInsertionPoint(r);
      LLVM::CallOp::create(b, r.getLoc(), *syncFn, ValueRange{stream});
      LLVM::CallOp::create(b, r.getLoc(), *destroyFn, ValueRange{stream});
    }
  }
};

} // namespace
