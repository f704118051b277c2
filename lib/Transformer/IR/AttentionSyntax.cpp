//===- AttentionSyntax.cpp - tx.attention's optional clauses --------------===//
#include "IR/AttentionSyntax.h"
#include "IR/AttentionMods.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::tx;

/// `( %operand : type )` of an operand clause.
static ParseResult parseOperandClause(OpAsmParser &parser,
                                      OptionalOperand &operand, Type &type) {
  OpAsmParser::UnresolvedOperand value;
  if (parser.parseLParen() || parser.parseOperand(value) ||
      parser.parseColon() || parser.parseType(type) || parser.parseRParen())
    return failure();
  operand = value;
  return success();
}

/// A word where a clause may stand that is none (`caussal`): name the
/// clauses, and the nearest one.
static ParseResult unknownClause(OpAsmParser &parser, SMLoc loc,
                                 StringRef word, ArrayRef<StringRef> clauses) {
  InFlightDiagnostic diag = parser.emitError(loc)
                            << "unknown clause '" << word << "'";
  StringRef best;
  unsigned bestDist = ~0u;
  for (StringRef c : clauses) {
    unsigned d = word.edit_distance(c);
    if (d < bestDist)
      best = c, bestDist = d;
  }
  if (bestDist <= std::max<size_t>(2, word.size() / 3))
    diag << "; did you mean '" << best << "'?";
  diag << " (the clauses are mask(...), kv_lengths(...), q_lengths(...), "
       << (llvm::is_contained(clauses, "page_table") ? "page_table(...), " : "")
       << (llvm::is_contained(clauses, "score_mod")
               ? "scale = s, softcap = c, window = [l, r], causal, "
                 "score_mod(...) {...} and mask_mod(...) {...}"
               : "scale = s, softcap = c, window = [l, r] and causal")
       << ", in any order, then `:` and the types)";
  return diag;
}

/// The clauses of tx.attention (`pageTable` non-null: `page_table(...)`
/// is one; `parseMod` non-null: `score_mod` and `mask_mod`, parsed by it)
/// and tx.attention_grad.
static ParseResult
parseClauses(OpAsmParser &parser, OpAsmParser::UnresolvedOperand &value,
             OptionalOperand &mask, Type &maskType, OptionalOperand &kvLengths,
             Type &kvLengthsType, OptionalOperand &qLengths,
             Type &qLengthsType, OptionalOperand *pageTable,
             Type *pageTableType, FloatAttr &scale, FloatAttr &softcap,
             DenseI64ArrayAttr &window, UnitAttr &causal,
             function_ref<ParseResult(StringRef)> parseMod = nullptr) {
  SmallVector<StringRef> kClauses = {"mask", "kv_lengths", "q_lengths"};
  if (pageTable)
    kClauses.push_back("page_table");
  kClauses.append({"scale", "softcap", "window", "causal"});
  if (parseMod)
    kClauses.append({"score_mod", "mask_mod"});
  if (parser.parseOperand(value))
    return failure();
  llvm::StringSet<> seen;
  Type f32 = parser.getBuilder().getF32Type();
  while (true) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef clause;
    if (failed(parser.parseOptionalKeyword(&clause))) // `{`, `:` or the end
      return success();
    if (!llvm::is_contained(kClauses, clause))
      return unknownClause(parser, loc, clause, kClauses);
    if (!seen.insert(clause).second)
      return parser.emitError(loc)
             << "the clause '" << clause << "' appears twice";
    ParseResult r = success();
    if (clause == "score_mod" || clause == "mask_mod")
      r = parseMod(clause);
    else if (clause == "mask")
      r = parseOperandClause(parser, mask, maskType);
    else if (clause == "kv_lengths")
      r = parseOperandClause(parser, kvLengths, kvLengthsType);
    else if (clause == "q_lengths")
      r = parseOperandClause(parser, qLengths, qLengthsType);
    else if (clause == "page_table")
      r = parseOperandClause(parser, *pageTable, *pageTableType);
    else if (clause == "scale")
      r = failure(parser.parseEqual() ||
                  parser.parseCustomAttributeWithFallback(scale, f32));
    else if (clause == "softcap")
      r = failure(parser.parseEqual() ||
                  parser.parseCustomAttributeWithFallback(softcap, f32));
    else if (clause == "window")
      r = failure(parser.parseEqual() ||
                  parser.parseCustomAttributeWithFallback(window, Type{}));
    else
      causal = parser.getBuilder().getUnitAttr();
    if (failed(r))
      return failure();
  }
}

