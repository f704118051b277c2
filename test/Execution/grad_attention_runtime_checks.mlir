// tx.attention_grad with dynamic shapes: the sizes the verifier cannot
// compare are checked at run time, and a mismatch ends the call with a
// located message naming the operand, the rule and the values (as for
// tx.attention, attention_a6_runtime_mismatch.mlir). sed picks the case
// @main runs (SEL); case 0 is valid and runs through.
//
// RUN: sed s/SEL/0/ %s | tx-opt --tx-cpu-pipeline | %run_cpu 2>&1 | FileCheck %s --check-prefix=OK
// OK: returned
//
// RUN: sed s/SEL/1/ %s | tx-opt --tx-cpu-pipeline | not %run_cpu 2>&1 | FileCheck %s --check-prefix=OUT
// OUT: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: grad: tx.attention_grad: output dimension 3 differs from Dv: 3 vs 4
// OUT-NOT: returned
//
// RUN: sed s/SEL/2/ %s | tx-opt --tx-cpu-pipeline | not %run_cpu 2>&1 | FileCheck %s --check-prefix=LSE
// LSE: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: grad: tx.attention_grad: lse dimension 2 differs from Sq: 5 vs 6
// LSE-NOT: returned
//
// RUN: sed s/SEL/3/ %s | tx-opt --tx-cpu-pipeline | not %run_cpu 2>&1 | FileCheck %s --check-prefix=DO
// DO: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: grad: tx.attention_grad: grad_output dimension 0 differs from B: 2 vs 1
// DO-NOT: returned

!t = tensor<?x?x?x?xf32>
!l = tensor<?x?x?xf32>
func.func @grad(%q: !t, %k: !t, %v: !t, %o: !t, %do: !t, %lse: !l) -> !t {
  %dq, %dk, %dv = tx.attention_grad %q, %k, %v, %o, %do, %lse causal
      : !t, !t, !t, !t, !t, !l -> !t, !t, !t
  return %dq : !t
}

func.func @main() {
  %sel = arith.constant SEL : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %x = arith.constant 0.5 : f32
  %q0 = tensor.splat %x : tensor<1x2x6x4xf32>
  %kv0 = tensor.splat %x : tensor<1x2x7x4xf32>
  %o0 = tensor.splat %x : tensor<1x2x6x4xf32>
  %o1 = tensor.splat %x : tensor<1x2x6x3xf32>
  %do3 = tensor.splat %x : tensor<2x2x6x4xf32>
  %l0 = tensor.splat %x : tensor<1x2x6xf32>
  %l2 = tensor.splat %x : tensor<1x2x5xf32>
  %q = tensor.cast %q0 : tensor<1x2x6x4xf32> to !t
  %kv = tensor.cast %kv0 : tensor<1x2x7x4xf32> to !t
  %o = tensor.cast %o0 : tensor<1x2x6x4xf32> to !t
  %lse = tensor.cast %l0 : tensor<1x2x6xf32> to !l
  %is1 = arith.cmpi eq, %sel, %c1 : index
  %oBad = tensor.cast %o1 : tensor<1x2x6x3xf32> to !t
  %oSel = scf.if %is1 -> !t {
    scf.yield %oBad : !t
  } else {
    scf.yield %o : !t
  }
  %is2 = arith.cmpi eq, %sel, %c2 : index
  %lBad = tensor.cast %l2 : tensor<1x2x5xf32> to !l
  %lSel = scf.if %is2 -> !l {
    scf.yield %lBad : !l
  } else {
    scf.yield %lse : !l
  }
  %is3 = arith.cmpi eq, %sel, %c3 : index
  %doBad = tensor.cast %do3 : tensor<2x2x6x4xf32> to !t
  %doSel = scf.if %is3 -> !t {
    scf.yield %doBad : !t
  } else {
    scf.yield %o : !t
  }
  %r = call @grad(%q, %kv, %kv, %oSel, %doSel, %lSel) : (!t, !t, !t, !t, !t, !l) -> !t
  vector.print str "returned\n"
  return
}
