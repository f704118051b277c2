//===- Registration.cpp - registering tx with a DialectRegistry -----------===//
#include "Transformer/Registration.h"
#include "Transformer/Passes.h"
#include "Transformer/TxDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

void mlir::tx::registerTxDialect(DialectRegistry &registry) {
  registry.insert<TxDialect>();
  // Wherever the gpu dialect is loaded, load tx too: its canonicalization
  // turns memref.dim with a negative constant index into ub.poison before
  // the gpu dialect's SimplifyDimOfAllocOp reads out of bounds on it (LLVM
  // 22; see TxDialect.cpp). So a plain `tx-opt --canonicalize` of IR without
  // tx ops does not crash either.
  registry.addExtension(+[](MLIRContext *ctx, gpu::GPUDialect *) {
    ctx->getOrLoadDialect<TxDialect>();
  });
}
