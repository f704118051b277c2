// Random f32 softmax, checked in MLIR against a float64 reference computed by
// Inputs/numeric_case.py (relative L2 error <= 1e-5, NaN lanes must match).
// Rows are the 1-D slices along `dim`, numbered row-major over the other dims.

// A row holding one huge logit (1e4) next to ordinary ones, and a row where
// every third lane is -inf.
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 8x64 --row huge:2 --row neginf:5 --seed 11 --name sm_f32_huge_neginf | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=HUGE
// HUGE: case sm_f32_huge_neginf: relerr {{.*}} ok 1

// Rows that are very negative but finite, a row of zeros and an all -inf row
// (NaN lanes) in one tensor.
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 6x40 --row hugeneg:0 --row zeros:1 --row allneginf:3 --row huge:4 --seed 12 --name sm_f32_mixed_rows | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=MIXED
// MIXED: case sm_f32_mixed_rows: relerr {{.*}} ok 1

// Non-power-of-two lengths.
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 3x77 --seed 13 --name sm_f32_3x77 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=N77
// N77: case sm_f32_3x77: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 5x1000 --row huge:3 --seed 14 --name sm_f32_5x1000 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=N1000
// N1000: case sm_f32_5x1000: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 77 --seed 15 --name sm_f32_rank1 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=RANK1
// RANK1: case sm_f32_rank1: relerr {{.*}} ok 1

// Softmax along a non-innermost dimension (positive and negative dim).
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 4x7x5 --dim 1 --row huge:3 --row neginf:7 --seed 16 --name sm_f32_dim1_of_3 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DIM1
// DIM1: case sm_f32_dim1_of_3: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 33x6 --dim 0 --row allneginf:2 --seed 17 --name sm_f32_dim0 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DIM0
// DIM0: case sm_f32_dim0: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 9x4x3 --dim -3 --seed 18 --name sm_f32_dimm3 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DIMM3
// DIMM3: case sm_f32_dimm3: relerr {{.*}} ok 1

// Dynamically shaped operand (tensor<?x...>), called through tensor.cast.
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 3x77 --dynamic --row huge:1 --row allneginf:2 --seed 19 --name sm_f32_dyn_3x77 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DYN
// DYN: case sm_f32_dyn_3x77: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 4x7x5 --dim 1 --dynamic --seed 20 --name sm_f32_dyn_dim1 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DYNDIM1
// DYNDIM1: case sm_f32_dyn_dim1: relerr {{.*}} ok 1
