//===- HostABI.h - shared bits of the host-boundary passes ------*- C++ -*-===//
//
// Names shared by tx-results-in-place, tx-host-checks-to-errors and
// tx-stream-entry-points (the host side of the C ABI, docs/ABI.md).
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_HOSTABI_H
#define TRANSFORMER_HOSTABI_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
namespace tx {

/// Unit attribute on a `cf.assert` made by tx-results-in-place: its message
/// is a printf format whose two `%lld` are the operands of the `arith.cmpi`
/// that computes the condition (the out-parameter's size, the computed size).
/// tx-host-checks-to-errors formats it at run time.
inline constexpr llvm::StringLiteral kMessageFormatAttr = "tx.message_format";

/// The argument attribute `buffer-results-to-out-params{add-result-attr}`
/// puts on every out-parameter.
inline constexpr llvm::StringLiteral kOutParamAttr = "bufferize.result";

/// Runtime functions of the C ABI (runtime/include/tx/Runtime.h).
inline constexpr llvm::StringLiteral kBeginCallFn = "txRuntimeBeginCall";
inline constexpr llvm::StringLiteral kEndCallFn = "txRuntimeEndCall";
inline constexpr llvm::StringLiteral kFailFn = "txRuntimeFail";

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_HOSTABI_H
