// Bad options are diagnostics that name the option.
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-softmax-to-gpu{block-size=48}))" 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-softmax-to-gpu{threads-per-row=64}))" 2>&1 | FileCheck %s --check-prefix=TPR
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-softmax-to-gpu{vector-width=3}))" 2>&1 | FileCheck %s --check-prefix=VW
// RUN: not tx-opt %s --tx-gpu-pipeline="softmax=turbo" 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-softmax-to-gpu{max-cached-vectors=65}))" 2>&1 | FileCheck %s --check-prefix=CACHED
// BLOCK: error: tx-softmax-to-gpu: block-size must be 0 or a power of two in [32, 1024], got 48
// TPR: error: tx-softmax-to-gpu: threads-per-row must be 0, a power of two in [2, 32], or equal to block-size, got 64
// VW: error: tx-softmax-to-gpu: vector-width must be 0 or a power of two up to 16, got 3
// CACHED: error: tx-softmax-to-gpu: max-cached-vectors must be in [0, 64], got 65
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-softmax-to-gpu{grid-ctas=-1}))" 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not tx-opt %s --tx-gpu-pipeline="softmax-grid-ctas=-5 format=isa" 2>&1 | FileCheck %s --check-prefix=GRIDPIPE
// GRID: error: tx-softmax-to-gpu: grid-ctas must be 0 or a CTA count in [1, 2^31), got -1
// GRIDPIPE: error: tx-softmax-to-gpu: grid-ctas must be 0 or a CTA count in [1, 2^31), got -5
// STRATEGY: error: tx-gpu-pipeline: unknown softmax strategy 'turbo'; expected fast or simple
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-softmax-to-gpu{stream-unroll=17}))" 2>&1 | FileCheck %s --check-prefix=UNROLL
// RUN: not tx-opt %s --tx-gpu-pipeline="softmax-stream-unroll=-1 format=isa" 2>&1 | FileCheck %s --check-prefix=UNROLLPIPE
// UNROLL: error: tx-softmax-to-gpu: stream-unroll must be 0 (4) or in [1, 16], got 17
// UNROLLPIPE: error: tx-softmax-to-gpu: stream-unroll must be 0 (4) or in [1, 16], got -1
func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tx.softmax %x dim = 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
