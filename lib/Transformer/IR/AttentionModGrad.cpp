//===- AttentionModGrad.cpp - derivatives of score functions --------------===//
#include "IR/AttentionModGrad.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tx;

namespace {

/// The tangents of one cloned body: `t(v)` for an original value (null:
/// 0), and arithmetic on tangents that treats null as 0.
struct Tangents {
  OpBuilder &b;
  Location loc;
  DenseMap<Value, Value> of; // original value -> its tangent (clone side)

  Value t(Value v) const { return of.lookup(v); }
  Value cst(Type ty, double x) {
    return arith::ConstantOp::create(b, loc, FloatAttr::get(ty, x));
  }
  Value mul(Value x, Value y) {
    if (!x || !y)
      return Value();
    return arith::MulFOp::create(b, loc, x, y);
  }
  Value add(Value x, Value y) {
    if (!x || !y)
      return x ? x : y;
    return arith::AddFOp::create(b, loc, x, y);
  }
  Value neg(Value x) { return x ? arith::NegFOp::create(b, loc, x) : x; }
  Value div(Value x, Value y) {
    return x ? arith::DivFOp::create(b, loc, x, y).getResult() : x;
  }
  /// select(c, x, y) of tangents (a null side as 0 of type `ty`).
  Value select(Value c, Value x, Value y, Type ty) {
    if (!x && !y)
      return Value();
    return arith::SelectOp::create(b, loc, c, x ? x : cst(ty, 0),
                                   y ? y : cst(ty, 0));
  }
};

/// Whether `op` (cloned as `c`) is differentiable by tangentOf.
bool isDifferentiable(Operation *op) {
  return isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
             arith::NegFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp, arith::SelectOp,
             arith::ExtFOp, arith::TruncFOp, math::ExpOp, math::Exp2Op,
             math::ExpM1Op, math::LogOp, math::Log2Op, math::Log1pOp,
             math::TanhOp, math::SqrtOp, math::RsqrtOp, math::SinOp,
             math::CosOp, math::AbsFOp, math::ErfOp, math::PowFOp,
             math::FmaOp, math::FloorOp, math::CeilOp, math::TruncOp,
             math::RoundOp, math::RoundEvenOp>(op);
}

/// Unary math: the derivative of r = f(a) (cloned operand a, result r).
Value unaryDerivative(Tangents &T, Operation *c, Value a, Value r) {
  OpBuilder &b = T.b;
  Location loc = T.loc;
  Type ty = r.getType();
  auto mulf = [&](Value x, Value y) -> Value {
    return arith::MulFOp::create(b, loc, x, y);
  };
  if (isa<math::ExpOp>(c))
    return r;
  if (isa<math::Exp2Op>(c))
    return mulf(r, T.cst(ty, M_LN2));
  if (isa<math::ExpM1Op>(c))
    return arith::AddFOp::create(b, loc, r, T.cst(ty, 1));
  if (isa<math::LogOp>(c))
    return arith::DivFOp::create(b, loc, T.cst(ty, 1), a);
  if (isa<math::Log2Op>(c))
    return arith::DivFOp::create(b, loc, T.cst(ty, 1 / M_LN2), a);
  if (isa<math::Log1pOp>(c))
    return arith::DivFOp::create(
        b, loc, T.cst(ty, 1), arith::AddFOp::create(b, loc, a, T.cst(ty, 1)));
  if (isa<math::TanhOp>(c))
    return arith::SubFOp::create(b, loc, T.cst(ty, 1), mulf(r, r));
  if (isa<math::SqrtOp>(c))
    return arith::DivFOp::create(b, loc, T.cst(ty, 0.5), r);
  if (isa<math::RsqrtOp>(c)) // -r / (2a)
    return arith::DivFOp::create(b, loc, mulf(r, T.cst(ty, -0.5)), a);
  if (isa<math::SinOp>(c))
    return math::CosOp::create(b, loc, a);
  if (isa<math::CosOp>(c))
    return arith::NegFOp::create(b, loc, math::SinOp::create(b, loc, a));
  if (isa<math::AbsFOp>(c)) {
    Value negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                           a, T.cst(ty, 0));
    return arith::SelectOp::create(b, loc, negative, T.cst(ty, -1),
                                   T.cst(ty, 1));
  }
  if (isa<math::ErfOp>(c)) // 2/sqrt(pi) exp(-a^2)
    return mulf(T.cst(ty, M_2_SQRTPI),
                math::ExpOp::create(b, loc,
                                    arith::NegFOp::create(b, loc, mulf(a, a))));
  return Value(); // floor, ceil, trunc, round: 0
}

