// tx.softmax implements TilingInterface, so the transform dialect tiles it:
// over rows it works; over the softmax dimension it is refused with a
// diagnostic (CASES.md S2: tiling that dimension independently would
// normalize each tile by its own max and sum).
// RUN: not tx-opt %s --split-input-file --transform-interpreter 2>/dev/null | FileCheck %s
// RUN: not tx-opt %s --split-input-file --transform-interpreter 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR

// CHECK-LABEL: func.func @rows
// CHECK:       scf.forall (%[[I:.*]]) in (4)
// CHECK:         %[[X:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}, 0] [2, 64] [1, 1] : tensor<8x64xf16> to tensor<2x64xf16>
// CHECK:         tx.softmax %[[X]] dim = -1 : tensor<2x64xf16>
func.func @rows(%x: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %y = tx.softmax %x dim = -1 : tensor<8x64xf16>
  return %y : tensor<8x64xf16>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %sm = transform.structured.match ops{["tx.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_forall %sm tile_sizes [2, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// ERR: tile-softmax-transform.mlir:[[@LINE+2]]:8: error: 'tx.softmax' op cannot tile the softmax dimension 1: a tile must hold whole rows (tx-tile-softmax cols-per-tile splits rows with an online softmax)
func.func @softmax_dim(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %y = tx.softmax %x dim = 1 : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %sm = transform.structured.match ops{["tx.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %l0, %l1 = transform.structured.tile_using_for %sm tile_sizes [1, 2]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
