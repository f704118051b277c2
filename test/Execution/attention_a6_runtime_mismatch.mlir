// CASES.md A6: with dynamic shapes the verifier cannot compare sizes, so the
// lowering checks them at run time (cf.assert): a mismatch ends the program
// with a message instead of computing wrong numbers. One case per RUN line:
// sed picks the case that @main runs (SEL); case 0 is valid and must run
// through.
//
// tx-cpu-pipeline's tx-cpu-checks-to-exit prints the failed check on stderr
// as a located error naming the function, the rule and the values, and
// exits with status 1: no crash report (issue #44). stdout is flushed at
// exit, so "case N" may come after the message.
//
// RUN: sed s/SEL/0/ %s | tx-opt --tx-cpu-pipeline | %run_cpu 2>&1 | FileCheck %s --check-prefix=OK
// OK: case 0
// OK-NEXT: returned
//
// RUN: sed s/SEL/1/ %s | tx-opt --tx-cpu-pipeline | not %run_cpu 2>&1 | FileCheck %s --check-prefix=D
// D-DAG: case 1
// D-DAG: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: attn{{(_mask)?}}: tx.attention: head dimension D of query and key differ: 8 vs 4
// D-NOT: returned
// D-NOT: PLEASE submit
//
// RUN: sed s/SEL/2/ %s | tx-opt --tx-cpu-pipeline | not %run_cpu 2>&1 | FileCheck %s --check-prefix=SK
// SK-DAG: case 2
// SK-DAG: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: attn{{(_mask)?}}: tx.attention: key lengths Sk of key and value differ: 3 vs 5
// SK-NOT: returned
// SK-NOT: PLEASE submit
//
// RUN: sed s/SEL/3/ %s | tx-opt --tx-cpu-pipeline | not %run_cpu 2>&1 | FileCheck %s --check-prefix=BATCH
// BATCH-DAG: case 3
// BATCH-DAG: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: attn{{(_mask)?}}: tx.attention: batch size of query and key differ: 1 vs 2
// BATCH-NOT: returned
// BATCH-NOT: PLEASE submit
//
// RUN: sed s/SEL/4/ %s | tx-opt --tx-cpu-pipeline | not %run_cpu 2>&1 | FileCheck %s --check-prefix=GQA
// GQA-DAG: case 4
// GQA-DAG: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: attn{{(_mask)?}}: tx.attention: query heads H are not a multiple of K/V heads Hkv
// GQA-NOT: returned
// GQA-NOT: PLEASE submit
//
// A dynamic mask batch dim must equal B at run time (only a static 1
// broadcasts): a mask of batch 1 with B = 2 would otherwise be read out of
// bounds.
// RUN: sed s/SEL/5/ %s | tx-opt --tx-cpu-pipeline | not %run_cpu 2>&1 | FileCheck %s --check-prefix=MB
// MB-DAG: case 5
// MB-DAG: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: attn{{(_mask)?}}: tx.attention: mask batch dimension is neither 1 nor B: 1 vs 2
// MB-NOT: returned
// MB-NOT: PLEASE submit
//
// RUN: sed s/SEL/6/ %s | tx-opt --tx-cpu-pipeline | not %run_cpu 2>&1 | FileCheck %s --check-prefix=MK
// MK-DAG: case 6
// MK-DAG: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: attn{{(_mask)?}}: tx.attention: mask key length differs from Sk: 4 vs 3
// MK-NOT: returned
// MK-NOT: PLEASE submit
//
// The valid masked call (case 7) runs through.
// RUN: sed s/SEL/7/ %s | tx-opt --tx-cpu-pipeline | %run_cpu 2>&1 | FileCheck %s --check-prefix=OKM
// OKM: case 7
// OKM-NEXT: returned
//
// The same run-time checks guard the tiled path (tx-tile-attention emits them
// with the same messages, before any loop):
// RUN: sed s/SEL/0/ %s | tx-opt --tx-cpu-pipeline="attention=tiled" | %run_cpu 2>&1 | FileCheck %s --check-prefix=OK
// RUN: sed s/SEL/1/ %s | tx-opt --tx-cpu-pipeline="attention=tiled" | not %run_cpu 2>&1 | FileCheck %s --check-prefix=D
// RUN: sed s/SEL/2/ %s | tx-opt --tx-cpu-pipeline="attention=tiled" | not %run_cpu 2>&1 | FileCheck %s --check-prefix=SK
// RUN: sed s/SEL/3/ %s | tx-opt --tx-cpu-pipeline="attention=tiled" | not %run_cpu 2>&1 | FileCheck %s --check-prefix=BATCH
// RUN: sed s/SEL/4/ %s | tx-opt --tx-cpu-pipeline="attention=tiled" | not %run_cpu 2>&1 | FileCheck %s --check-prefix=GQA
// RUN: sed s/SEL/5/ %s | tx-opt --tx-cpu-pipeline="attention=tiled" | not %run_cpu 2>&1 | FileCheck %s --check-prefix=MB
// RUN: sed s/SEL/6/ %s | tx-opt --tx-cpu-pipeline="attention=tiled" | not %run_cpu 2>&1 | FileCheck %s --check-prefix=MK
// RUN: sed s/SEL/7/ %s | tx-opt --tx-cpu-pipeline="attention=tiled" | %run_cpu 2>&1 | FileCheck %s --check-prefix=OKM

