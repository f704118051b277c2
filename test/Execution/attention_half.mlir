// f16 / bf16 tx.attention (inputs exactly representable; products, softmax and
// accumulation in f32, rounded once), checked against a float64 reference:
// relative L2 error <= 2e-3 (f16) / 1e-2 (bf16), masked rows exactly 0.

// RUN: %python %S/Inputs/numeric_case.py attention --dtype f16 --B 2 --H 2 --Sq 16 --Sk 16 --D 32 --seed 301 --name attn_f16_plain | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=F16
// F16: case attn_f16_plain: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dtype f16 --B 1 --H 4 --Hkv 2 --Sq 21 --Sk 13 --D 16 --causal --seed 302 --name attn_f16_gqa_causal | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=F16C
// F16C: case attn_f16_gqa_causal: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dtype f16 --B 2 --H 2 --Sq 9 --Sk 17 --D 8 --Dv 12 --mask add --mask-bcast B,H --mask-neginf 0.2 --masked-row 2 --seed 303 --name attn_f16_addmask | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=F16ADD
// F16ADD: case attn_f16_addmask: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dtype f16 --B 1 --H 1 --Sq 77 --Sk 77 --D 24 --mask keep --masked-row 40 --seed 304 --name attn_f16_keep_77 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=F16KEEP
// F16KEEP: case attn_f16_keep_77: relerr {{.*}} ok 1

// RUN: %python %S/Inputs/numeric_case.py attention --dtype bf16 --B 2 --H 2 --Sq 16 --Sk 16 --D 32 --seed 311 --name attn_bf16_plain | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=BF16
// BF16: case attn_bf16_plain: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dtype bf16 --B 1 --H 4 --Hkv 1 --Sq 8 --Sk 30 --D 16 --causal --seed 312 --name attn_bf16_mqa_causal | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=BF16C
// BF16C: case attn_bf16_mqa_causal: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dtype bf16 --B 2 --H 2 --Sq 9 --Sk 17 --D 8 --mask add --mask-bcast 1,H --masked-row 0 --seed 313 --name attn_bf16_addmask | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=BF16ADD
// BF16ADD: case attn_bf16_addmask: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dtype bf16 --B 1 --H 2 --Sq 12 --Sk 12 --D 8 --Dv 4 --mask keep --mask-bcast B,H --masked-row 11 --seed 314 --name attn_bf16_keep | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=BF16KEEP
// BF16KEEP: case attn_bf16_keep: relerr {{.*}} ok 1
