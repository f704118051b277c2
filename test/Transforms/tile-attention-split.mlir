// tx-tile-attention{kv-splits=N}: the keys in N chunks, an scf.forall of
// partial states stacked along a new leading dimension, each chunk tiled like
// the whole op (rows scf.forall, keys scf.for), then the log-sum-exp merge as
// linalg.generic reductions over the chunks (max, weighted sum, weighted acc)
// and the usual finalization. Numerics: test/Execution/attention_tiled_split.mlir.
// RUN: tx-opt %s --tx-tile-attention="q-tile=4 kv-tile=8 kv-splits=3 decompose=false" | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%tx_plugin %s --pass-pipeline="builtin.module(func.func(tx-tile-attention{q-tile=4 kv-tile=8 kv-splits=3 decompose=false}))" | FileCheck %s

// CHECK-LABEL: func.func @split
// CHECK: scf.forall (%[[S:.*]]) in (3) shared_outs(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<3x2x8x1x16xf32>, tensor<3x2x8x1xf32>, tensor<3x2x8x1xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0, %{{.*}}, 0] [2, 2, %{{.*}}, 16] [1, 1, 1, 1] : tensor<2x2x100x16xf16> to tensor<2x2x?x16xf16>
// CHECK: scf.forall
// CHECK: scf.for
// CHECK: tx.online_attention
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[S]], 0, 0, 0, 0] [1, 2, 8, 1, 16] [1, 1, 1, 1, 1] : tensor<2x8x1x16xf32> into tensor<3x2x8x1x16xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: math.exp
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK-NOT: tx.attention
func.func @split(%q: tensor<2x8x1x16xf16>, %k: tensor<2x2x100x16xf16>, %v: tensor<2x2x100x16xf16>) -> tensor<2x8x1x16xf16> {
  %0 = tx.attention %q, %k, %v : tensor<2x8x1x16xf16>, tensor<2x2x100x16xf16>, tensor<2x2x100x16xf16> -> tensor<2x8x1x16xf16>
  return %0 : tensor<2x8x1x16xf16>
}
