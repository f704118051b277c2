//===- AttentionShapes.h - sizes and run-time checks of tx.attention -*- C++ -*-===//
//
// Shared by every lowering of tx.attention (convert-tx-to-linalg,
// tx-attention-to-gpu), so that all paths check the same rules with the same
// messages.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_ATTENTIONSHAPES_H
#define TRANSFORMER_ATTENTIONSHAPES_H

#include <functional>

#include "Transformer/TxOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir {
namespace tx {

/// The sizes of a tx.attention (static sizes as attributes), with
/// G = H / Hkv, the query heads per K/V head.
struct AttentionSizes {
  OpFoldResult B, H, Sq, D, Hkv, Sk, Dv, G;
};

/// Reads the sizes of `op` (tensor.dim on its operands where dynamic) at the
/// builder's insertion point and emits a `cf.assert` for every shape rule the
/// verifier could not decide statically: equal B, D, Hkv and Sk across
/// Q/K/V, Hkv > 0 unless H == 0, H a multiple of Hkv, the mask's
/// [B|1, H|1, Sq, Sk], and B entries in kv_lengths / q_lengths. A violation at run time aborts with the rule's
/// message, never wrong numbers. G never divides by zero.
AttentionSizes emitAttentionSizesAndChecks(OpBuilder &b, AttentionOp op);

/// The same for the operands of a tx.attention (`mask` may be null), with
/// the checks only when `checks` (a lowering of tiled IR whose tiling
/// already emitted them passes false).
AttentionSizes emitAttentionSizesAndChecks(OpBuilder &b, Location loc,
                                           Value query, Value key, Value value,
                                           Value mask, bool checks,
                                           Value kvLengths = Value(),
                                           Value qLengths = Value());

/// The last step of every attention lowering, for one element: `acc / sum`,
/// or 0 when `sum` is 0 (a row that saw no key), rounded once to `elt`.
/// Emitted inside a linalg.generic body.
Value emitNormalizedOutput(OpBuilder &b, Location loc, Value acc, Value sum,
                           Type elt);

/// The name of the attribute that tags the epilogue linalg.generic ops of a
/// tiled tx.attention ("output" or "lse"), so that the GPU mapping finds
/// them in the tiled IR.
inline constexpr llvm::StringLiteral kAttentionEpilogueAttr =
    "tx.attention_epilogue";

/// The epilogue of the online-softmax state (acc [.., Dv], max, sum; f32):
/// `O = (sum == 0) ? 0 : acc / sum` rounded once to `elt`, and when
/// `withLse` `lse = (sum == 0) ? -inf : max + log(sum)` (f32), as
/// linalg.generic ops on tensors tagged with kAttentionEpilogueAttr.
/// Returns {O, lse or null}.
std::pair<Value, Value> emitAttentionEpilogue(OpBuilder &b, Location loc,
                                              Value acc, Value max, Value sum,
                                              Type elt, bool withLse);

/// Q * factor (f32 product, rounded back to Q's element type): the scale of
/// an op whose default scale 1/sqrt(D) is only known at run time.
Value scaleQuery(OpBuilder &b, Location loc, Value q, Value factor);

/// A scalar extended to f32 (arith.extf; `v` itself when it is f32), as the
/// reference lowerings read Q, K, V and masks.
Value toF32(OpBuilder &b, Location loc, Value v);

/// Inside a linalg.generic body: the mask entry `mv` applied to the f32
/// score `x`. An i1 keep-mask (`keepMask`) selects `x` or `negInf`; an
/// additive mask adds `mv` in f32, except that a -inf entry gives -inf by a
/// select, not an add (a NaN/Inf score of a hidden key must not become NaN).
Value applyMask(OpBuilder &b, Location loc, Value x, Value mv, bool keepMask,
                Value negInf);

/// Logit soft-capping (Gemma 2): `c * tanh(s / c)` for an f32 score `s`
/// and the op's `softcap` attribute `c` (math.tanh in f32). Emitted inside
/// a linalg.generic body, after the scale and before masks.
Value applySoftcap(OpBuilder &b, Location loc, Value s, FloatAttr softcap);

/// The keys a query sees under `causal` and a sliding `window = [left,
/// right]` (-1 = unbounded), relative to the diagonal `i + off`: key j is
/// visible to query i iff `i + off - left <= j` (when `left` is set) and
/// `j <= i + off + right` (when `right` is set). `causal` sets `right` to
/// `min(right, 0)` (0 when the window's right side is unbounded).
struct KeyBand {
  std::optional<int64_t> left, right;
  /// True if the band hides any key (a diagonal offset is needed).
  bool bounded() const { return left.has_value() || right.has_value(); }
};
KeyBand keyBand(bool causal, DenseI64ArrayAttr window);

/// Inside a linalg.generic body: `x`, or `negInf` where key `j` lies outside
/// `band` for query `i` with diagonal offset `off` (index values).
Value applyKeyBand(OpBuilder &b, Location loc, Value x, Value i, Value j,
                   Value off, const KeyBand &band, Value negInf);

/// The clauses of an attention op that act on each score, for the
/// reference lowerings' linalg.generic bodies (applyScoreRules). The values
/// are defined outside the generic.
struct ScoreRules {
  Value scale;           // f32: the scale of Q K^T
  FloatAttr softcap;     // null: no soft cap
  bool keepMask = false; // the mask entry is an i1 keep flag (else additive)
  KeyBand band;          // causal / window
  Value sk, sq;          // index: Sk and Sq
  Value skMinusSq;       // index: Sk - Sq, when band.bounded()
  Value negInf;          // f32 -inf
  unsigned iDim = 0, jDim = 0; // the generic's dims of query i and key j
  /// tx.attention's score function (score_mod), when it has one: built in
  /// the body from the capped score; applied before the mask.
  std::function<Value(OpBuilder &, Location, Value)> scoreMod;
  /// Its mask function (mask_mod): the i1 visibility of the body's (i, j).
  std::function<Value(OpBuilder &, Location)> maskMod;
};

/// The ScoreRules of an attention op's clauses (`scale` and `negInf` f32
/// values; the band from `causal` and `window`), with Sk, Sq and, for a
/// band, Sk - Sq created at the builder's insertion point from `sz`.
ScoreRules makeScoreRules(OpBuilder &b, Location loc, const AttentionSizes &sz,
                          Value scale, Value negInf, FloatAttr softcap,
                          bool causal, DenseI64ArrayAttr window,
                          bool keepMask, unsigned iDim, unsigned jDim);

/// Inside a linalg.generic body: the raw score `raw` (f32 sum of Q K
/// products) scaled, soft-capped, masked by `maskEntry` (null: no mask),
/// and -inf where key j is outside the band or past `kvLen` or query i past
/// `qLen` (i32 entries of kv_lengths / q_lengths, clamped into [0, Sk] /
/// [0, Sq]; null: none), the band aligned bottom-right per sequence. The
/// order of the steps is tx.attention's (TxOps.td).
Value applyScoreRules(OpBuilder &b, Location loc, Value raw, Value maskEntry,
                      Value kvLen, Value qLen, const ScoreRules &rules);

/// Verifies a `window` attribute: two entries, each -1 or >= 0.
LogicalResult verifyWindow(Operation *op, DenseI64ArrayAttr window);

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_ATTENTIONSHAPES_H
