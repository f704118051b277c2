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
class OnlineAttentionOp;

/// After the keyword `score_mod` or `mask_mod` (a clause of tx.attention,
/// AttentionSyntax.h): `(%c : T, ...)` of captured operands (left out when
/// there are none), then the region with its block header.
ParseResult
parseAttentionMod(OpAsmParser &parser,
                  SmallVectorImpl<OpAsmParser::UnresolvedOperand> &captures,
                  SmallVectorImpl<Type> &captureTypes, Region &mod);

/// ` score_mod(...) {...}` and ` mask_mod(...) {...}` of the non-empty
/// regions (the first without its space unless `leadingSpace`).
void printAttentionMods(OpAsmPrinter &printer, OperandRange scoreCaptures,
                        TypeRange scoreTypes, Region &scoreMod,
                        OperandRange maskCaptures, TypeRange maskTypes,
                        Region &maskMod, bool leadingSpace = true);

/// The regions' rules: one block whose arguments are (f32 score,) index b,
/// h, q_idx, kv_idx, then the captured operands' types; ops free of side
/// effects that use only the region's values; a tx.yield of one f32 (score)
/// or i1 (mask). Each violation is an error at the op it concerns.
LogicalResult verifyAttentionMods(AttentionOp op);

/// Clones the body of `mod` (a non-empty score_mod or mask_mod) at `b`'s
/// insertion point with its arguments bound to `score` (null for a
/// mask_mod), the indices `bhij` (index values b, h, q_idx, kv_idx) and
/// `captures` (values of the captured operands' types); returns the yielded
/// value.
Value inlineAttentionMod(OpBuilder &b, Region &mod, ValueRange captures,
                         Value score, ValueRange bhij);
/// The same for a region of `op`, bound to its captured operands.
Value inlineAttentionMod(OpBuilder &b, AttentionOp op, Region &mod,
                         Value score, ValueRange bhij);

/// The `mod_offsets` of a tx.online_attention tile of an op with score or
/// mask functions (empty when `hasMods` is false): `base` (the op's own
/// mod_offsets; empty for a tx.attention, whose offsets are 0) plus `by`,
/// the tile's offsets (b, h, query row, key), each folded.
SmallVector<Value> tileModOffsets(OpBuilder &b, Location loc, bool hasMods,
                                  ValueRange base, ArrayRef<OpFoldResult> by);

/// Clones `score` and `mask` (the regions of a tx.attention or a
/// tx.online_attention, possibly empty) into the empty regions of `to`.
void cloneAttentionMods(Region &score, Region &mask, OnlineAttentionOp to);

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_IR_ATTENTIONMODS_H
