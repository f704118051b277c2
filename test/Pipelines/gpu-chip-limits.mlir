// The chip sets the largest dynamic shared memory a CTA may ask for
// (maxSharedMemoryOf: 227 KiB on sm_90 and sm_100, 99 KiB on sm_86, sm_89
// and the consumer Blackwell chips sm_120/sm_121). A 50257-float row
// (201024 bytes) is kept in shared memory (and copied in by
// cp.async.bulk) only where it fits: on sm_120 the kernel streams it, so
// the launch does not ask for more than the chip has.
// RUN: tx-opt %s --tx-gpu-pipeline="chip=sm_90 format=isa" --mlir-print-ir-after=tx-softmax-strategy -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: tx-opt %s --tx-gpu-pipeline="chip=sm_100 format=isa" --mlir-print-ir-after=tx-softmax-strategy -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: tx-opt %s --tx-gpu-pipeline="chip=sm_120 format=isa" --mlir-print-ir-after=tx-softmax-strategy -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: tx-opt %s --tx-gpu-pipeline="chip=sm_86 format=isa" --mlir-print-ir-after=tx-softmax-strategy -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMALL
// SM90: vector = <{{.*}}smem_row_bytes = 201024
// SMALL: vector = <{{[^>]*}}unroll = 4>>
func.func @vocab(%x: tensor<64x50257xf32>) -> tensor<64x50257xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<64x50257xf32>
  return %0 : tensor<64x50257xf32>
}
