// Logit soft-capping (issue #19): `softcap = c` turns each score into
// c * tanh(s / c) after the scale and before masks (Gemma 2). Each case is
// checked in MLIR against a float64 reference computed independently by
// Inputs/numeric_case.py from random inputs (relative L2 error <= 1e-5 in
// f32, 2e-3 in f16, 1e-2 in bf16; rows with no visible key exactly 0; no
// NaN), on the reference lowering (tx-cpu-pipeline) and on the tiled
// FlashAttention-2 path (attention=tiled, with and without split-KV).

// Scores up to about +-20 capped at 5 (the cap changes the answer: the same
// case without softcap is checked to fail against the capped reference).
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 3 --Sq 9 --Sk 13 --D 16 --softcap 5 --range=-2.5,2.5 --seed 901 --name sc_f32 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=F32
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 3 --Sq 9 --Sk 13 --D 16 --softcap 5 --range=-2.5,2.5 --seed 901 --name sc_f32 | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=4 attention-kv-tile=5" | %run_cpu | FileCheck %s --check-prefix=F32
// F32: case sc_f32: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 3 --Sq 9 --Sk 13 --D 16 --softcap 5 --range=-2.5,2.5 --seed 901 --name sc_f32 | sed -e 's/ softcap = [0-9.e+]*//' | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=UNCAPPED
// UNCAPPED: case sc_f32: relerr {{.*}} ok 0

// Causal GQA with an explicit scale, partial tiles, and split-KV on the
// tiled path.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 4 --Hkv 2 --Sq 7 --Sk 19 --D 8 --causal --scale 0.7 --softcap 3 --range=-2,2 --seed 902 --name sc_gqa_causal | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=GQA
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 4 --Hkv 2 --Sq 7 --Sk 19 --D 8 --causal --scale 0.7 --softcap 3 --range=-2,2 --seed 902 --name sc_gqa_causal | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=3 attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=GQA
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 4 --Hkv 2 --Sq 7 --Sk 19 --D 8 --causal --scale 0.7 --softcap 3 --range=-2,2 --seed 902 --name sc_gqa_causal | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-splits=3 attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=GQA
// GQA: case sc_gqa_causal: relerr {{.*}} ok 1

// Huge logits (|s| up to about 1e5): capped to (-c, c), the answer stays
// finite and exact; f32 and bf16.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 5 --Sk 11 --D 16 --softcap 30 --range=-150,150 --seed 903 --name sc_huge | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=HUGE
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 5 --Sk 11 --D 16 --softcap 30 --range=-150,150 --seed 903 --name sc_huge | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=HUGE
// HUGE: case sc_huge: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dtype bf16 --B 1 --H 2 --Sq 5 --Sk 11 --D 16 --softcap 30 --range=-150,150 --seed 904 --name sc_huge_bf16 | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=HUGEBF
// HUGEBF: case sc_huge_bf16: relerr {{.*}} ok 1

// Masks apply after the cap: an additive f16 mask (some -inf) and an i1
// keep-mask with a row that sees no key (zeros), tiled.
// RUN: %python %S/Inputs/numeric_case.py attention --dtype f16 --B 1 --H 2 --Sq 6 --Sk 10 --D 16 --softcap 2 --range=-2,2 --mask add --mask-range=-3,3 --mask-neginf 0.2 --seed 905 --name sc_add_f16 | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=ADD
// ADD: case sc_add_f16: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 6 --Sk 10 --D 8 --softcap 1.5 --range=-2,2 --mask keep --masked-row 2 --seed 906 --name sc_keep | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=KEEP
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 6 --Sk 10 --D 8 --softcap 1.5 --range=-2,2 --mask keep --masked-row 2 --seed 906 --name sc_keep | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=3 attention-q-tile=2" | %run_cpu | FileCheck %s --check-prefix=KEEP
// KEEP: case sc_keep: relerr {{.*}} ok 1

// The log-sum-exp result is that of the capped scores.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Hkv 1 --Sq 4 --Sk 9 --D 8 --causal --lse --softcap 4 --range=-3,3 --seed 907 --name sc_lse | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=LSE
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Hkv 1 --Sq 4 --Sk 9 --D 8 --causal --lse --softcap 4 --range=-3,3 --seed 907 --name sc_lse | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=2 attention-kv-splits=2" | %run_cpu | FileCheck %s --check-prefix=LSE
// LSE: case sc_lse: relerr {{.*}} ok 1

// Dynamic shapes (D dynamic: the default scale is computed at run time).
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 2 --H 2 --Sq 5 --Sk 7 --D 8 --softcap 2 --range=-3,3 --seed 908 --name sc_dyn | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DYN
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 2 --H 2 --Sq 5 --Sk 7 --D 8 --softcap 2 --range=-3,3 --seed 908 --name sc_dyn | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=3" | %run_cpu | FileCheck %s --check-prefix=DYN
// DYN: case sc_dyn: relerr {{.*}} ok 1
