//===- PagedKv.h - a paged tx.attention rewritten onto gathers ---*- C++ -*-===//
//
// tx-gather-kv-pages and convert-tx-to-linalg share the rewrite: a
// tx.attention with a page table becomes gathers of its K/V pools into
// the contiguous [B, Hkv, max_pages * page_size, D] they stand for, and an
// unpaged tx.attention on them (TxOps.td, "Paged KV cache").
//
// Private to lib/Transformer/Transforms.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_TRANSFORMS_PAGEDKV_H
#define TRANSFORMER_TRANSFORMS_PAGEDKV_H

#include "Transformer/TxOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tx {

/// Replaces the paged `op` by gathers and an unpaged tx.attention; returns
/// the new op. Key j of batch b is row j % page_size of page
/// page_table[b, j / page_size]; keys past kv_lengths[b] and live keys
/// whose id lies outside [0, num_pages) read as zeros (never outside the
/// pools).
AttentionOp gatherKvPages(RewriterBase &rewriter, AttentionOp op);

/// One gather of gatherKvPages, read back: the pool it reads, the page
/// table and kv_lengths (null without).
struct KvPageGather {
  Value pool, pageTable, kvLengths;
};

/// The gather that defines `logical` (a linalg.generic marked
/// tx.kv_page_gather whose body reads a rank-4 pool and a rank-2 i32 page
/// table from above), or failure: a kernel that reads the pool in place
/// may replace it.
FailureOr<KvPageGather> matchKvPageGather(Value logical);

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_TRANSFORMS_PAGEDKV_H
