// tx-tile-attention: tx.attention -> scf.forall over (B, H, Sq) tiles
// (upstream scf::tileUsingSCF through tx.attention's TilingInterface) ->
// per tile: state init, scf.for over key tiles (the FlashAttention-2 loop,
// state in iter_args) of tx.online_attention tiles (decompose=false) or
// their linalg.generic decomposition (default), and the epilogue
// O = (sum == 0) ? 0 : acc / sum. No Sq x Sk tensor anywhere.
// RUN: tx-opt %s --split-input-file --tx-tile-attention="q-tile=4 kv-tile=5 decompose=false" | FileCheck %s --check-prefix=TILE
// RUN: tx-opt %s --split-input-file --tx-tile-attention="q-tile=4 kv-tile=5" | FileCheck %s --check-prefix=DEC
// Through the plugin under upstream mlir-opt (dependent dialects complete):
// RUN: mlir-opt --load-dialect-plugin=%tx_plugin %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-tile-attention{q-tile=4 kv-tile=5 decompose=false}))" | FileCheck %s --check-prefix=TILE

// Causal GQA (H = 4, Hkv = 2), Sq = 10 < Sk = 12 (causal offset Sk - Sq = 2),
// f16: partial query tiles (10 = 4 + 4 + 2) and key tiles (12 = 5 + 5 + 2).
// The maps of the causal bound and of the tile's causal offset:
// TILE-DAG: #[[ENDMAP:.*]] = affine_map<(d0)[s0] -> (12, d0 + s0 + 2)>
// TILE-DAG: #[[OFFMAP:.*]] = affine_map<()[s0, s1] -> (-s0 + s1 + 2)>
// TILE-LABEL: func.func @causal_gqa
// TILE-SAME: (%[[Q:[^:]*]]: tensor<1x4x10x8xf16>, %[[K:[^:]*]]: tensor<1x2x12x8xf16>, %[[V:[^:]*]]: tensor<1x2x12x6xf16>)
// TILE-NOT: 10x12
// The forall writes the output tiles (f16) directly: no full-size state.
// TILE: %[[OUT0:.*]] = tensor.empty() : tensor<1x4x10x6xf16>
// TILE: %[[RES:.*]] = scf.forall (%[[B:.*]], %[[H:.*]], %[[I:.*]]) = (0, 0, 0) to (1, 4, 10) step (1, 1, 4) shared_outs(%[[OUT:.*]] = %[[OUT0]]) -> (tensor<1x4x10x6xf16>)
// TILE:   %[[ROWS:.*]] = affine.min #{{.*}}(%[[I]])
// Query head h reads K/V head h floordiv (H / Hkv), in place:
// TILE:   %[[KVH:.*]] = affine.apply #{{.*}}(%[[H]])
// TILE:   %[[QT:.*]] = tensor.extract_slice %[[Q]][%[[B]], %[[H]], %[[I]], 0] [1, 1, %[[ROWS]], 8]
// TILE:   %[[KT:.*]] = tensor.extract_slice %[[K]][%[[B]], %[[KVH]], 0, 0] [1, 1, 12, 8]
// TILE:   %[[VT:.*]] = tensor.extract_slice %[[V]][%[[B]], %[[KVH]], 0, 0] [1, 1, 12, 6]
// The tile's state starts at (0, -inf, 0):
// TILE-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// TILE-DAG: %[[ACC0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x1x?x6xf32>)
// TILE-DAG: %[[MAX0:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<1x1x?xf32>)
// Causal: keys stop at min(Sk, max(0, rows + i + Sk - Sq)).
// TILE:   %[[END0:.*]] = affine.min #[[ENDMAP]](%[[ROWS]])[%[[I]]]
// TILE:   %[[END:.*]] = affine.max #{{.*}}(%[[END0]])
// TILE:   %[[C5:.*]] = arith.constant 5 : index
// TILE:   %[[ST:.*]]:3 = scf.for %[[J:.*]] = %{{.*}} to %[[END]] step %[[C5]] iter_args(%[[A:.*]] = %[[ACC0]], %[[M:.*]] = %[[MAX0]], %[[L:.*]] = %{{.*}}) -> (tensor<1x1x?x6xf32>, tensor<1x1x?xf32>, tensor<1x1x?xf32>)
// TILE:     %[[COLS:.*]] = affine.min #{{.*}}(%[[J]])
// TILE:     tensor.extract_slice %[[KT]][0, 0, %[[J]], 0] [1, 1, %[[COLS]], 8]
// TILE:     tensor.extract_slice %[[VT]][0, 0, %[[J]], 0] [1, 1, %[[COLS]], 6]
// The tile's causal offset is (Sk - Sq) + i - j:
// TILE:     %[[OFF:.*]] = affine.apply #[[OFFMAP]]()[%[[J]], %[[I]]]
// TILE:     tx.online_attention %{{.*}}, %{{.*}}, %{{.*}} scale = 0.353553385 causal causal_offset(%[[OFF]]) outs(%{{.*}}, %{{.*}}, %{{.*}}) : tensor<1x1x?x8xf16>, tensor<1x1x?x8xf16>, tensor<1x1x?x6xf16> -> tensor<1x1x?x6xf32>, tensor<1x1x?xf32>, tensor<1x1x?xf32>
// TILE:     scf.yield
// The epilogue of the tile, rounded once:
// TILE:   %[[O:.*]] = linalg.generic {{.*}} ins(%[[ST]]#0, %[[ST]]#2 : tensor<1x1x?x6xf32>, tensor<1x1x?xf32>) outs(%{{.*}} : tensor<1x1x?x6xf16>) attrs = {tx.attention_epilogue = "output"}
// TILE:     arith.divf
// TILE:     arith.cmpf oeq
// TILE:     arith.select
// TILE:     arith.truncf %{{.*}} : f32 to f16
// TILE:   scf.forall.in_parallel
// TILE:     tensor.parallel_insert_slice %[[O]] into %[[OUT]][%[[B]], %[[H]], %[[I]], 0] [1, 1, %[[ROWS]], 6]
// TILE-NOT: tx.attention
// TILE-NOT: 10x12
// TILE: return %[[RES]]

