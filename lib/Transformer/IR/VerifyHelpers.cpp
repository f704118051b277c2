//===- VerifyHelpers.cpp - the rules the tx verifiers share ---------------===//
#include "IR/VerifyHelpers.h"
#include "Transformer/AttentionShapes.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>
#include <cstdlib>

namespace mlir {
namespace tx {

/// Prints a dimension size: a number, or `?` when dynamic.
std::string dimStr(int64_t size) {
  return ShapedType::isDynamic(size) ? std::string("?") : std::to_string(size);
}

std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + dimStr(d);
  return s + "]";
}

/// The shortest decimal form of an f32 attribute's value that reads back as
/// the same float, without an exponent for ordinary magnitudes (so -0.0001
/// is not printed as "-0.00", nor -30 as "-3e+01").
std::string floatStr(double x) {
  if (std::isnan(x))
    return "nan";
  if (std::isinf(x))
    return x > 0 ? "inf" : "-inf";
  auto readsBack = [&](const std::string &t) {
    return static_cast<float>(std::strtod(t.c_str(), nullptr)) ==
           static_cast<float>(x);
  };
  double mag = std::fabs(x);
  if (mag == 0 || (mag >= 1e-5 && mag < 1e15)) {
    for (int decimals = 0; decimals < 40; ++decimals) {
      std::string t = llvm::formatv("{0}", llvm::format("%.*f", decimals, x));
      if (readsBack(t))
        return t;
    }
  }
  for (int digits = 1; digits < 17; ++digits) {
    std::string t = llvm::formatv("{0}", llvm::format("%.*g", digits, x));
    if (readsBack(t))
      return t;
  }
  return llvm::formatv("{0}", llvm::format("%.17g", x)).str();
}

/// Attributes without a dialect prefix that are not the op's own: almost
/// always a misspelled clause (`{is_causal}` for `causal`), which would
/// otherwise be kept and ignored. Names the nearest own attribute.
LogicalResult verifyNoUnknownAttributes(Operation *op,
                                               ArrayRef<StringRef> own) {
  for (NamedAttribute attr : op->getDiscardableAttrs()) {
    StringRef name = attr.getName().getValue();
    if (name.contains('.'))
      continue; // another dialect's (tx.gpu_strategy, llvm.*, ...)
    InFlightDiagnostic diag = op->emitOpError()
                              << "has an unknown attribute '" << name << "'";
    StringRef best;
    unsigned bestDist = ~0u;
    for (StringRef o : own) {
      if (o == "operandSegmentSizes")
        continue;
      unsigned d = name.edit_distance(o);
      if (d < bestDist)
        best = o, bestDist = d;
    }
    if (!best.empty() && bestDist <= std::max<size_t>(2, name.size() / 2))
      diag << "; did you mean '" << best << "'?";
    diag << " (attributes of other dialects carry their prefix, e.g. "
            "'tx.gpu_strategy')";
    return diag;
  }
  return success();
}

/// True when two sizes may be equal (either is dynamic, or both are equal).
bool compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

std::optional<double> staticScale(FloatAttr scale, RankedTensorType q) {
  if (scale)
    return scale.getValueAsDouble();
  int64_t d = q.getDimSize(3);
  if (ShapedType::isDynamic(d))
    return std::nullopt;
  return 1.0 / std::sqrt(static_cast<double>(d));
}

/// The mask rules shared by tx.attention and tx.online_attention: rank 4,
/// element type i1 (keep-mask) or the query's (additive), shape
/// [B|1, H|1, rows, keys] = `want` (dimensions named `names`). With
/// `quoteShape`, a bad broadcast dimension also quotes the whole expected
/// shape.
LogicalResult verifyMask(Operation *op, Value mask, Type elt,
                                ArrayRef<int64_t> want,
                                ArrayRef<const char *> names,
                                bool quoteShape) {
  auto mTy = cast<RankedTensorType>(mask.getType());
  if (mTy.getRank() != 4)
    return op->emitOpError()
           << "expects a mask of rank 4 [" << names[0] << "|1, " << names[1]
           << "|1, " << names[2] << ", " << names[3] << "], got rank "
           << mTy.getRank();
  Type mElt = mTy.getElementType();
  if (!mElt.isInteger(1) && mElt != elt)
    return op->emitOpError() << "expects an i1 keep-mask or an additive mask "
                                "with the query element type "
                             << elt << ", got a mask of " << mElt;
  auto m = mTy.getShape();
  for (int i = 0; i < 4; ++i) {
    if (compatible(m[i], want[i]) || (i < 2 && m[i] == 1))
      continue;
    auto diag = op->emitOpError() << "mask dimension " << i << " ("
                                  << names[i] << ") has size " << m[i]
                                  << ", expected ";
    if (i >= 2 || want[i] == 1)
      return diag << want[i];
    diag << "1 or " << want[i];
    if (quoteShape)
      diag << " (mask shape must broadcast to [" << names[0] << ", "
           << names[1] << ", " << names[2] << ", " << names[3]
           << "] = " << shapeStr(want) << ")";
    return diag;
  }
  return success();
}

/// The Q/K/V rules shared by tx.attention and tx.online_attention (rank-4
/// operands already checked): one element type, equal B and D across Q/K,
/// equal Hkv and key length across K/V (`keyLen` names it in messages), and
/// H a multiple of Hkv when both are static.
LogicalResult verifyQKV(Operation *op, RankedTensorType qTy,
                               RankedTensorType kTy, RankedTensorType vTy,
                               StringRef keyLen) {
  Type elt = qTy.getElementType();
  if (kTy.getElementType() != elt || vTy.getElementType() != elt)
    return op->emitOpError()
           << "expects query, key and value to have the same element type, got "
           << elt << ", " << kTy.getElementType() << " and "
           << vTy.getElementType();
  auto q = qTy.getShape(), k = kTy.getShape(), v = vTy.getShape();
  if (!compatible(q[0], k[0]) || !compatible(q[0], v[0]) ||
      !compatible(k[0], v[0]))
    return op->emitOpError() << "batch size (B) mismatch: query has "
                             << dimStr(q[0]) << ", key has " << dimStr(k[0])
                             << ", value has " << dimStr(v[0]);
  if (!compatible(q[3], k[3]))
    return op->emitOpError() << "head dimension (D) of query (" << dimStr(q[3])
                             << ") and key (" << dimStr(k[3]) << ") must match";
  if (!compatible(k[1], v[1]))
    return op->emitOpError() << "number of K/V heads (Hkv) of key ("
                             << dimStr(k[1]) << ") and value (" << dimStr(v[1])
                             << ") must match";
  if (!compatible(k[2], v[2]))
    return op->emitOpError() << keyLen << " of key (" << dimStr(k[2])
                             << ") and value (" << dimStr(v[2])
                             << ") must match";
  // Grouped-query attention: H must be a multiple of Hkv.
  int64_t h = q[1];
  int64_t hkv = ShapedType::isDynamic(k[1]) ? v[1] : k[1];
  if (!ShapedType::isDynamic(h) && !ShapedType::isDynamic(hkv)) {
    if (hkv == 0 && h != 0)
      return op->emitOpError()
             << "number of K/V heads (Hkv) is 0 but the query has H = " << h
             << " heads";
    if (hkv != 0 && h % hkv != 0)
      return op->emitOpError()
             << "number of query heads (H = " << h
             << ") must be a multiple of the number of K/V heads (Hkv = "
             << hkv << ")";
  }
  return success();
}

/// `name` must be positive and finite (the scale and softcap attributes).
LogicalResult verifyPositiveFinite(Operation *op, StringRef name,
                                          double x) {
  if (x > 0.0 && std::isfinite(x))
    return success();
  return op->emitOpError() << name << " must be positive and finite, got "
                           << floatStr(x);
}

LogicalResult verifyRanks(Operation *op, ArrayRef<RankRule> rules) {
  for (const RankRule &r : rules)
    if (r.type.getRank() != r.rank)
      return op->emitOpError()
             << "expects " << r.name << " of rank " << r.rank << " "
             << r.layout << ", got rank " << r.type.getRank();
  return success();
}

LogicalResult verifyShapeLike(Operation *op, RankedTensorType ty, Type elt,
                              ArrayRef<int64_t> want, StringRef what,
                              StringRef layout) {
  if (ty.getElementType() != elt)
    return op->emitOpError() << "expects the " << what << " element type "
                             << ty.getElementType() << " to be " << elt;
  bool ok = ty.getRank() == static_cast<int64_t>(want.size());
  for (size_t i = 0; ok && i < want.size(); ++i)
    ok = compatible(ty.getDimSize(i), want[i]);
  if (!ok)
    return op->emitOpError() << what << " shape " << shapeStr(ty.getShape())
                             << " does not match " << layout << " = "
                             << shapeStr(want);
  return success();
}

LogicalResult verifyAttentionClauses(Operation *op, RankedTensorType qTy,
                                     RankedTensorType kTy,
                                     RankedTensorType vTy, Value mask,
                                     Value kvLengths, Value qLengths,
                                     FloatAttr scale, FloatAttr softcap,
                                     DenseI64ArrayAttr window) {
  auto q = qTy.getShape(), k = kTy.getShape(), v = vTy.getShape();
  if (mask) {
    int64_t sk = ShapedType::isDynamic(k[2]) ? v[2] : k[2];
    if (failed(verifyMask(op, mask, qTy.getElementType(),
                          {q[0], q[1], q[2], sk}, {"B", "H", "Sq", "Sk"},
                          /*quoteShape=*/true)))
      return failure();
  }
  // Per-sequence lengths: i32 [B].
  for (auto [len, name] : {std::pair<Value, StringRef>{kvLengths, "kv_lengths"},
                           {qLengths, "q_lengths"}}) {
    if (!len)
      continue;
    auto lTy = cast<RankedTensorType>(len.getType());
    if (lTy.getRank() != 1 || !compatible(lTy.getDimSize(0), q[0]))
      return op->emitOpError()
             << name << " must have shape [B] = " << shapeStr({q[0]})
             << " (one length per batch), got " << lTy;
  }
  if (scale) {
    if (failed(verifyPositiveFinite(op, "scale", scale.getValueAsDouble())))
      return failure();
  } else if (q[3] == 0) {
    return op->emitOpError("the default scale 1/sqrt(D) needs D > 0, got "
                           "D = 0; give an explicit scale");
  }
  if (softcap &&
      failed(verifyPositiveFinite(op, "softcap", softcap.getValueAsDouble())))
    return failure();
  return verifyWindow(op, window);
}

LogicalResult verifyBandOperands(Operation *op, bool causal,
                                 DenseI64ArrayAttr window,
                                 Value causalOffset) {
  if (causal && !causalOffset)
    return op->emitOpError("is causal but has no causal_offset operand (key "
                           "j is visible to query i iff j <= i + "
                           "causal_offset)");
  if (window && !causalOffset)
    return op->emitOpError("has a window but no causal_offset operand (key j "
                           "is visible to query i iff i + causal_offset - "
                           "left <= j <= i + causal_offset + right)");
  if (!causal && !window && causalOffset)
    return op->emitOpError("has a causal_offset operand but is neither "
                           "causal nor windowed");
  return success();
}

} // namespace tx
} // namespace mlir
