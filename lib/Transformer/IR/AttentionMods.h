//===- AttentionMods.h - tx.attention's score and mask functions -*- C++ -*-===//
//
// The `score_mod` and `mask_mod` regions of tx.attention (TxOps.td, "Score
// and mask functions"; issue #42): their syntax (the custom<AttentionMods>
// directive), their verifier, and the inlining of a region's body at a
// builder's insertion point, which every lowering of the op uses.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_IR_ATTENTIONMODS_H
#define TRANSFORMER_IR_ATTENTIONMODS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

namespace mlir {
namespace tx {

class AttentionOp;

/// After the keyword `score_mod` or `mask_mod` (a clause of tx.attention,
/// AttentionSyntax.h): `(%c : T, ...)` of captured operands (left out when
/// there are none), then the region with its block header.
ParseResult
parseAttentionMod(OpAsmParser &parser,
                  SmallVectorImpl<OpAsmParser::UnresolvedOperand> &captures,
                  SmallVectorImpl<Type> &captureTypes, Region &mod);

/// ` score_mod(...) {...}` and ` mask_mod(...) {...}` of the non-empty
/// regions.
void printAttentionMods(OpAsmPrinter &printer, OperandRange scoreCaptures,
                        TypeRange scoreTypes, Region &scoreMod,
                        OperandRange maskCaptures, TypeRange maskTypes,
                        Region &maskMod);

/// The regions' rules: one block whose arguments are (f32 score,) index b,
/// h, q_idx, kv_idx, then the captured operands' types; ops free of side
/// effects that use only the region's values; a tx.yield of one f32 (score)
/// or i1 (mask). Each violation is an error at the op it concerns.
LogicalResult verifyAttentionMods(AttentionOp op);

/// Clones the body of `mod` (a non-empty score_mod or mask_mod of `op`) at
/// `b`'s insertion point with its arguments bound to `score` (score_mod
/// only), the indices `bhij` (index values b, h, q_idx, kv_idx) and the
/// op's captured operands; returns the yielded value.
Value inlineAttentionMod(OpBuilder &b, AttentionOp op, Region &mod,
                         Value score, ValueRange bhij);

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_IR_ATTENTIONMODS_H
