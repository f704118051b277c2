//===- MapParallelLoopsToGPU.cpp - scf.parallel -> gpu.launch --------------===//
//
// The simple reference mapping of tx (one GPU thread per parallel iteration),
// written because upstream's `convert-affine-for-to-gpu` maps loops that carry
// reductions onto racing threads and `convert-parallel-loops-to-gpu` silently
// leaves loops with iteration-dependent bounds on the host. Here every
// outermost scf.parallel is mapped whole (its iterations are independent by
// the op's definition) and anything that would touch memory on the host is an
// error.
//
//===----------------------------------------------------------------------===//
#include "Transformer/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXMAPPARALLELLOOPSTOGPU
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;

namespace {

bool insideLaunch(Operation *op) {
  return op->getParentOfType<gpu::LaunchOp>() != nullptr;
}

struct TxMapParallelLoopsToGPUPass
    : public tx::impl::TxMapParallelLoopsToGPUBase<TxMapParallelLoopsToGPUPass> {
  using Base::Base;

  /// Replaces `loop` by `if (N > 0) gpu.launch` with one thread per iteration.
  void mapLoop(scf::ParallelOp loop) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value total = one;
    SmallVector<Value> counts;
    for (auto [lb, ub, step] : llvm::zip(loop.getLowerBound(),
                                         loop.getUpperBound(), loop.getStep())) {
      Value span = arith::SubIOp::create(b, loc, ub, lb);
      Value n = arith::CeilDivSIOp::create(b, loc, span, step);
      n = arith::MaxSIOp::create(b, loc, n, zero);
      counts.push_back(n);
      total = arith::MulIOp::create(b, loc, total, n);
    }
    // Never launch an empty grid.
    Value nonEmpty =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, total, zero);
    auto ifOp = scf::IfOp::create(b, loc, nonEmpty, /*withElseRegion=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value bs = arith::ConstantIndexOp::create(b, loc, blockSize);
    Value grid = arith::CeilDivSIOp::create(b, loc, total, bs);
    auto launch = gpu::LaunchOp::create(b, loc, grid, one, one, bs, one, one);
    Block &body = launch.getBody().front();
    b.setInsertionPointToStart(&body);
    Value bid = launch.getBlockIds().x, tid = launch.getThreadIds().x;
    Value bsIn = arith::ConstantIndexOp::create(b, loc, blockSize);
    Value id = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, bid, bsIn), tid);
    Value inRange =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, id, total);
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(guard.thenBlock());
    SmallVector<Value> ivs;
    if (counts.size() == 1)
      ivs.push_back(id);
    else
      llvm::append_range(
          ivs, affine::AffineDelinearizeIndexOp::create(b, loc, id, counts)
                   .getResults());
    IRMapping mapping;
    for (auto [k, iv] : llvm::enumerate(loop.getInductionVars())) {
      Value scaled = arith::MulIOp::create(b, loc, ivs[k], loop.getStep()[k]);
      mapping.map(iv, arith::AddIOp::create(b, loc, loop.getLowerBound()[k],
                                            scaled)
                          .getResult());
    }
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, mapping);
    loop.erase();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (blockSize < 1 || blockSize > 1024) {
      func.emitError() << "tx-map-parallel-loops-to-gpu: block-size must be in "
                          "[1, 1024], got "
                       << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }

    SmallVector<scf::ParallelOp> loops;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp>(op))
        return WalkResult::skip();
      if (auto p = dyn_cast<scf::ParallelOp>(op)) {
        loops.push_back(p);
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
    for (scf::ParallelOp loop : loops) {
      if (!loop.getInitVals().empty()) {
        loop.emitError("tx-map-parallel-loops-to-gpu: scf.parallel with "
                       "reductions cannot be mapped one thread per iteration "
                       "(the reduction would race)");
        return signalPassFailure();
      }
      WalkResult launches = loop.getBody()->walk([](Operation *op) {
        return isa<gpu::LaunchOp, gpu::LaunchFuncOp>(op) ? WalkResult::interrupt()
                                                         : WalkResult::advance();
      });
      if (launches.wasInterrupted()) {
        loop.emitError("tx-map-parallel-loops-to-gpu: this parallel loop "
                       "itself launches GPU kernels; a kernel cannot launch "
                       "kernels (no dynamic parallelism)");
        return signalPassFailure();
      }
      mapLoop(loop);
    }

    // Host-side buffers become device buffers; host copies become
    // device-to-device copies. The `gpu.wait async` / `gpu.wait` pairs keep
    // each op synchronous, as the host code expects.
    IRRewriter rewriter(&getContext());
    auto asyncToken = gpu::AsyncTokenType::get(&getContext());
    auto syncWrap = [&](Operation *at, auto buildAsync) {
      rewriter.setInsertionPoint(at);
      Value t0 = gpu::WaitOp::create(rewriter, at->getLoc(), asyncToken,
                                     ValueRange{})
                     .getAsyncToken();
      auto [results, t1] = buildAsync(t0);
      gpu::WaitOp::create(rewriter, at->getLoc(), Type(), ValueRange{t1});
      return results;
    };

    SmallVector<memref::AllocOp> allocs;
    SmallVector<memref::DeallocOp> deallocs;
    SmallVector<memref::CopyOp> copies;
    func.walk([&](Operation *op) {
      if (insideLaunch(op))
        return;
      if (auto a = dyn_cast<memref::AllocOp>(op))
        allocs.push_back(a);
      else if (auto d = dyn_cast<memref::DeallocOp>(op))
        deallocs.push_back(d);
      else if (auto c = dyn_cast<memref::CopyOp>(op))
        copies.push_back(c);
    });

    for (memref::CopyOp copy : copies) {
      syncWrap(copy, [&](Value t0) {
        auto m = gpu::MemcpyOp::create(rewriter, copy.getLoc(), asyncToken,
                                       ValueRange{t0}, copy.getTarget(),
                                       copy.getSource());
        return std::make_pair(0, m.getAsyncToken());
      });
      rewriter.eraseOp(copy);
    }
    for (memref::DeallocOp dealloc : deallocs) {
      syncWrap(dealloc, [&](Value t0) {
        auto d = gpu::DeallocOp::create(rewriter, dealloc.getLoc(), asyncToken,
                                        ValueRange{t0}, dealloc.getMemref());
        return std::make_pair(0, d.getAsyncToken());
      });
      rewriter.eraseOp(dealloc);
    }
    for (memref::AllocOp alloc : allocs) {
      bool hasDealloc = llvm::any_of(alloc->getUsers(), [](Operation *u) {
        return isa<gpu::DeallocOp>(u);
      });
      Value buf = syncWrap(alloc, [&](Value t0) {
        auto a = gpu::AllocOp::create(rewriter, alloc.getLoc(), alloc.getType(),
                                      asyncToken, ValueRange{t0},
                                      alloc.getDynamicSizes(),
                                      alloc.getSymbolOperands(),
                                      /*hostShared=*/false);
        return std::make_pair(a.getMemref(), a.getAsyncToken());
      });
      rewriter.replaceOp(alloc, buf);
      // Free a temporary at the end of its block unless it escapes there.
      Block *block = buf.getParentBlock();
      Operation *term = block->getTerminator();
      bool escapes = llvm::is_contained(term->getOperands(), buf);
      if (!hasDealloc && !escapes) {
        syncWrap(term, [&](Value t0) {
          auto d = gpu::DeallocOp::create(rewriter, term->getLoc(), asyncToken,
                                          ValueRange{t0}, buf);
          return std::make_pair(0, d.getAsyncToken());
        });
      }
    }

    // Anything left that reads or writes memory on the host would
    // dereference device pointers on the CPU.
    WalkResult res = func.walk([&](Operation *op) {
      if (insideLaunch(op) || isa<gpu::GPUDialect>(op->getDialect()) ||
          isa<cf::AssertOp>(op))
        return WalkResult::advance();
      auto iface = dyn_cast<MemoryEffectOpInterface>(op);
      if (!iface)
        return WalkResult::advance();
      if (iface.hasEffect<MemoryEffects::Read>() ||
          iface.hasEffect<MemoryEffects::Write>()) {
        op->emitError() << "tx-map-parallel-loops-to-gpu: '" << op->getName()
                        << "' accesses memory on the host outside any "
                           "parallel loop; it cannot run on the GPU";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (res.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
