//===- HostChecksToErrors.cpp - failed run-time checks return, not abort --===//
//
// tx-host-checks-to-errors: every `cf.assert` in a host function (the
// run-time shape rules of tx ops, tx-results-in-place's out-parameter size
// checks) becomes a branch to a failure block that reports the message
// through the runtime's `txRuntimeFail(const char *)`, frees the device
// buffers allocated so far, and returns from the function. A library call
// with bad shapes thus records an error (docs/ABI.md) instead of aborting
// the caller's process, which is what upstream's cf.assert lowering does.
//
// The pass works on CFG form (after convert-scf-to-cf): an early return
// needs the assert to sit in a block of the function itself.
//
//===----------------------------------------------------------------------===//
#include "Host/CheckMessages.h"
#include "Host/HostABI.h"
#include "Transformer/Passes.h"

#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXHOSTCHECKSTOERRORS
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

namespace {

/// The buffer an allocation op returns (gpu.alloc or memref.alloc).
Value allocatedBuffer(Operation *op) {
  if (auto a = dyn_cast<gpu::AllocOp>(op))
    return a.getMemref();
  return cast<memref::AllocOp>(op).getResult();
}

/// A printf format without values as the text it prints.
std::string unescapePercent(StringRef format) {
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    out.push_back(format[i]);
    if (format[i] == '%' && i + 1 < format.size() && format[i + 1] == '%')
      ++i;
  }
  return out;
}

/// True when a block reached from `from`'s successors is `to`.
bool reaches(Block *from, Block *to) {
  SmallVector<Block *> worklist(from->getSuccessors());
  llvm::SmallPtrSet<Block *, 16> seen;
  while (!worklist.empty()) {
    Block *b = worklist.pop_back_val();
    if (b == to)
      return true;
    if (seen.insert(b).second)
      llvm::append_range(worklist, b->getSuccessors());
  }
  return false;
}

struct TxHostChecksToErrorsPass
    : public tx::impl::TxHostChecksToErrorsBase<TxHostChecksToErrorsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    CheckStrings strings(symbols); // one constant per distinct message
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (!func.isExternal() && failed(rewrite(func, symbols, strings)))
        return signalPassFailure();
  }

private:
  LogicalResult rewrite(func::FuncOp func, SymbolTable &symbols,
                        CheckStrings &strings) {
    SmallVector<cf::AssertOp> asserts;
    SmallVector<Operation *> allocs;
    func.walk([&](Operation *op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return; // device code
      if (auto a = dyn_cast<cf::AssertOp>(op))
        asserts.push_back(a);
      else if (isa<gpu::AllocOp, memref::AllocOp>(op))
        allocs.push_back(op);
    });
    if (asserts.empty())
      return success();
    for (cf::AssertOp a : asserts)
      if (a->getParentOp() != func.getOperation())
        return a.emitError()
               << "tx-host-checks-to-errors: this run-time check is nested "
                  "in '"
               << a->getParentOp()->getName()
               << "'; an early return needs it in a block of the function "
                  "(run the pass after convert-scf-to-cf)";
    for (Type t : func.getResultTypes())
      if (!isa<IntegerType, IndexType, FloatType>(t))
        return func.emitError()
               << "tx-host-checks-to-errors: cannot return early from a "
                  "function with a result of type "
               << t;

    // The buffers to free on each failure path: allocated on every path to
    // the check and freed on none. (A buffer freed on some path that may
    // reach the check is left alone: a leak on a failure path is better than
    // a double free.)
    DominanceInfo dom(func);
    SmallVector<SmallVector<Operation *>> live(asserts.size());
    for (auto [i, a] : llvm::enumerate(asserts))
      for (Operation *alloc : allocs) {
        if (!dom.properlyDominates(alloc, a))
          continue;
        bool freed = llvm::any_of(
            allocatedBuffer(alloc).getUsers(), [&](Operation *user) {
              if (!isa<gpu::DeallocOp, memref::DeallocOp>(user))
                return false;
              return dom.properlyDominates(user, a) ||
                     reaches(user->getBlock(), a->getBlock());
            });
        if (!freed)
          live[i].push_back(alloc);
      }

    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    auto failFn = LLVM::lookupOrCreateFn(b, symbols.getOp(), kFailFn, {ptrTy},
                                         LLVM::LLVMVoidType::get(ctx));
    if (failed(failFn))
      return func.emitError() << "tx-host-checks-to-errors: '" << kFailFn
                              << "' is declared with another type";

    for (auto [a, toFree] : llvm::zip(asserts, live)) {
      Location loc = a.getLoc();
      Block *before = a->getBlock();
      Block *after = before->splitBlock(a.getOperation());
      Block *fail = new Block();
      func.getBody().push_back(fail);
      b.setInsertionPointToEnd(before);
      cf::CondBranchOp::create(b, loc, a.getArg(), after, ValueRange{}, fail,
                               ValueRange{});

      b.setInsertionPointToEnd(fail);
      CheckMessage text =
          describeCheck(b, a, (func.getSymName() + ": ").str());
      Value msg;
      if (!text.values.empty()) {
        // printf into a stack buffer; the runtime copies the message.
        auto snprintfFn = LLVM::lookupOrCreateFn(
            b, symbols.getOp(), "snprintf",
            {ptrTy, b.getI64Type(), ptrTy}, b.getI32Type(), /*isVarArg=*/true);
        if (failed(snprintfFn))
          return func.emitError()
                 << "tx-host-checks-to-errors: 'snprintf' is declared with "
                    "another type";
        const int64_t bufSize = 512;
        Value one = LLVM::ConstantOp::create(b, loc, b.getI64Type(), 1);
        Value size = LLVM::ConstantOp::create(b, loc, b.getI64Type(), bufSize);
        auto bufTy = LLVM::LLVMArrayType::get(b.getI8Type(), bufSize);
        msg = LLVM::AllocaOp::create(b, loc, ptrTy, bufTy, one);
        SmallVector<Value> args{msg, size, strings.get(b, loc, text.format)};
        args.append(text.values.begin(), text.values.end());
        LLVM::CallOp::create(b, loc, *snprintfFn, args);
      } else {
        msg = strings.get(b, loc, unescapePercent(text.format));
      }
      LLVM::CallOp::create(b, loc, *failFn, ValueRange{msg});

      // Free what this call allocated so far, in the allocation's own form
      // (stream-ordered inside a txRuntimeBeginCall/EndCall pair).
      auto tokenTy = gpu::AsyncTokenType::get(ctx);
      for (Operation *alloc : llvm::reverse(toFree)) {
        Value buf = allocatedBuffer(alloc);
        if (auto g = dyn_cast<gpu::AllocOp>(alloc)) {
          if (g.getAsyncToken()) {
            Value t0 = gpu::WaitOp::create(b, loc, tokenTy, ValueRange{})
                           .getAsyncToken();
            Value t1 = gpu::DeallocOp::create(b, loc, tokenTy, ValueRange{t0},
                                              buf)
                           .getAsyncToken();
            gpu::WaitOp::create(b, loc, Type(), ValueRange{t1});
          } else {
            gpu::DeallocOp::create(b, loc, Type(), ValueRange{}, buf);
          }
        } else {
          memref::DeallocOp::create(b, loc, buf);
        }
      }

      SmallVector<Value> results;
      for (Type t : func.getResultTypes())
        results.push_back(
            arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(t))));
      func::ReturnOp::create(b, loc, results);
      a.erase();
    }
    return success();
  }
};

} // namespace
