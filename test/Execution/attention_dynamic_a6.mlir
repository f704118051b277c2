// CASES.md A6: tx.attention on fully dynamic operands (tensor<?x?x?x?xf32>,
// called from @main through tensor.cast), checked against a float64 reference
// by Inputs/numeric_case.py (relative L2 error <= 1e-5).

// (B, H, Sq, Sk, D) = (2, 1, 37, 37, 24)
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 2 --H 1 --Sq 37 --Sk 37 --D 24 --seed 401 --name a6_2_1_37_37_24 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=A
// A: case a6_2_1_37_37_24: relerr {{.*}} ok 1

// (1, 1, 1, 1, 1)
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 1 --H 1 --Sq 1 --Sk 1 --D 1 --seed 402 --name a6_1_1_1_1_1 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=B
// B: case a6_1_1_1_1_1: relerr {{.*}} ok 1

// (3, 2, 130, 130, 64)
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 3 --H 2 --Sq 130 --Sk 130 --D 64 --seed 403 --name a6_3_2_130_130_64 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=C
// C: case a6_3_2_130_130_64: relerr {{.*}} ok 1

// Decode: (1, 4, 1, 300, 64) with Hkv = 4, plain and causal (bottom-right: the
// single query sees all 300 keys).
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 1 --H 4 --Hkv 4 --Sq 1 --Sk 300 --D 64 --seed 404 --name a6_decode | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=D
// D: case a6_decode: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 1 --H 4 --Hkv 4 --Sq 1 --Sk 300 --D 64 --causal --seed 405 --name a6_decode_causal | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DC
// DC: case a6_decode_causal: relerr {{.*}} ok 1
