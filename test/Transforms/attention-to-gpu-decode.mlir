// The split-KV decode kernels of tx-attention-to-gpu (issue #17): few query
// rows per K/V head (G * Sq <= decode-max-rows, static) become a split-KV
// kernel (one CTA per batch, K/V head and key chunk; lanes own keys, P by
// shuffles) and a merge kernel, with a device workspace for the parts.
// Numerics are checked on the GPU by harness/check.py ("decode ..." rows).
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu))" | FileCheck %s
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode=false}))" | FileCheck %s --check-prefix=OFF
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode-max-rows=2}))" | FileCheck %s --check-prefix=OFF
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{kv-splits=7}))" | FileCheck %s --check-prefix=SPLITS
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode-max-rows=0}))" 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{kv-splits=-1}))" 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{num-sms=0}))" 2>&1 | FileCheck %s --check-prefix=SMS
// The whole pipeline compiles it (two kernels), and the option reaches the pass.
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa" | FileCheck %s --check-prefix=PIPE
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa attention-decode=false" | FileCheck %s --check-prefix=PIPEOFF

// CHECK-LABEL: func.func @decode_gqa
// CHECK-COUNT-2: memref.alloc({{.*}}) : memref<?xf32>
// CHECK: gpu.launch
// CHECK: gpu.shuffle  idx
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK-NOT: tx.attention
// OFF-LABEL: func.func @decode_gqa
// OFF-NOT: memref<?xf32>
// OFF: nvgpu.device_async_copy
// OFF: {tx.required_chip = "sm_80"}
// SPLITS: %[[SEVEN:.*]] = arith.constant 7 : index
// SPLITS: arith.ceildivui %{{.*}}, %[[SEVEN]] : index
// ROWS: error: tx-attention-to-gpu: decode-max-rows must be in [1, 32], got 0
// NEG: error: tx-attention-to-gpu: kv-splits must be 0 (from num-sms) or in [1, 65536], got -1
// SMS: error: tx-attention-to-gpu: num-sms must be in [1, 4096], got 0
// PIPE: gpu.binary @decode_gqa_kernel
// PIPE: gpu.binary @decode_gqa_kernel_0
// PIPEOFF: gpu.binary @decode_gqa_kernel
// PIPEOFF-NOT: gpu.binary @decode_gqa_kernel_0
func.func @decode_gqa(%q: tensor<?x8x1x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>) -> tensor<?x8x1x64xf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x8x1x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> tensor<?x8x1x64xf16>
  return %0 : tensor<?x8x1x64xf16>
}
