//===- EmitManifest.cpp - tx-emit-manifest: JSON description of entry points ===//
//
// Writes what a caller of a tx-compile.sh library needs to know about each C
// entry point (docs/ABI.md) without a hand-written signature: argument and
// result types, ranks and static sizes, how result shapes follow from the
// arguments, and the tx ops each function computes. The python/tx package
// reads it (python/tx/_manifest.py); the format is documented in
// docs/Python.md.
//
//===----------------------------------------------------------------------===//
#include "Transformer/Passes.h"
#include "Transformer/TxOps.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXEMITMANIFEST
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

namespace {

/// Where one dimension of a value comes from: a static size, or dimension
/// `dim` of function argument `arg`, or unknown (arg < 0 and no size).
struct DimSource {
  std::optional<int64_t> size;
  int64_t arg = -1, dim = -1;
};

/// The SSA names of block arguments as written in the source file, read back
/// at the arguments' locations (the parser records the position of `%name`).
class SourceNames {
public:
  SourceNames() = default;
  // Pass clones start with an empty cache.
  SourceNames(const SourceNames &) {}

  std::optional<std::string> lookup(Location loc) {
    auto fl = dyn_cast<FileLineColLoc>(loc);
    if (!fl || fl.getLine() == 0 || fl.getColumn() == 0)
      return std::nullopt;
    StringRef file = fl.getFilename().getValue();
    if (file.empty() || file == "-")
      return std::nullopt;
    auto it = buffers.find(file);
    if (it == buffers.end()) {
      auto buf = llvm::MemoryBuffer::getFile(file);
      std::unique_ptr<llvm::MemoryBuffer> text;
      if (buf)
        text = std::move(*buf);
      it = buffers.try_emplace(file, std::move(text)).first;
    }
    if (!it->second)
      return std::nullopt;
    StringRef text = it->second->getBuffer();
    for (unsigned line = 1; line < fl.getLine(); ++line) {
      size_t nl = text.find('\n');
      if (nl == StringRef::npos)
        return std::nullopt;
      text = text.drop_front(nl + 1);
    }
    text = text.take_until([](char c) { return c == '\n'; });
    if (fl.getColumn() > text.size())
      return std::nullopt;
    text = text.drop_front(fl.getColumn() - 1);
    if (!text.consume_front("%"))
      return std::nullopt;
    StringRef name = text.take_while([](char c) {
      return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' || c == '-';
    });
    // %0, %1: the parser's numbering, not a name.
    if (name.empty() || llvm::all_of(name, llvm::isDigit))
      return std::nullopt;
    return name.str();
  }

private:
  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> buffers;
};

std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

std::string locString(Location loc) {
  if (auto fl = dyn_cast<FileLineColLoc>(loc))
    return (fl.getFilename().getValue() + ":" + Twine(fl.getLine()) + ":" +
            Twine(fl.getColumn()))
        .str();
  return "";
}

/// Per dimension of `v`: its static size, or the function argument dimension
/// it equals (through tx.softmax, tx.attention's output and log-sum-exp,
/// tx.merge_attention_states, the backward ops and tensor.cast), or unknown.
SmallVector<DimSource> dimSources(Value v, func::FuncOp func, int depth = 0) {
  auto ty = dyn_cast<RankedTensorType>(v.getType());
  if (!ty)
    return {};
  SmallVector<DimSource> dims(ty.getRank());
  if (depth < 32) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == &func.getBody().front())
        for (int64_t d = 0; d < ty.getRank(); ++d)
          dims[d].arg = arg.getArgNumber(), dims[d].dim = d;
    } else if (auto sm = v.getDefiningOp<SoftmaxOp>()) {
      dims = dimSources(sm.getInput(), func, depth + 1);
    } else if (auto att = v.getDefiningOp<AttentionOp>()) {
      // Result #0 (O) is [B, H, Sq, Dv] (Q's dims 0-2, V's dim 3); result #1
      // (the log-sum-exp) is [B, H, Sq] (Q's dims 0-2).
      SmallVector<DimSource> q = dimSources(att.getQuery(), func, depth + 1);
      if (cast<OpResult>(v).getResultNumber() == 0) {
        SmallVector<DimSource> val = dimSources(att.getValue(), func, depth + 1);
        if (q.size() == 4 && val.size() == 4 && ty.getRank() == 4)
          dims = {q[0], q[1], q[2], val[3]};
      } else if (q.size() == 4 && ty.getRank() == 3) {
        dims = {q[0], q[1], q[2]};
      }
    } else if (auto m = v.getDefiningOp<MergeAttentionStatesOp>()) {
      // The merged output and LSE have the shapes of out_a and lse_a.
      bool out = cast<OpResult>(v).getResultNumber() == 0;
      dims = dimSources(out ? m.getOutA() : m.getLseA(), func, depth + 1);
    } else if (auto g = v.getDefiningOp<SoftmaxGradOp>()) {
      dims = dimSources(g.getOutput(), func, depth + 1);
    } else if (auto g = v.getDefiningOp<AttentionGradOp>()) {
      // dQ, dK, dV, dMask: the shapes of Q, K, V, the mask.
      Value of[] = {g.getQuery(), g.getKey(), g.getValue(), g.getMask()};
      SmallVector<DimSource> src =
          dimSources(of[cast<OpResult>(v).getResultNumber()], func, depth + 1);
      if (src.size() == dims.size())
        dims = src;
    } else if (auto cast = v.getDefiningOp<tensor::CastOp>()) {
      SmallVector<DimSource> src = dimSources(cast.getSource(), func, depth + 1);
      if (src.size() == dims.size())
        dims = src;
    }
  }
  for (int64_t d = 0; d < ty.getRank(); ++d)
    if (!ty.isDynamicDim(d))
      dims[d] = DimSource{ty.getDimSize(d)};
  return dims;
}

