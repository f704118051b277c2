//===- HostABI.h - shared bits of the host-boundary passes ------*- C++ -*-===//
//
// Names shared by tx-results-in-place, tx-host-checks-to-errors and
// tx-stream-entry-points (the host side of the C ABI, docs/ABI.md).
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_HOSTABI_H
#define TRANSFORMER_HOSTABI_H

#include "Transformer/RunTimeChecks.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
namespace tx {


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
