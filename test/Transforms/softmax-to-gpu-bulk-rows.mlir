// Rows that only fit two per SM in shared memory arrive by cp.async.bulk
// (sm_90+) into a ring of chunk slots, each counted on an mbarrier, in a
// persistent grid of num-sms x CTAs per SM (tx-softmax-to-gpu bulk-rows).
// RUN: tx-opt %s --split-input-file --tx-softmax-strategy="sm=90" | FileCheck %s --check-prefix=STRAT
// RUN: tx-opt %s --split-input-file --tx-softmax-strategy="sm=90 num-sms=100 bulk-chunk-bytes=10000 bulk-ctas-per-sm=1" | FileCheck %s --check-prefix=OPTS
// RUN: tx-opt %s --split-input-file --tx-softmax-strategy="sm=80" | FileCheck %s --check-prefix=SM80
// RUN: tx-opt %s --split-input-file --tx-softmax-strategy="sm=90 bulk-rows=false" | FileCheck %s --check-prefix=SM80
// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-softmax-to-gpu{sm=90 max-shared-memory=232448}))" | FileCheck %s --check-prefix=IR
// RUN: not tx-opt %s --split-input-file --tx-softmax-strategy="sm=90 bulk-ctas-per-sm=33" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR-CTAS
// RUN: not tx-opt %s --split-input-file --tx-softmax-strategy="sm=90 bulk-chunk-bytes=2000000" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR-CHUNK
// Vectors narrower than 16 bytes: no bulk copies (they move 16-byte vectors).
// RUN: tx-opt %s --split-input-file --tx-softmax-strategy="sm=90 vector-width=2" | FileCheck %s --check-prefix=VW2
// RUN: not tx-opt %s --split-input-file --tx-softmax-strategy="sm=90 num-sms=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR-SMS
// RUN: not tx-opt %s --split-input-file --tx-softmax-strategy="sm=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR-SM

// 50257 f32 (201 KB a row, 16-byte vectors peeled): one CTA per SM, 16 KiB
// chunks (32 x 512 threads), 13 of them a row, 14 slots fit in 227 KiB.
// STRAT-LABEL: func.func @vocab_f32
// STRAT: vector = <vector_width = 4, threads_per_row = 512, block_size = 512, cached = 0, peel = true, grid_ctas = 132, prefetch = true, unroll = 4, smem_row_bytes = 201024, bulk_chunk_bytes = 16384, bulk_slots = 14>
// With the options: chunks rounded up to 16 x 512 x 2, 100 SMs, 1 CTA each.
// OPTS-LABEL: func.func @vocab_f32
// OPTS: vector = <{{.*}}grid_ctas = 100, {{.*}}bulk_chunk_bytes = 16384, bulk_slots = 14>
// SM80-LABEL: func.func @vocab_f32
// SM80: vector = <vector_width = 4, threads_per_row = 512, block_size = 512, cached = 0, peel = true, grid_ctas = 0, prefetch = true, unroll = 4, smem_row_bytes = 201024>
// IR-LABEL: func.func @vocab_f32
// IR: gpu.launch
// IR: nvvm.mbarrier.init
// IR: nvvm.fence.mbarrier.init
// IR: gpu.barrier
// IR: nvvm.mbarrier.arrive.expect_tx
// IR: nvvm.cp.async.bulk.shared.cluster.global
// IR: scf.for
// IR: nvvm.mbarrier.try_wait.parity
// IR: gpu.barrier
// IR: nvvm.cp.async.bulk.shared.cluster.global
// ERR-CTAS: error: tx-softmax-to-gpu: bulk-ctas-per-sm must be in [0, 32], got 33
// ERR-CHUNK: error: tx-softmax-to-gpu: bulk-chunk-bytes must be in [0, 1 MiB], got 2000000
// VW2-LABEL: func.func @vocab_f32
// VW2: vector = <vector_width = 2, {{.*}}grid_ctas = 0, {{.*}}smem_row_bytes = 201024>
// ERR-SMS: error: tx-softmax-to-gpu: num-sms must be in [1, 4096], got 0
// ERR-SM: error: tx-softmax-to-gpu: sm must be 0 (unknown) or a compute capability such as 90, got -1
func.func @vocab_f32(%x: tensor<1024x50257xf32>) -> tensor<1024x50257xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<1024x50257xf32>
  return %0 : tensor<1024x50257xf32>
}

// -----

// 50257 f16 (100.5 KB): two CTAs per SM, 7 chunks a row, no spare slot.
// STRAT-LABEL: func.func @vocab_f16
// STRAT: vector = <{{.*}}grid_ctas = 264, {{.*}}bulk_chunk_bytes = 16384, bulk_slots = 7>
// One CTA per SM (option): the slots hold two rows.
// OPTS-LABEL: func.func @vocab_f16
// OPTS: vector = <{{.*}}grid_ctas = 100, {{.*}}bulk_chunk_bytes = 16384, bulk_slots = 14>
func.func @vocab_f16(%x: tensor<1024x50257xf16>) -> tensor<1024x50257xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<1024x50257xf16>
  return %0 : tensor<1024x50257xf16>
}

// -----

// 64 KiB rows fit three per SM: the thread-loaded shared-memory kernel.
// STRAT-LABEL: func.func @rows_64k
// STRAT: vector = <{{.*}}grid_ctas = 0, {{.*}}smem_row_bytes = 65536>
func.func @rows_64k(%x: tensor<4096x32768xf16>) -> tensor<4096x32768xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<4096x32768xf16>
  return %0 : tensor<4096x32768xf16>
}

// -----

// An empty tensor with a row too long for any byte count (txfuzz, UBSan:
// the row's bytes overflowed int64): no shared-memory row, no bulk copies.
// STRAT-LABEL: func.func @huge_row
// STRAT: vector = <{{[^>]*}}unroll = 4>>
func.func @huge_row(%x: tensor<0x4611686018427387904xf32>) -> tensor<0x4611686018427387904xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<0x4611686018427387904xf32>
  return %0 : tensor<0x4611686018427387904xf32>
}
