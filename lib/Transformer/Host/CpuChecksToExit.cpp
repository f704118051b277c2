//===- CpuChecksToExit.cpp - tx-cpu-checks-to-exit ------------------------===//
//
// tx-cpu-pipeline's run-time checks: every `cf.assert` becomes a branch to
// a block that prints `<file>:<line>:<col>: error: <function>: <message>`
// (with the values of a tx.message_format check) to stderr and exits with
// status 1. Upstream lowers cf.assert to puts + abort(): the message went to
// a buffered stdout that abort() does not flush, and mlir-runner answered
// the abort with a crash report and a stack dump.
//
//===----------------------------------------------------------------------===//
#include "Host/CheckMessages.h"
#include "Transformer/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXCPUCHECKSTOEXIT
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

namespace {
struct TxCpuChecksToExitPass
    : public tx::impl::TxCpuChecksToExitBase<TxCpuChecksToExitPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<cf::AssertOp> asserts;
    module.walk([&](cf::AssertOp a) { asserts.push_back(a); });
    if (asserts.empty())
      return;
    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    auto i32 = b.getI32Type();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    SymbolTable symbols(module);
    // dprintf(fd, format, ...) and exit(status), from the C library that
    // mlir-runner (or the program linking the code) provides.
    auto dprintf = LLVM::lookupOrCreateFn(b, module, "dprintf", {i32, ptrTy},
                                          i32, /*isVarArg=*/true);
    auto exitFn = LLVM::lookupOrCreateFn(b, module, "exit", {i32},
                                         LLVM::LLVMVoidType::get(ctx));
    if (failed(dprintf) || failed(exitFn)) {
      module.emitError() << "tx-cpu-checks-to-exit: 'dprintf' or 'exit' is "
                            "declared with another type";
      return signalPassFailure();
    }
    CheckStrings strings(symbols);
    for (cf::AssertOp a : asserts) {
      auto func = a->getParentOfType<FunctionOpInterface>();
      Region *body = a->getParentRegion();
      if (!func || body != &func.getFunctionBody()) {
        a.emitError() << "tx-cpu-checks-to-exit: this run-time check is "
                         "nested in '"
                      << a->getParentOp()->getName()
                      << "'; run the pass after convert-scf-to-cf";
        return signalPassFailure();
      }
      Location loc = a.getLoc();
      Block *before = a->getBlock();
      Block *after = before->splitBlock(a.getOperation());
      Block *fail = new Block();
      body->push_back(fail);
      b.setInsertionPointToEnd(before);
      cf::CondBranchOp::create(b, loc, a.getArg(), after, ValueRange{}, fail,
                               ValueRange{});
      b.setInsertionPointToEnd(fail);
      std::string prefix =
          (locationPrefix(loc) + "error: " + func.getName() + ": ").str();
      CheckMessage text = describeCheck(b, a, prefix);
      SmallVector<Value> args{
          LLVM::ConstantOp::create(b, loc, i32, 2), // stderr
          strings.get(b, loc, text.format + "\n")};
      args.append(text.values.begin(), text.values.end());
      LLVM::CallOp::create(b, loc, *dprintf, args);
      LLVM::CallOp::create(b, loc, *exitFn,
                           ValueRange{LLVM::ConstantOp::create(b, loc, i32, 1)});
      LLVM::UnreachableOp::create(b, loc);
      a.erase();
    }
  }
};
} // namespace
