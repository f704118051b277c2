// tx.softmax_grad on the CPU (tx-cpu-pipeline: the reference lowering),
// checked in MLIR against dX = Y * (dY - sum(Y * dY)) computed in float64 by
// Inputs/grad_case.py from random Y (a softmax of random logits, rounded to
// the element type) and random dY (relative L2 error <= 1e-5 in f32, 2e-3 in
// f16, 1e-2 in bf16; the NaN rows of an all -inf input stay NaN).

// RUN: %python %S/Inputs/grad_case.py softmax_grad --shape 5x77 --seed 21 --name sg_f32 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=F32
// F32: case sg_f32/dx: relerr {{.*}} ok 1

// A non-innermost dim, an all -inf row (Y NaN: dX NaN), f16 and bf16.
// RUN: %python %S/Inputs/grad_case.py softmax_grad --shape 4x7x5 --dim 1 --neginf-row 3 --dtype f16 --seed 22 --name sg_f16_dim1 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=F16
// F16: case sg_f16_dim1/dx: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py softmax_grad --shape 3x130 --dim -1 --dtype bf16 --seed 23 --name sg_bf16 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=BF16
// BF16: case sg_bf16/dx: relerr {{.*}} ok 1

// Dynamic shapes, dim 0, rank 1.
// RUN: %python %S/Inputs/grad_case.py softmax_grad --shape 33x6 --dim 0 --dynamic --seed 24 --name sg_dyn_dim0 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DYN
// DYN: case sg_dyn_dim0/dx: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py softmax_grad --shape 50 --seed 25 --name sg_rank1 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=R1
// R1: case sg_rank1/dx: relerr {{.*}} ok 1

// The check can fail: an f32 result is not exact to 1e-12.
// RUN: %python %S/Inputs/grad_case.py softmax_grad --shape 5x77 --seed 21 --tol 1e-12 --name sg_tight | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=TIGHT
// TIGHT: case sg_tight/dx: relerr {{.*}} ok 0
