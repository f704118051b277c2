// CASES.md S1 (f32): a row of -inf gives NaN in every lane, for every length
// (1, 31, 32, 33, 127, 128, 1024, 1025); the neighbouring random rows stay
// correct. Inputs/numeric_case.py counts NaN mismatches (ref NaN <=> out NaN),
// so `ok 1` means every lane of the -inf row is NaN and no other lane is.
// RUN: tx-opt %s --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=PRINT
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f32 --shape 3x1 --row allneginf:1 --seed 1 --name s1_f32_len1 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=L1
// L1: case s1_f32_len1: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f32 --shape 3x31 --row allneginf:1 --seed 31 --name s1_f32_len31 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=L31
// L31: case s1_f32_len31: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f32 --shape 3x32 --row allneginf:1 --seed 32 --name s1_f32_len32 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=L32
// L32: case s1_f32_len32: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f32 --shape 3x33 --row allneginf:1 --seed 33 --name s1_f32_len33 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=L33
// L33: case s1_f32_len33: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f32 --shape 3x127 --row allneginf:1 --seed 127 --name s1_f32_len127 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=L127
// L127: case s1_f32_len127: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f32 --shape 3x128 --row allneginf:1 --seed 128 --name s1_f32_len128 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=L128
// L128: case s1_f32_len128: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f32 --shape 3x1024 --row allneginf:1 --seed 1024 --name s1_f32_len1024 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=L1024
// L1024: case s1_f32_len1024: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f32 --shape 3x1025 --row allneginf:1 --seed 1025 --name s1_f32_len1025 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=L1025
// L1025: case s1_f32_len1025: relerr {{.*}} ok 1
// Dynamic shapes and a -inf "row" along a non-innermost dim (a column).
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 3x1025 --dynamic --row allneginf:0 --row allneginf:2 --seed 7 --name s1_f32_dyn_1025 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DYN
// DYN: case s1_f32_dyn_1025: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 33x5 --dim 0 --row allneginf:3 --seed 8 --name s1_f32_column | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=COL
// COL: case s1_f32_column: relerr {{.*}} ok 1

// The same rows through tx-tile-softmax on the CPU (row tiles of 2, online
// chunks of 16: a -inf row must still give NaN, whatever the chunking).
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f32 --shape 3x1 --row allneginf:1 --seed 1 --name s1_f32_len1 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=2 softmax-cols-per-tile=16" | %run_cpu | FileCheck %s --check-prefix=L1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f32 --shape 3x33 --row allneginf:1 --seed 33 --name s1_f32_len33 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=2 softmax-cols-per-tile=16" | %run_cpu | FileCheck %s --check-prefix=L33
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f32 --shape 3x127 --row allneginf:1 --seed 127 --name s1_f32_len127 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=2 softmax-cols-per-tile=16" | %run_cpu | FileCheck %s --check-prefix=L127
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f32 --shape 3x1025 --row allneginf:1 --seed 1025 --name s1_f32_len1025 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=2 softmax-cols-per-tile=16" | %run_cpu | FileCheck %s --check-prefix=L1025
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 3x1025 --dynamic --row allneginf:0 --row allneginf:2 --seed 7 --name s1_f32_dyn_1025 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=2 softmax-cols-per-tile=16" | %run_cpu | FileCheck %s --check-prefix=DYN

// Printed: lengths 1 and 5 (every lane NaN; libc prints -nan or nan).
func.func private @printMemrefF32(tensor<*xf32>)

func.func @sm1(%x: tensor<2x1xf32>) -> tensor<2x1xf32> {
  %0 = tx.softmax %x dim = 1 : tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

func.func @sm5(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

func.func @main() {
  // PRINT-LABEL: sizes = [2, 1]
  // PRINT-NEXT: {{\[\[}}{{-?}}nan],
  // PRINT-NEXT: [1]]
  %a = arith.constant dense<[[0xFF800000], [-3.0]]> : tensor<2x1xf32>
  %ra = call @sm1(%a) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %ua = tensor.cast %ra : tensor<2x1xf32> to tensor<*xf32>
  call @printMemrefF32(%ua) : (tensor<*xf32>) -> ()
  // PRINT-LABEL: sizes = [2, 5]
  // PRINT-NEXT: {{\[\[}}0.2,{{ +}}0.2,{{ +}}0.2,{{ +}}0.2,{{ +}}0.2],
  // PRINT-NEXT: [{{-?}}nan,{{ +}}{{-?}}nan,{{ +}}{{-?}}nan,{{ +}}{{-?}}nan,{{ +}}{{-?}}nan]]
  %b = arith.constant dense<[[7.0, 7.0, 7.0, 7.0, 7.0],
                             [0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000]]> : tensor<2x5xf32>
  %rb = call @sm5(%b) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %ub = tensor.cast %rb : tensor<2x5xf32> to tensor<*xf32>
  call @printMemrefF32(%ub) : (tensor<*xf32>) -> ()
  return
}
