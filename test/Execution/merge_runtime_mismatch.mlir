// tx.merge_attention_states with dynamic sizes: sizes the verifier cannot
// compare are checked at run time, a mismatch a located error naming the
// operand and the dimension (never a read outside a tensor).
// RUN: tx-opt %s --tx-cpu-pipeline | not %run_cpu 2>&1 | FileCheck %s
// CHECK: error: merge: tx.merge_attention_states: dimension 2 of out_b differs from out_a's: 3 vs 2
// CHECK-NOT: PLEASE submit

!o = tensor<?x?x?x?xf32>
!l = tensor<?x?x?xf32>

func.func @merge(%a: !o, %la: !l, %b: !o, %lb: !l) -> !o {
  %o, %lse = tx.merge_attention_states %a, %la, %b, %lb : !o, !l
  return %o : !o
}

func.func @main() {
  %a = arith.constant dense<1.0> : tensor<1x1x2x4xf32>
  %b = arith.constant dense<2.0> : tensor<1x1x3x4xf32>
  %la = arith.constant dense<0.5> : tensor<1x1x2xf32>
  %ad = tensor.cast %a : tensor<1x1x2x4xf32> to !o
  %bd = tensor.cast %b : tensor<1x1x3x4xf32> to !o
  %lad = tensor.cast %la : tensor<1x1x2xf32> to !l
  %r = call @merge(%ad, %lad, %bd, %lad) : (!o, !l, !o, !l) -> !o
  return
}
