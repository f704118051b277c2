// tx's GPU mapping of tiled softmax (tx-map-softmax-to-gpu) after a user's
// own row tiling with the transform dialect: upstream
// transform.structured.tile_using_forall on tx.softmax with tile sizes
// [8, 0] (its TilingInterface: tiles of whole rows; the normalized forall
// `(%i) in (ceil(R / 8))`). The user's 8 rows per CTA reach the kernel: the
// strategy's kernel for these rows (32 lanes per row) in CTAs of 8 x 32
// threads, one CTA per user tile, where the strategy alone picks 4 rows per
// CTA of 128 threads.
// RUN: tx-opt %s --transform-preload-library="transform-library-paths=%p/Inputs/softmax-rows-of-8.mlir" --transform-interpreter --tx-map-softmax-to-gpu --canonicalize | FileCheck %s
// RUN: tx-opt %s --tx-softmax-to-gpu --canonicalize | FileCheck %s --check-prefix=DEFAULT
// And through the whole pipeline (tx-softmax-strategy leaves a user's row
// tile alone; PTX of 256-thread CTAs):
// RUN: tx-opt %s --transform-preload-library="transform-library-paths=%p/Inputs/softmax-rows-of-8.mlir" --transform-interpreter | tx-opt --tx-gpu-pipeline="format=isa" | FileCheck %s --check-prefix=PIPE
// Diagnostics: map-softmax-to-gpu-errors.mlir.

// Rows of 1000 f16 (125 vectors of 8): 30 rows in 4 tiles of 8 (the last
// holds 6), the vector kernel and its scalar fallback.
// CHECK-LABEL: func.func @rows_static
// CHECK-NOT: scf.forall
// CHECK-NOT: tx.softmax
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c4, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c256, {{.*}} = %c1, {{.*}} = %c1)
// CHECK: vector.load {{.*}} : memref<30x1000xf16>, vector<8xf16>
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c4, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c256, {{.*}} = %c1, {{.*}} = %c1)
// DEFAULT-LABEL: func.func @rows_static
// DEFAULT: gpu.launch blocks({{.*}}) in ({{.*}} = %c8, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c128, {{.*}} = %c1, {{.*}} = %c1)
// PIPE: gpu.binary @rows_static_kernel
// PIPE-SAME: .maxntid 256, 1, 1
func.func @rows_static(%x: tensor<30x1000xf16>) -> tensor<30x1000xf16> {
  %y = tx.softmax %x dim = -1 : tensor<30x1000xf16>
  return %y : tensor<30x1000xf16>
}

// Dynamic R: the grid is ceil(R / 8) CTAs.
// CHECK-LABEL: func.func @rows_dynamic
// CHECK: %[[G:.*]] = arith.ceildivui %{{.*}}, %c8 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[G]], {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c256, {{.*}} = %c1, {{.*}} = %c1)
func.func @rows_dynamic(%x: tensor<?x1000xf32>) -> tensor<?x1000xf32> {
  %y = tx.softmax %x dim = -1 : tensor<?x1000xf32>
  return %y : tensor<?x1000xf32>
}

// Vocabulary rows (50257 f32): the strategy runs one row per CTA (512
// threads, a persistent grid of bulk-copied rows); 8 rows per CTA become 8
// warps of one row each (32 lanes streaming the row).
// CHECK-LABEL: func.func @vocab
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c8, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c256, {{.*}} = %c1, {{.*}} = %c1)
// DEFAULT-LABEL: func.func @vocab
// DEFAULT: threads({{.*}}) in ({{.*}} = %c512, {{.*}} = %c1, {{.*}} = %c1)
func.func @vocab(%x: tensor<64x50257xf32>) -> tensor<64x50257xf32> {
  %y = tx.softmax %x dim = -1 : tensor<64x50257xf32>
  return %y : tensor<64x50257xf32>
}
