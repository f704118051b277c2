//===- SoftmaxStrategy.h - tx.softmax's GPU strategy ----------*- C++ -*-===//
//
// The strategy step of tx.softmax's GPU path: the vector kernel and its
// scalar fallback for rows of N elements (planSoftmax, the one table of
// choices), as the typed #tx.softmax_strategy and back, checked against
// the row length and element type. tx-softmax-strategy writes it;
// tx-map-softmax-to-gpu (SoftmaxToGPU.cpp) reads it.
//
// Private to lib/Transformer.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_GPU_SOFTMAXSTRATEGY_H
#define TRANSFORMER_GPU_SOFTMAXSTRATEGY_H

#include "GPU/SoftmaxKernel.h"
#include "Transformer/GPUTarget.h"
#include "Transformer/TxOps.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace tx {

/// The options of the softmax strategy (tx-softmax-to-gpu's and
/// tx-softmax-strategy's, Passes.td).
struct SoftmaxOptions {
  int64_t blockSize = 0, threadsPerRow = 0, vectorWidth = 0,
          maxCachedVectors = 16, gridCtas = 0, streamUnroll = 0,
          maxSharedMemory = GPUTarget{}.maxSharedMemoryPerCta, sm = 0,
          numSms = GPUTarget{}.defaultNumSms, bulkChunkBytes = 0,
          bulkCtasPerSm = 0;
  bool prefetch = true, smemRows = true, bulkRows = true;
};

/// The kernels of one softmax over rows of `n` elements: the vector kernel
/// (16-byte loads) when it applies, and the scalar kernel that runs instead
/// when a buffer is not 16-byte aligned (or a dynamic N is not a multiple
/// of the vector width), or alone.
struct SoftmaxPlan {
  bool hasVector = false;
  KernelConfig vec{}, scalar{};
  /// Rows per CTA of the kernel the tiling follows (the vector kernel's
  /// when there is one).
  int64_t rowsPerCta() const {
    const KernelConfig &c = hasVector ? vec : scalar;
    return c.blockSize / c.threadsPerRow;
  }
};
/// The strategy of one softmax along the innermost dimension: rows of `n`
/// elements (-1: dynamic) of `elt`.
SoftmaxPlan planSoftmax(const SoftmaxOptions &o, int64_t n, Type elt);

/// A plan as its attribute and back: planFromAttr checks what depends on
/// the row length `n` (-1: dynamic) and the element type (the attribute's
/// verifier checked the rest); `fail` gets a message naming the parameter.
SoftmaxStrategyAttr planToAttr(Builder &b, const SoftmaxPlan &p);
FailureOr<SoftmaxPlan>
planFromAttr(SoftmaxStrategyAttr d, int64_t n, Type elt,
             llvm::function_ref<void(const Twine &)> fail);

/// A plan whose kernel runs exactly `k` rows per CTA (a user's row tile),
/// from the options' choice; failure when no kernel does.
FailureOr<SoftmaxPlan> planForRowTile(SoftmaxOptions o, int64_t n, Type elt,
                                      int64_t k);

/// The options' ranges; the error names `pass` and the option.
LogicalResult checkSoftmaxOptions(Operation *op, const SoftmaxOptions &o,
                                  StringRef pass = "tx-softmax-to-gpu");

/// Whether `op` is the tile of a user's row tiling (an scf.forall without
/// a strategy over rows of a 2-D tensor, e.g. tile_using_forall [k, 0]).
bool isUserRowTile(SoftmaxOp op);

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_GPU_SOFTMAXSTRATEGY_H
