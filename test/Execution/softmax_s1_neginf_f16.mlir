// CASES.md S1 (f16): a row of -inf gives NaN in every lane, for every length
// (1, 31, 32, 33, 127, 128, 1024, 1025); the neighbouring random rows stay
// correct. Inputs/numeric_case.py counts NaN mismatches (ref NaN <=> out NaN).
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 3x1 --row allneginf:1 --seed 1 --name s1_f16_len1 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=L1
// L1: case s1_f16_len1: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 3x31 --row allneginf:1 --seed 31 --name s1_f16_len31 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=L31
// L31: case s1_f16_len31: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 3x32 --row allneginf:1 --seed 32 --name s1_f16_len32 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=L32
// L32: case s1_f16_len32: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 3x33 --row allneginf:1 --seed 33 --name s1_f16_len33 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=L33
// L33: case s1_f16_len33: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 3x127 --row allneginf:1 --seed 127 --name s1_f16_len127 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=L127
// L127: case s1_f16_len127: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 3x128 --row allneginf:1 --seed 128 --name s1_f16_len128 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=L128
// L128: case s1_f16_len128: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 3x1024 --row allneginf:1 --seed 1024 --name s1_f16_len1024 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=L1024
// L1024: case s1_f16_len1024: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 3x1025 --row allneginf:1 --seed 1025 --name s1_f16_len1025 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=L1025
// L1025: case s1_f16_len1025: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 3x33 --dynamic --row allneginf:1 --seed 9 --name s1_f16_dyn_33 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DYN
// DYN: case s1_f16_dyn_33: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype bf16 --shape 3x128 --row allneginf:1 --seed 10 --name s1_bf16_len128 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=BF16
// BF16: case s1_bf16_len128: relerr {{.*}} ok 1

// The same rows through tx-tile-softmax on the CPU (row tiles of 2, online
// chunks of 16: a -inf row must still give NaN, whatever the chunking).
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 3x1 --row allneginf:1 --seed 1 --name s1_f16_len1 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=2 softmax-cols-per-tile=16" | %run_cpu | FileCheck %s --check-prefix=L1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 3x33 --row allneginf:1 --seed 33 --name s1_f16_len33 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=2 softmax-cols-per-tile=16" | %run_cpu | FileCheck %s --check-prefix=L33
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 3x127 --row allneginf:1 --seed 127 --name s1_f16_len127 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=2 softmax-cols-per-tile=16" | %run_cpu | FileCheck %s --check-prefix=L127
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 3x1025 --row allneginf:1 --seed 1025 --name s1_f16_len1025 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=2 softmax-cols-per-tile=16" | %run_cpu | FileCheck %s --check-prefix=L1025
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 3x33 --dynamic --row allneginf:1 --seed 9 --name s1_f16_dyn_33 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=2 softmax-cols-per-tile=16" | %run_cpu | FileCheck %s --check-prefix=DYN
