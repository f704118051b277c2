// The tiled path on dynamically shaped tx.attention (CASES.md A6 shapes and
// more), checked against the float64 reference of Inputs/numeric_case.py:
// fully dynamic (run-time rsqrt(D) scale, run-time G = H / Hkv, run-time
// causal offset Sk - Sq) and with static heads and D.

// A6: (B, H, Sq, Sk, D) = (2, 1, 37, 37, 24), (1, 1, 1, 1, 1), (3, 2, 130, 130, 64),
// decode (1, 4, 1, 300, 64) plain and causal.
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 2 --H 1 --Sq 37 --Sk 37 --D 24 --seed 701 --name td_a6_1 | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=16 attention-kv-tile=16" | %run_cpu | FileCheck %s --check-prefix=A
// A: case td_a6_1: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 1 --H 1 --Sq 1 --Sk 1 --D 1 --seed 702 --name td_a6_2 | tx-opt --tx-cpu-pipeline="attention=tiled" | %run_cpu | FileCheck %s --check-prefix=B
// B: case td_a6_2: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 3 --H 2 --Sq 130 --Sk 130 --D 64 --seed 703 --name td_a6_3 | tx-opt --tx-cpu-pipeline="attention=tiled" | %run_cpu | FileCheck %s --check-prefix=C
// C: case td_a6_3: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 1 --H 4 --Hkv 4 --Sq 1 --Sk 300 --D 64 --seed 704 --name td_decode | tx-opt --tx-cpu-pipeline="attention=tiled" | %run_cpu | FileCheck %s --check-prefix=D
// D: case td_decode: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 1 --H 4 --Hkv 4 --Sq 1 --Sk 300 --D 64 --causal --seed 705 --name td_decode_causal | tx-opt --tx-cpu-pipeline="attention=tiled" | %run_cpu | FileCheck %s --check-prefix=DC
// DC: case td_decode_causal: relerr {{.*}} ok 1

// Fully dynamic GQA + causal + keep-mask, f16 MQA + additive mask.
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 2 --H 4 --Hkv 2 --Sq 19 --Sk 7 --D 12 --Dv 5 --causal --mask keep --mask-bcast B,H --masked-row 15 --seed 706 --name td_gqa_causal_keep | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=5 attention-kv-tile=3" | %run_cpu | FileCheck %s --check-prefix=E
// E: case td_gqa_causal_keep: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --dtype f16 --B 2 --H 6 --Hkv 1 --Sq 6 --Sk 25 --D 16 --causal --mask add --mask-bcast 1,H --mask-neginf 0.2 --seed 707 --name td_f16_mqa_causal_add | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=4 attention-kv-tile=8" | %run_cpu | FileCheck %s --check-prefix=F
// F: case td_f16_mqa_causal_add: relerr {{.*}} ok 1

// Static heads and D, dynamic B / Sq / Sk (with a static D the default scale is
// an attribute, Q is not pre-scaled).
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --static-heads --B 2 --H 8 --Hkv 2 --Sq 19 --Sk 23 --D 16 --causal --seed 708 --name tdsh_gqa_causal | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=4 attention-kv-tile=5" | %run_cpu | FileCheck %s --check-prefix=SG
// SG: case tdsh_gqa_causal: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --static-heads --dtype bf16 --B 3 --H 2 --Hkv 1 --Sq 5 --Sk 9 --D 8 --scale 0.7 --mask add --mask-bcast B,1 --seed 709 --name tdsh_bf16_add | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=2 attention-kv-tile=2" | %run_cpu | FileCheck %s --check-prefix=SB
// SB: case tdsh_bf16_add: relerr {{.*}} ok 1
