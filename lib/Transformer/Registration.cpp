//===- Registration.cpp - registering tx with a DialectRegistry -----------===//
#include "Transformer/Registration.h"
#include "Transformer/Passes.h"
#include "Transformer/TxDialect.h"

void mlir::tx::registerTxDialect(DialectRegistry &registry) {
  registry.insert<TxDialect>();
}
