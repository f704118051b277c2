//===- TxOps.cpp - tx operations: verifiers and shape reification ---------===//
//
// Every rule that the op descriptions in TxOps.td state is checked here
// wherever the sizes involved are static; test/Dialect/invalid.mlir pins each
// message.
//
//===----------------------------------------------------------------------===//
#include "Transformer/TxOps.h"
#include "IR/AttentionSyntax.h"
#include "Transformer/AttentionShapes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>
#include <cstdlib>

using namespace mlir;
using namespace mlir::tx;

#define GET_OP_CLASSES
#include "Transformer/TxOps.cpp.inc"

/// Prints a dimension size: a number, or `?` when dynamic.
static std::string dimStr(int64_t size) {
  return ShapedType::isDynamic(size) ? std::string("?") : std::to_string(size);
}

static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + dimStr(d);
  return s + "]";
}

/// The shortest decimal form of an f32 attribute's value that reads back as
/// the same float, without an exponent for ordinary magnitudes (so -0.0001
/// is not printed as "-0.00", nor -30 as "-3e+01").
static std::string floatStr(double x) {
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
static LogicalResult verifyNoUnknownAttributes(Operation *op,
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
static bool compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// The mask rules shared by tx.attention and tx.online_attention: rank 4,
/// element type i1 (keep-mask) or the query's (additive), shape
/// [B|1, H|1, rows, keys] = `want` (dimensions named `names`). With
/// `quoteShape`, a bad broadcast dimension also quotes the whole expected
/// shape.
static LogicalResult verifyMask(Operation *op, Value mask, Type elt,
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
static LogicalResult verifyQKV(Operation *op, RankedTensorType qTy,
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

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

int64_t SoftmaxOp::getNormalizedDim() {
  int64_t rank = getInput().getType().getRank();
  int64_t dim = getDim();
  return dim < 0 ? dim + rank : dim;
}

LogicalResult SoftmaxOp::verify() {
  if (failed(verifyNoUnknownAttributes(*this, getAttributeNames())))
    return failure();
  int64_t rank = getInput().getType().getRank();
  if (rank < 1)
    return emitOpError("expects an input of rank >= 1, got rank 0");
  int64_t dim = getDim();
  if (dim < -rank || dim >= rank)
    return emitOpError() << "dim " << dim << " is out of range [" << -rank
                         << ", " << rank << ") for an input of rank " << rank;
  return success();
}

LogicalResult
SoftmaxOp::reifyResultShapes(OpBuilder &builder,
                             ReifiedRankedShapedTypeDims &reifiedReturnShapes) {
  reifiedReturnShapes.push_back(
      tensor::getMixedSizes(builder, getLoc(), getInput()));
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

/// `name` must be positive and finite (the scale and softcap attributes).
static LogicalResult verifyPositiveFinite(Operation *op, StringRef name,
                                          double x) {
  if (x > 0.0 && std::isfinite(x))
    return success();
  return op->emitOpError() << name << " must be positive and finite, got "
                           << floatStr(x);
}

std::optional<double> AttentionOp::getStaticScale() {
  if (auto scale = getScaleAttr())
    return scale.getValueAsDouble();
  int64_t d = getQuery().getType().getDimSize(3);
  if (ShapedType::isDynamic(d))
    return std::nullopt;
  return 1.0 / std::sqrt(static_cast<double>(d));
}

LogicalResult AttentionOp::verify() {
  if (failed(verifyNoUnknownAttributes(*this, getAttributeNames())))
    return failure();
  auto qTy = getQuery().getType();
  auto kTy = getKey().getType();
  auto vTy = getValue().getType();
  auto oTy = getResult().getType();

  // Ranks.
  auto checkRank = [&](RankedTensorType ty, StringRef name,
                       StringRef layout) -> LogicalResult {
    if (ty.getRank() == 4)
      return success();
    return emitOpError() << "expects " << name << " of rank 4 " << layout
                         << ", got rank " << ty.getRank();
  };
  if (failed(checkRank(qTy, "query", "[B, H, Sq, D]")) ||
      failed(checkRank(kTy, "key", "[B, Hkv, Sk, D]")) ||
      failed(checkRank(vTy, "value", "[B, Hkv, Sk, Dv]")) ||
      failed(checkRank(oTy, "result", "[B, H, Sq, Dv]")))
    return failure();

  if (failed(verifyQKV(*this, qTy, kTy, vTy, "key length (Sk)")))
    return failure();
  Type elt = qTy.getElementType();
  if (oTy.getElementType() != elt)
    return emitOpError() << "expects the result element type "
                         << oTy.getElementType()
                         << " to equal the query element type " << elt;
  auto q = qTy.getShape(), k = kTy.getShape(), v = vTy.getShape(),
       o = oTy.getShape();
  // Result shape [B, H, Sq, Dv].
  int64_t dv = v[3];
  SmallVector<int64_t> expected = {q[0], q[1], q[2], dv};
  for (int i = 0; i < 4; ++i)
    if (!compatible(o[i], expected[i]))
      return emitOpError() << "result shape " << shapeStr(o)
                           << " does not match [B, H, Sq, Dv] = "
                           << shapeStr(expected);
  // Log-sum-exp result: f32 [B, H, Sq].
  if (Value lse = getLse()) {
    auto lTy = cast<RankedTensorType>(lse.getType());
    SmallVector<int64_t> want = {q[0], q[1], q[2]};
    bool ok = lTy.getRank() == 3;
    for (int i = 0; ok && i < 3; ++i)
      ok = compatible(lTy.getDimSize(i), want[i]);
    if (!ok)
      return emitOpError() << "log-sum-exp result shape "
                           << shapeStr(lTy.getShape())
                           << " does not match [B, H, Sq] = " << shapeStr(want);
  }

  // Mask.
  if (Value mask = getMask()) {
    int64_t sk = ShapedType::isDynamic(k[2]) ? v[2] : k[2];
    if (failed(verifyMask(*this, mask, elt, {q[0], q[1], q[2], sk},
                          {"B", "H", "Sq", "Sk"}, /*quoteShape=*/true)))
      return failure();
  }

  // Per-sequence lengths: i32 [B].
  for (auto [len, name] : {std::pair<Value, StringRef>{getKvLengths(),
                                                       "kv_lengths"},
                           {getQLengths(), "q_lengths"}}) {
    if (!len)
      continue;
    auto lTy = cast<RankedTensorType>(len.getType());
    if (lTy.getRank() != 1 || !compatible(lTy.getDimSize(0), q[0]))
      return emitOpError() << name << " must have shape [B] = "
                           << shapeStr({q[0]}) << " (one length per batch), got "
                           << lTy;
  }

  // Scale.
  if (auto scale = getScaleAttr()) {
    if (failed(verifyPositiveFinite(*this, "scale", scale.getValueAsDouble())))
      return failure();
  } else if (q[3] == 0) {
    return emitOpError("the default scale 1/sqrt(D) needs D > 0, got D = 0; "
                       "give an explicit scale");
  }
  if (auto softcap = getSoftcapAttr())
    if (failed(verifyPositiveFinite(*this, "softcap",
                                    softcap.getValueAsDouble())))
      return failure();
  return verifyWindow(*this, getWindowAttr());
}

LogicalResult AttentionOp::reifyResultShapes(
    OpBuilder &builder, ReifiedRankedShapedTypeDims &reifiedReturnShapes) {
  Location loc = getLoc();
  SmallVector<OpFoldResult> q =
      tensor::getMixedSizes(builder, loc, getQuery());
  OpFoldResult dv = tensor::getMixedSize(builder, loc, getValue(), 3);
  reifiedReturnShapes.push_back({q[0], q[1], q[2], dv});
  if (getLse())
    reifiedReturnShapes.push_back({q[0], q[1], q[2]});
  return success();
}

//===----------------------------------------------------------------------===//
// OnlineAttentionOp (verifier; tiling and decomposition in
// OnlineAttention.cpp)
//===----------------------------------------------------------------------===//

LogicalResult OnlineAttentionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &inferred) {
  // The inits (acc, max, sum) are always the last three operands.
  if (operands.size() < 6)
    return failure();
  inferred.clear();
  for (Value v : operands.take_back(3))
    inferred.push_back(v.getType());
  return success();
}

LogicalResult OnlineAttentionOp::verify() {
  if (failed(verifyNoUnknownAttributes(*this, getAttributeNames())))
    return failure();
  auto qTy = getQuery().getType();
  auto kTy = getKey().getType();
  auto vTy = getValue().getType();
  auto aTy = getAcc().getType();
  auto mxTy = getMax().getType();
  auto smTy = getSum().getType();

  auto checkRank = [&](RankedTensorType ty, int64_t rank, StringRef name,
                       StringRef layout) -> LogicalResult {
    if (ty.getRank() == rank)
      return success();
    return emitOpError() << "expects " << name << " of rank " << rank << " "
                         << layout << ", got rank " << ty.getRank();
  };
  if (failed(checkRank(qTy, 4, "query", "[B, H, M, D]")) ||
      failed(checkRank(kTy, 4, "key", "[B, Hkv, N, D]")) ||
      failed(checkRank(vTy, 4, "value", "[B, Hkv, N, Dv]")) ||
      failed(checkRank(aTy, 4, "acc", "[B, H, M, Dv]")) ||
      failed(checkRank(mxTy, 3, "max", "[B, H, M]")) ||
      failed(checkRank(smTy, 3, "sum", "[B, H, M]")))
    return failure();

  if (failed(verifyQKV(*this, qTy, kTy, vTy, "key block length (N)")))
    return failure();
  Type elt = qTy.getElementType();
  auto q = qTy.getShape(), k = kTy.getShape(), v = vTy.getShape();

  // The running state: acc [B, H, M, Dv], max and sum [B, H, M].
  int64_t b = ShapedType::isDynamic(q[0]) ? k[0] : q[0];
  int64_t dv = v[3];
  SmallVector<int64_t> wantAcc = {b, q[1], q[2], dv};
  SmallVector<int64_t> wantRow = {b, q[1], q[2]};
  for (int i = 0; i < 4; ++i)
    if (!compatible(aTy.getDimSize(i), wantAcc[i]))
      return emitOpError() << "acc shape " << shapeStr(aTy.getShape())
                           << " does not match [B, H, M, Dv] = "
                           << shapeStr(wantAcc);
  auto checkRow = [&](RankedTensorType ty, StringRef name) -> LogicalResult {
    for (int i = 0; i < 3; ++i)
      if (!compatible(ty.getDimSize(i), wantRow[i]))
        return emitOpError() << name << " shape " << shapeStr(ty.getShape())
                             << " does not match [B, H, M] = "
                             << shapeStr(wantRow);
    return success();
  };
  if (failed(checkRow(mxTy, "max")) || failed(checkRow(smTy, "sum")))
    return failure();

  if (Value mask = getMask()) {
    int64_t n = ShapedType::isDynamic(k[2]) ? v[2] : k[2];
    if (failed(verifyMask(*this, mask, elt, {b, q[1], q[2], n},
                          {"B", "H", "M", "N"}, /*quoteShape=*/false)))
      return failure();
  }

  if (failed(verifyWindow(*this, getWindowAttr())))
    return failure();
  bool banded = getCausal() || getWindowAttr();
  if (getCausal() && !getCausalOffset())
    return emitOpError("is causal but has no causal_offset operand (key j is "
                       "visible to query i iff j <= i + causal_offset)");
  if (getWindowAttr() && !getCausalOffset())
    return emitOpError("has a window but no causal_offset operand (key j is "
                       "visible to query i iff i + causal_offset - left <= j "
                       "<= i + causal_offset + right)");
  if (!banded && getCausalOffset())
    return emitOpError("has a causal_offset operand but is neither causal nor "
                       "windowed");

  if (failed(verifyPositiveFinite(*this, "scale",
                                  getScale().convertToDouble())))
    return failure();
  if (auto softcap = getSoftcapAttr())
    return verifyPositiveFinite(*this, "softcap", softcap.getValueAsDouble());
  return success();
}