// DEC-LABEL: func.func @causal_gqa
// DEC-NOT: tx.online_attention
// DEC: scf.forall
// DEC: scf.for
// Scores of one tile only (rows x cols), the causal test on linalg.index:
// DEC: tensor.empty(%{{.*}}, %{{.*}}) : tensor<1x1x?x?xf32>
// DEC: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<1x1x?x8xf16>, tensor<1x1x?x8xf16>) outs(%{{.*}} : tensor<1x1x?x?xf32>)
// DEC:   arith.extf
// DEC: linalg.index 2
// DEC: linalg.index 3
// DEC: arith.cmpi sle
// DEC: arith.maximumf
// DEC: math.exp
// DEC: math.exp
// DEC: scf.yield
// DEC-NOT: tx.online_attention
// DEC-NOT: 10x12
// DEC: return
func.func @causal_gqa(%q: tensor<1x4x10x8xf16>, %k: tensor<1x2x12x8xf16>, %v: tensor<1x2x12x6xf16>) -> tensor<1x4x10x6xf16> {
  %o = tx.attention %q, %k, %v causal : tensor<1x4x10x8xf16>, tensor<1x2x12x8xf16>, tensor<1x2x12x6xf16> -> tensor<1x4x10x6xf16>
  return %o : tensor<1x4x10x6xf16>
}

// -----

// Tiles that divide Sq = 8 and Sk = 10: static 4 x 5 score blocks; an i1
// keep-mask sliced per tile; no causal bound (the loop runs over all keys).
// TILE-LABEL: func.func @mha_keep
// TILE-SAME: %[[M:[^:]*]]: tensor<2x2x8x10xi1>
// TILE: scf.forall (%[[B:.*]], %[[H:.*]], %[[I:.*]]) = (0, 0, 0) to (2, 2, 8) step (1, 1, 4)
// TILE:   %[[MT:.*]] = tensor.extract_slice %[[M]][%[[B]], %[[H]], %[[I]], 0] [1, 1, 4, 10]
// TILE:   %[[C10:.*]] = arith.constant 10 : index
// TILE:   %[[C5:.*]] = arith.constant 5 : index
// TILE:   scf.for %[[J:.*]] = %{{.*}} to %[[C10]] step %[[C5]]
// TILE:     tensor.extract_slice %[[MT]][0, 0, 0, %[[J]]] [1, 1, 4, 5]
// TILE:     tx.online_attention {{.*}} mask(%{{.*}} : tensor<1x1x4x5xi1>) scale = 5.000000e-01 outs({{.*}}) : tensor<1x1x4x16xf32>, tensor<1x1x5x16xf32>, tensor<1x1x5x4xf32> -> tensor<1x1x4x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>
// TILE-NOT: 8x10xf32

// DEC-LABEL: func.func @mha_keep
// DEC: scf.for
// DEC: %[[S:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x4x5xf32>)
// DEC: %[[SM:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x1x4x5xi1>) outs(%[[S]] : tensor<1x1x4x5xf32>)
// DEC:   arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// DEC: %[[RMAX:.*]] = linalg.generic {{.*}} ins(%[[SM]] : tensor<1x1x4x5xf32>) outs(%{{.*}} : tensor<1x1x4xf32>)
// DEC:   arith.maximumf
// m_new, l = alpha * l_old and alpha in one generic over the rows:
// DEC: %[[ST:.*]]:3 = linalg.generic {{.*}} ins(%[[RMAX]] : tensor<1x1x4xf32>) outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<1x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>)
// DEC:   arith.maximumf
// DEC:   arith.cmpf oeq
// DEC:   arith.select
// DEC:   arith.subf
// DEC:   math.exp
// DEC:   arith.mulf
// DEC: %[[P:.*]] = linalg.generic {{.*}} ins(%[[ST]]#0 : tensor<1x1x4xf32>) outs(%[[SM]] : tensor<1x1x4x5xf32>)
// DEC:   math.exp
// DEC: linalg.generic {{.*}} ins(%[[P]] : tensor<1x1x4x5xf32>) outs(%[[ST]]#1 : tensor<1x1x4xf32>)
// DEC: %[[ACC:.*]] = linalg.generic {{.*}} ins(%[[ST]]#2 : tensor<1x1x4xf32>) outs(%{{.*}} : tensor<1x1x4x4xf32>)
// DEC: linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<1x1x4x5xf32>, tensor<1x1x5x4xf32>) outs(%[[ACC]] : tensor<1x1x4x4xf32>)
// DEC-NOT: 8x10xf32
// DEC: return
func.func @mha_keep(%q: tensor<2x2x8x16xf32>, %k: tensor<2x2x10x16xf32>, %v: tensor<2x2x10x4xf32>, %m: tensor<2x2x8x10xi1>) -> tensor<2x2x8x4xf32> {
  %o = tx.attention %q, %k, %v mask(%m : tensor<2x2x8x10xi1>) scale = 0.5 : tensor<2x2x8x16xf32>, tensor<2x2x10x16xf32>, tensor<2x2x10x4xf32> -> tensor<2x2x8x4xf32>
  return %o : tensor<2x2x8x4xf32>
}

