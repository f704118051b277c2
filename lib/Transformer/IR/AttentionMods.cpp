//===- AttentionMods.cpp - tx.attention's score and mask functions --------===//
#include "IR/AttentionMods.h"
#include "IR/AttentionModGrad.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tx;

/// `(%c : T, ...)` of captured operands, or nothing.
static ParseResult
parseCaptures(OpAsmParser &parser,
              SmallVectorImpl<OpAsmParser::UnresolvedOperand> &captures,
              SmallVectorImpl<Type> &types) {
  if (failed(parser.parseOptionalLParen()))
    return success();
  return failure(parser.parseCommaSeparatedList([&]() -> ParseResult {
    OpAsmParser::UnresolvedOperand v;
    Type t;
    if (parser.parseOperand(v) || parser.parseColonType(t))
      return failure();
    captures.push_back(v);
    types.push_back(t);
    return success();
  }) || parser.parseRParen());
}

ParseResult mlir::tx::parseAttentionMod(
    OpAsmParser &parser,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &captures,
    SmallVectorImpl<Type> &captureTypes, Region &mod) {
  SMLoc loc = parser.getCurrentLocation();
  if (parseCaptures(parser, captures, captureTypes) ||
      parser.parseRegion(mod, /*arguments=*/{}))
    return failure();
  if (mod.empty())
    return parser.emitError(loc)
           << "a score or mask function needs a body: { ^bb0(...): ... "
              "tx.yield %x : T }";
  return success();
}

void mlir::tx::printAttentionMods(OpAsmPrinter &printer,
                                  OperandRange scoreCaptures,
                                  TypeRange scoreTypes, Region &scoreMod,
                                  OperandRange maskCaptures,
                                  TypeRange maskTypes, Region &maskMod,
                                  bool leadingSpace) {
  auto one = [&](StringRef name, OperandRange caps, TypeRange types,
                 Region &r) {
    if (r.empty())
      return;
    if (leadingSpace)
      printer << ' ';
    leadingSpace = true;
    printer << name;
    if (!caps.empty()) {
      printer << '(';
      llvm::interleaveComma(llvm::zip(caps, types), printer, [&](auto ct) {
        printer << std::get<0>(ct) << " : " << std::get<1>(ct);
      });
      printer << ')';
    }
    printer << ' ';
    printer.printRegion(r, /*printEntryBlockArgs=*/true);
  };
  one("score_mod", scoreCaptures, scoreTypes, scoreMod);
  one("mask_mod", maskCaptures, maskTypes, maskMod);
}

/// A scalar a score or mask function may capture (or a captured tensor's
/// element type): what every path, the GPU's included, computes with.
static bool isScalarOfMod(Type t) {
  if (auto i = dyn_cast<IntegerType>(t))
    return i.getWidth() <= 64;
  return isa<IndexType, Float16Type, BFloat16Type, Float32Type, Float64Type>(
      t);
}

/// `t1, t2, ...` unquoted (a diagnostic quotes each type it is given).
static std::string typeList(TypeRange types) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(types, os);
  return text;
}