!t = tensor<?x?x?x?xf32>
!m = tensor<?x1x?x?xi1>

func.func @attn(%q: !t, %k: !t, %v: !t) -> !t {
  %o = tx.attention %q, %k, %v : !t, !t, !t -> !t
  return %o : !t
}

func.func @attn_mask(%q: !t, %k: !t, %v: !t, %m: !m) -> !t {
  %o = tx.attention %q, %k, %v mask(%m : !m) causal : !t, !t, !t -> !t
  return %o : !t
}

func.func @run(%q: !t, %k: !t, %v: !t) {
  %o = call @attn(%q, %k, %v) : (!t, !t, !t) -> !t
  vector.print str "returned\n"
  return
}

func.func @run_mask(%q: !t, %k: !t, %v: !t, %m: !m) {
  %o = call @attn_mask(%q, %k, %v, %m) : (!t, !t, !t, !m) -> !t
  vector.print str "returned\n"
  return
}

func.func @main() {
  %sel = arith.constant SEL : index
  vector.print str "case "
  vector.print %sel : index
  // Valid: B=1, H=Hkv=1, Sq=2, Sk=3, D=8, Dv=4.
  %q = arith.constant dense<1.0> : tensor<1x1x2x8xf32>
  %k = arith.constant dense<1.0> : tensor<1x1x3x8xf32>
  %v = arith.constant dense<1.0> : tensor<1x1x3x4xf32>
  %qd = tensor.cast %q : tensor<1x1x2x8xf32> to !t
  %kd = tensor.cast %k : tensor<1x1x3x8xf32> to !t
  %vd = tensor.cast %v : tensor<1x1x3x4xf32> to !t
  // 1: D of K is 4.
  %k4 = arith.constant dense<1.0> : tensor<1x1x3x4xf32>
  %k4d = tensor.cast %k4 : tensor<1x1x3x4xf32> to !t
  // 2: V has Sk = 5.
  %v5 = arith.constant dense<1.0> : tensor<1x1x5x4xf32>
  %v5d = tensor.cast %v5 : tensor<1x1x5x4xf32> to !t
  // 3: K and V have B = 2.
  %k2 = arith.constant dense<1.0> : tensor<2x1x3x8xf32>
  %v2 = arith.constant dense<1.0> : tensor<2x1x3x4xf32>
  %k2d = tensor.cast %k2 : tensor<2x1x3x8xf32> to !t
  %v2d = tensor.cast %v2 : tensor<2x1x3x4xf32> to !t
  // 4: H = 3 query heads, Hkv = 2.
  %q3 = arith.constant dense<1.0> : tensor<1x3x2x8xf32>
  %k3 = arith.constant dense<1.0> : tensor<1x2x3x8xf32>
  %v3 = arith.constant dense<1.0> : tensor<1x2x3x4xf32>
  %q3d = tensor.cast %q3 : tensor<1x3x2x8xf32> to !t
  %k3d = tensor.cast %k3 : tensor<1x2x3x8xf32> to !t
  %v3d = tensor.cast %v3 : tensor<1x2x3x4xf32> to !t
  // 5: B = 2, mask batch 1 (dynamic); 6: mask Sk = 4 != 3; 7: valid mask.
  %qb = arith.constant dense<1.0> : tensor<2x1x2x8xf32>
  %qbd = tensor.cast %qb : tensor<2x1x2x8xf32> to !t
  %m1 = arith.constant dense<true> : tensor<1x1x2x3xi1>
  %m1d = tensor.cast %m1 : tensor<1x1x2x3xi1> to !m
  %m4 = arith.constant dense<true> : tensor<1x1x2x4xi1>
  %m4d = tensor.cast %m4 : tensor<1x1x2x4xi1> to !m
  scf.index_switch %sel
  case 0 {
    func.call @run(%qd, %kd, %vd) : (!t, !t, !t) -> ()
    scf.yield
  }
  case 1 {
    func.call @run(%qd, %k4d, %vd) : (!t, !t, !t) -> ()
    scf.yield
  }
  case 2 {
    func.call @run(%qd, %kd, %v5d) : (!t, !t, !t) -> ()
    scf.yield
  }
  case 3 {
    func.call @run(%qd, %k2d, %v2d) : (!t, !t, !t) -> ()
    scf.yield
  }
  case 4 {
    func.call @run(%q3d, %k3d, %v3d) : (!t, !t, !t) -> ()
    scf.yield
  }
  case 5 {
    func.call @run_mask(%qbd, %k2d, %v2d, %m1d) : (!t, !t, !t, !m) -> ()
    scf.yield
  }
  case 6 {
    func.call @run_mask(%qd, %kd, %vd, %m4d) : (!t, !t, !t, !m) -> ()
    scf.yield
  }
  case 7 {
    func.call @run_mask(%qd, %kd, %vd, %m1d) : (!t, !t, !t, !m) -> ()
    scf.yield
  }
  default {
  }
  return
}
