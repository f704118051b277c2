// Random f32 tx.attention, checked in MLIR against a float64 reference computed
// by Inputs/numeric_case.py (relative L2 error <= 1e-5; a query row with no
// visible key must be exactly 0; no NaN anywhere).

// Plain multi-head attention, default scale 1/sqrt(D).
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 3 --Sq 16 --Sk 16 --D 32 --seed 101 --name attn_f32_plain | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=PLAIN
// PLAIN: case attn_f32_plain: relerr {{.*}} ok 1

// Sq != Sk without causal, explicit scale.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 7 --Sk 19 --D 16 --scale 0.3 --seed 102 --name attn_f32_scale | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=SCALE
// SCALE: case attn_f32_scale: relerr {{.*}} ok 1

// Causal, Sq == Sk (lower triangle).
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 24 --Sk 24 --D 16 --causal --seed 103 --name attn_f32_causal_sq_eq_sk | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=CEQ
// CEQ: case attn_f32_causal_sq_eq_sk: relerr {{.*}} ok 1

// Causal, Sq < Sk (bottom-right: the last query sees every key).
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 3 --Sq 5 --Sk 23 --D 16 --causal --seed 104 --name attn_f32_causal_sq_lt_sk | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=CLT
// CLT: case attn_f32_causal_sq_lt_sk: relerr {{.*}} ok 1

// Causal, Sq > Sk (the first Sq - Sk query rows see no key: exactly 0).
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 1 --Sq 21 --Sk 6 --D 8 --causal --seed 105 --name attn_f32_causal_sq_gt_sk | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=CGT
// CGT: case attn_f32_causal_sq_gt_sk: relerr {{.*}} ok 1

// Non-power-of-two lengths, plain and causal.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 77 --Sk 77 --D 24 --seed 106 --name attn_f32_77 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=N77
// N77: case attn_f32_77: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 77 --Sk 77 --D 24 --causal --seed 107 --name attn_f32_77_causal | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=N77C
// N77C: case attn_f32_77_causal: relerr {{.*}} ok 1

// Dv != D (larger and smaller), with the default scale taken from D.
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 9 --Sk 13 --D 8 --Dv 20 --seed 108 --name attn_f32_dv_gt_d | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DVGT
// DVGT: case attn_f32_dv_gt_d: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 9 --Sk 13 --D 32 --Dv 3 --causal --seed 109 --name attn_f32_dv_lt_d | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DVLT
// DVLT: case attn_f32_dv_lt_d: relerr {{.*}} ok 1

// Large scores (inputs in [-10, 10]): the max subtraction must keep exp finite.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 1 --Sq 12 --Sk 31 --D 64 --range=-10,10 --seed 110 --name attn_f32_large_scores | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=LARGE
// LARGE: case attn_f32_large_scores: relerr {{.*}} ok 1
