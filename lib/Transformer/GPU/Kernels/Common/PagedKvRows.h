//===- PagedKvRows.h - a paged KV cache's rows, as kernels read them -*- C++ -*-===//
//
// A kernel that reads a paged KV cache in place (AttentionProblem::
// pageTable) asks here where its key rows lie: key j of batch b is row
// j % page_size of page page_table[b, j / page_size] of the pools
// [num_pages, page_size, Hkv, D] (TxOps.td, "Paged KV cache"; vLLM's
// and FlashInfer's NHD layout). The page table is read once per key tile
// when a tile lies in one page (a static page size that is a multiple of
// the tile), else once per row (a tile spans pages). A page id outside
// [0, num_pages) is never dereferenced: its rows read as zeros, as the
// gathers of tx-gather-kv-pages do.
//
// Private to lib/Transformer.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_GPU_PAGEDKVROWS_H
#define TRANSFORMER_GPU_PAGEDKVROWS_H

#include "mlir/IR/Builders.h"

namespace mlir {
namespace tx {
namespace kernel {

class PagedKvRows {
public:
  /// Host side, before the launch: the page table's buffer (from the i32
  /// tensor [B, max_pages] `table`), the page size and the page count of
  /// the pools `keyPool`/`valuePool` (memrefs; the smaller count where
  /// they differ at run time). The kernel's tiles start at multiples of
  /// `tileKeys` keys.
  static PagedKvRows build(OpBuilder &b, Location loc, Value keyPool,
                           Value valuePool, Value table, int64_t tileKeys);

  /// Whether every key tile lies in one page (tilePage is not null).
  bool holdsTiles() const { return tileInOnePage; }

  /// The page id (index) of the key tile that starts at key `j0` of batch
  /// `batch` when every tile lies in one page: one table read per tile.
  /// Null when tiles may span pages.
  Value tilePage(OpBuilder &b, Location loc, Value batch, Value j0) const;

  /// The pool indices {page, row, kh, col} of key `j` (a live key, in
  /// [0, Sk)) of batch `batch`, in the tile at `j0` whose page is
  /// `tilePage` (null: looked up here). `ok` becomes false where the page
  /// id lies outside [0, num_pages); the indices then name page 0.
  SmallVector<Value> index(OpBuilder &b, Location loc, Value batch,
                           Value kh, Value tilePage, Value j0, Value j,
                           Value col, Value &ok) const;

  /// Whether stridedIndex applies to tiles of `tileKeys` rows: a static
  /// page size no larger than the tile (tiles start on page boundaries).
  bool stridesPages(int64_t tileKeys) const {
    return staticPageSize > 0 && staticPageSize <= tileKeys;
  }

  /// The pool indices of a thread's copies of rows row0 + r0 + i * step,
  /// i < ok.size(), of the tile at `row0` (a multiple of the page size,
  /// stridesPages), with 0 <= r0 < step (powers of two): the rows' pages
  /// and rows-in-page follow from one division by static offsets, and each
  /// distinct page is read once. Pages past `lastRow`'s are not read (its
  /// page instead; such rows are not live). ok[i] becomes false where the
  /// page id lies outside [0, num_pages).
  SmallVector<SmallVector<Value>>
  stridedIndex(OpBuilder &b, Location loc, Value batch, Value kh, Value row0,
               Value r0, int64_t step, Value col, Value lastRow,
               MutableArrayRef<Value> ok) const;

private:
  Value pageId(OpBuilder &b, Location loc, Value batch, Value page) const;
  /// `id` in [0, num_pages): ok and'ed with it; else 0.
  Value checked(OpBuilder &b, Location loc, Value id, Value &ok) const;

  Value table, pageSize, numPages;
  int64_t staticPageSize = 0; // 0: dynamic
  bool tileInOnePage = false;
};

} // namespace kernel
} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_GPU_PAGEDKVROWS_H
