// Known upstream crash (LLVM 22.1.8), found by txfuzz.py with tx.softmax and
// reproduced here with upstream ops only in Debian's mlir-opt:
// transform.structured.tile_using_forall whose tile sizes tile no loop (all
// zero, or non-zero sizes only past the op's rank) segfaults in
// tileToForallOpImpl (it takes the first of zero generated loops). tx cannot
// fix it; txfuzz.py counts it apart as "upstream-tile-using-forall-no-loop".
// This test fails once a new LLVM fixes it: then drop the exception in
// txfuzz.py (KNOWN_UPSTREAM) and docs/Fuzzing.md.
// UNSUPPORTED: tx-sanitize
// RUN: not --crash mlir-opt %s --transform-interpreter 2>&1 | FileCheck %s
// CHECK: tileToForallOpImpl
func.func @add(%x: tensor<4x8xf32>, %o: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = linalg.add ins(%x, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%o : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_forall %op tile_sizes [0, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