/// The tangent of the clone `c` of a differentiable op whose original is
/// `op` (its operands' tangents in T; null: 0).
Value tangentOf(Tangents &T, Operation *op, Operation *c) {
  OpBuilder &b = T.b;
  Location loc = T.loc;
  auto in = [&](unsigned k) { return c->getOperand(k); };
  auto dt = [&](unsigned k) { return T.t(op->getOperand(k)); };
  Value r = c->getResult(0);
  Type ty = r.getType();
  if (isa<arith::AddFOp>(op))
    return T.add(dt(0), dt(1));
  if (isa<arith::SubFOp>(op))
    return T.add(dt(0), T.neg(dt(1)));
  if (isa<arith::NegFOp>(op))
    return T.neg(dt(0));
  if (isa<arith::MulFOp>(op))
    return T.add(T.mul(dt(0), in(1)), T.mul(in(0), dt(1)));
  if (isa<arith::DivFOp>(op)) // (ta - r tb) / b
    return T.div(T.add(dt(0), T.neg(T.mul(r, dt(1)))), in(1));
  if (isa<math::FmaOp>(op))
    return T.add(T.add(T.mul(dt(0), in(1)), T.mul(in(0), dt(1))), dt(2));
  if (isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MinimumFOp,
          arith::MinNumFOp>(op)) {
    bool isMax = isa<arith::MaximumFOp, arith::MaxNumFOp>(op);
    Value first = arith::CmpFOp::create(
        b, loc, isMax ? arith::CmpFPredicate::OGE : arith::CmpFPredicate::OLE,
        in(0), in(1));
    return T.select(first, dt(0), dt(1), ty);
  }
  if (isa<arith::SelectOp>(op))
    return T.select(in(0), dt(1), dt(2), ty);
  if (isa<arith::ExtFOp>(op))
    return dt(0) ? arith::ExtFOp::create(b, loc, ty, dt(0)).getResult()
                 : Value();
  if (isa<arith::TruncFOp>(op))
    return dt(0) ? arith::TruncFOp::create(b, loc, ty, dt(0)).getResult()
                 : Value();
  if (isa<math::PowFOp>(op)) { // r (tb log a + b ta / a)
    Value viaBase =
        dt(0) ? T.mul(T.mul(in(1), math::PowFOp::create(
                                       b, loc, in(0),
                                       arith::SubFOp::create(
                                           b, loc, in(1), T.cst(ty, 1)))),
                      dt(0))
              : Value();
    Value viaExp =
        dt(1) ? T.mul(T.mul(r, math::LogOp::create(b, loc, in(0))), dt(1))
              : Value();
    return T.add(viaBase, viaExp);
  }
  return T.mul(unaryDerivative(T, c, in(0), r), dt(0));
}

/// Whether `op` reads a value whose tangent is nonzero.
bool dependsOnScore(Operation *op, const DenseSet<Value> &live) {
  for (Value v : op->getOperands())
    if (live.contains(v))
      return true;
  bool nested = false;
  op->walk([&](Operation *inner) {
    if (inner != op)
      for (Value v : inner->getOperands())
        nested |= live.contains(v);
  });
  return nested;
}

} // namespace

Operation *mlir::tx::firstNonDifferentiable(Region &mod) {
  Block &body = mod.front();
  DenseSet<Value> live{body.getArgument(0)};
  for (Operation &op : body.without_terminator()) {
    if (!dependsOnScore(&op, live))
      continue;
    bool floatResult = llvm::any_of(op.getResultTypes(), [](Type t) {
      return isa<FloatType>(t);
    });
    if (isa<arith::BitcastOp>(op))
      return &op; // bits of a float: no derivative tx can carry
    if (!floatResult)
      continue; // comparisons, fptosi: piecewise constant in the score
    if (op.getNumRegions() || !isDifferentiable(&op))
      return &op;
    // A select whose condition alone depends on the score is constant
    // between its switching points (derivative 0 there): fine.
    for (Value r : op.getResults())
      live.insert(r);
  }
  return nullptr;
}

std::pair<Value, Value>
mlir::tx::inlineScoreModDerivative(OpBuilder &b, Region &mod,
                                   ValueRange captures, Value score,
                                   ValueRange bhij) {
  Block &body = mod.front();
  Location loc = score.getLoc();
  IRMapping map;
  map.map(body.getArgument(0), score);
  for (auto [arg, v] : llvm::zip(body.getArguments().slice(1, 4), bhij))
    map.map(arg, v);
  for (auto [arg, v] : llvm::zip(body.getArguments().drop_front(5), captures))
    map.map(arg, v);
  Tangents T{b, loc, DenseMap<Value, Value>()};
  T.of[body.getArgument(0)] = T.cst(score.getType(), 1.0);
  for (Operation &op : body.without_terminator()) {
    Operation *c = b.clone(op, map);
    bool any = llvm::any_of(op.getOperands(),
                            [&](Value v) { return T.of.count(v); });
    if (!any || op.getNumResults() != 1 ||
        !isa<FloatType>(op.getResult(0).getType()) || !isDifferentiable(&op))
      continue;
    if (Value t = tangentOf(T, &op, c))
      T.of[op.getResult(0)] = t;
  }
  Value y = cast<YieldOp>(body.getTerminator()).getValue();
  Value d = T.t(y);
  return {map.lookupOrDefault(y), d ? d : T.cst(score.getType(), 0.0)};
}
