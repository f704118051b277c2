// tx-cpu-checks-to-exit (tx-cpu-pipeline, issue #44): a failed run-time
// check prints a located error naming the function, the rule and, for a
// tx.message_format check, its two values on stderr, then exits with
// status 1 (no abort, no crash report). End to end:
// test/Execution/attention_a6_runtime_mismatch.mlir, attention_lengths.mlir.
// RUN: tx-opt %s --split-input-file --tx-cpu-checks-to-exit --verify-diagnostics | FileCheck %s

// CHECK-DAG: llvm.func @dprintf(i32, !llvm.ptr, ...) -> i32
// CHECK-DAG: llvm.func @exit(i32)
// CHECK-DAG: llvm.mlir.global internal constant @__tx_check_msg{{.*}}("{{.*}}cpu-checks-to-exit.mlir:{{[0-9]+}}:3: error: plain: tx.attention: a rule at 100%%\0A\00")
// CHECK-LABEL: func.func @plain(
// CHECK: cf.cond_br %{{.*}}, ^[[OK:.*]], ^[[FAIL:.*]]
// CHECK: ^[[OK]]:
// CHECK-NEXT: return
// CHECK: ^[[FAIL]]:
// CHECK: %[[FD:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: %[[MSG:.*]] = llvm.mlir.addressof @__tx_check_msg
// CHECK: llvm.call @dprintf(%[[FD]], %[[MSG]]) vararg
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: llvm.call @exit(%[[ONE]])
// CHECK-NEXT: llvm.unreachable
func.func @plain(%c: i1) {
  cf.assert %c, "tx.attention: a rule at 100%"
  return
}

// -----

// CHECK-DAG: llvm.mlir.global internal constant @__tx_check_msg{{.*}}("{{.*}}: error: sizes: kv_lengths has an entry outside [0, Sk]: %lld > Sk = %lld\0A\00")
// CHECK-LABEL: func.func @sizes(
// CHECK-SAME: %[[A:.*]]: index, %[[B:.*]]: index)
// CHECK: cf.cond_br
// CHECK-DAG: %[[X:.*]] = arith.index_cast %[[A]] : index to i64
// CHECK-DAG: %[[Y:.*]] = arith.index_cast %[[B]] : index to i64
// CHECK: llvm.call @dprintf(%{{.*}}, %{{.*}}, %[[X]], %[[Y]])
func.func @sizes(%a: index, %b: index) {
  %le = arith.cmpi sle, %a, %b : index
  cf.assert %le, "kv_lengths has an entry outside [0, Sk]: %lld > Sk = %lld" {tx.message_format}
  return
}

// -----

func.func @nested(%c: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @below {{tx-cpu-checks-to-exit: this run-time check is nested in 'scf.for'; run the pass after convert-scf-to-cf}}
    cf.assert %c, "inside a loop"
  }
  return
}
