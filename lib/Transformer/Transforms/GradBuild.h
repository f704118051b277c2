//===- GradBuild.h - pieces of the backward's lowerings ---------*- C++ -*-===//
//
// What the reference lowering of tx.attention_grad (ReferenceGrads.cpp) and
// the tiled backward (TileAttentionGrad.cpp) share. Private to
// lib/Transformer/Transforms.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_TRANSFORMS_GRADBUILD_H
#define TRANSFORMER_TRANSFORMS_GRADBUILD_H

#include "Transformer/AttentionShapes.h"
#include "Transformer/TxOps.h"

namespace mlir {
namespace tx {

/// Run-time checks that O and dO are [B, H, Sq, Dv] and the LSE [B, H, Sq]
/// where the verifier could not tell (dynamic sizes): a violation aborts
/// with "tx.attention_grad: <operand> dimension i differs from ...".
void emitGradOperandChecks(OpBuilder &b, AttentionGradOp op,
                           const AttentionSizes &sz);

/// Δ [B, H, Sq] f32 (sizes from `sz`) = sum_e x[b, h, i, e] * y[b, h, i, e]
/// (rowsum(dO ∘ O)), products and sums in f32.
Value emitRowDot(OpBuilder &b, Location loc, Value x, Value y,
                 const AttentionSizes &sz);

/// The f32 tensor `t` times `factor` (when given), rounded once to the
/// element type of `ty`, as `ty`.
Value emitRounded(OpBuilder &b, Location loc, Value t, Value factor, Type ty);

/// An additive mask's gradient from dS (f32 [B, H, Sq, Sk]): summed over
/// the mask's broadcast dimensions (a static 1 in dims 0 and 1), rounded
/// once to the type of `op`'s grad_mask result.
Value emitMaskGradient(OpBuilder &b, AttentionGradOp op,
                       const AttentionSizes &sz, Value ds);

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_TRANSFORMS_GRADBUILD_H