ParseResult mlir::tx::parseAttentionClauses(
    OpAsmParser &parser, OpAsmParser::UnresolvedOperand &value,
    OptionalOperand &mask, Type &maskType, OptionalOperand &kvLengths,
    Type &kvLengthsType, OptionalOperand &qLengths, Type &qLengthsType,
    FloatAttr &scale, FloatAttr &softcap, DenseI64ArrayAttr &window,
    UnitAttr &causal) {
  return parseClauses(parser, value, mask, maskType, kvLengths, kvLengthsType,
                      qLengths, qLengthsType, nullptr, nullptr, scale, softcap,
                      window, causal);
}

/// parseClauses with the `score_mod` and `mask_mod` regions among them
/// (tx.attention with `pageTable`, tx.attention_grad without).
static ParseResult parseClausesWithMods(
    OpAsmParser &parser, OpAsmParser::UnresolvedOperand &value,
    OptionalOperand &mask, Type &maskType, OptionalOperand &kvLengths,
    Type &kvLengthsType, OptionalOperand &qLengths, Type &qLengthsType,
    OptionalOperand *pageTable, Type *pageTableType, FloatAttr &scale,
    FloatAttr &softcap, DenseI64ArrayAttr &window, UnitAttr &causal,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &scoreCaptures,
    SmallVectorImpl<Type> &scoreCaptureTypes, Region &scoreMod,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &maskCaptures,
    SmallVectorImpl<Type> &maskCaptureTypes, Region &maskMod) {
  auto parseMod = [&](StringRef clause) {
    if (clause == "score_mod")
      return parseAttentionMod(parser, scoreCaptures, scoreCaptureTypes,
                               scoreMod);
    return parseAttentionMod(parser, maskCaptures, maskCaptureTypes, maskMod);
  };
  return parseClauses(parser, value, mask, maskType, kvLengths, kvLengthsType,
                      qLengths, qLengthsType, pageTable, pageTableType, scale,
                      softcap, window, causal, parseMod);
}

ParseResult mlir::tx::parsePagedAttentionClauses(
    OpAsmParser &parser, OpAsmParser::UnresolvedOperand &value,
    OptionalOperand &mask, Type &maskType, OptionalOperand &kvLengths,
    Type &kvLengthsType, OptionalOperand &qLengths, Type &qLengthsType,
    OptionalOperand &pageTable, Type &pageTableType, FloatAttr &scale,
    FloatAttr &softcap, DenseI64ArrayAttr &window, UnitAttr &causal,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &scoreCaptures,
    SmallVectorImpl<Type> &scoreCaptureTypes, Region &scoreMod,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &maskCaptures,
    SmallVectorImpl<Type> &maskCaptureTypes, Region &maskMod) {
  return parseClausesWithMods(
      parser, value, mask, maskType, kvLengths, kvLengthsType, qLengths,
      qLengthsType, &pageTable, &pageTableType, scale, softcap, window, causal,
      scoreCaptures, scoreCaptureTypes, scoreMod, maskCaptures,
      maskCaptureTypes, maskMod);
}

ParseResult mlir::tx::parseGradAttentionClauses(
    OpAsmParser &parser, OpAsmParser::UnresolvedOperand &value,
    OptionalOperand &mask, Type &maskType, OptionalOperand &kvLengths,
    Type &kvLengthsType, OptionalOperand &qLengths, Type &qLengthsType,
    FloatAttr &scale, FloatAttr &softcap, DenseI64ArrayAttr &window,
    UnitAttr &causal,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &scoreCaptures,
    SmallVectorImpl<Type> &scoreCaptureTypes, Region &scoreMod,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &maskCaptures,
    SmallVectorImpl<Type> &maskCaptureTypes, Region &maskMod) {
  return parseClausesWithMods(
      parser, value, mask, maskType, kvLengths, kvLengthsType, qLengths,
      qLengthsType, nullptr, nullptr, scale, softcap, window, causal,
      scoreCaptures, scoreCaptureTypes, scoreMod, maskCaptures,
      maskCaptureTypes, maskMod);
}

