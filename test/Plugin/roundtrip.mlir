// Debian's mlir-opt with the tx plugin parses and prints tx exactly as tx-opt
// does. (A plugin that fails to load makes mlir-opt fail to parse tx ops, and
// the FileCheck on its output guards against an empty comparison.)
// RUN: tx-opt %s -o %t.txopt.mlir
// RUN: mlir-opt --load-dialect-plugin=%tx_plugin %s -o %t.plugin.mlir
// RUN: diff %t.txopt.mlir %t.plugin.mlir
// RUN: FileCheck %s < %t.plugin.mlir
// Both entry points in one process: the same library loaded twice.
// RUN: mlir-opt --load-dialect-plugin=%tx_plugin --load-pass-plugin=%tx_plugin %s -o %t.both.mlir
// RUN: diff %t.txopt.mlir %t.both.mlir
// Generic form printed by mlir-opt+plugin reads back in tx-opt.
// RUN: mlir-opt --load-dialect-plugin=%tx_plugin %s --mlir-print-op-generic | tx-opt | diff %t.txopt.mlir -

// CHECK: tx.softmax %{{.*}} dim = -1 : tensor<8x1024xf16>
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<1x1x16x16xi1>) scale = 1.250000e-01 causal
func.func @f(%x: tensor<8x1024xf16>, %q: tensor<2x4x16x64xf32>, %k: tensor<2x2x16x64xf32>, %v: tensor<2x2x16x64xf32>, %m: tensor<1x1x16x16xi1>) -> (tensor<8x1024xf16>, tensor<2x4x16x64xf32>) {
  %0 = tx.softmax %x dim = -1 : tensor<8x1024xf16>
  %1 = tx.attention %q, %k, %v mask(%m : tensor<1x1x16x16xi1>) scale = 0.125 causal : tensor<2x4x16x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32> -> tensor<2x4x16x64xf32>
  return %0, %1 : tensor<8x1024xf16>, tensor<2x4x16x64xf32>
}
