// tx.attention_grad on the CPU (tx-cpu-pipeline: the reference lowering),
// checked in MLIR against dQ, dK, dV (and an additive mask's gradient)
// computed in float64 by Inputs/grad_case.py (TxGradOps.td's formulas, with
// the forward's O and LSE, also computed in float64, as the op's operands,
// and a random dO). Tolerances as numeric_case.py's: relative L2 error
// <= 1e-5 in f32, 2e-3 in f16, 1e-2 in bf16; lanes whose reference is
// exactly 0 (keys hidden from every row, rows past q_lengths) must be 0.

// The formulas themselves against central differences of the float64
// forward (L = sum(O * dO)), at every entry of Q, K, V and the additive mask:
// GQA + causal + softcap + a broadcast additive mask with -inf entries;
// window + per-sequence lengths; MQA with an i1 mask and a scale.
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 1 --H 2 --Hkv 1 --Sq 3 --Sk 4 --D 3 --Dv 2 --causal --mask add --mask-bcast 1,H --mask-neginf 0.2 --softcap 2.5 --fd-check --seed 3 --name fd1 | FileCheck %s --check-prefix=FD1
// FD1: fd-check fd1: maxerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 2 --H 2 --Sq 3 --Sk 5 --D 2 --window 1,1 --kv-lengths 4,2 --q-lengths 3,1 --fd-check --seed 4 --name fd2 | FileCheck %s --check-prefix=FD2
// FD2: fd-check fd2: maxerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 1 --H 3 --Hkv 1 --Sq 4 --Sk 3 --D 3 --mask keep --scale 0.7 --fd-check --seed 5 --name fd3 | FileCheck %s --check-prefix=FD3
// FD3: fd-check fd3: maxerr {{.*}} ok 1

// Causal with Sq < Sk and Sq > Sk (whole rows see no key), GQA 4/2, Dv != D.
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 2 --H 4 --Hkv 2 --Sq 5 --Sk 9 --D 8 --Dv 6 --causal --seed 31 --name g_causal_lt | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=CLT
// CLT-COUNT-3: case g_causal_lt/d{{q|k|v}}: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 1 --H 2 --Sq 9 --Sk 4 --D 8 --causal --seed 32 --name g_causal_gt | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=CGT
// CGT-COUNT-3: case g_causal_gt/d{{q|k|v}}: relerr {{.*}} ok 1

// MQA 4/1 with an i1 keep-mask, fully masked rows and a scale.
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 2 --H 4 --Hkv 1 --Sq 6 --Sk 7 --D 4 --mask keep --mask-bcast B,H --masked-row 2 --scale 0.3 --seed 33 --name g_mqa_keep | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=MQA
// MQA-COUNT-3: case g_mqa_keep/d{{q|k|v}}: relerr {{.*}} ok 1

// Additive masks with -inf entries and their gradients, every broadcast.
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 2 --H 2 --Sq 5 --Sk 6 --D 4 --mask add --mask-bcast B,H --mask-neginf 0.25 --masked-row 1 --grad-mask --seed 34 --name g_add_bh | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=ABH
// ABH-COUNT-4: case g_add_bh/d{{q|k|v|mask}}: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 2 --H 4 --Hkv 2 --Sq 5 --Sk 6 --D 4 --mask add --mask-bcast 1,H --grad-mask --causal --seed 35 --name g_add_1h | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=A1H
// A1H-COUNT-4: case g_add_1h/d{{q|k|v|mask}}: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 2 --H 3 --Sq 4 --Sk 6 --D 4 --mask add --mask-bcast B,1 --grad-mask --seed 36 --name g_add_b1 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=AB1
// AB1-COUNT-4: case g_add_b1/d{{q|k|v|mask}}: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 2 --H 2 --Sq 4 --Sk 6 --D 4 --mask add --mask-bcast 1,1 --mask-neginf 0.1 --grad-mask --seed 37 --name g_add_11 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=A11
// A11-COUNT-4: case g_add_11/d{{q|k|v|mask}}: relerr {{.*}} ok 1

// Sliding window (left and right, and right-unbounded) and softcap.
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 1 --H 4 --Hkv 2 --Sq 7 --Sk 9 --D 8 --window 2,1 --softcap 4 --range=-6,6 --seed 38 --name g_window_cap | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=WIN
// WIN-COUNT-3: case g_window_cap/d{{q|k|v}}: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 1 --H 2 --Sq 6 --Sk 6 --D 4 --window 1,-1 --causal --seed 39 --name g_window_causal | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=WINC
// WINC-COUNT-3: case g_window_causal/d{{q|k|v}}: relerr {{.*}} ok 1

// Per-sequence lengths, including 0 and the full length, with NaN/Inf in
// the Q/K/V rows past them (never read into a gradient).
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 3 --H 4 --Hkv 2 --Sq 5 --Sk 8 --D 4 --causal --kv-lengths 8,0,3 --q-lengths 5,2,0 --garbage-padding --seed 40 --name g_lengths | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=LEN
// LEN-COUNT-3: case g_lengths/d{{q|k|v}}: relerr {{.*}} ok 1

// f16 and bf16 (f32 inside, rounded once).
// RUN: %python %S/Inputs/grad_case.py attention_grad --dtype f16 --B 1 --H 4 --Hkv 2 --Sq 9 --Sk 13 --D 16 --causal --seed 41 --name g_f16 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=F16
// F16-COUNT-3: case g_f16/d{{q|k|v}}: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --dtype bf16 --B 2 --H 2 --Sq 6 --Sk 5 --D 8 --Dv 4 --mask add --mask-bcast B,H --grad-mask --seed 42 --name g_bf16 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=BF16
// BF16-COUNT-4: case g_bf16/d{{q|k|v|mask}}: relerr {{.*}} ok 1

// Dynamic shapes (H / Hkv known only at run time) and dynamic with static
// heads; an additive mask whose batch dim broadcasts.
// RUN: %python %S/Inputs/grad_case.py attention_grad --dynamic --B 2 --H 4 --Hkv 2 --Sq 5 --Sk 7 --D 4 --Dv 3 --causal --mask add --mask-bcast 1,H --grad-mask --seed 43 --name g_dyn | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DYN
// DYN-COUNT-4: case g_dyn/d{{q|k|v|mask}}: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --dynamic --static-heads --B 2 --H 2 --Hkv 1 --Sq 4 --Sk 6 --D 4 --kv-lengths 6,2 --seed 44 --name g_dyn_heads | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DYNH
// DYNH-COUNT-3: case g_dyn_heads/d{{q|k|v}}: relerr {{.*}} ok 1

// The check can fail: f32 gradients are not exact to 1e-12.
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 1 --H 2 --Sq 5 --Sk 7 --D 4 --causal --tol 1e-12 --seed 31 --name g_tight | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=TIGHT
// TIGHT: case g_tight/dq: relerr {{.*}} ok 0
