//===- TxOps.h - tx operations --------------------------------*- C++ -*-===//
#ifndef TRANSFORMER_TXOPS_H
#define TRANSFORMER_TXOPS_H

#include "Transformer/TxDialect.h"
#include "Transformer/TxAttrs.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include <optional>

#define GET_OP_CLASSES
#include "Transformer/TxOps.h.inc"

#endif // TRANSFORMER_TXOPS_H
