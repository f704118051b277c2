//===- CheckMessages.cpp - the text of a failed run-time check ------------===//
#include "Host/CheckMessages.h"
#include "Transformer/RunTimeChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::tx;

/// `v` (index or integer) as i64, for a printf `%lld`.
static Value asI64(OpBuilder &b, Location loc, Value v) {
  Type i64 = b.getI64Type();
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, i64, v);
  unsigned w = v.getType().getIntOrFloatBitWidth();
  if (w < 64)
    return arith::ExtSIOp::create(b, loc, i64, v);
  if (w > 64)
    return arith::TruncIOp::create(b, loc, i64, v);
  return v;
}

/// `text` as literal printf text.
static std::string escapePercent(StringRef text) {
  std::string out;
  for (char c : text) {
    out.push_back(c);
    if (c == '%')
      out.push_back('%');
  }
  return out;
}

CheckMessage mlir::tx::describeCheck(OpBuilder &b, cf::AssertOp check,
                                     StringRef prefix) {
  CheckMessage m;
  m.format = escapePercent(prefix);
  StringRef msg = check.getMsg();
  if (!check->hasAttr(kMessageFormatAttr)) {
    m.format += escapePercent(msg);
    return m;
  }
  if (auto cmp = check.getArg().getDefiningOp<arith::CmpIOp>()) {
    m.format += msg.str();
    m.values = {asI64(b, check.getLoc(), cmp.getLhs()),
                asI64(b, check.getLoc(), cmp.getRhs())};
    return m;
  }
  // The values folded away: the format without them.
  for (size_t i = 0; i < msg.size(); ++i) {
    if (msg.substr(i).starts_with("%lld")) {
      m.format += "?";
      i += 3;
    } else {
      m.format.push_back(msg[i]); // `%%` stays `%%`
    }
  }
  return m;
}

std::string mlir::tx::locationPrefix(Location loc) {
  std::string out;
  loc->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColLoc>(l)) {
      out = (f.getFilename().getValue() + ":" + Twine(f.getLine()) + ":" +
             Twine(f.getColumn()) + ": ")
                .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return out;
}

Value CheckStrings::get(OpBuilder &b, Location loc, StringRef text) {
  LLVM::GlobalOp &global = globals[text];
  if (!global) {
    auto module = cast<ModuleOp>(symbols.getOp());
    OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
    std::string data = text.str();
    data.push_back('\0');
    auto ty = LLVM::LLVMArrayType::get(IntegerType::get(b.getContext(), 8),
                                       data.size());
    global = LLVM::GlobalOp::create(mb, loc, ty, /*isConstant=*/true,
                                    LLVM::Linkage::Internal, "__tx_check_msg",
                                    mb.getStringAttr(data));
    symbols.insert(global); // renames on a clash
  }
  return LLVM::AddressOfOp::create(b, loc, global);
}
