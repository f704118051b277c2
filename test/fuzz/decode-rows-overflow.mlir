// Fuzz finding (issue #14, the one-hour run of seed 7 on this session's code,
// input 21171): tx-attention-to-gpu chose the split-KV decode kernel when
// G * Sq <= decode-max-rows, and with Sq = 2^62 and G = 3 that product
// overflowed int64 into a small number: "LLVM ERROR: SmallVector unable to
// grow" (an abort). G and Sq are now checked one by one first; such an op
// takes the flash kernel's path (here: a located error, its sizes do not fit
// the index arithmetic, or a compiled module; never an abort).
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu))" | FileCheck %s
// CHECK-LABEL: func.func @f
// CHECK-NOT: nvvm.bar.warp.sync
// CHECK: gpu.launch
func.func @f(%q: tensor<1x24x4611686018427387904x32xbf16>, %k: tensor<1x8x?x32xbf16>, %v: tensor<1x8x?x32xbf16>) -> tensor<1x24x4611686018427387904x32xbf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x24x4611686018427387904x32xbf16>, tensor<1x8x?x32xbf16>, tensor<1x8x?x32xbf16> -> tensor<1x24x4611686018427387904x32xbf16>
  return %0 : tensor<1x24x4611686018427387904x32xbf16>
}
