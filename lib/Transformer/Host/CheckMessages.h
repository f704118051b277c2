//===- CheckMessages.h - the text of a failed run-time check ----*- C++ -*-===//
//
// What tx-host-checks-to-errors and tx-cpu-checks-to-exit print when a
// `cf.assert` fails (Transformer/RunTimeChecks.h): a printf format held in a
// module-level string constant, and the i64 values it formats.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_HOST_CHECKMESSAGES_H
#define TRANSFORMER_HOST_CHECKMESSAGES_H

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"

namespace mlir {
namespace tx {

/// A failed check's message as printf arguments.
struct CheckMessage {
  std::string format;        // printf format (literal text has `%%`)
  SmallVector<Value> values; // i64, one per `%lld`
};

/// The message of `check` after `prefix`: a tx.message_format check with an
/// `arith.cmpi` condition formats its two operands; one whose condition
/// folded away shows `?` for them; any other message is literal text.
CheckMessage describeCheck(OpBuilder &b, cf::AssertOp check, StringRef prefix);

/// `file:line:col: ` of the first file location in `loc`, or "".
std::string locationPrefix(Location loc);

/// Module-level NUL-terminated string constants, one per distinct text.
class CheckStrings {
public:
  explicit CheckStrings(SymbolTable &symbols) : symbols(symbols) {}
  /// An !llvm.ptr to `text`'s constant (created at the module's start).
  Value get(OpBuilder &b, Location loc, StringRef text);

private:
  SymbolTable &symbols;
  llvm::StringMap<LLVM::GlobalOp> globals;
};

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_HOST_CHECKMESSAGES_H
