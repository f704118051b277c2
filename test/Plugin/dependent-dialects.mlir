// Case P3: a module of four functions holding only tx.attention (no linalg,
// math, arith, scf or tensor op in the input) goes through every tx pass and
// both pipelines under mlir-opt + plugin, threaded and not, with the same
// output as tx-opt and no "unregistered dialect" error.
// RUN: for p in "convert-tx-to-linalg" "func.func(tx-softmax-to-gpu)" "tx-decompose-softmax" "tx-emit-c-interface" "tx-check-gpu-target" "tx-cpu-pipeline" "tx-gpu-pipeline{format=isa}" "func.func(tx-tile-attention)" "func.func(tx-tile-attention{decompose=false})" "tx-cpu-pipeline{attention=tiled}"; do \
// RUN:   tx-opt %s --pass-pipeline="builtin.module($p)" -o %t.a.mlir 2>&1 || exit 1; \
// RUN:   mlir-opt --load-dialect-plugin=%tx_plugin %s --pass-pipeline="builtin.module($p)" -o %t.b.mlir 2>&1 || exit 1; \
// RUN:   mlir-opt --load-dialect-plugin=%tx_plugin %s --pass-pipeline="builtin.module($p)" --mlir-disable-threading -o %t.c.mlir 2>&1 || exit 1; \
// RUN:   grep -v LLVMIRToISATimeInMs %t.a.mlir > %t.a2; grep -v LLVMIRToISATimeInMs %t.b.mlir > %t.b2; grep -v LLVMIRToISATimeInMs %t.c.mlir > %t.c2; \
// RUN:   diff %t.a2 %t.b2 || exit 1; diff %t.a2 %t.c2 || exit 1; done 2>&1 | FileCheck %s --allow-empty --check-prefix=ERR
// RUN: mlir-opt --load-dialect-plugin=%tx_plugin %s --pass-pipeline="builtin.module(tx-gpu-pipeline{format=isa})" --mlir-disable-threading | FileCheck %s
// ERR-NOT: unregistered dialect
// ERR-NOT: error
// CHECK-COUNT-4: llvm.func @_mlir_ciface_
func.func @a1(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %0 = tx.attention %q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}
func.func @a2(%q: tensor<1x4x8x16xf16>, %k: tensor<1x2x8x16xf16>, %v: tensor<1x2x8x16xf16>) -> tensor<1x4x8x16xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x4x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x4x8x16xf16>
  return %0 : tensor<1x4x8x16xf16>
}
func.func @a3(%q: tensor<2x2x4x8xbf16>, %k: tensor<2x2x6x8xbf16>, %v: tensor<2x2x6x8xbf16>, %m: tensor<1x1x4x6xi1>) -> tensor<2x2x4x8xbf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x1x4x6xi1>) scale = 0.5 : tensor<2x2x4x8xbf16>, tensor<2x2x6x8xbf16>, tensor<2x2x6x8xbf16> -> tensor<2x2x4x8xbf16>
  return %0 : tensor<2x2x4x8xbf16>
}
func.func @a4(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %0 = tx.attention %q, %k, %v causal : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}
