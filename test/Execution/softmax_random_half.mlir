// Random f16 / bf16 softmax (inputs exactly representable in the format; the
// max, sum and quotient are f32 inside and rounded once), checked against a
// float64 reference: relative L2 error <= 2e-3 (f16) / 1e-2 (bf16).

// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 6x300 --row huge:1 --row neginf:2 --row allneginf:4 --seed 21 --name sm_f16_rows | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=F16
// F16: case sm_f16_rows: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 3x77 --range=-8,8 --seed 22 --name sm_f16_3x77 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=F16N77
// F16N77: case sm_f16_3x77: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 5x1000 --seed 23 --name sm_f16_5x1000 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=F16N1000
// F16N1000: case sm_f16_5x1000: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 2x65x3 --dim 1 --row huge:4 --seed 24 --name sm_f16_dim1 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=F16DIM1
// F16DIM1: case sm_f16_dim1: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 3x77 --dynamic --row neginf:0 --seed 25 --name sm_f16_dyn | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=F16DYN
// F16DYN: case sm_f16_dyn: relerr {{.*}} ok 1

// RUN: %python %S/Inputs/numeric_case.py softmax --dtype bf16 --shape 6x300 --row huge:1 --row neginf:2 --row allneginf:4 --seed 31 --name sm_bf16_rows | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=BF16
// BF16: case sm_bf16_rows: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype bf16 --shape 3x77 --range=-20,20 --seed 32 --name sm_bf16_3x77 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=BF16N77
// BF16N77: case sm_bf16_3x77: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype bf16 --shape 5x1000 --seed 33 --name sm_bf16_5x1000 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=BF16N1000
// BF16N1000: case sm_bf16_5x1000: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype bf16 --shape 7x9x2 --dim 0 --seed 34 --name sm_bf16_dim0 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=BF16DIM0
// BF16DIM0: case sm_bf16_dim0: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype bf16 --shape 3x77 --dynamic --row huge:2 --seed 35 --name sm_bf16_dyn | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=BF16DYN
// BF16DYN: case sm_bf16_dyn: relerr {{.*}} ok 1
