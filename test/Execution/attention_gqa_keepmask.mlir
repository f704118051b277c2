// Grouped-query attention and i1 keep-masks (f32), checked against a float64
// reference by Inputs/numeric_case.py: relative L2 error <= 1e-5, rows with no
// visible key exactly 0, no NaN.

// GQA: H = 4 * Hkv, and multi-query Hkv = 1 (query head h reads K/V head
// h / (H / Hkv)).
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 8 --Hkv 2 --Sq 10 --Sk 14 --D 16 --seed 201 --name gqa_h8_hkv2 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=GQA4
// GQA4: case gqa_h8_hkv2: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 4 --Hkv 1 --Sq 10 --Sk 14 --D 16 --causal --seed 202 --name gqa_h4_hkv1_causal | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=MQA
// MQA: case gqa_h4_hkv1_causal: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 6 --Hkv 3 --Sq 9 --Sk 9 --D 8 --Dv 5 --causal --seed 203 --name gqa_h6_hkv3_dv5 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=GQA2
// GQA2: case gqa_h6_hkv3_dv5: relerr {{.*}} ok 1

// i1 keep-mask with one fully masked query row (output row exactly 0):
// broadcast [1,1,Sq,Sk], full [B,H,Sq,Sk], and with GQA + causal.
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 8 --Sk 12 --D 8 --mask keep --masked-row 3 --seed 204 --name keep_bcast_11 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=KEEP11
// KEEP11: case keep_bcast_11: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 8 --Sk 12 --D 8 --mask keep --mask-bcast B,H --masked-row 0 --masked-row 7 --keep-prob 0.4 --seed 205 --name keep_full | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=KEEPBH
// KEEPBH: case keep_full: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 4 --Hkv 2 --Sq 8 --Sk 12 --D 8 --causal --mask keep --mask-bcast B,H --masked-row 5 --seed 206 --name keep_gqa_causal | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=KEEPGQA
// KEEPGQA: case keep_gqa_causal: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 3 --H 2 --Sq 6 --Sk 6 --D 4 --mask keep --mask-bcast B,1 --seed 207 --name keep_bcast_b1 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=KEEPB1
// KEEPB1: case keep_bcast_b1: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 3 --H 4 --Hkv 2 --Sq 6 --Sk 6 --D 4 --mask keep --mask-bcast 1,H --seed 208 --name keep_bcast_1h | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=KEEP1H
// KEEP1H: case keep_bcast_1h: relerr {{.*}} ok 1
