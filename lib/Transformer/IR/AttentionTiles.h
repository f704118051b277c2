//===- AttentionTiles.h - slicing one tile of an attention op ---*- C++ -*-===//
//
// The slices of Q, K, V and a mask that a tile of tx.attention,
// tx.online_attention, tx.attention_dq or tx.attention_dkdv reads, and the
// grouped-query head mapping (query head h reads K/V head h / (H / Hkv)).
// Private to lib/Transformer/IR.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_IR_ATTENTIONTILES_H
#define TRANSFORMER_IR_ATTENTIONTILES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include <optional>
#include <utility>

namespace mlir {
namespace tx {

/// Static H / Hkv of Q and K/V, if known (at least 1: H == 0, which the
/// verifiers allow with any Hkv, has an empty iteration space, and a group
/// of 0 would divide by zero in the K/V head's index map).
std::optional<int64_t> staticGroup(Value query, Value key, Value value);

/// The K/V head range [offset, offset + size) read by the query heads
/// [h0, h0 + hs). Supported: hs == 1 (K/V head h0 / G), a tile of exactly
/// G heads, the whole head range, and any head tile when G == H / Hkv is
/// statically 1; anything else is an error on `op`.
FailureOr<std::pair<OpFoldResult, OpFoldResult>>
kvHeadTile(Operation *op, Value query, Value key, Value value, OpBuilder &b,
           OpFoldResult h0, OpFoldResult hs);

/// The tiles of one attention tile: Q rows [m0, m0 + ms) of heads
/// [h0, h0 + hs) of batches [b0, b0 + bs) (`offsets` and `sizes`, B, H, M
/// first), the K/V rows [n0, n0 + ns) of their K/V heads (kvHeadTile, or
/// `kvHeads` when given), and the mask's [rows, keys] block (its broadcast
/// dims of 1 kept). The slice ops are appended to `slices`; `mask` may be
/// null.
struct AttentionTiles {
  Value q, k, v, mask;
  OpFoldResult d, dv; // head dims of Q/K and of V
};
FailureOr<AttentionTiles> sliceAttentionTile(
    Operation *op, OpBuilder &b, Value query, Value key, Value value,
    Value mask, ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
    OpFoldResult n0, OpFoldResult ns, SmallVectorImpl<Operation *> &slices,
    std::optional<std::pair<OpFoldResult, OpFoldResult>> kvHeads =
        std::nullopt);

/// A unit-stride tensor.extract_slice of `t` (offsets into zero-size
/// dimensions made safe), appended to `slices`.
Value sliceOf(OpBuilder &b, Location loc, Value t,
              ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
              SmallVectorImpl<Operation *> &slices);

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_IR_ATTENTIONTILES_H
