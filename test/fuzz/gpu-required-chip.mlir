// Fuzz finding (issue #14, one-hour run with seed 3, input 23410):
// tx-attention-to-gpu run on its own (default sm = 90: the mma.sync kernel
// with cp.async) and then tx-gpu-pipeline for an older chip aborted in LLVM's
// NVPTX backend ("LLVM ERROR: Cannot select: intrinsic
// %llvm.nvvm.cp.async.cg.shared.global.16.s"). The generated gpu.launch now
// carries the oldest chip its instructions exist on (tx.required_chip), and
// tx-check-gpu-target, first in the pipeline, rejects a chip that cannot run
// it with a located diagnostic. (The finding's Sq = 16 is 64 here: 16 query
// rows per K/V head now take the split-KV decode kernel, CUDA cores only.)
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu),tx-gpu-pipeline{chip=sm_70 format=isa})" 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not mlir-opt --load-dialect-plugin=%tx_plugin --load-pass-plugin=%tx_plugin %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu),tx-gpu-pipeline{chip=sm_70 format=isa})" 2>&1 | FileCheck %s --check-prefix=OLD
// wgmma kernels exist only on sm_90a: sm_90 and sm_100a are refused too.
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{wgmma=true}),tx-gpu-pipeline{chip=sm_90 format=isa})" 2>&1 | FileCheck %s --check-prefix=WG
// RUN: not tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{wgmma=true}),tx-gpu-pipeline{chip=sm_100a format=isa})" 2>&1 | FileCheck %s --check-prefix=WG100
// The attribute is on the launch, and a chip that can run the kernel compiles.
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu))" | FileCheck %s --check-prefix=ATTR
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu),tx-gpu-pipeline{chip=sm_89 format=isa})" | FileCheck %s --check-prefix=NEWER
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{wgmma=true}),tx-gpu-pipeline{chip=sm_90a format=isa})" | FileCheck %s --check-prefix=NEWER

// OLD: error: tx-gpu-pipeline: this kernel was generated for sm_80 (tx.required_chip) and cannot be compiled for chip sm_70 (older); run tx-attention-to-gpu with the pipeline's chip, or pass chip=sm_80
// OLD-NOT: LLVM ERROR
// WG: error: tx-gpu-pipeline: this kernel was generated for sm_90a (tx.required_chip) and cannot be compiled for chip sm_90;
// WG100: error: tx-gpu-pipeline: this kernel was generated for sm_90a (tx.required_chip) and cannot be compiled for chip sm_100a;
// ATTR: gpu.launch
// ATTR: } {tx.required_chip = "sm_80"}
// NEWER: gpu.binary @attention_f16_kernel
func.func @attention_f16(%q: tensor<2x4x64x64xf16>, %k: tensor<2x4x32x64xf16>, %v: tensor<2x4x32x64xf16>) -> tensor<2x4x64x64xf16> {
  %0 = tx.attention %q, %k, %v scale = 0.125 : tensor<2x4x64x64xf16>, tensor<2x4x32x64xf16>, tensor<2x4x32x64xf16> -> tensor<2x4x64x64xf16>
  return %0 : tensor<2x4x64x64xf16>
}
