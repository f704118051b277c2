// tx-gather-kv-pages: a paged tx.attention becomes a gather of each page
// pool into the contiguous [B, Hkv, max_pages * page_size, D] (key j of
// batch b: row j % page_size of page page_table[b, j / page_size], read
// only when the key is live and its id in range, else 0) and the same
// tx.attention on the gathered K/V without the table.
// RUN: tx-opt %s --tx-gather-kv-pages | FileCheck %s
// RUN: tx-opt %s --tx-gather-kv-pages --tx-gather-kv-pages | FileCheck %s
// The passes after it refuse a paged op they meet unrewritten:
// RUN: not tx-opt %s --tx-tile-attention 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not tx-opt %s --tx-attention-strategy 2>&1 | FileCheck %s --check-prefix=STRATEGY
// tx-derive-gradients gives a paged op no backward, with the reason:
// RUN: tx-opt %s --tx-derive-gradients | FileCheck %s --check-prefix=GRAD

// CHECK-LABEL: func.func @paged
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x3x8xf32>, %[[KP:.*]]: tensor<9x2x2x8xf32>, %[[VP:.*]]: tensor<9x2x2x8xf32>, %[[PT:.*]]: tensor<2x4xi32>, %[[KL:.*]]: tensor<2xi32>)
// CHECK: %[[K:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x2x8x8xf32>) attrs = {tx.kv_page_gather}
// CHECK:   %[[B:.*]] = linalg.index 0
// CHECK:   %[[J:.*]] = linalg.index 2
// CHECK:   %[[PAGE:.*]] = arith.divui %[[J]], %{{.*}}
// CHECK:   %[[ROW:.*]] = arith.remui %[[J]], %{{.*}}
// CHECK:   tensor.extract %[[PT]][%[[B]], %[[PAGE]]]
// CHECK:   tensor.extract %[[KL]][%[[B]]]
// CHECK:   scf.if
// CHECK:     tensor.extract %[[KP]][%{{.*}}, %[[ROW]], %{{.*}}, %{{.*}}] : tensor<9x2x2x8xf32>
// CHECK:   } else {
// CHECK:     arith.constant 0.0
// CHECK: %[[V:.*]] = linalg.generic {{.*}} attrs = {tx.kv_page_gather}
// CHECK:     tensor.extract %[[VP]]
// CHECK: tx.attention %[[Q]], %[[K]], %[[V]] kv_lengths(%[[KL]] : tensor<2xi32>) causal : tensor<2x4x3x8xf32>, tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32> -> tensor<2x4x3x8xf32>
// CHECK-NOT: page_table

// TILE: error: tx-tile-attention: a paged tx.attention (page_table) is tiled once tx-gather-kv-pages has rewritten it onto contiguous K/V; run that pass first
// STRATEGY: error: tx-attention-strategy: a paged tx.attention (page_table) gets its strategy once tx-gather-kv-pages has rewritten it onto contiguous K/V; run that pass first
// GRAD: func.func @paged({{.*}} attributes {tx.no_gradient = "result 0 is a paged tx.attention (page_table): no backward reads a paged KV cache"}
func.func @paged(%q: tensor<2x4x3x8xf32>, %k: tensor<9x2x2x8xf32>, %v: tensor<9x2x2x8xf32>, %pt: tensor<2x4xi32>, %kl: tensor<2xi32>) -> tensor<2x4x3x8xf32> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<2xi32>) page_table(%pt : tensor<2x4xi32>) causal : tensor<2x4x3x8xf32>, tensor<9x2x2x8xf32>, tensor<9x2x2x8xf32> -> tensor<2x4x3x8xf32>
  return %o : tensor<2x4x3x8xf32>
}

// Dynamic pools and table: Sk = max_pages * page_size at run time; without
// kv_lengths every key is live. The LSE result carries over.
// CHECK-LABEL: func.func @paged_dynamic
// CHECK-DAG: %[[NP:.*]] = tensor.dim %{{.*}}, %c0{{.*}} : tensor<?x?x1x16xf16>
// CHECK-DAG: %[[PS:.*]] = tensor.dim %{{.*}}, %c1{{.*}} : tensor<?x?x1x16xf16>
// CHECK-DAG: %[[MP:.*]] = tensor.dim %{{.*}}, %c1{{.*}} : tensor<?x?xi32>
// CHECK: %[[SK:.*]] = arith.muli %[[MP]], %[[PS]]
// CHECK: tensor.empty(%{{.*}}, %[[SK]]) : tensor<?x1x?x16xf16>
// CHECK-NOT: tensor.extract %{{.*}}[%{{.*}}] : tensor<?xi32>
// CHECK: tx.attention {{.*}} : tensor<?x2x1x16xf16>, tensor<?x1x?x16xf16>, tensor<?x1x?x16xf16> -> tensor<?x2x1x16xf16>, tensor<?x2x1xf32>
func.func @paged_dynamic(%q: tensor<?x2x1x16xf16>, %k: tensor<?x?x1x16xf16>, %v: tensor<?x?x1x16xf16>, %pt: tensor<?x?xi32>) -> (tensor<?x2x1x16xf16>, tensor<?x2x1xf32>) {
  %o, %l = tx.attention %q, %k, %v page_table(%pt : tensor<?x?xi32>) : tensor<?x2x1x16xf16>, tensor<?x?x1x16xf16>, tensor<?x?x1x16xf16> -> tensor<?x2x1x16xf16>, tensor<?x2x1xf32>
  return %o, %l : tensor<?x2x1x16xf16>, tensor<?x2x1xf32>
}