// -----

// Dynamic B, Sq, Sk (static heads and D): the run-time shape checks of the
// reference lowering, loop bounds from tensor.dim, causal offset Sk - Sq.
// TILE-LABEL: func.func @dynamic
// TILE-SAME: (%[[Q:[^:]*]]: tensor<?x4x?x16xf32>, %[[K:[^:]*]]: tensor<?x1x?x16xf32>
// TILE: cf.assert %{{.*}}, "tx.attention: batch size of query and key differ: %lld vs %lld" {tx.message_format}
// TILE: cf.assert %{{.*}}, "tx.attention: key lengths Sk of key and value differ: %lld vs %lld" {tx.message_format}
// TILE: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) = (0, 0, 0) to (%{{.*}}, 4, %{{.*}}) step (1, 1, 4)
// TILE:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// TILE:     tx.online_attention {{.*}} scale = 2.500000e-01 causal causal_offset(%{{.*}}) {{.*}} : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32> -> tensor<1x1x?x16xf32>, tensor<1x1x?xf32>, tensor<1x1x?xf32>
// TILE: return %{{.*}} : tensor<?x4x?x16xf32>
func.func @dynamic(%q: tensor<?x4x?x16xf32>, %k: tensor<?x1x?x16xf32>, %v: tensor<?x1x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %o = tx.attention %q, %k, %v causal : tensor<?x4x?x16xf32>, tensor<?x1x?x16xf32>, tensor<?x1x?x16xf32> -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// Fully dynamic with no scale: each tile of Q is pre-scaled by rsqrt(D) at
// run time and the op gets scale = 1; K/V head h / G with a run-time G.
// TILE-LABEL: func.func @fully_dynamic
// TILE: scf.forall
// TILE:   arith.divui
// TILE:   math.rsqrt
// TILE:   tx.online_attention {{.*}} scale = 1.000000e+00
func.func @fully_dynamic(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %o = tx.attention %q, %k, %v : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %o : tensor<?x?x?x?xf32>
}

// -----

// Statically empty problems need no loops: Sk = 0 gives zeros, Sq = 0 an
// empty result.
// TILE-LABEL: func.func @no_keys
// TILE-NOT: scf.forall
// TILE: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x4x8xf32>)
// TILE-NEXT: return
// TILE-LABEL: func.func @no_queries
// TILE-NOT: scf.forall
// TILE: %[[E:.*]] = bufferization.alloc_tensor() : tensor<1x2x0x8xf32>
// TILE-NEXT: return %[[E]]
func.func @no_keys(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x0x8xf32>, %v: tensor<1x2x0x8xf32>) -> tensor<1x2x4x8xf32> {
  %o = tx.attention %q, %k, %v : tensor<1x2x4x8xf32>, tensor<1x2x0x8xf32>, tensor<1x2x0x8xf32> -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}
func.func @no_queries(%q: tensor<1x2x0x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x0x8xf32> {
  %o = tx.attention %q, %k, %v causal : tensor<1x2x0x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x0x8xf32>
  return %o : tensor<1x2x0x8xf32>
}

// -----

// A window that hides nothing ([-1, -1]) still gets a causal_offset: the
// tile op needs one with any window.
// TILE-LABEL: func.func @window_unbounded
// TILE: tx.online_attention {{.*}} window = [-1, -1] causal_offset(
// DEC-LABEL: func.func @window_unbounded
// DEC: scf.forall
func.func @window_unbounded(%q: tensor<1x2x8x16xf16>, %k: tensor<1x2x12x16xf16>, %v: tensor<1x2x12x16xf16>) -> tensor<1x2x8x16xf16> {
  %o = tx.attention %q, %k, %v window = [-1, -1] : tensor<1x2x8x16xf16>, tensor<1x2x12x16xf16>, tensor<1x2x12x16xf16> -> tensor<1x2x8x16xf16>
  return %o : tensor<1x2x8x16xf16>
}
