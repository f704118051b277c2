//===- Registration.h - registering tx ------------------------*- C++ -*-===//
#ifndef TRANSFORMER_REGISTRATION_H
#define TRANSFORMER_REGISTRATION_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir {
namespace tx {
/// Adds the tx dialect to `registry`.
void registerTxDialect(DialectRegistry &registry);
/// Registers every tx pass and named pipeline globally (idempotent).
void registerTxPassesAndPipelines();
} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_REGISTRATION_H
