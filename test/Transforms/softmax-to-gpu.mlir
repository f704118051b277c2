// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-softmax-to-gpu))" | FileCheck %s
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-softmax-to-gpu{threads-per-row=256 block-size=256 max-cached-vectors=0}))" | FileCheck %s --check-prefix=STREAM

// Rows of 1024 f32 = 256 vectors of 4: a warp per row (4 rows per CTA of
// 128), 8 vectors per lane kept in registers, 16-byte vector loads, shuffle
// reductions of max then sum; a scalar fallback kernel for unaligned buffers.
// CHECK-LABEL: func.func @rows_1024_f32
// CHECK: %[[IN:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<64x1024xf32> to memref<64x1024xf32>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<64x1024xf32>
// CHECK: scf.if
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[IN]]
// CHECK: scf.if
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128
// CHECK-COUNT-8: vector.load %[[IN]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<64x1024xf32>, vector<4xf32>
// CHECK: vector.reduction <maximumf>
// CHECK-COUNT-5: gpu.shuffle  xor %{{.*}} : f32
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%{{.*}}) : (f32) -> f32
// CHECK: vector.from_elements
// CHECK: vector.reduction <add>
// CHECK-COUNT-5: gpu.shuffle  xor %{{.*}} : f32
// CHECK: vector.store %{{.*}}, %[[OUT]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<64x1024xf32>, vector<4xf32>
// CHECK: } else {
// CHECK: gpu.launch
// CHECK: memref.load %[[IN]]
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
// CHECK-NOT: tx.softmax
// STREAM-LABEL: func.func @rows_1024_f32
// STREAM: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}} workgroup(%[[SA:.*]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[SB:.*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// Streamed rows: each thread issues 4 vector loads (stream-unroll, default
// 4) before it reduces them: the loop steps over 4 x 256 vectors.
// STREAM: scf.for {{.*}} step %c1024 iter_args
// STREAM-COUNT-4:   vector.load
// STREAM:   arith.maximumf
// STREAM:   arith.cmpf oeq
// STREAM:   llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// STREAM:   arith.select
// STREAM: gpu.shuffle  xor
// STREAM: memref.store %{{.*}}, %[[SA]]
// STREAM: gpu.barrier
// STREAM: scf.for
// STREAM:   vector.store
func.func @rows_1024_f32(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<64x1024xf32>
  return %0 : tensor<64x1024xf32>
}

// -----

// f16 rows of 77 (not a multiple of 8): rows start at any element, so each
// row is split into a scalar head up to a 16-byte boundary, aligned vector<8>
// loads, and a scalar tail (when the base pointers are aligned), with a
// scalar kernel otherwise. f32 math inside, rounded once.
// CHECK-LABEL: func.func @rows_77_f16
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: scf.if
// CHECK: gpu.launch
// CHECK: %[[START:.*]] = arith.muli %{{.*}}, %dim{{.*}} : index
// CHECK: arith.remui %[[START]], %c8
// CHECK: memref.load {{.*}} : memref<3x77xf16>
// CHECK: scf.for
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<3x77xf16>, vector<8xf16>
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: memref.store {{.*}} : memref<3x77xf16>
// CHECK: vector.store
// CHECK: } else {
// CHECK: gpu.launch
// CHECK-NOT: vector.load
// CHECK: memref.load {{.*}} : memref<3x77xf16>
// CHECK: arith.extf {{.*}} : f16 to f32
func.func @rows_77_f16(%x: tensor<3x77xf16>) -> tensor<3x77xf16> {
  %0 = tx.softmax %x dim = 1 : tensor<3x77xf16>
  return %0 : tensor<3x77xf16>
}

// -----

// Rows shorter than four vectors and not a multiple of one: scalar only.
// CHECK-LABEL: func.func @rows_13_f32
// CHECK-NOT: vector.load
// CHECK: gpu.launch
// CHECK: memref.load {{.*}} : memref<2x13xf32>
func.func @rows_13_f32(%x: tensor<2x13xf32>) -> tensor<2x13xf32> {
  %0 = tx.softmax %x dim = 1 : tensor<2x13xf32>
  return %0 : tensor<2x13xf32>
}

// -----

// Rank 3, dynamic: collapsed to [R, N] (by the tiling, on tensors); the
// vector kernel is chosen at run time (N % 8 == 0 and aligned buffers),
// both kernels stream the row; the result is expanded back.
// CHECK-LABEL: func.func @dynamic_bf16
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<?x?x?xbf16> into tensor<?x?xbf16>
// CHECK: memref.alloc(%{{.*}}, %{{.*}}, %{{.*}}) : memref<?x?x?xbf16>
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : memref<?x?x?xbf16> into memref<?x?xbf16>
// CHECK: arith.remui %{{.*}}, %c8
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK: vector.load {{.*}} vector<8xbf16>
// The output is allocated in the op's shape, the kernels write its [R, N]
// view:
// CHECK: bufferization.to_tensor %{{.*}} restrict writable : memref<?x?x?xbf16> to tensor<?x?x?xbf16>
func.func @dynamic_bf16(%x: tensor<?x?x?xbf16>) -> tensor<?x?x?xbf16> {
  %0 = tx.softmax %x dim = 2 : tensor<?x?x?xbf16>
  return %0 : tensor<?x?x?xbf16>
}

// -----

// Softmax along a non-innermost dim is left to the reference lowering.
// CHECK-LABEL: func.func @not_innermost
// CHECK: tx.softmax %{{.*}} dim = 0
// CHECK-NOT: gpu.launch
func.func @not_innermost(%x: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = tx.softmax %x dim = 0 : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// Statically empty with a dynamic dim: an empty result of the dynamic size,
// no kernel.

// CHECK-LABEL: func.func @empty_dynamic
// CHECK-NOT: gpu.launch
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %c0
// CHECK: bufferization.alloc_tensor(%[[D]]) : tensor<?x0xf32>
func.func @empty_dynamic(%x: tensor<?x0xf32>) -> tensor<?x0xf32> {
  %y = tx.softmax %x dim = -1 : tensor<?x0xf32>
  return %y : tensor<?x0xf32>
}
