// grid-ctas: a persistent grid of at most N CTAs looping over row groups,
// with (default) or without the next row group's loads issued before the
// current one is reduced.
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-softmax-to-gpu{grid-ctas=1024 threads-per-row=16}))" | FileCheck %s
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-softmax-to-gpu{grid-ctas=1024 threads-per-row=16 prefetch=false}))" | FileCheck %s --check-prefix=NOPF
// Default: one CTA per row group, no loop over row groups.
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-softmax-to-gpu))" | FileCheck %s --check-prefix=DEFAULT

// 65536 rows of 128 f16 = 16 vectors of 8: 16 lanes of one vector each,
// 8 rows per 128-thread CTA, 8192 row groups on min(8192, 1024) CTAs.
// CHECK-LABEL: func.func @rows_128_f16
// CHECK:       %[[GROUPS:.*]] = arith.ceildivui %{{.*}}, %c8
// CHECK:       %[[GRID:.*]] = arith.minui %[[GROUPS]], %c1024
// CHECK:       gpu.launch blocks({{.*}}) in (%{{.*}} = %[[GRID]], {{.*}} threads({{.*}}) in (%{{.*}} = %c128,
// The first row group's vector is loaded before the loop ...
// CHECK:         %[[STRIDE:.*]] = arith.muli %[[GRID]], %c8{{.*}} : index
// CHECK:         %[[FIRST:.*]] = vector.load {{.*}} : memref<65536x128xf16>, vector<8xf16>
// CHECK:         %[[F32:.*]] = arith.extf %[[FIRST]]
// CHECK:         scf.for %[[BASE:.*]] = %{{.*}} to %{{.*}} step %[[STRIDE]] iter_args(%[[CUR:.*]] = %[[F32]]) -> (vector<8xf32>)
// ... and each iteration loads the next group's (clamped to the last row)
// before reducing the current one with shuffles, and stores only valid rows.
// CHECK:           %[[NEXT:.*]] = arith.addi %[[BASE]], %[[STRIDE]]
// CHECK:           arith.minui
// CHECK:           vector.load
// CHECK:           vector.reduction <maximumf>, %[[CUR]]
// CHECK:           gpu.shuffle  xor
// CHECK:           scf.if
// CHECK:             vector.store
// CHECK:           scf.yield
// NOPF-LABEL: func.func @rows_128_f16
// NOPF:       gpu.launch
// NOPF:         scf.for
// NOPF-NOT:     iter_args
// NOPF:           vector.load
// NOPF:           gpu.shuffle  xor
// DEFAULT-LABEL: func.func @rows_128_f16
// DEFAULT:       gpu.launch
// DEFAULT-NOT:   scf.for
// DEFAULT:       gpu.terminator
func.func @rows_128_f16(%x: tensor<65536x128xf16>) -> tensor<65536x128xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<65536x128xf16>
  return %0 : tensor<65536x128xf16>
}
