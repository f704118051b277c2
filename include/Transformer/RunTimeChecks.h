//===- RunTimeChecks.h - the run-time checks' message convention -*- C++ -*-===//
//
// tx's run-time checks (the shape rules a verifier cannot decide statically,
// per-sequence lengths, out-parameter sizes) are `cf.assert` ops. A check
// made by emitFormattedCheck carries `tx.message_format`: its message is a
// printf format whose two `%lld` are the operands of the `arith.cmpi` that
// computes the condition, so that a failure can say which values were
// wrong. The pipelines turn the asserts into errors: tx-host-checks-to-errors
// (compiled libraries: txRuntimeFail, an early return) and
// tx-cpu-checks-to-exit (tx-cpu-pipeline: a located message on stderr and
// exit status 1).
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_RUNTIMECHECKS_H
#define TRANSFORMER_RUNTIMECHECKS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace tx {

/// Unit attribute on a `cf.assert` whose message is a printf format of the
/// two operands (`%lld` each, lhs first) of the `arith.cmpi` condition.
inline constexpr llvm::StringLiteral kMessageFormatAttr = "tx.message_format";

/// `cf.assert (lhs pred rhs)` with `format` as its message (two `%lld`: lhs,
/// then rhs; `%%` for a percent sign), marked kMessageFormatAttr.
inline cf::AssertOp emitFormattedCheck(OpBuilder &b, Location loc,
                                       arith::CmpIPredicate pred, Value lhs,
                                       Value rhs, StringRef format) {
  Value cond = arith::CmpIOp::create(b, loc, pred, lhs, rhs);
  auto check = cf::AssertOp::create(b, loc, cond, format);
  check->setAttr(kMessageFormatAttr, b.getUnitAttr());
  return check;
}

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_RUNTIMECHECKS_H
