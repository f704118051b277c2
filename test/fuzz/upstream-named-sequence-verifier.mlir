// Known upstream crash (LLVM 22.1.8), found by txfuzz.py mutating the generic
// form of a transform script that tiles tx.softmax; reproduced here with
// upstream ops only: transform.named_sequence's verify() collects the memory
// effects of its nested ops before those are verified, so a
// tile_using_forall whose operandSegmentSizes claim an operand it does not
// have is read out of bounds (SIGSEGV/SIGBUS in getConsumedBlockArguments).
// tx cannot fix it; txfuzz.py counts it apart. This test fails once a new
// LLVM fixes it.
// UNSUPPORTED: tx-sanitize
// RUN: not --crash mlir-opt %s 2>&1 | FileCheck %s
// CHECK: getConsumedBlockArguments
"builtin.module"() ({
  "builtin.module"() ({
    "transform.named_sequence"() <{arg_attrs = [{transform.readonly}], function_type = (!transform.any_op) -> (), sym_name = "__transform_main"}> ({
    ^bb0(%arg0: !transform.any_op):
      %0 = "transform.structured.match"(%arg0) <{ops = ["linalg.add"]}> : (!transform.any_op) -> !transform.any_op
      %1:2 = "transform.structured.tile_using_forall"(%0) <{operandSegmentSizes = array<i32: 1, 0, 0, 0, 1>, static_tile_sizes = array<i64: 2, 0>}> : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      "transform.yield"() : () -> ()
    }) : () -> ()
  }) {transform.with_named_sequence} : () -> ()
}) : () -> ()