/// The rules of one region (`score`: score_mod, else mask_mod).
static LogicalResult verifyMod(Operation *op, Region &r, ValueRange captures,
                               bool score) {
  StringRef name = score ? "score_mod" : "mask_mod";
  if (r.empty()) {
    if (!captures.empty())
      return op->emitOpError() << "has " << captures.size()
                              << " operands captured for " << name
                              << " but no " << name << " region";
    return success();
  }
  if (!r.hasOneBlock())
    return op->emitOpError() << name << " must have one block";
  Block &body = r.front();
  Builder b(op->getContext());
  SmallVector<Type> want;
  if (score)
    want.push_back(b.getF32Type());
  want.append(4, b.getIndexType());
  for (Value c : captures)
    want.push_back(c.getType());
  StringRef sig = score ? "(f32 score, index b, index h, index q_idx, index "
                          "kv_idx"
                        : "(index b, index h, index q_idx, index kv_idx";
  if (body.getNumArguments() != want.size() ||
      TypeRange(body.getArgumentTypes()) != TypeRange(want))
    return op->emitOpError()
           << name << "'s block must take " << sig << ") then one argument "
           << "per captured operand (" << captures.size() << "), i.e. ("
           << typeList(want) << "); got ("
           << typeList(body.getArgumentTypes()) << ")";
  for (Value c : captures) {
    Type t = c.getType();
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!isScalarOfMod(tensor ? tensor.getElementType() : t))
      return op->emitOpError()
             << name << " may capture ranked tensors and scalars of integers "
             << "of at most 64 bits, index, f16, bf16, f32 or f64, not "
             << t;
  }
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  Type yieldTy = score ? Type(b.getF32Type()) : Type(b.getI1Type());
  if (!yield)
    return op->emitOpError() << name << " must end in tx.yield";
  if (yield.getValue().getType() != yieldTy)
    return yield.emitOpError()
           << "in " << name << " must yield one " << yieldTy << ", got "
           << yield.getValue().getType();
  // (Values from above: the op is IsolatedFromAbove, whose check runs
  // first.)
  WalkResult w = r.walk([&](Operation *inner) -> WalkResult {
    if (!isMemoryEffectFree(inner)) {
      inner->emitOpError() << "in " << name
                           << " has side effects; a score or mask function "
                              "may only compute values";
      return WalkResult::interrupt();
    }
    if (llvm::any_of(inner->getResultTypes(), llvm::IsaPred<ShapedType>)) {
      inner->emitOpError() << "in " << name
                           << " yields a tensor; a score or mask function "
                              "computes scalars (read captured tensors "
                              "with tensor.extract)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(w.wasInterrupted());
}

LogicalResult AttentionOp::verifyRegions() {
  return verifyAttentionMods(*this);
}

LogicalResult mlir::tx::verifyAttentionMods(AttentionOp op) {
  if (failed(verifyMod(op, op.getScoreMod(), op.getScoreCaptures(), true)) ||
      failed(verifyMod(op, op.getMaskMod(), op.getMaskCaptures(), false)))
    return failure();
  return success();
}

LogicalResult AttentionGradOp::verifyRegions() {
  if (failed(verifyMod(*this, getScoreMod(), getScoreCaptures(), true)) ||
      failed(verifyMod(*this, getMaskMod(), getMaskCaptures(), false)))
    return failure();
  if (getScoreMod().empty())
    return success();
  if (Operation *bad = firstNonDifferentiable(getScoreMod()))
    return bad->emitOpError()
           << "in score_mod depends on the score and tx cannot differentiate "
              "it (differentiable: arith add, sub, mul, div, neg, min/max, "
              "select, extf, truncf; math exp, exp2, expm1, log, log2, "
              "log1p, tanh, sqrt, rsqrt, sin, cos, absf, erf, powf, fma, "
              "floor, ceil, trunc, round, roundeven)";
  return success();
}

LogicalResult OnlineAttentionOp::verifyRegions() {
  if (failed(verifyMod(*this, getScoreMod(), getScoreCaptures(), true)) ||
      failed(verifyMod(*this, getMaskMod(), getMaskCaptures(), false)))
    return failure();
  size_t want = hasMods() ? 4 : 0;
  if (getModOffsets().size() != want)
    return emitOpError() << (hasMods()
                                 ? "with a score_mod or mask_mod region "
                                   "needs mod_offsets(b0, h0, i0, j0): the "
                                   "whole op's indices of the tile's first "
                                   "element; got "
                                 : "has mod_offsets but no score_mod or "
                                   "mask_mod region; got ")
                         << getModOffsets().size() << " offsets";
  return success();
}

Value mlir::tx::inlineAttentionMod(OpBuilder &b, Region &mod,
                                   ValueRange captures, Value score,
                                   ValueRange bhij) {
  Block &body = mod.front();
  IRMapping map;
  unsigned a = 0;
  if (score)
    map.map(body.getArgument(a++), score);
  for (Value idx : bhij)
    map.map(body.getArgument(a++), idx);
  for (Value c : captures)
    map.map(body.getArgument(a++), c);
  for (Operation &inner : body.without_terminator())
    b.clone(inner, map);
  return map.lookupOrDefault(cast<YieldOp>(body.getTerminator()).getValue());
}

Value mlir::tx::inlineAttentionMod(OpBuilder &b, AttentionOp op, Region &mod,
                                   Value score, ValueRange bhij) {
  bool isScore = &mod == &op.getScoreMod();
  return inlineAttentionMod(b, mod,
                            isScore ? ValueRange(op.getScoreCaptures())
                                    : ValueRange(op.getMaskCaptures()),
                            isScore ? score : Value(), bhij);
}

SmallVector<Value> mlir::tx::tileModOffsets(OpBuilder &b, Location loc,
                                            bool hasMods, ValueRange base,
                                            ArrayRef<OpFoldResult> by) {
  if (!hasMods)
    return {};
  SmallVector<Value> out;
  AffineExpr s0, s1;
  bindSymbols(b.getContext(), s0, s1);
  for (auto [d, off] : llvm::enumerate(by)) {
    OpFoldResult sum = off;
    if (!base.empty())
      sum = affine::makeComposedFoldedAffineApply(b, loc, s0 + s1,
                                                  {base[d], off});
    out.push_back(getValueOrCreateConstantIndexOp(b, loc, sum));
  }
  return out;
}

void mlir::tx::cloneAttentionMods(Region &score, Region &mask,
                                  OnlineAttentionOp to) {
  IRMapping map;
  score.cloneInto(&to.getScoreMod(), map);
  mask.cloneInto(&to.getMaskMod(), map);
}
