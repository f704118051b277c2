//===- TxAttrs.h - tx attributes: GPU strategies --------------*- C++ -*-===//
//
// The typed strategies of `tx.gpu_strategy` (TxAttrs.td) and the interfaces
// through which target-independent tiling reads their tile sizes.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_TXATTRS_H
#define TRANSFORMER_TXATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringRef.h"

#include "Transformer/TxAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Transformer/TxAttrs.h.inc"

namespace mlir::tx {
/// The name of the attribute that carries a strategy on a tx.attention or
/// tx.softmax and on the scf.forall that tiles it.
inline constexpr llvm::StringLiteral kGpuStrategyAttr = "tx.gpu_strategy";
} // namespace mlir::tx

#endif // TRANSFORMER_TXATTRS_H
