//===- TxDialect.h - the tx dialect ---------------------------*- C++ -*-===//
#ifndef TRANSFORMER_TXDIALECT_H
#define TRANSFORMER_TXDIALECT_H

#include "mlir/IR/Dialect.h"

#include "Transformer/TxOpsDialect.h.inc"

#endif // TRANSFORMER_TXDIALECT_H
