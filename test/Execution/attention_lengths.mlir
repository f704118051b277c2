// Per-sequence lengths (issue #19): `kv_lengths` / `q_lengths` (i32 [B]) make
// batch b's keys j >= Lk and query rows i >= Lq not exist; causal and window
// align bottom-right per sequence (off = Lk - Lq). Each case is checked in
// MLIR against a float64 reference computed independently by
// Inputs/numeric_case.py from random inputs (relative L2 error <= 1e-5 in
// f32, 2e-3 in f16, 1e-2 in bf16; rows with no visible key exactly 0; no
// NaN), on the reference lowering (tx-cpu-pipeline) and on the tiled
// FlashAttention-2 path (attention=tiled, with and without split-KV).

// Decode-like: lengths Sk, 0 (no key: zeros) and 4, causal.
// RUN: %python %S/Inputs/numeric_case.py attention --B 3 --H 2 --Sq 5 --Sk 9 --D 8 --kv-lengths 9,0,4 --causal --seed 2001 --name kl_causal | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=KLC
// RUN: %python %S/Inputs/numeric_case.py attention --B 3 --H 2 --Sq 5 --Sk 9 --D 8 --kv-lengths 9,0,4 --causal --seed 2001 --name kl_causal | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=2 attention-kv-tile=3" | %run_cpu | FileCheck %s --check-prefix=KLC
// RUN: %python %S/Inputs/numeric_case.py attention --B 3 --H 2 --Sq 5 --Sk 9 --D 8 --kv-lengths 9,0,4 --causal --seed 2001 --name kl_causal | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-splits=3 attention-kv-tile=2" | %run_cpu | FileCheck %s --check-prefix=KLC
// KLC: case kl_causal: relerr {{.*}} ok 1
// The same inputs without the lengths must fail the check (the case can fail).
// RUN: %python %S/Inputs/numeric_case.py attention --B 3 --H 2 --Sq 5 --Sk 9 --D 8 --kv-lengths 9,0,4 --causal --seed 2001 --name kl_causal | sed -e 's/ kv_lengths(%kl : tensor<3xi32>)//' | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=NOLEN
// NOLEN: case kl_causal: relerr {{.*}} ok 0

// Garbage (NaN, +-Inf) in the K/V rows past kv_lengths and the Q rows past
// q_lengths: hidden, never in a result. Lengths 1 and Sk, GQA.
// RUN: %python %S/Inputs/numeric_case.py attention --B 3 --H 4 --Hkv 2 --Sq 6 --Sk 9 --D 8 --kv-lengths 7,1,9 --q-lengths 6,0,3 --causal --garbage-padding --seed 2002 --name klql_garbage | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=GARB
// RUN: %python %S/Inputs/numeric_case.py attention --B 3 --H 4 --Hkv 2 --Sq 6 --Sk 9 --D 8 --kv-lengths 7,1,9 --q-lengths 6,0,3 --causal --garbage-padding --seed 2002 --name klql_garbage | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=2 attention-kv-tile=3" | %run_cpu | FileCheck %s --check-prefix=GARB
// RUN: %python %S/Inputs/numeric_case.py attention --B 3 --H 4 --Hkv 2 --Sq 6 --Sk 9 --D 8 --kv-lengths 7,1,9 --q-lengths 6,0,3 --causal --garbage-padding --seed 2002 --name klql_garbage | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-splits=2 attention-kv-tile=2" | %run_cpu | FileCheck %s --check-prefix=GARB
// GARB: case klql_garbage: relerr {{.*}} ok 1

// The log-sum-exp result: -inf for rows past q_lengths and for Lk = 0.
// RUN: %python %S/Inputs/numeric_case.py attention --B 3 --H 2 --Sq 6 --Sk 9 --D 8 --kv-lengths 7,0,9 --q-lengths 6,2,3 --causal --lse --seed 2003 --name klql_lse | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=LSE
// RUN: %python %S/Inputs/numeric_case.py attention --B 3 --H 2 --Sq 6 --Sk 9 --D 8 --kv-lengths 7,0,9 --q-lengths 6,2,3 --causal --lse --seed 2003 --name klql_lse | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=4 attention-kv-tile=2" | %run_cpu | FileCheck %s --check-prefix=LSE
// LSE: case klql_lse: relerr {{.*}} ok 1

// With a sliding window (window 0 too), an additive mask with -inf entries,
// softcap, f16 and bf16, and dynamic shapes.
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 7 --Sk 9 --D 8 --kv-lengths 8,5 --q-lengths 7,4 --window=2,1 --mask add --mask-neginf 0.2 --seed 2004 --name kl_win | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=WIN
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 7 --Sk 9 --D 8 --kv-lengths 8,5 --q-lengths 7,4 --window=2,1 --mask add --mask-neginf 0.2 --seed 2004 --name kl_win | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=2 attention-kv-tile=3" | %run_cpu | FileCheck %s --check-prefix=WIN
// WIN: case kl_win: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 5 --Sk 8 --D 8 --kv-lengths 6,8 --window=0,0 --seed 2005 --name kl_win0 | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=2" | %run_cpu | FileCheck %s --check-prefix=WIN0
// WIN0: case kl_win0: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dtype f16 --B 2 --H 2 --Sq 4 --Sk 16 --D 16 --kv-lengths 11,3 --softcap 2 --range=-20,20 --causal --seed 2006 --name kl_f16 | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=F16
// F16: case kl_f16: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dtype bf16 --B 2 --H 2 --Sq 8 --Sk 8 --D 16 --kv-lengths 8,5 --q-lengths 8,5 --causal --seed 2007 --name kl_bf16 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=BF16
// BF16: case kl_bf16: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 2 --H 2 --Sq 7 --Sk 9 --D 8 --kv-lengths 8,5 --q-lengths 7,4 --causal --mask keep --seed 2008 --name kl_dyn | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DYN
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 2 --H 2 --Sq 7 --Sk 9 --D 8 --kv-lengths 8,5 --q-lengths 7,4 --causal --mask keep --seed 2008 --name kl_dyn | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=2 attention-q-tile=3" | %run_cpu | FileCheck %s --check-prefix=DYN
// DYN: case kl_dyn: relerr {{.*}} ok 1

// A length outside [0, Sk] / [0, Sq] is a run-time error naming the operand
// (tx-check-attention-lengths; a library call returns it, mlir-runner
// aborts). `stdbuf -o0`: cf.assert's message goes through puts.
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 1 --Sq 3 --Sk 4 --D 8 --kv-lengths 4,5 --name bad_kl | tx-opt --tx-cpu-pipeline | not %run_cpu 2>&1 | FileCheck %s --check-prefix=BADKL
// BADKL: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: tx_case: tx.attention: kv_lengths has an entry outside [0, Sk]: 5 > Sk = 4
// BADKL-NOT: PLEASE submit
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 1 --Sq 3 --Sk 4 --D 8 --q-lengths 3,-1 --name bad_ql | tx-opt --tx-cpu-pipeline="attention=tiled" | not %run_cpu 2>&1 | FileCheck %s --check-prefix=BADQL
// BADQL: error: {{.*}}tx.attention: q_lengths has an entry outside [0, Sq]: -1 < 0
// BADQL-NOT: PLEASE submit
