// A tx.gpu_strategy already on an op (written by hand or by a tuner) is kept
// by tx-attention-strategy and tx-softmax-strategy, whatever their options,
// and reaches the kernel through tx-gpu-pipeline; a kept strategy that does
// not fit the op is an error at the op.
// RUN: tx-opt %s --split-input-file --tx-attention-strategy --tx-softmax-strategy | FileCheck %s
// RUN: tx-opt %s --split-input-file --tx-attention-strategy="warps=8 kv-tile=128" --tx-softmax-strategy="block-size=256" | FileCheck %s
// RUN: tx-opt %s --split-input-file --tx-attention-strategy --tx-softmax-strategy --tx-attention-strategy="warps=2" --tx-softmax-strategy="block-size=1024" | FileCheck %s
// The hand-written simt strategy (4 warps) against the table's choice for
// sm_90 (mma.sync, 8 warps), all the way to the gpu.launch:
// RUN: tx-opt %s --split-input-file --tx-gpu-pipeline="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PIPE

// CHECK-LABEL: func.func @hand_simt
// CHECK: tx.attention {{.*}}{tx.gpu_strategy = #tx.simt_strategy<warps = 4, q_tile = 16, kv_tile = 32>}
// CHECK-LABEL: func.func @table
// CHECK: tx.attention {{.*}}{tx.gpu_strategy = #tx.mma_strategy<
// PIPE: gpu.binary @hand_simt_kernel
// PIPE-SAME: .maxntid 128, 1, 1
// PIPE-NOT: mma.sync
// PIPE: gpu.binary @table_kernel
// PIPE-SAME: .maxntid 256, 1, 1
// PIPE-SAME: mma.sync
func.func @hand_simt(%q: tensor<2x4x64x64xf16>, %k: tensor<2x4x64x64xf16>, %v: tensor<2x4x64x64xf16>) -> tensor<2x4x64x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.simt_strategy<warps = 4, q_tile = 16, kv_tile = 32>} : tensor<2x4x64x64xf16>, tensor<2x4x64x64xf16>, tensor<2x4x64x64xf16> -> tensor<2x4x64x64xf16>
  return %o : tensor<2x4x64x64xf16>
}
func.func @table(%q: tensor<2x4x64x64xf16>, %k: tensor<2x4x64x64xf16>, %v: tensor<2x4x64x64xf16>) -> tensor<2x4x64x64xf16> {
  %o = tx.attention %q, %k, %v : tensor<2x4x64x64xf16>, tensor<2x4x64x64xf16>, tensor<2x4x64x64xf16> -> tensor<2x4x64x64xf16>
  return %o : tensor<2x4x64x64xf16>
}

// -----

// A softmax strategy of 256 threads per CTA, one row per warp, for both
// kernels (the table picks 128 threads for these rows, 4 rows per CTA).
// CHECK-LABEL: func.func @hand_softmax
// CHECK: tx.softmax {{.*}}{tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 8, scalar = <vector_width = 1, threads_per_row = 32, block_size = 256, cached = 0, grid_ctas = 0, prefetch = true, unroll = 4>, vector = <vector_width = 8, threads_per_row = 32, block_size = 256, cached = 4, grid_ctas = 0, prefetch = true, unroll = 4>>}
// PIPE: gpu.binary @hand_softmax_kernel
// PIPE-SAME: .maxntid 256, 1, 1
// PIPE: gpu.binary @hand_softmax_kernel_
// PIPE-SAME: .maxntid 256, 1, 1
func.func @hand_softmax(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  %y = tx.softmax %x dim = 1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 8, scalar = <vector_width = 1, threads_per_row = 32, block_size = 256, cached = 0, grid_ctas = 0, prefetch = true, unroll = 4>, vector = <vector_width = 8, threads_per_row = 32, block_size = 256, cached = 4, grid_ctas = 0, prefetch = true, unroll = 4>>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}
