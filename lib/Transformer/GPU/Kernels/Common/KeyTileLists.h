//===- KeyTileLists.h - block sparsity from a mask function -----*- C++ -*-===//
//
// Block sparsity for tx.attention's mask function (`mask_mod`, issue #42;
// FlexAttention's BlockMask, Dong et al. 2024): before the attention
// kernel, two small generated kernels find, for every query tile, the key
// tiles in which the mask function shows at least one (query, key) pair,
// and list them in ascending order. The attention kernel then visits only
// those tiles (tile t of its loop starts at key list[t] * kv-tile): a key
// tile the mask hides entirely is never read. The same kernels mark the
// tiles in which the mask shows every pair (of the tile's rows < Sq and
// keys < Sk): the kernel evaluates no mask function there. The lists are
// per batch and per query head only when the mask function reads `b` or
// `h`.
//
// Private to lib/Transformer.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_GPU_KEYTILELISTS_H
#define TRANSFORMER_GPU_KEYTILELISTS_H

#include "GPU/Kernels/Common/ModRegions.h"

namespace mlir {
namespace tx {
namespace kernel {

struct KeyTileLists {
  /// i32 [rows * nKT]: row r's visible key tiles first, ascending; rows are
  /// (b', h', query tile), b' = b when perBatch else 0, h' likewise.
  Value list;
  Value count; // i32 [rows]: the number of row r's visible key tiles
  /// i32 [rows * nKT], by key tile (not compacted): 1 where the mask
  /// function shows every pair of row r's key tile kt, else 0.
  Value full;
  Value nQT, nKT; // query tiles of Sq, key tiles of Sk (index)
  Value heads;    // H' (index): H when perHead, else 1
  bool perBatch = false, perHead = false;

  /// Host side: the lists' buffers and the two kernels that fill them for
  /// the mask function of `mods` (B x H query heads, Sq rows by tiles of
  /// `qTile` (<= 1024), Sk keys by tiles of `kvTile`). Built at `b`'s
  /// insertion point, before the attention kernel's launch; no launch
  /// where there is no row or no key.
  static KeyTileLists build(OpBuilder &b, Location loc, const ScoreMods &mods,
                            Value B, Value H, Value Sq, Value Sk,
                            int64_t qTile, int64_t kvTile);

  /// Inside the attention kernel: the list row of query tile `qt` of batch
  /// `bi` and query head `h`.
  Value row(OpBuilder &b, Location loc, Value bi, Value h, Value qt) const;
  /// The number of key tiles row `r` visits (index).
  Value tiles(OpBuilder &b, Location loc, Value r) const;
  /// The first key of the `t`-th key tile row `r` visits (index); t is
  /// clamped into the row, so a t one past the last reads a valid entry.
  Value tileStart(OpBuilder &b, Location loc, Value r, Value t,
                  int64_t kvTile) const;
  /// Whether the mask function shows every pair of the key tile starting
  /// at key `k0` (a multiple of `kvTile`) in row `r` (i1).
  Value isFull(OpBuilder &b, Location loc, Value r, Value k0,
               int64_t kvTile) const;
};

} // namespace kernel
} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_GPU_KEYTILELISTS_H
