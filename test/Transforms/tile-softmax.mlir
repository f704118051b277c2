// tx-tile-softmax: row tiles from tx.softmax's TilingInterface (upstream
// scf::tileUsingSCF), and with cols-per-tile the online-softmax chunks.
// RUN: tx-opt %s --split-input-file --tx-tile-softmax="rows-per-tile=2" | FileCheck %s --check-prefix=ROWS
// RUN: tx-opt %s --split-input-file --tx-tile-softmax="rows-per-tile=2 cols-per-tile=16" | FileCheck %s --check-prefix=CHUNK

// ROWS-LABEL: func.func @rows
// ROWS:       scf.forall (%[[I:.*]]) = (0) to (5) step (2) shared_outs(%[[O:.*]] = %{{.*}}) -> (tensor<5x77xf16>)
// ROWS:         %[[SZ:.*]] = affine.min #{{.*}}(%[[I]])
// ROWS:         %[[X:.*]] = tensor.extract_slice %{{.*}}[%[[I]], 0] [%[[SZ]], 77] [1, 1] : tensor<5x77xf16> to tensor<?x77xf16>
// ROWS:         %[[Y:.*]] = tx.softmax %[[X]] dim = -1 : tensor<?x77xf16>
// ROWS:         tensor.parallel_insert_slice %[[Y]] into %[[O]][%[[I]], 0] [%[[SZ]], 77] [1, 1]

// The chunked form: the online max/sum over chunks of 16 (f32 state, one
// value per row), then exp(x - max) / sum chunk by chunk, rounded once.
// CHUNK-LABEL: func.func @rows
// CHUNK:       scf.forall (%[[I:.*]]) = (0) to (5) step (2)
// CHUNK:         %[[X:.*]] = tensor.extract_slice %{{.*}}[%[[I]], 0] [%{{.*}}, 77] [1, 1]
// CHUNK:         %[[M0:.*]] = linalg.fill ins(%cst{{.*}} : f32) outs(%{{.*}} : tensor<?xf32>)
// CHUNK:         %[[S0:.*]] = linalg.fill ins(%cst{{.*}} : f32) outs(%{{.*}} : tensor<?xf32>)
// CHUNK:         %[[ST:.*]]:2 = scf.for %[[C:.*]] = %{{.*}} to %c77 step %c16 iter_args(%[[M:.*]] = %[[M0]], %[[S:.*]] = %[[S0]])
// CHUNK:           %[[XC:.*]] = tensor.extract_slice %[[X]][0, %[[C]]]
// CHUNK:           linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[XC]] : tensor<?x?xf16>) outs(%[[M]], %[[S]] : tensor<?xf32>, tensor<?xf32>)
// CHUNK:             arith.extf
// CHUNK:             arith.maximumf
// CHUNK:             math.exp
// CHUNK:             arith.select
// CHUNK:             math.exp
// CHUNK:             arith.select
// CHUNK:             arith.addf
// CHUNK:         scf.for %[[C2:.*]] = %{{.*}} to %c77 step %c16 iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<?x77xf16>)
// CHUNK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%{{.*}}, %[[ST]]#0, %[[ST]]#1 : tensor<?x?xf16>, tensor<?xf32>, tensor<?xf32>)
// CHUNK:             math.exp
// CHUNK:             arith.divf
// CHUNK:             arith.truncf %{{.*}} : f32 to f16
// CHUNK:           tensor.insert_slice %{{.*}} into %[[ACC]][0, %[[C2]]]
// CHUNK:         tensor.parallel_insert_slice
// CHUNK-NOT:   tx.softmax
func.func @rows(%x: tensor<5x77xf16>) -> tensor<5x77xf16> {
  %y = tx.softmax %x dim = -1 : tensor<5x77xf16>
  return %y : tensor<5x77xf16>
}

// -----

// Softmax along dim 1 of a rank-3 tensor: dims 0 and 2 are the parallel
// ones (tiles of 1 and rows-per-tile); a tile holds whole columns.
// ROWS-LABEL: func.func @inner_dim
// ROWS:       scf.forall (%[[I:.*]], %[[J:.*]]) = (0, 0) to (4, 33) step (1, 2)
// ROWS:         tensor.extract_slice %{{.*}}[%[[I]], 0, %[[J]]] [1, 7, %{{.*}}] [1, 1, 1] : tensor<4x7x33xf32> to tensor<1x7x?xf32>
// ROWS:         tx.softmax %{{.*}} dim = 1 : tensor<1x7x?xf32>
// Rows of 7 are no longer than a chunk of 16: no chunk loops.
// CHUNK-LABEL: func.func @inner_dim
// CHUNK:       scf.forall
// CHUNK-NOT:   scf.for
// CHUNK:       tx.softmax %{{.*}} dim = 1 : tensor<1x7x?xf32>
func.func @inner_dim(%x: tensor<4x7x33xf32>) -> tensor<4x7x33xf32> {
  %y = tx.softmax %x dim = 1 : tensor<4x7x33xf32>
  return %y : tensor<4x7x33xf32>
}

// -----

// A dynamic row length is always split into chunks (its length is unknown).
// CHUNK-LABEL: func.func @dynamic
// CHUNK:       scf.forall (%{{.*}}) = (0) to (%{{.*}}) step (2)
// CHUNK:         tensor.extract_slice %arg0[%{{.*}}, 0] [%{{.*}}, %[[N:[a-z0-9_]+]]] [1, 1] : tensor<?x?xbf16> to tensor<?x?xbf16>
// CHUNK:         scf.for %{{.*}} = %{{.*}} to %[[N]] step %c16
// CHUNK:         scf.for %{{.*}} = %{{.*}} to %[[N]] step %c16
func.func @dynamic(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %y = tx.softmax %x dim = 1 : tensor<?x?xbf16>
  return %y : tensor<?x?xbf16>
}

// -----

// Rank 1: one row, no row tiles; chunks only.
// ROWS-LABEL: func.func @rank1
// ROWS-NOT:   scf.forall
// ROWS:       tx.softmax %{{.*}} dim = 0 : tensor<100xf32>
// CHUNK-LABEL: func.func @rank1
// CHUNK-NOT:   scf.forall
// CHUNK:       scf.for %{{.*}} = %{{.*}} to %c100 step %c16
func.func @rank1(%x: tensor<100xf32>) -> tensor<100xf32> {
  %y = tx.softmax %x dim = 0 : tensor<100xf32>
  return %y : tensor<100xf32>
}

// -----

// Statically empty: nothing to tile, the op is left to the reference
// lowering.
// ROWS-LABEL: func.func @empty
// ROWS-NEXT:  tx.softmax %{{.*}} dim = -1 : tensor<0x16xf32>
// CHUNK-LABEL: func.func @empty
// CHUNK-NEXT:  tx.softmax %{{.*}} dim = -1 : tensor<0x16xf32>
func.func @empty(%x: tensor<0x16xf32>) -> tensor<0x16xf32> {
  %y = tx.softmax %x dim = -1 : tensor<0x16xf32>
  return %y : tensor<0x16xf32>
}
