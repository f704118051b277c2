// Self-test of the check that Inputs/numeric_case.py emits: each RUN line
// perturbs the embedded float64 reference (or the tolerance) of a case that
// passes elsewhere, and the in-MLIR check must then report ok 0 for the right
// reason. The second line (--verbose) gives the NaN / exact-zero mismatch
// counts.

// Every lane 5% off: relative error ~0.05 > 1e-5.
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 3x77 --seed 13 --corrupt-ref scale --verbose --name self_scale | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=SCALE
// SCALE: case self_scale: relerr 0.04{{[0-9]*}} ok 0
// SCALE-NEXT: nan_mismatches 0 nonzero_where_ref_zero 0

// Tolerance 0 on a case that is only accurate to ~1e-7.
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 3x77 --seed 13 --tol 0 --verbose --name self_tol0 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=TOL0
// TOL0: case self_tol0: relerr {{[0-9.]+}}e-{{0[6-9]}} ok 0
// TOL0-NEXT: nan_mismatches 0 nonzero_where_ref_zero 0

// The reference expects NaN in a lane where the output is a number.
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 3x77 --seed 13 --corrupt-ref nan --verbose --name self_nan | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=NAN
// NAN: case self_nan: relerr {{.*}} ok 0
// NAN-NEXT: nan_mismatches 1 nonzero_where_ref_zero 0

// The output is NaN (all -inf row) in a lane where the reference is 0.5.
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 3x33 --row allneginf:1 --seed 33 --corrupt-ref unnan --verbose --name self_unnan | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=UNNAN
// UNNAN: case self_unnan: relerr {{.*}} ok 0
// UNNAN-NEXT: nan_mismatches 1 nonzero_where_ref_zero 0

// The reference expects an exact 0 where the output is a (tiny) number; the
// loose tolerance isolates the exact-zero check.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 1 --Sq 3 --Sk 4 --D 2 --mask keep --masked-row 1 --seed 501 --corrupt-ref zero --tol 1 --verbose --name self_zero | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=ZERO
// ZERO: case self_zero: relerr {{.*}} ok 0
// ZERO-NEXT: nan_mismatches 0 nonzero_where_ref_zero 1

// Unperturbed, the same cases pass.
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 3x33 --row allneginf:1 --seed 33 --verbose --name self_clean | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=CLEAN
// CLEAN: case self_clean: relerr {{.*}} ok 1
// CLEAN-NEXT: nan_mismatches 0 nonzero_where_ref_zero 0
