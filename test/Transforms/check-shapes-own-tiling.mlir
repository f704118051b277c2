// tx-attention-to-gpu tiles a tx.attention with dynamic sizes itself: the
// run-time shape checks come from its tiling (tx-tile-attention), once; the
// forall is not marked tx.check_shapes, so the mapping adds none
// (check-shapes-user-tiling.mlir has a user's tiling, which is marked).
// RUN: tx-opt %s --tx-attention-to-gpu="sm=90" | FileCheck %s
// CHECK-LABEL: func.func @own_tiling_dynamic_batch
// CHECK-COUNT-1: "tx.attention: batch size of query and key differ: %lld vs %lld"
// CHECK-NOT: "tx.attention: batch size of query and key differ
// CHECK-NOT: tx.check_shapes
// CHECK: gpu.launch
// CHECK-NOT: "tx.attention: batch size of query and key differ
func.func @own_tiling_dynamic_batch(%q: tensor<?x4x128x64xf16>, %k: tensor<?x4x256x64xf16>, %v: tensor<?x4x256x64xf16>) -> tensor<?x4x128x64xf16> {
  %o = tx.attention %q, %k, %v : tensor<?x4x128x64xf16>, tensor<?x4x256x64xf16>, tensor<?x4x256x64xf16> -> tensor<?x4x128x64xf16>
  return %o : tensor<?x4x128x64xf16>
}