/// `"key": [...]` on one line (shapes stay readable in the manifest).
void inlineArray(llvm::json::OStream &j, StringRef key, llvm::json::Array a) {
  j.attributeBegin(key);
  j.rawValue([&](raw_ostream &os) { os << llvm::json::Value(std::move(a)); });
  j.attributeEnd();
}

struct TxEmitManifestPass
    : public tx::impl::TxEmitManifestBase<TxEmitManifestPass> {
  using Base::Base;

  /// The gradient attributes of `func` (tx-derive-gradients') are what
  /// the manifest's readers expect; an error at the function otherwise.
  static LogicalResult verifyGradientAttrs(func::FuncOp func) {
    auto bad = [&](StringRef what) {
      return func.emitError("tx-emit-manifest: ") << what;
    };
    Attribute none = func->getAttr("tx.no_gradient");
    if (none && !isa<StringAttr>(none))
      return bad("'tx.no_gradient' must be a string (why the function has "
                 "no backward)");
    auto derived = func->getAttrOfType<StringAttr>("tx.derived");
    if (func->getAttr("tx.derived") &&
        (!derived || (derived.getValue() != "forward" &&
                      derived.getValue() != "backward")))
      return bad("'tx.derived' must be \"forward\" or \"backward\"");
    Attribute g = func->getAttr("tx.gradient");
    if (!g)
      return success();
    auto dict = dyn_cast<DictionaryAttr>(g);
    auto args = dict ? dict.getAs<DenseI64ArrayAttr>("arguments") : nullptr;
    bool ok = dict && args && dict.size() == 3;
    for (StringRef key : {"forward", "backward"}) {
      auto ref = dict ? dict.getAs<FlatSymbolRefAttr>(key) : nullptr;
      auto target = ref ? SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                              func, ref.getAttr())
                        : nullptr;
      ok &= target && target.isPublic() && !target.isExternal();
    }
    int64_t prev = -1;
    for (int64_t i : args ? args.asArrayRef() : ArrayRef<int64_t>())
      ok &= i > prev && i < int64_t(func.getNumArguments()), prev = i;
    if (!ok)
      return bad("'tx.gradient' must be {forward = @f, backward = @g, "
                 "arguments = array<i64: ...>} naming public functions of "
                 "this module and, in increasing order, arguments of this "
                 "function (tx-derive-gradients writes it)");
    return success();
  }

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal() &&
          failed(verifyGradientAttrs(func)))
        return signalPassFailure();
    std::string error;
    auto file = openOutputFile(path, &error);
    if (!file) {
      emitError(getOperation().getLoc(), "tx-emit-manifest: cannot write '")
          << path << "': " << error;
      return signalPassFailure();
    }
    llvm::json::OStream j(file->os(), /*IndentSize=*/1);
    j.object([&] {
      j.attribute("format", "tx-manifest");
      j.attribute("version", 1);
      j.attribute("source", locFile(getOperation().getLoc()));
      j.attribute("library", library);
      j.attribute("pipeline", pipeline);
      j.attributeArray("functions", [&] {
        for (auto func : getOperation().getOps<func::FuncOp>())
          if (func.isPublic() && !func.isExternal())
            emitFunction(j, func);
      });
    });
    file->os() << "\n";
    file->keep();
    markAllAnalysesPreserved();
  }

  static std::string locFile(Location loc) {
    if (auto fl = dyn_cast<FileLineColLoc>(loc))
      return fl.getFilename().str();
    return "";
  }

  void emitFunction(llvm::json::OStream &j, func::FuncOp func) {
    Block &entry = func.getBody().front();
    unsigned nArgs = func.getNumArguments();

    // The tx ops and, for each argument, the first tx operand it feeds.
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      if (isa<SoftmaxOp, AttentionOp, SoftmaxGradOp, AttentionGradOp,
              MergeAttentionStatesOp>(op))
        ops.push_back(op);
    });
    SmallVector<std::string> roles(nArgs);
    auto argIndex = [&](Value v) -> std::optional<unsigned> {
      auto arg = dyn_cast<BlockArgument>(v);
      if (!arg || arg.getOwner() != &entry)
        return std::nullopt;
      return arg.getArgNumber();
    };
    auto noteRole = [&](Value v, StringRef role) {
      if (auto i = argIndex(v); i && roles[*i].empty())
        roles[*i] = role.str();
    };
    for (Operation *op : ops) {
      for (auto [role, v] : opOperands(op))
        if (v)
          noteRole(v, role);
    }

    // Argument names: the source's, else from the role, else arg<i>.
    SmallVector<std::string> names(nArgs);
    llvm::StringMap<unsigned> used;
    for (unsigned i = 0; i < nArgs; ++i) {
      if (auto n = func.getArgAttrOfType<StringAttr>(i, "tx.name"))
        names[i] = n.str();
      else if (auto n = sourceNames.lookup(entry.getArgument(i).getLoc()))
        names[i] = *n;
      else if (!roles[i].empty())
        names[i] = llvm::StringSwitch<std::string>(roles[i])
                       .Case("query", "q").Case("key", "k").Case("value", "v")
                       .Case("input", "x").Case("output", "out")
                       .Default(roles[i]);
      if (names[i].empty() || ++used[names[i]] > 1)
        names[i] = "arg" + std::to_string(i);
    }

    // The returned values.
    SmallVector<Value> returned;
    if (auto ret = dyn_cast<func::ReturnOp>(entry.getTerminator()))
      returned.assign(ret.getOperands().begin(), ret.getOperands().end());

    auto shapeOf = [&](Type t) {
      auto ty = dyn_cast<RankedTensorType>(t);
      j.attribute("element_type",
                  ty ? llvm::json::Value(typeString(ty.getElementType()))
                     : llvm::json::Value(nullptr));
      j.attribute("rank", ty ? llvm::json::Value(ty.getRank())
                             : llvm::json::Value(nullptr));
      if (!ty)
        return j.attribute("shape", nullptr);
      llvm::json::Array shape;
      for (int64_t s : ty.getShape())
        shape.push_back(ShapedType::isDynamic(s) ? llvm::json::Value(nullptr)
                                                 : llvm::json::Value(s));
      inlineArray(j, "shape", std::move(shape));
    };

    j.object([&] {
      j.attribute("name", func.getSymName());
      j.attributeObject("symbols", [&] {
        j.attribute("sync", ("_mlir_ciface_" + func.getSymName()).str());
        j.attribute("on_stream",
                    ("_mlir_ciface_" + func.getSymName() + "_on_stream").str());
      });
      j.attribute("loc", locString(func.getLoc()));
      j.attributeArray("arguments", [&] {
        for (unsigned i = 0; i < nArgs; ++i)
          j.object([&] {
            j.attribute("index", i);
            j.attribute("name", names[i]);
            j.attribute("role", roles[i].empty()
                                    ? llvm::json::Value(nullptr)
                                    : llvm::json::Value(roles[i]));
            j.attribute("type", typeString(func.getArgumentTypes()[i]));
            shapeOf(func.getArgumentTypes()[i]);
          });
      });
      auto resultTypes = func.getResultTypes();
      j.attributeArray("results", [&] {
        for (unsigned r = 0; r < resultTypes.size(); ++r)
          j.object([&] {
            j.attribute("index", r);
            j.attribute("name", resultTypes.size() == 1
                                    ? std::string("result")
                                    : "result" + std::to_string(r));
            j.attribute("type", typeString(resultTypes[r]));
            shapeOf(resultTypes[r]);
            SmallVector<DimSource> dims;
            if (r < returned.size())
              dims = dimSources(returned[r], func);
            llvm::json::Array from;
            for (const DimSource &d : dims) {
              if (d.size)
                from.push_back(*d.size);
              else if (d.arg >= 0)
                from.push_back(llvm::json::Object{{"arg", d.arg}, {"dim", d.dim}});
              else
                from.push_back(nullptr);
            }
            inlineArray(j, "shape_from", std::move(from));
          });
      });
      j.attributeArray("ops", [&] {
        for (Operation *op : ops)
          emitOp(j, op, argIndex, returned);
      });
      emitGradient(j, func);
    });
  }

  /// `gradient`: what tx-derive-gradients recorded (null when it did not
  /// run): the derived functions and the differentiable arguments, or why
  /// there are none, or which derived entry point this function is.
  static void emitGradient(llvm::json::OStream &j, func::FuncOp func) {
    auto grad = func->getAttrOfType<DictionaryAttr>("tx.gradient");
    auto none = func->getAttrOfType<StringAttr>("tx.no_gradient");
    auto derived = func->getAttrOfType<StringAttr>("tx.derived");
    if (!grad && !none && !derived)
      return j.attribute("gradient", nullptr);
    j.attributeObject("gradient", [&] {
      if (derived)
        return j.attribute("derived", derived.getValue());
      if (none)
        return j.attribute("none", none.getValue());
      auto sym = [&](StringRef key) {
        auto ref = grad.getAs<FlatSymbolRefAttr>(key);
        return ref ? llvm::json::Value(ref.getValue()) : llvm::json::Value(nullptr);
      };
      j.attribute("forward", sym("forward"));
      j.attribute("backward", sym("backward"));
      llvm::json::Array args;
      if (auto a = grad.getAs<DenseI64ArrayAttr>("arguments"))
        for (int64_t i : a.asArrayRef())
          args.push_back(i);
      inlineArray(j, "arguments", std::move(args));
    });
  }

  /// The operands of a tx op by role (the manifest's `operands` keys),
  /// null where the op has none.
  static SmallVector<std::pair<StringRef, Value>> opOperands(Operation *op) {
    if (auto sm = dyn_cast<SoftmaxOp>(op))
      return {{"input", sm.getInput()}};
    if (auto g = dyn_cast<SoftmaxGradOp>(op))
      return {{"output", g.getOutput()}, {"grad_output", g.getGradOutput()}};
    if (auto m = dyn_cast<MergeAttentionStatesOp>(op))
      return {{"out_a", m.getOutA()}, {"lse_a", m.getLseA()},
              {"out_b", m.getOutB()}, {"lse_b", m.getLseB()}};
    if (auto att = dyn_cast<AttentionOp>(op))
      return {{"query", att.getQuery()},        {"key", att.getKey()},
              {"value", att.getValue()},        {"mask", att.getMask()},
              {"kv_lengths", att.getKvLengths()}, {"q_lengths", att.getQLengths()},
              {"page_table", att.getPageTable()}};
    auto g = cast<AttentionGradOp>(op);
    return {{"query", g.getQuery()},         {"key", g.getKey()},
            {"value", g.getValue()},         {"mask", g.getMask()},
            {"kv_lengths", g.getKvLengths()}, {"q_lengths", g.getQLengths()},
            {"output", g.getOutput()},       {"grad_output", g.getGradOutput()},
            {"lse", g.getLse()}};
  }

  template <typename ArgIndexFn>
  void emitOp(llvm::json::OStream &j, Operation *op, ArgIndexFn argIndex,
              ArrayRef<Value> returned) {
    auto operand = [&](StringRef name, Value v) {
      std::optional<unsigned> i = v ? argIndex(v) : std::nullopt;
      j.attribute(name, i ? llvm::json::Value(*i) : llvm::json::Value(nullptr));
    };
    j.object([&] {
      j.attribute("op", op->getName().getStringRef());
      j.attribute("loc", locString(op->getLoc()));
      if (auto sm = dyn_cast<SoftmaxOp>(op))
        j.attribute("dim", sm.getNormalizedDim());
      else if (auto g = dyn_cast<SoftmaxGradOp>(op))
        j.attribute("dim", g.getNormalizedDim());
      else if (!isa<MergeAttentionStatesOp>(op))
        emitAttentionClauses(j, op);
      j.attributeObject("operands", [&] {
        for (auto [role, v] : opOperands(op))
          if (v || role != "page_table") // only a paged op names its table
            operand(role, v);
      });
      llvm::json::Array results;
      for (auto [r, v] : llvm::enumerate(returned))
        if (v.getDefiningOp() == op)
          results.push_back(int64_t(r));
      inlineArray(j, "results", std::move(results));
    });
  }

  /// causal, scale, softcap, window and the mask kind of a tx.attention or
  /// tx.attention_grad.
  static void emitAttentionClauses(llvm::json::OStream &j, Operation *op) {
    auto emit = [&](auto att) {
      j.attribute("causal", att.getCausal());
      if (auto scale = att.getScaleAttr())
        j.attribute("scale", scale.getValueAsDouble());
      else
        j.attribute("scale", nullptr);
      if (auto softcap = att.getSoftcapAttr())
        j.attribute("softcap", softcap.getValueAsDouble());
      if (DenseI64ArrayAttr w = att.getWindowAttr(); w && w.size() == 2)
        j.attributeArray("window", [&] {
          j.value(w[0]);
          j.value(w[1]);
        });
      StringRef mask = "none";
      if (Value m = att.getMask())
        mask = cast<ShapedType>(m.getType()).getElementType().isInteger(1)
                   ? "i1"
                   : "additive";
      j.attribute("mask", mask);
    };
    if (auto att = dyn_cast<AttentionOp>(op))
      emit(att);
    else
      emit(cast<AttentionGradOp>(op));
  }

  SourceNames sourceNames;
};
} // namespace
