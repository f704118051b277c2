// Sliding-window attention (issue #19): `window = [left, right]` makes query
// i see key j iff i + off - left <= j <= i + off + right (off = Sk - Sq,
// -1 = unbounded). Each case is checked in MLIR against a float64 reference
// computed independently by Inputs/numeric_case.py from random inputs
// (relative L2 error <= 1e-5 in f32, 2e-3 in f16, 1e-2 in bf16; rows with
// no visible key exactly 0; no NaN), on the reference lowering
// (tx-cpu-pipeline) and on the tiled FlashAttention-2 path (attention=tiled:
// key tiles outside the window are skipped; with and without split-KV).

// Mistral-style window (the key on the diagonal and the 3 before it), with
// tiles smaller and larger than the window. The same case without the
// window is checked to fail against the windowed reference.
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 3 --Sq 13 --Sk 13 --D 16 --window=3,0 --seed 1901 --name w_left | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=LEFT
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 3 --Sq 13 --Sk 13 --D 16 --window=3,0 --seed 1901 --name w_left | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=4 attention-kv-tile=2" | %run_cpu | FileCheck %s --check-prefix=LEFT
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 3 --Sq 13 --Sk 13 --D 16 --window=3,0 --seed 1901 --name w_left | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=5 attention-kv-tile=8" | %run_cpu | FileCheck %s --check-prefix=LEFT
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 3 --Sq 13 --Sk 13 --D 16 --window=3,0 --seed 1901 --name w_left | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-splits=3 attention-kv-tile=2" | %run_cpu | FileCheck %s --check-prefix=LEFT
// LEFT: case w_left: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 3 --Sq 13 --Sk 13 --D 16 --window=3,0 --seed 1901 --name w_left | sed -e 's/ window = \[3, 0\]//' | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=NOWINDOW
// NOWINDOW: case w_left: relerr {{.*}} ok 0

// Two-sided window (local attention), Sq < Sk (bottom-right alignment), GQA.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 4 --Hkv 2 --Sq 7 --Sk 19 --D 8 --window=2,3 --scale 0.7 --seed 1902 --name w_two | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=TWO
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 4 --Hkv 2 --Sq 7 --Sk 19 --D 8 --window=2,3 --scale 0.7 --seed 1902 --name w_two | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=3 attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=TWO
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 4 --Hkv 2 --Sq 7 --Sk 19 --D 8 --window=2,3 --scale 0.7 --seed 1902 --name w_two | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-splits=2 attention-kv-tile=3" | %run_cpu | FileCheck %s --check-prefix=TWO
// TWO: case w_two: relerr {{.*}} ok 1

// Window 0: each query sees only the key on its diagonal (output = that V
// row); Sq > Sk, so the first Sq - Sk rows see no key (zeros); with LSE.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 9 --Sk 5 --D 8 --window=0,0 --seed 1903 --name w_zero | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=ZERO
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 9 --Sk 5 --D 8 --window=0,0 --seed 1903 --name w_zero | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=2 attention-kv-tile=2" | %run_cpu | FileCheck %s --check-prefix=ZERO
// ZERO: case w_zero: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 9 --Sk 5 --D 8 --window=0,0 --lse --seed 1904 --name w_zero_lse | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=4 attention-kv-tile=2" | %run_cpu | FileCheck %s --check-prefix=ZLSE
// ZLSE: case w_zero_lse: relerr {{.*}} ok 1

// A window wider than Sk hides nothing; with causal the right side is 0.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 6 --Sk 10 --D 8 --window=100,100 --seed 1905 --name w_wide | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=3" | %run_cpu | FileCheck %s --check-prefix=WIDE
// WIDE: case w_wide: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 11 --Sk 11 --D 8 --window=4,-1 --causal --seed 1906 --name w_causal | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=CAUSAL
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 11 --Sk 11 --D 8 --window=4,-1 --causal --seed 1906 --name w_causal | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=3 attention-kv-tile=2" | %run_cpu | FileCheck %s --check-prefix=CAUSAL
// CAUSAL: case w_causal: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 11 --Sk 11 --D 8 --window=-1,2 --causal --seed 1907 --name w_causal_right | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=CRIGHT
// CRIGHT: case w_causal_right: relerr {{.*}} ok 1

// With masks (additive with -inf, i1 with a row that sees no key), softcap,
// f16 and bf16, and dynamic shapes.
// RUN: %python %S/Inputs/numeric_case.py attention --dtype f16 --B 1 --H 2 --Sq 10 --Sk 10 --D 16 --window=3,1 --softcap 2 --range=-2,2 --mask add --mask-range=-3,3 --mask-neginf 0.2 --seed 1908 --name w_add_f16 | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=ADD
// ADD: case w_add_f16: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 6 --Sk 10 --D 8 --window=2,2 --mask keep --masked-row 2 --seed 1909 --name w_keep | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=KEEP
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 6 --Sk 10 --D 8 --window=2,2 --mask keep --masked-row 2 --seed 1909 --name w_keep | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=3 attention-q-tile=2" | %run_cpu | FileCheck %s --check-prefix=KEEP
// KEEP: case w_keep: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dtype bf16 --B 1 --H 2 --Sq 12 --Sk 12 --D 16 --window=5,0 --seed 1910 --name w_bf16 | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=BF16
// BF16: case w_bf16: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 2 --H 2 --Sq 5 --Sk 9 --D 8 --window=1,1 --seed 1911 --name w_dyn | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DYN
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 2 --H 2 --Sq 5 --Sk 9 --D 8 --window=1,1 --seed 1911 --name w_dyn | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=2" | %run_cpu | FileCheck %s --check-prefix=DYN
// DYN: case w_dyn: relerr {{.*}} ok 1

// Huge window sides (2^62) do not overflow: everything is visible.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 6 --Sk 10 --D 8 --window=4611686018427387904,4611686018427387904 --seed 1912 --name w_huge | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=HUGE
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 6 --Sk 10 --D 8 --window=4611686018427387904,4611686018427387904 --seed 1912 --name w_huge | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=3 attention-kv-splits=2" | %run_cpu | FileCheck %s --check-prefix=HUGE
// HUGE: case w_huge: relerr {{.*}} ok 1
