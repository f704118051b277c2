// Diagnostics of the tiled attention path: tx-opt exits non-zero with a
// located message (never a crash; `not` fails on a crash).
//
// Bad tile sizes, on the pass and through tx-cpu-pipeline (checked even
// without a tx.attention in the input):
// RUN: not tx-opt %s --tx-tile-attention="q-tile=0" 2>&1 | FileCheck %s --check-prefix=QTILE
// RUN: not tx-opt %s --tx-cpu-pipeline="attention=tiled attention-q-tile=0" 2>&1 | FileCheck %s --check-prefix=QTILE
// RUN: not tx-opt %s --tx-tile-attention="kv-tile=-3" 2>&1 | FileCheck %s --check-prefix=KVTILE
// RUN: not tx-opt %s --tx-cpu-pipeline="attention=tiled attention-kv-tile=0" 2>&1 | FileCheck %s --check-prefix=KVTILE0
// RUN: not tx-opt %s --tx-tile-attention="kv-splits=0" 2>&1 | FileCheck %s --check-prefix=SPLITS
// RUN: not tx-opt %s --tx-cpu-pipeline="attention=tiled attention-kv-splits=-2" 2>&1 | FileCheck %s --check-prefix=SPLITSNEG
// RUN: not tx-opt %s --tx-tile-attention="q-tile=abc" 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not tx-opt %s --tx-cpu-pipeline="attention=flash" 2>&1 | FileCheck %s --check-prefix=STRATEGY
// QTILE: tile-attention-errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tx-tile-attention: q-tile must be >= 1, got 0
// SPLITS: tile-attention-errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tx-tile-attention: kv-splits must be in [1, 65536], got 0
// SPLITSNEG: error: tx-tile-attention: kv-splits must be in [1, 65536], got -2
// KVTILE: tile-attention-errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tx-tile-attention: kv-tile must be >= 1, got -3
// KVTILE0: error: tx-tile-attention: kv-tile must be >= 1, got 0
// PARSE: q-tile
// STRATEGY: tile-attention-errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tx-cpu-pipeline: unknown attention strategy 'flash'; expected simple or tiled
//
// Tiling failure: tx.online_attention refuses a head tile that is neither 1
// nor the whole H under GQA (here tiles of 2 query heads, H / Hkv = 4).
// RUN: not tx-opt %S/Inputs/online-attention-bad-head-tile.mlir --transform-interpreter 2>&1 | FileCheck %s --check-prefix=HEADTILE
// HEADTILE: online-attention-bad-head-tile.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'tx.online_attention' op cannot tile the query head dimension H with a tile of 2 heads: with grouped-query attention (H / Hkv = 4) a head tile must be 1, H / Hkv or the whole H
//
// The decomposition needs a static H / Hkv (convert-tx-to-linalg lowers a
// tx.online_attention through it).
// RUN: not tx-opt %s --convert-tx-to-linalg 2>&1 | FileCheck %s --check-prefix=DECOMP
// DECOMP: tile-attention-errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'tx.online_attention' op decomposition needs a static ratio H / Hkv of query to K/V heads (tile the head dimension by 1 first)

func.func @dynamic_heads(%q: tensor<1x?x16x8xf32>, %k: tensor<1x?x16x8xf32>, %v: tensor<1x?x16x8xf32>,
                         %acc: tensor<1x?x16x8xf32>, %m: tensor<1x?x16xf32>, %l: tensor<1x?x16xf32>) -> tensor<1x?x16x8xf32> {
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 outs(%acc, %m, %l)
      : tensor<1x?x16x8xf32>, tensor<1x?x16x8xf32>, tensor<1x?x16x8xf32>
      -> tensor<1x?x16x8xf32>, tensor<1x?x16xf32>, tensor<1x?x16xf32>
  return %0#0 : tensor<1x?x16x8xf32>
}
