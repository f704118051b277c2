// Dynamically shaped tx.attention beyond A6, checked against a float64
// reference by Inputs/numeric_case.py. Exercises the run-time parts of the
// lowering: default scale from a dynamic D (rsqrt at run time), the causal
// offset Sk - Sq at run time, a run-time G = H / Hkv (fully dynamic heads) or a
// static one (--static-heads: H and Hkv static, everything else dynamic),
// masks (a dynamic mask keeps a static 1 where it broadcasts), f16 / bf16,
// Dv != D.

// Fully dynamic, GQA with run-time G.
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 2 --H 4 --Hkv 2 --Sq 19 --Sk 7 --D 12 --Dv 5 --causal --mask keep --mask-bcast B,H --masked-row 15 --seed 406 --name dyn_gqa_causal_keep | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=E
// E: case dyn_gqa_causal_keep: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --dtype f16 --B 2 --H 6 --Hkv 1 --Sq 6 --Sk 25 --D 16 --causal --mask add --mask-bcast 1,H --mask-neginf 0.2 --seed 407 --name dyn_f16_mqa_causal_add | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=F
// F: case dyn_f16_mqa_causal_add: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --dtype bf16 --B 3 --H 2 --Hkv 1 --Sq 5 --Sk 9 --D 8 --scale 0.7 --mask add --mask-bcast B,1 --seed 408 --name dyn_bf16_mqa_add | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=G
// G: case dyn_bf16_mqa_add: relerr {{.*}} ok 1

// Static heads, every other dimension dynamic.
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --static-heads --B 2 --H 1 --Sq 37 --Sk 37 --D 24 --seed 411 --name dynsh_2_1_37_37_24 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=SA
// SA: case dynsh_2_1_37_37_24: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --static-heads --B 1 --H 4 --Hkv 4 --Sq 1 --Sk 300 --D 64 --causal --seed 412 --name dynsh_decode_causal | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=SD
// SD: case dynsh_decode_causal: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --static-heads --B 2 --H 4 --Hkv 2 --Sq 19 --Sk 7 --D 12 --Dv 5 --causal --mask keep --mask-bcast B,H --masked-row 15 --seed 413 --name dynsh_gqa_causal_keep | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=SE
// SE: case dynsh_gqa_causal_keep: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --static-heads --dtype f16 --B 2 --H 2 --Sq 6 --Sk 25 --D 16 --causal --mask add --mask-bcast 1,1 --mask-neginf 0.2 --seed 414 --name dynsh_f16_causal_add | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=SF
// SF: case dynsh_f16_causal_add: relerr {{.*}} ok 1
