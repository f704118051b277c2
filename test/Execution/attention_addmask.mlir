// Additive masks (f32), checked against a float64 reference by
// Inputs/numeric_case.py: relative L2 error <= 1e-5, rows with no visible key
// exactly 0, no NaN.

// Additive mask: broadcast [1,1,Sq,Sk], full [B,H,Sq,Sk], [B,1,..], [1,H,..],
// with -inf entries and a row that is -inf everywhere (exactly 0).
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 3 --Sq 9 --Sk 11 --D 8 --mask add --seed 209 --name add_bcast_11 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=ADD11
// ADD11: case add_bcast_11: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 3 --Sq 9 --Sk 11 --D 8 --mask add --mask-bcast B,H --mask-neginf 0.3 --masked-row 4 --seed 210 --name add_full_neginf | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=ADDBH
// ADDBH: case add_full_neginf: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 4 --Hkv 2 --Sq 9 --Sk 11 --D 8 --causal --mask add --mask-bcast B,1 --seed 211 --name add_bcast_b1_gqa_causal | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=ADDB1
// ADDB1: case add_bcast_b1_gqa_causal: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 4 --Hkv 1 --Sq 9 --Sk 11 --D 8 --mask add --mask-bcast 1,H --mask-range=-6,6 --seed 212 --name add_bcast_1h_mqa | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=ADD1H
// ADD1H: case add_bcast_1h_mqa: relerr {{.*}} ok 1
