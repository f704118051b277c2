//===- ProgrammaticLaunches.cpp - PDL launches through the tx runtime -----===//
//
// tx-programmatic-launches: before kernel outlining, every gpu.launch that
// carries `tx.programmatic_launch` (kProgrammaticLaunchAttr; the split-KV
// decode merge kernel) gets a call of the runtime's
//
//   void txRuntimeLaunchProgrammaticNext(void)
//
// right before it, and loses the attribute. The runtime then launches the
// next kernel of the calling thread with cuLaunchKernelEx and the
// attribute CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
// (programmatic dependent launch, CUDA programming guide): the kernel may
// start before the work ahead of it on its stream has finished, and its
// threads wait for that work in griddepcontrol.wait. Upstream's
// gpu.launch_func has no such launch attribute in LLVM 22.
//
//===----------------------------------------------------------------------===//
#include "Transformer/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXPROGRAMMATICLAUNCHES
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

namespace {
constexpr llvm::StringLiteral kEntry = "txRuntimeLaunchProgrammaticNext";

struct TxProgrammaticLaunchesPass
    : public tx::impl::TxProgrammaticLaunchesBase<
          TxProgrammaticLaunchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::LaunchOp> launches;
    module.walk([&](gpu::LaunchOp l) {
      if (l->hasAttr(kProgrammaticLaunchAttr))
        launches.push_back(l);
    });
    if (launches.empty())
      return;
    OpBuilder b(&getContext());
    auto fnTy = b.getFunctionType({}, {});
    auto decl = module.lookupSymbol<func::FuncOp>(kEntry);
    if (!decl) {
      if (Operation *other = module.lookupSymbol(kEntry)) {
        other->emitError("tx-programmatic-launches: the symbol ")
            << kEntry << " is taken by an op that is not a func.func";
        return signalPassFailure();
      }
      b.setInsertionPointToStart(module.getBody());
      decl = func::FuncOp::create(b, module.getLoc(), kEntry, fnTy);
      decl.setPrivate();
    } else if (decl.getFunctionType() != fnTy) {
      decl.emitError("tx-programmatic-launches: ")
          << kEntry << " must have the type () -> (), got "
          << decl.getFunctionType();
      return signalPassFailure();
    }
    for (gpu::LaunchOp l : launches) {
      b.setInsertionPoint(l);
      func::CallOp::create(b, l.getLoc(), decl, ValueRange{});
      l->removeAttr(kProgrammaticLaunchAttr);
    }
  }
};
} // namespace
