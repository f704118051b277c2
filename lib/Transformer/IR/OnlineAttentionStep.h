//===- OnlineAttentionStep.h - tx.online_attention, decomposed --*- C++ -*-===//
//
// Private to lib/Transformer/IR.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_IR_ONLINEATTENTIONSTEP_H
#define TRANSFORMER_IR_ONLINEATTENTIONSTEP_H

#include "Transformer/TxOps.h"

namespace mlir {
namespace tx {

/// One online-softmax step of `op` (FlashAttention-2, Dao 2023, Algorithm 1,
/// lines 8-10) as linalg.generic ops on tensors, for `group` = H / Hkv query
/// heads per K/V head (static). Returns the new (acc, max, sum).
SmallVector<Value> buildOnlineAttentionStep(OpBuilder &b, OnlineAttentionOp op,
                                            int64_t group);

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_IR_ONLINEATTENTIONSTEP_H
