//===- AttentionSyntax.h - tx.attention's optional clauses ------*- C++ -*-===//
//
// The custom<AttentionClauses> directive of tx.attention's assembly format
// (TxOps.td): the value operand, then the optional clauses `mask(%m : T)`, `kv_lengths(%l : T)`,
// `q_lengths(%l : T)`, (tx.attention only) `page_table(%pt : T)`, `scale = s`, `softcap = c`, `window = [l, r]` and
// `causal` in any order, each at most once (a repeated clause is an error
// naming it); printed in that canonical order.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_IR_ATTENTIONSYNTAX_H
#define TRANSFORMER_IR_ATTENTIONSYNTAX_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include <optional>

namespace mlir {
namespace tx {

using OptionalOperand = std::optional<OpAsmParser::UnresolvedOperand>;

ParseResult parseAttentionClauses(OpAsmParser &parser,
                                  OpAsmParser::UnresolvedOperand &value,
                                  OptionalOperand &mask,
                                  Type &maskType, OptionalOperand &kvLengths,
                                  Type &kvLengthsType, OptionalOperand &qLengths,
                                  Type &qLengthsType, FloatAttr &scale,
                                  FloatAttr &softcap, DenseI64ArrayAttr &window,
                                  UnitAttr &causal);

void printAttentionClauses(OpAsmPrinter &printer, Operation *op, Value value,
                           Value mask,
                           Type maskType, Value kvLengths, Type kvLengthsType,
                           Value qLengths, Type qLengthsType, FloatAttr scale,
                           FloatAttr softcap, DenseI64ArrayAttr window,
                           UnitAttr causal, Value pageTable = Value(),
                           Type pageTableType = Type());

/// tx.attention's clauses: those above plus `page_table(%pt : T)` and the
/// `score_mod` and `mask_mod` regions (AttentionMods.h), any order; printed
/// with the regions last.
ParseResult parsePagedAttentionClauses(
    OpAsmParser &parser, OpAsmParser::UnresolvedOperand &value,
    OptionalOperand &mask, Type &maskType, OptionalOperand &kvLengths,
    Type &kvLengthsType, OptionalOperand &qLengths, Type &qLengthsType,
    OptionalOperand &pageTable, Type &pageTableType, FloatAttr &scale,
    FloatAttr &softcap, DenseI64ArrayAttr &window, UnitAttr &causal,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &scoreCaptures,
    SmallVectorImpl<Type> &scoreCaptureTypes, Region &scoreMod,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &maskCaptures,
    SmallVectorImpl<Type> &maskCaptureTypes, Region &maskMod);

void printPagedAttentionClauses(
    OpAsmPrinter &printer, Operation *op, Value value, Value mask,
    Type maskType, Value kvLengths, Type kvLengthsType, Value qLengths,
    Type qLengthsType, Value pageTable, Type pageTableType, FloatAttr scale,
    FloatAttr softcap, DenseI64ArrayAttr window, UnitAttr causal,
    OperandRange scoreCaptures, TypeRange scoreTypes, Region &scoreMod,
    OperandRange maskCaptures, TypeRange maskTypes, Region &maskMod);

/// tx.attention_grad's clauses: parseAttentionClauses' plus the
/// `score_mod` and `mask_mod` regions, any order; printed with the regions
/// last.
ParseResult parseGradAttentionClauses(
    OpAsmParser &parser, OpAsmParser::UnresolvedOperand &value,
    OptionalOperand &mask, Type &maskType, OptionalOperand &kvLengths,
    Type &kvLengthsType, OptionalOperand &qLengths, Type &qLengthsType,
    FloatAttr &scale, FloatAttr &softcap, DenseI64ArrayAttr &window,
    UnitAttr &causal,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &scoreCaptures,
    SmallVectorImpl<Type> &scoreCaptureTypes, Region &scoreMod,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &maskCaptures,
    SmallVectorImpl<Type> &maskCaptureTypes, Region &maskMod);

void printGradAttentionClauses(
    OpAsmPrinter &printer, Operation *op, Value value, Value mask,
    Type maskType, Value kvLengths, Type kvLengthsType, Value qLengths,
    Type qLengthsType, FloatAttr scale, FloatAttr softcap,
    DenseI64ArrayAttr window, UnitAttr causal, OperandRange scoreCaptures,
    TypeRange scoreTypes, Region &scoreMod, OperandRange maskCaptures,
    TypeRange maskTypes, Region &maskMod);

/// custom<OnlineAttentionMods> of tx.online_attention: the optional
/// `score_mod(...) {...}` then `mask_mod(...) {...}` clauses, in that order
/// (AttentionMods.h).
ParseResult parseOnlineAttentionMods(
    OpAsmParser &parser,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &scoreCaptures,
    SmallVectorImpl<Type> &scoreCaptureTypes, Region &scoreMod,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &maskCaptures,
    SmallVectorImpl<Type> &maskCaptureTypes, Region &maskMod);

void printOnlineAttentionMods(OpAsmPrinter &printer, Operation *op,
                              OperandRange scoreCaptures, TypeRange scoreTypes,
                              Region &scoreMod, OperandRange maskCaptures,
                              TypeRange maskTypes, Region &maskMod);

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_IR_ATTENTIONSYNTAX_H
