//===- VerifyHelpers.h - the rules the tx verifiers share ---------*- C++ -*-===//
//
// The checks tx.attention, tx.attention_grad and tx.online_attention (and
// the softmax ops) share, so that one rule has one message everywhere
// (test/Dialect/invalid.mlir and grad-invalid.mlir pin them).
//
// Private to lib/Transformer/IR.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_IR_VERIFYHELPERS_H
#define TRANSFORMER_IR_VERIFYHELPERS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include <string>

namespace mlir {
namespace tx {

/// A dimension size as messages print it: a number, or `?` when dynamic.
std::string dimStr(int64_t size);
/// A shape as messages print it: `[2, ?, 16]`.
std::string shapeStr(ArrayRef<int64_t> shape);
/// The shortest decimal form of an f32 attribute's value that reads back as
/// the same float.
std::string floatStr(double x);
/// True when two sizes may be equal (either is dynamic, or both are equal).
bool compatible(int64_t a, int64_t b);
/// The scale applied to Q·Kᵀ by tx.attention and tx.attention_grad: `scale`
/// when given, else 1/sqrt(D) of the query type `q` ([B, H, Sq, D]);
/// std::nullopt when D is dynamic (the lowering computes it).
std::optional<double> staticScale(FloatAttr scale, RankedTensorType q);

/// Attributes without a dialect prefix that are not the op's own (`own`):
/// an error naming the nearest own attribute.
LogicalResult verifyNoUnknownAttributes(Operation *op,
                                        ArrayRef<StringRef> own);

/// The mask rules: rank 4, element type i1 (keep-mask) or `elt`
/// (additive), shape [B|1, H|1, rows, keys] = `want` (dimensions named
/// `names`); with `quoteShape` a bad broadcast dimension also quotes the
/// whole expected shape.
LogicalResult verifyMask(Operation *op, Value mask, Type elt,
                         ArrayRef<int64_t> want, ArrayRef<const char *> names,
                         bool quoteShape);

/// The Q/K/V rules (rank-4 operands already checked): one element type,
/// equal B and D across Q/K, equal Hkv and key length across K/V (`keyLen`
/// names it), H a multiple of Hkv when both are static.
LogicalResult verifyQKV(Operation *op, RankedTensorType qTy,
                        RankedTensorType kTy, RankedTensorType vTy,
                        StringRef keyLen);

/// `name` (the scale or softcap attribute) must be positive and finite.
LogicalResult verifyPositiveFinite(Operation *op, StringRef name, double x);

/// A tensor that must have rank `rank` (`name` and `layout` for the
/// message: "expects <name> of rank <rank> <layout>, got rank N").
struct RankRule {
  RankedTensorType type;
  int64_t rank;
  StringRef name, layout;
};
LogicalResult verifyRanks(Operation *op, ArrayRef<RankRule> rules);

/// `ty` must have element type `elt` and a shape compatible with `want`
/// (named `layout`, e.g. "[B, H, Sq, Dv]"); `what` names it ("result",
/// "log-sum-exp result", "grad_output").
LogicalResult verifyShapeLike(Operation *op, RankedTensorType ty, Type elt,
                              ArrayRef<int64_t> want, StringRef what,
                              StringRef layout);

/// The clauses of tx.attention and tx.attention_grad on Q [B, H, Sq, D],
/// K, V (already checked by verifyQKV): the mask, the per-sequence lengths
/// (i32 [B]), the scale (or D > 0 for the default), the softcap and the
/// window.
LogicalResult verifyAttentionClauses(Operation *op, RankedTensorType qTy,
                                     RankedTensorType kTy,
                                     RankedTensorType vTy, Value mask,
                                     Value kvLengths, Value qLengths,
                                     FloatAttr scale, FloatAttr softcap,
                                     DenseI64ArrayAttr window);

/// tx.attention's page pools K [num_pages, page_size, Hkv, D] and V
/// [num_pages, page_size, Hkv, Dv] and its page table i32 [B, max_pages]:
/// ranks, the table's batch, equal num_pages and page_size, a static page
/// size a power of two from 1 to 256 (PagedKv.cpp).
LogicalResult verifyPagedKv(Operation *op, RankedTensorType qTy,
                            RankedTensorType kTy, RankedTensorType vTy,
                            Value pageTable);

/// The diagonal operand of the tiled ops (tx.online_attention and the
/// backward's block ops): `causal_offset` is present iff the op is causal
/// or has a window.
LogicalResult verifyBandOperands(Operation *op, bool causal,
                                 DenseI64ArrayAttr window, Value causalOffset);

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_IR_VERIFYHELPERS_H
