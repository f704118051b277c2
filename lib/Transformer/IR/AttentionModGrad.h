//===- AttentionModGrad.h - derivatives of score functions ------*- C++ -*-===//
//
// The derivative of a score function (tx.attention's `score_mod` region,
// TxOps.td "Score and mask functions") with respect to its score, which the
// backward (tx.attention_grad, TxGradOps.td) multiplies into dS: forward
// mode, one tangent per value of the body, seeded with 1 at the score.
// Values that do not depend on the score (indices, captured tensors'
// elements, constants, integer ops) have tangent 0 and cost nothing.
//
// Private to lib/Transformer.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_IR_ATTENTIONMODGRAD_H
#define TRANSFORMER_IR_ATTENTIONMODGRAD_H

#include "mlir/IR/Builders.h"

namespace mlir {
namespace tx {

/// The first op of the score function `mod` that depends on the score and
/// has a float result tx cannot differentiate (TxGradOps.td lists the
/// differentiable ops), or null when there is none.
Operation *firstNonDifferentiable(Region &mod);

/// The value and derivative with respect to the score of the score function
/// `mod` at `score` (f32) and indices `bhij`, with `captures` bound to its
/// captured operands: the body cloned at `b`'s insertion point with, after
/// each op that depends on the score, the ops of its tangent. Requires
/// firstNonDifferentiable(mod) == null. Returns {f(score), f'(score)}.
std::pair<Value, Value> inlineScoreModDerivative(OpBuilder &b, Region &mod,
                                                 ValueRange captures,
                                                 Value score, ValueRange bhij);

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_IR_ATTENTIONMODGRAD_H
