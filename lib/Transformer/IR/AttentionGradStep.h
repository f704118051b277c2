//===- AttentionGradStep.h - the backward's block ops, decomposed -*- C++ -*-===//
//
// Private to lib/Transformer/IR.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_IR_ATTENTIONGRADSTEP_H
#define TRANSFORMER_IR_ATTENTIONGRADSTEP_H

#include "Transformer/TxOps.h"

namespace mlir {
namespace tx {

/// tx.attention_dq as linalg.generic ops on tensors (the block's P and dT
/// recomputed, then dQ_init + scale dT K). Needs a static H / Hkv.
FailureOr<SmallVector<Value>> buildAttentionDqStep(OpBuilder &b,
                                                   AttentionDqOp op);

/// tx.attention_dkdv as linalg.generic ops on tensors (P and dT, then
/// dK_init + scale dT^T Q and dV_init + P^T dO, summed over the query heads
/// of each K/V head). Needs H == Hkv or a single K/V head.
FailureOr<SmallVector<Value>> buildAttentionDkDvStep(OpBuilder &b,
                                                     AttentionDkDvOp op);

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_IR_ATTENTIONGRADSTEP_H
