// Cases P1-P3: tx passes and pipelines run under upstream mlir-opt through
// the plugin (inside --pass-pipeline), with options, threaded and not, and
// give the same output as tx-opt. The input holds only tx ops (plus func), so
// every dialect the passes create must be declared as dependent.
// RUN: tx-opt %s --convert-tx-to-linalg -o %t.txopt.mlir
// RUN: mlir-opt --load-pass-plugin=%tx_plugin --load-dialect-plugin=%tx_plugin %s --pass-pipeline="builtin.module(convert-tx-to-linalg)" -o %t.plugin.mlir
// RUN: diff %t.txopt.mlir %t.plugin.mlir
// RUN: mlir-opt --load-dialect-plugin=%tx_plugin %s --pass-pipeline="builtin.module(convert-tx-to-linalg)" --mlir-disable-threading -o %t.plugin1.mlir
// RUN: diff %t.txopt.mlir %t.plugin1.mlir
// RUN: FileCheck %s --check-prefix=LINALG < %t.plugin.mlir
//
// Pass options (a builtin attribute-creating option, block-size) and named
// pipelines through the plugin:
// RUN: tx-opt %s --tx-cpu-pipeline -o %t.cpu.txopt.mlir
// RUN: mlir-opt --load-dialect-plugin=%tx_plugin %s --pass-pipeline="builtin.module(tx-cpu-pipeline)" -o %t.cpu.plugin.mlir
// RUN: diff %t.cpu.txopt.mlir %t.cpu.plugin.mlir
// RUN: mlir-opt --load-dialect-plugin=%tx_plugin %s --pass-pipeline="builtin.module(tx-gpu-pipeline{format=isa block-size=128})" | FileCheck %s --check-prefix=GPU
// RUN: mlir-opt --load-dialect-plugin=%tx_plugin %s --pass-pipeline="builtin.module(tx-gpu-pipeline{format=isa block-size=128})" --mlir-disable-threading | FileCheck %s --check-prefix=GPU
//
// A bad option value is an error that names it.
// RUN: not mlir-opt --load-dialect-plugin=%tx_plugin %s --pass-pipeline="builtin.module(tx-gpu-pipeline{block-size=abc})" 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not tx-opt %s --tx-gpu-pipeline="block-size=abc" 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not mlir-opt --load-dialect-plugin=%tx_plugin %s --pass-pipeline="builtin.module(func.func(tx-map-parallel-loops-to-gpu{block-size=2048}))" 2>&1 | FileCheck %s --check-prefix=BADBLOCK

// LINALG-NOT: tx.
// LINALG-COUNT-2: tensor.expand_shape
// LINALG-COUNT-2: linalg.softmax
// GPU-COUNT-8: gpu.binary @
// GPU: .maxntid 128, 1, 1
// BADOPT: block-size
// BADBLOCK: block-size must be in [1, 1024], got 2048

func.func @a(%q: tensor<1x4x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x4x8x16xf32> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x4x8x16xf32>
  return %0 : tensor<1x4x8x16xf32>
}
func.func @b(%q: tensor<1x4x8x16xf16>, %k: tensor<1x4x8x16xf16>, %v: tensor<1x4x8x16xf16>) -> tensor<1x4x8x16xf16> {
  %0 = tx.attention %q, %k, %v : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16>
  return %0 : tensor<1x4x8x16xf16>
}
func.func @c(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tx.softmax %x dim = 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
func.func @d(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %0 = tx.softmax %x dim = 0 : tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}