void mlir::tx::printGradAttentionClauses(
    OpAsmPrinter &printer, Operation *op, Value value, Value mask,
    Type maskType, Value kvLengths, Type kvLengthsType, Value qLengths,
    Type qLengthsType, FloatAttr scale, FloatAttr softcap,
    DenseI64ArrayAttr window, UnitAttr causal, OperandRange scoreCaptures,
    TypeRange scoreTypes, Region &scoreMod, OperandRange maskCaptures,
    TypeRange maskTypes, Region &maskMod) {
  printAttentionClauses(printer, op, value, mask, maskType, kvLengths,
                        kvLengthsType, qLengths, qLengthsType, scale, softcap,
                        window, causal);
  printAttentionMods(printer, scoreCaptures, scoreTypes, scoreMod,
                     maskCaptures, maskTypes, maskMod);
}

void mlir::tx::printPagedAttentionClauses(
    OpAsmPrinter &printer, Operation *op, Value value, Value mask,
    Type maskType, Value kvLengths, Type kvLengthsType, Value qLengths,
    Type qLengthsType, Value pageTable, Type pageTableType, FloatAttr scale,
    FloatAttr softcap, DenseI64ArrayAttr window, UnitAttr causal,
    OperandRange scoreCaptures, TypeRange scoreTypes, Region &scoreMod,
    OperandRange maskCaptures, TypeRange maskTypes, Region &maskMod) {
  printAttentionClauses(printer, op, value, mask, maskType, kvLengths,
                        kvLengthsType, qLengths, qLengthsType, scale, softcap,
                        window, causal, pageTable, pageTableType);
  printAttentionMods(printer, scoreCaptures, scoreTypes, scoreMod,
                     maskCaptures, maskTypes, maskMod);
}

void mlir::tx::printAttentionClauses(
    OpAsmPrinter &printer, Operation *, Value value, Value mask, Type maskType,
    Value kvLengths, Type kvLengthsType, Value qLengths, Type qLengthsType,
    FloatAttr scale, FloatAttr softcap, DenseI64ArrayAttr window,
    UnitAttr causal, Value pageTable, Type pageTableType) {
  printer << value;
  auto operandClause = [&](StringRef name, Value v, Type t) {
    if (v)
      printer << ' ' << name << '(' << v << " : " << t << ')';
  };
  operandClause("mask", mask, maskType);
  operandClause("kv_lengths", kvLengths, kvLengthsType);
  operandClause("q_lengths", qLengths, qLengthsType);
  operandClause("page_table", pageTable, pageTableType);
  auto floatClause = [&](StringRef name, FloatAttr a) {
    if (a) {
      printer << ' ' << name << " = ";
      printer.printAttributeWithoutType(a);
    }
  };
  floatClause("scale", scale);
  floatClause("softcap", softcap);
  if (window) {
    printer << " window = ";
    printer.printStrippedAttrOrType(window);
  }
  if (causal)
    printer << " causal";
}

ParseResult mlir::tx::parseOnlineAttentionMods(
    OpAsmParser &parser,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &scoreCaptures,
    SmallVectorImpl<Type> &scoreCaptureTypes, Region &scoreMod,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &maskCaptures,
    SmallVectorImpl<Type> &maskCaptureTypes, Region &maskMod) {
  if (succeeded(parser.parseOptionalKeyword("score_mod")) &&
      failed(parseAttentionMod(parser, scoreCaptures, scoreCaptureTypes,
                               scoreMod)))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("mask_mod")) &&
      failed(parseAttentionMod(parser, maskCaptures, maskCaptureTypes,
                               maskMod)))
    return failure();
  return success();
}

void mlir::tx::printOnlineAttentionMods(
    OpAsmPrinter &printer, Operation *, OperandRange scoreCaptures,
    TypeRange scoreTypes, Region &scoreMod, OperandRange maskCaptures,
    TypeRange maskTypes, Region &maskMod) {
  // (The generated printer has written the space before the directive.)
  printAttentionMods(printer, scoreCaptures, scoreTypes, scoreMod,
                     maskCaptures, maskTypes, maskMod, /*leadingSpace=*/false);
}
