// tx-tile-softmax run on the CPU (tx-cpu-pipeline softmax=tiled): random
// softmax cases checked in MLIR against a float64 reference computed by
// Inputs/numeric_case.py (relative L2 error, NaN lanes must match), on odd
// shapes, with row tiles that do not divide the rows and online-softmax
// chunks that do not divide the row length.

// 3 x 77: tiles of 2 rows, chunks of 16 (4 full chunks and a tail of 13).
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 3x77 --row huge:0 --row allneginf:1 --seed 41 --name t_f32_3x77 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=2 softmax-cols-per-tile=16" | %run_cpu | FileCheck %s --check-prefix=F32_77
// F32_77: case t_f32_3x77: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 3x77 --row huge:2 --seed 42 --name t_f16_3x77 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=2 softmax-cols-per-tile=16" | %run_cpu | FileCheck %s --check-prefix=F16_77
// F16_77: case t_f16_3x77: relerr {{.*}} ok 1
// Whole rows per tile (no chunks): tx.softmax on each row tile.
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 3x77 --seed 43 --name t_f32_3x77_rows | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=2" | %run_cpu | FileCheck %s --check-prefix=ROWS
// ROWS: case t_f32_3x77_rows: relerr {{.*}} ok 1

// 5 x 1000: tiles of 2 rows, chunks of 128 (a tail of 104); the default
// rows-per-tile; bf16.
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 5x1000 --row huge:3 --row hugeneg:4 --seed 44 --name t_f32_5x1000 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=2 softmax-cols-per-tile=128" | %run_cpu | FileCheck %s --check-prefix=F32_1000
// F32_1000: case t_f32_5x1000: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 5x1000 --row allneginf:0 --seed 45 --name t_f16_5x1000 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-cols-per-tile=128" | %run_cpu | FileCheck %s --check-prefix=F16_1000
// F16_1000: case t_f16_5x1000: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype bf16 --shape 5x1000 --row neginf:2 --seed 46 --name t_bf16_5x1000 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=3 softmax-cols-per-tile=300" | %run_cpu | FileCheck %s --check-prefix=BF16_1000
// BF16_1000: case t_bf16_5x1000: relerr {{.*}} ok 1

// Dynamic shapes (chunks of a row whose length is only known at run time),
// rank 1 and rank 3, and softmax along a non-innermost dimension (the tiles
// then hold whole columns; chunks of 5 along dim 0).
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 3x77 --dynamic --row huge:1 --row allneginf:2 --seed 47 --name t_dyn_3x77 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=2 softmax-cols-per-tile=10" | %run_cpu | FileCheck %s --check-prefix=DYN
// DYN: case t_dyn_3x77: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 77 --seed 48 --name t_rank1 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-cols-per-tile=8" | %run_cpu | FileCheck %s --check-prefix=RANK1
// RANK1: case t_rank1: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 4x7x33 --row huge:5 --row neginf:9 --seed 49 --name t_rank3 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=3 softmax-cols-per-tile=8" | %run_cpu | FileCheck %s --check-prefix=RANK3
// RANK3: case t_rank3: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 33x6 --dim 0 --row allneginf:2 --seed 50 --name t_dim0 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=4 softmax-cols-per-tile=5" | %run_cpu | FileCheck %s --check-prefix=DIM0
// DIM0: case t_dim0: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 4x7x5 --dim 1 --dynamic --seed 51 --name t_dyn_dim1 | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=2 softmax-cols-per-tile=3" | %run_cpu | FileCheck %s --check-prefix=DYNDIM1
// DYNDIM1: case t_dyn_dim1: relerr {{.*}} ok 1

// The generator's self-check: a corrupted reference must make the same
// pipeline report failure (the test above can fail).
// RUN: %python %S/Inputs/numeric_case.py softmax --shape 3x77 --seed 41 --corrupt-ref scale --name t_corrupt | tx-opt --tx-cpu-pipeline="softmax=tiled softmax-rows-per-tile=2 softmax-cols-per-tile=16" | %run_cpu | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: case t_corrupt: relerr {{.*}} ok 0
