// Streamed rows of a CTA each keep their vectors in dynamic shared memory
// between the two passes when they fit max-shared-memory (one read of the
// input). Layout [slot A | slot B | row], 16-byte aligned, all in the
// dynamic shared memory: no workgroup attributions (MLIR 22 declares the
// dynamic shared memory as a 1-byte .shared variable that static buffers
// would follow and overlap). 2 x 8192 f32, 256 threads (8 warps): 2 x 32 +
// 32768 + 16 bytes.
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-softmax-to-gpu{max-cached-vectors=0 max-shared-memory=65536}),canonicalize)" | FileCheck %s
// Too large for max-shared-memory, or smem-rows=false: no shared-memory
// row, the second pass reads global memory again.
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-softmax-to-gpu{max-cached-vectors=0 max-shared-memory=32768}),canonicalize)" | FileCheck %s --check-prefix=NOROW
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-softmax-to-gpu{max-cached-vectors=0 max-shared-memory=65536 smem-rows=false}),canonicalize)" | FileCheck %s --check-prefix=NOROW
// The pipeline passes the chip's limit (sm_90: 232448 bytes): the 50257-long
// rows of GPT-2's vocabulary (201 KB in f32) are kept in shared memory.
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa" | FileCheck %s --check-prefix=PIPE
// CHECK-LABEL: func.func @rows_8192_f32
// CHECK-NOT: workgroup(
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}}) dynamic_shared_memory_size %c32848_i32
// CHECK: %[[DYN:.*]] = gpu.dynamic_shared_memory
// CHECK: memref.view %[[DYN]]{{.*}} to memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[DYN]]{{.*}} to memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: %[[ROW:.*]] = memref.view %[[DYN]]{{.*}} to memref<8192xf32, #gpu.address_space<workgroup>>
// CHECK: vector.load %{{.*}} : memref<2x8192xf32>, vector<4xf32>
// CHECK: vector.store %{{.*}}, %[[ROW]][%{{.*}}] {alignment = 16 : i64}
// CHECK: vector.load %[[ROW]]
// NOROW-LABEL: func.func @rows_8192_f32
// NOROW-NOT: gpu.dynamic_shared_memory
// NOROW-NOT: dynamic_shared_memory_size
// PIPE: gpu.launch_func {{.*}}rows_50257_f32{{.*}} dynamic_shared_memory_size
func.func @rows_8192_f32(%x: tensor<2x8192xf32>) -> tensor<2x8192xf32> {
  %0 = tx.softmax %x dim = 1 : tensor<2x8192xf32>
  return %0 : tensor<2x8192xf32>
}
func.func @rows_50257_f32(%x: tensor<4x50257xf32>) -> tensor<4x50257xf32> {
  %0 = tx.softmax %x dim = 1 : tensor<4x50257xf32>
  return %0 : tensor<4x50257xf32>
}
