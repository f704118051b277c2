// tx-tile-attention{kv-splits=N}: the keys of each query tile in N chunks,
// an inner scf.forall of partial states stacked along a new leading
// dimension, each chunk's keys tiled as usual (scf.for), then the
// log-sum-exp merge as linalg.generic reductions over the chunks (max,
// weighted sum, weighted acc) and the tile's epilogue.
// Numerics: test/Execution/attention_tiled_split.mlir.
// RUN: tx-opt %s --tx-tile-attention="q-tile=4 kv-tile=8 kv-splits=3 decompose=false" | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%tx_plugin %s --pass-pipeline="builtin.module(func.func(tx-tile-attention{q-tile=4 kv-tile=8 kv-splits=3 decompose=false}))" | FileCheck %s

// CHECK-LABEL: func.func @split
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) = (0, 0, 0) to (2, 8, 1) step (1, 1, 4) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<2x8x1x16xf16>)
// CHECK: scf.forall (%[[S:.*]]) in (3) shared_outs(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<3x1x1x?x16xf32>, tensor<3x1x1x?xf32>, tensor<3x1x1x?xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0, %{{.*}}, 0] [1, 1, %{{.*}}, 16] [1, 1, 1, 1] : tensor<1x1x100x16xf16> to tensor<1x1x?x16xf16>
// CHECK: scf.for
// CHECK: tx.online_attention
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[S]], 0, 0, 0, 0] [1, 1, 1, %{{.*}}, 16] [1, 1, 1, 1, 1] : tensor<1x1x?x16xf32> into tensor<3x1x1x?x16xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: math.exp
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK: linalg.generic {{.*}} attrs = {tx.attention_epilogue = "output"}
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[OUT]]
// CHECK-NOT: tx.attention
func.func @split(%q: tensor<2x8x1x16xf16>, %k: tensor<2x2x100x16xf16>, %v: tensor<2x2x100x16xf16>) -> tensor<2x8x1x16xf16> {
  %0 = tx.attention %q, %k, %v : tensor<2x8x1x16xf16>, tensor<2x2x100x16xf16>, tensor<2x2x100x16xf16> -> tensor<2x8x1x16xf16>
  return %0 : tensor<2x8x1x16xf16>
}
