//===- DeriveGradients.cpp - tx-derive-gradients --------------------------===//
//
// Gives each public function whose results are computed by tx.attention or
// tx.softmax from its arguments two more entry points:
//
//   @f__tx_fwd(args) -> (results..., lse of each attention result...)
//   @f__tx_bwd(args..., results..., lses..., grad of each result...)
//       -> (the gradient of each differentiable argument, in argument order)
//
// The forward is @f with each tx.attention asked for its log-sum-exp; the
// backward is one tx.attention_grad (with the forward's clauses, score and
// mask functions and their captured operands, which get no gradient) or
// tx.softmax_grad per result. @f gets `tx.gradient` (the two names and the
// differentiable arguments) or `tx.no_gradient` (why not); the derived
// functions get `tx.derived` ("forward" / "backward") and their new
// arguments a `tx.name`. tx-emit-manifest records all of it, and python/tx
// builds autograd from it (docs/Python.md).
//
//===----------------------------------------------------------------------===//
#include "IR/AttentionModGrad.h"
#include "Transformer/Passes.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXDERIVEGRADIENTS
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

namespace {

/// What a differentiable function computes: per result, the tx op that
/// returns it; per argument, whether it has a gradient.
struct Derivation {
  SmallVector<Operation *> ops; // AttentionOp or SoftmaxOp, per result
  SmallVector<int64_t> gradArgs;
};

/// The entry-block argument number of `v`, or -1.
int64_t argNumber(func::FuncOp f, Value v) {
  auto arg = dyn_cast_or_null<BlockArgument>(v);
  if (!arg || arg.getOwner() != &f.getBody().front())
    return -1;
  return arg.getArgNumber();
}

/// The differentiable operands of a result's op (Q, K, V, an additive mask;
/// the softmax input) and its other operands (an i1 mask, the lengths, the
/// score and mask functions' captured operands).
void operandsOf(Operation *op, SmallVector<Value> &diff,
                SmallVector<Value> &other) {
  if (auto sm = dyn_cast<SoftmaxOp>(op)) {
    diff.push_back(sm.getInput());
    return;
  }
  auto att = cast<AttentionOp>(op);
  diff.append({att.getQuery(), att.getKey(), att.getValue()});
  if (Value m = att.getMask()) {
    bool keep = cast<ShapedType>(m.getType()).getElementType().isInteger(1);
    (keep ? other : diff).push_back(m);
  }
  for (Value v : {att.getKvLengths(), att.getQLengths()})
    if (v)
      other.push_back(v);
  other.append(att.getScoreCaptures().begin(), att.getScoreCaptures().end());
  other.append(att.getMaskCaptures().begin(), att.getMaskCaptures().end());
}

/// The op behind result `r` of `f`, or the reason it has no gradient.
FailureOr<Operation *> resultOp(func::FuncOp f, unsigned r, Value v,
                                std::string &why) {
  Operation *op = v.getDefiningOp();
  auto att = dyn_cast_or_null<AttentionOp>(op);
  if (att && cast<OpResult>(v).getResultNumber() == 1) {
    why = "result " + std::to_string(r) +
          " is a tx.attention's log-sum-exp (no gradient through the LSE)";
    return failure();
  }
  if (att && att.isPaged()) {
    why = "result " + std::to_string(r) +
          " is a paged tx.attention (page_table): no backward reads a paged "
          "KV cache";
    return failure();
  }
  if (att && !att.getScoreMod().empty())
    if (Operation *bad = firstNonDifferentiable(att.getScoreMod())) {
      std::string loc;
      llvm::raw_string_ostream os(loc);
      os << bad->getLoc();
      why = "result " + std::to_string(r) + "'s score_mod has " +
            bad->getName().getStringRef().str() + " (" + loc +
            "), which depends on the score and which tx cannot differentiate";
      return failure();
    }
  if (!att && !isa_and_nonnull<SoftmaxOp>(op)) {
    why = "result " + std::to_string(r) +
          " is not computed by a tx.attention or tx.softmax";
    return failure();
  }
  SmallVector<Value> diff, other;
  operandsOf(op, diff, other);
  for (Value x : llvm::concat<Value>(diff, other))
    if (argNumber(f, x) < 0) {
      why = "an operand of the " + op->getName().getStringRef().str() +
            " of result " + std::to_string(r) +
            " is not a function argument (no gradient through other ops)";
      return failure();
    }
  return op;
}

/// The derivation of `f`, or the reason it has none.
FailureOr<Derivation> derive(func::FuncOp f, std::string &why) {
  auto ret = dyn_cast<func::ReturnOp>(f.getBody().front().getTerminator());
  if (!ret || !f.getBody().hasOneBlock() || ret.getNumOperands() == 0) {
    why = "it is not one block returning values";
    return failure();
  }
  Derivation d;
  SmallVector<int> uses(f.getNumArguments(), 0);
  for (auto [r, v] : llvm::enumerate(ret.getOperands())) {
    FailureOr<Operation *> op = resultOp(f, r, v, why);
    if (failed(op))
      return failure();
    if (llvm::is_contained(d.ops, *op)) {
      why = "it returns one op's value twice";
      return failure();
    }
    d.ops.push_back(*op);
    SmallVector<Value> diff, other;
    operandsOf(*op, diff, other);
    for (Value x : diff)
      ++uses[argNumber(f, x)];
  }
  for (auto [i, n] : llvm::enumerate(uses)) {
    if (n > 1) {
      why = "argument " + std::to_string(i) +
            " feeds several differentiated operands (their gradients are "
            "not summed yet)";
      return failure();
    }
    if (n == 1)
      d.gradArgs.push_back(i);
  }
  return d;
}

/// The LSE type of an attention with query type `q`: [B, H, Sq] f32.
RankedTensorType lseType(Type q) {
  auto qt = cast<RankedTensorType>(q);
  return RankedTensorType::get(qt.getShape().take_front(3),
                               Float32Type::get(q.getContext()));
}

/// @f__tx_fwd: @f with each returned attention also returning its LSE.
func::FuncOp buildForward(func::FuncOp f, StringRef name) {
  func::FuncOp fwd = f.clone();
  fwd.setSymName(name);
  fwd->removeAttr("tx.gradient");
  fwd->setAttr("tx.derived", StringAttr::get(f.getContext(), "forward"));
  auto ret = cast<func::ReturnOp>(fwd.getBody().front().getTerminator());
  SmallVector<Value> results(ret.getOperands()), lses;
  for (Value &v : results) {
    auto att = dyn_cast<AttentionOp>(v.getDefiningOp());
    if (!att)
      continue;
    OpBuilder b(att);
    auto op = AttentionOp::create(
        b, att.getLoc(), att.getResult().getType(),
        lseType(att.getQuery().getType()), att.getQuery(), att.getKey(),
        att.getValue(), att.getMask(), att.getKvLengths(), att.getQLengths(),
        att.getPageTable(), att.getScoreCaptures(), att.getMaskCaptures(),
        att.getScaleAttr(), att.getCausalAttr(), att.getSoftcapAttr(),
        att.getWindowAttr());
    op.getScoreMod().takeBody(att.getScoreMod());
    op.getMaskMod().takeBody(att.getMaskMod());
    att.getResult().replaceAllUsesWith(op.getResult());
    // An LSE the function computes but does not return.
    if (Value lse = att.getLse())
      lse.replaceAllUsesWith(op.getLse());
    att.erase();
    v = op.getResult();
    lses.push_back(op.getLse());
  }
  results.append(lses);
  OpBuilder b(ret);
  func::ReturnOp::create(b, ret.getLoc(), results);
  ret.erase();
  fwd.setFunctionType(FunctionType::get(
      f.getContext(), f.getArgumentTypes(), ValueRange(results).getTypes()));
  return fwd;
}

/// The arguments @f__tx_bwd adds after @f's: per result its value
/// ("output"), per attention result its LSE ("lse"), per result its
/// gradient ("grad_output"); suffixed by the result number when @f has
/// several.
void backwardArguments(func::FuncOp f, const Derivation &d,
                       SmallVector<Type> &types,
                       SmallVector<std::string> &names) {
  unsigned n = d.ops.size();
  auto named = [&](StringRef base, unsigned r) {
    return n == 1 ? base.str() : (base + Twine(r)).str();
  };
  for (unsigned r = 0; r < n; ++r) {
    types.push_back(f.getResultTypes()[r]);
    names.push_back(named("output", r));
  }
  for (unsigned r = 0; r < n; ++r)
    if (auto att = dyn_cast<AttentionOp>(d.ops[r])) {
      types.push_back(lseType(att.getQuery().getType()));
      names.push_back(named("lse", r));
    }
  for (unsigned r = 0; r < n; ++r) {
    types.push_back(f.getResultTypes()[r]);
    names.push_back(named("grad_output", r));
  }
}

/// Emits the backward op of result `r` in @f__tx_bwd (its arguments
/// `args`: @f's, then backwardArguments'); records the gradient of each
/// differentiable @f argument in `grads`.
void emitBackwardOp(OpBuilder &b, func::FuncOp f, const Derivation &d,
                    unsigned r, unsigned lseIndex, ArrayRef<BlockArgument> args,
                    DenseMap<int64_t, Value> &grads) {
  unsigned nArgs = f.getNumArguments(), n = d.ops.size();
  unsigned nLse = llvm::count_if(d.ops, llvm::IsaPred<AttentionOp>);
  auto map = [&](Value v) -> Value {
    return v ? Value(args[argNumber(f, v)]) : Value();
  };
  Value out = args[nArgs + r], gradOut = args[nArgs + n + nLse + r];
  if (auto sm = dyn_cast<SoftmaxOp>(d.ops[r])) {
    auto g = SoftmaxGradOp::create(b, sm.getLoc(), out.getType(), out, gradOut,
                                   sm.getDimAttr());
    grads[argNumber(f, sm.getInput())] = g.getResult();
    return;
  }
  auto att = cast<AttentionOp>(d.ops[r]);
  Value mask = att.getMask();
  Type maskGrad;
  if (mask && !cast<ShapedType>(mask.getType()).getElementType().isInteger(1))
    maskGrad = mask.getType();
  auto g = AttentionGradOp::create(
      b, att.getLoc(), att.getQuery().getType(), att.getKey().getType(),
      att.getValue().getType(), maskGrad, map(att.getQuery()),
      map(att.getKey()), map(att.getValue()), out, gradOut,
      args[nArgs + n + lseIndex], map(mask), map(att.getKvLengths()),
      map(att.getQLengths()), llvm::map_to_vector(att.getScoreCaptures(), map),
      llvm::map_to_vector(att.getMaskCaptures(), map), att.getScaleAttr(),
      att.getCausalAttr(), att.getSoftcapAttr(), att.getWindowAttr());
  IRMapping regions;
  att.getScoreMod().cloneInto(&g.getScoreMod(), regions);
  att.getMaskMod().cloneInto(&g.getMaskMod(), regions);
  grads[argNumber(f, att.getQuery())] = g.getGradQuery();
  grads[argNumber(f, att.getKey())] = g.getGradKey();
  grads[argNumber(f, att.getValue())] = g.getGradValue();
  if (maskGrad)
    grads[argNumber(f, mask)] = g.getGradMask();
}

/// @f__tx_bwd (see the file header).
func::FuncOp buildBackward(func::FuncOp f, const Derivation &d,
                           StringRef name) {
  MLIRContext *ctx = f.getContext();
  SmallVector<Type> types(f.getArgumentTypes());
  SmallVector<std::string> names;
  backwardArguments(f, d, types, names);
  SmallVector<Type> resultTypes;
  for (int64_t i : d.gradArgs)
    resultTypes.push_back(f.getArgumentTypes()[i]);
  OpBuilder b(ctx);
  auto bwd = func::FuncOp::create(b, f.getLoc(), name,
                                  FunctionType::get(ctx, types, resultTypes));
  bwd->setAttr("tx.derived", StringAttr::get(ctx, "backward"));
  unsigned nArgs = f.getNumArguments();
  for (unsigned i = 0; i < nArgs; ++i)
    if (DictionaryAttr a = f.getArgAttrDict(i))
      bwd.setArgAttrs(i, a);
  for (auto [i, nm] : llvm::enumerate(names))
    bwd.setArgAttr(nArgs + i, "tx.name", StringAttr::get(ctx, nm));
  Block *body = bwd.addEntryBlock();
  // The arguments copied from @f keep their locations (and so the names
  // tx-emit-manifest reads from the source).
  for (unsigned i = 0; i < nArgs; ++i)
    body->getArgument(i).setLoc(f.getArgument(i).getLoc());
  b.setInsertionPointToStart(body);
  DenseMap<int64_t, Value> grads;
  unsigned lseIndex = 0;
  for (unsigned r = 0; r < d.ops.size(); ++r) {
    emitBackwardOp(b, f, d, r, lseIndex, body->getArguments(), grads);
    lseIndex += isa<AttentionOp>(d.ops[r]);
  }
  SmallVector<Value> results;
  for (int64_t i : d.gradArgs)
    results.push_back(grads.lookup(i));
  func::ReturnOp::create(b, f.getLoc(), results);
  return bwd;
}

struct TxDeriveGradientsPass
    : public tx::impl::TxDeriveGradientsBase<TxDeriveGradientsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> funcs;
    for (auto f : module.getOps<func::FuncOp>())
      if (f.isPublic() && !f.isExternal() && !f->hasAttr("tx.derived") &&
          !f->hasAttr("tx.gradient") && !f->hasAttr("tx.no_gradient"))
        funcs.push_back(f);
    for (func::FuncOp f : funcs)
      deriveOne(symbols, f);
  }

  /// Whether symbol `name` is free for `def`, or a declaration of it (a
  /// body-less func.func of its type, which `def` then replaces: a module
  /// may declare the derived functions to call them); else why not.
  static bool nameFree(SymbolTable &symbols, func::FuncOp def,
                       std::string &why) {
    Operation *old = symbols.lookup(def.getSymName());
    if (!old)
      return true;
    auto decl = dyn_cast<func::FuncOp>(old);
    if (decl && decl.isExternal() &&
        decl.getFunctionType() == def.getFunctionType())
      return true;
    std::string type;
    llvm::raw_string_ostream os(type);
    def.getFunctionType().print(os);
    why = "the name " + def.getSymName().str() +
          " is taken (only a declaration of type " + type + " may use it)";
    return false;
  }

  void deriveOne(SymbolTable &symbols, func::FuncOp f) {
    MLIRContext *ctx = f.getContext();
    std::string why;
    FailureOr<Derivation> d = derive(f, why);
    if (failed(d)) {
      f->setAttr("tx.no_gradient", StringAttr::get(ctx, why));
      return;
    }
    func::FuncOp fwd = buildForward(f, (f.getSymName() + "__tx_fwd").str());
    func::FuncOp bwd =
        buildBackward(f, *d, (f.getSymName() + "__tx_bwd").str());
    if (!nameFree(symbols, fwd, why) || !nameFree(symbols, bwd, why)) {
      fwd.erase();
      bwd.erase();
      f->setAttr("tx.no_gradient", StringAttr::get(ctx, why));
      return;
    }
    for (func::FuncOp def : {fwd, bwd})
      if (Operation *decl = symbols.lookup(def.getSymName()))
        symbols.erase(decl);
    symbols.insert(fwd, std::next(Block::iterator(f)));
    symbols.insert(bwd, std::next(Block::iterator(fwd)));
    Builder b(ctx);
    f->setAttr("tx.gradient",
               b.getDictionaryAttr(
                   {b.getNamedAttr("forward", FlatSymbolRefAttr::get(fwd)),
                    b.getNamedAttr("backward", FlatSymbolRefAttr::get(bwd)),
                    b.getNamedAttr("arguments",
                                   b.getDenseI64ArrayAttr(d->gradArgs))}));
  }
};

} // namespace
