// The tiled backward (tx-tile-attention-grad: FlashAttention-2's Algorithm
// 2 as two foralls of tx.attention_dkdv / tx.attention_dq blocks, no
// atomics) on the CPU, through tx-cpu-pipeline="attention=tiled", checked
// in MLIR against dQ, dK, dV computed in float64 by Inputs/grad_case.py
// (as grad_attention.mlir checks the reference lowering). Tile sizes that
// do not divide Sq / Sk, tiles of 1, and tiles larger than the problem.
// Tolerances: relative L2 error <= 1e-5 in f32, 2e-3 in f16, 1e-2 in bf16;
// lanes whose reference is exactly 0 must be 0.

// DEFINE: %{tiled} = tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=3 attention-kv-tile=4"

// Causal with Sq < Sk and Sq > Sk (whole rows see no key), GQA 4/2, Dv != D.
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 2 --H 4 --Hkv 2 --Sq 5 --Sk 9 --D 8 --Dv 6 --causal --seed 31 --name t_causal_lt | %{tiled} | %run_cpu | FileCheck %s --check-prefix=CLT
// CLT-COUNT-3: case t_causal_lt/d{{q|k|v}}: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 1 --H 2 --Sq 9 --Sk 4 --D 8 --causal --seed 32 --name t_causal_gt | %{tiled} | %run_cpu | FileCheck %s --check-prefix=CGT
// CGT-COUNT-3: case t_causal_gt/d{{q|k|v}}: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 1 --H 2 --Sq 11 --Sk 11 --D 4 --causal --seed 45 --name t_causal_q1 | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=1 attention-kv-tile=1" | %run_cpu | FileCheck %s --check-prefix=CQ1
// CQ1-COUNT-3: case t_causal_q1/d{{q|k|v}}: relerr {{.*}} ok 1

// MQA 4/1 with an i1 keep-mask broadcast over B and H, fully masked rows,
// a scale; tiles larger than the problem.
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 2 --H 4 --Hkv 1 --Sq 6 --Sk 7 --D 4 --mask keep --mask-bcast B,H --masked-row 2 --scale 0.3 --seed 33 --name t_mqa_keep | tx-opt --tx-cpu-pipeline="attention=tiled" | %run_cpu | FileCheck %s --check-prefix=MQA
// MQA-COUNT-3: case t_mqa_keep/d{{q|k|v}}: relerr {{.*}} ok 1

// Additive masks with -inf entries (no mask gradient requested), broadcast
// over B; GQA 32/8.
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 2 --H 4 --Hkv 2 --Sq 5 --Sk 6 --D 4 --mask add --mask-bcast 1,H --mask-neginf 0.25 --masked-row 1 --causal --seed 35 --name t_add_1h | %{tiled} | %run_cpu | FileCheck %s --check-prefix=A1H
// A1H-COUNT-3: case t_add_1h/d{{q|k|v}}: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 1 --H 32 --Hkv 8 --Sq 7 --Sk 5 --D 4 --seed 46 --name t_gqa32 | %{tiled} | %run_cpu | FileCheck %s --check-prefix=G32
// G32-COUNT-3: case t_gqa32/d{{q|k|v}}: relerr {{.*}} ok 1

// Sliding windows (left and right; right-unbounded with causal) and softcap.
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 1 --H 4 --Hkv 2 --Sq 7 --Sk 9 --D 8 --window 2,1 --softcap 4 --range=-6,6 --seed 38 --name t_window_cap | %{tiled} | %run_cpu | FileCheck %s --check-prefix=WIN
// WIN-COUNT-3: case t_window_cap/d{{q|k|v}}: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 1 --H 2 --Sq 13 --Sk 13 --D 4 --window 1,-1 --causal --seed 39 --name t_window_causal | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=2 attention-kv-tile=3" | %run_cpu | FileCheck %s --check-prefix=WINC
// WINC-COUNT-3: case t_window_causal/d{{q|k|v}}: relerr {{.*}} ok 1

// Per-sequence lengths, including 0 and the full length, with NaN/Inf in
// the Q/K/V rows past them (never read into a gradient).
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 3 --H 4 --Hkv 2 --Sq 5 --Sk 8 --D 4 --causal --kv-lengths 8,0,3 --q-lengths 5,2,0 --garbage-padding --seed 40 --name t_lengths | %{tiled} | %run_cpu | FileCheck %s --check-prefix=LEN
// LEN-COUNT-3: case t_lengths/d{{q|k|v}}: relerr {{.*}} ok 1

// f16 and bf16 (f32 inside, rounded once).
// RUN: %python %S/Inputs/grad_case.py attention_grad --dtype f16 --B 1 --H 4 --Hkv 2 --Sq 9 --Sk 13 --D 16 --causal --seed 41 --name t_f16 | %{tiled} | %run_cpu | FileCheck %s --check-prefix=F16
// F16-COUNT-3: case t_f16/d{{q|k|v}}: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --dtype bf16 --B 2 --H 2 --Sq 6 --Sk 5 --D 8 --Dv 4 --mask add --mask-bcast B,H --seed 42 --name t_bf16 | %{tiled} | %run_cpu | FileCheck %s --check-prefix=BF16
// BF16-COUNT-3: case t_bf16/d{{q|k|v}}: relerr {{.*}} ok 1

// Dynamic shapes (H / Hkv and the default scale known only at run time),
// and dynamic with static heads and lengths.
// RUN: %python %S/Inputs/grad_case.py attention_grad --dynamic --B 2 --H 4 --Hkv 2 --Sq 5 --Sk 7 --D 4 --Dv 3 --causal --mask add --mask-bcast 1,H --seed 43 --name t_dyn | %{tiled} | %run_cpu | FileCheck %s --check-prefix=DYN
// DYN-COUNT-3: case t_dyn/d{{q|k|v}}: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --dynamic --static-heads --B 2 --H 2 --Hkv 1 --Sq 4 --Sk 6 --D 4 --kv-lengths 6,2 --seed 44 --name t_dyn_heads | %{tiled} | %run_cpu | FileCheck %s --check-prefix=DYNH
// DYNH-COUNT-3: case t_dyn_heads/d{{q|k|v}}: relerr {{.*}} ok 1

// Additive masks with their gradients (dS of the dQ blocks, summed over the
// broadcast dimensions): every broadcast, with -inf entries, causal,
// softcap (dS is taken before the cap's factor), bf16, dynamic shapes.
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 2 --H 2 --Sq 5 --Sk 6 --D 4 --mask add --mask-bcast B,H --mask-neginf 0.25 --masked-row 1 --grad-mask --seed 34 --name t_gm_bh | %{tiled} | %run_cpu | FileCheck %s --check-prefix=GBH
// GBH-COUNT-4: case t_gm_bh/d{{q|k|v|mask}}: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 2 --H 4 --Hkv 2 --Sq 7 --Sk 6 --D 4 --mask add --mask-bcast 1,H --grad-mask --causal --softcap 3 --seed 35 --name t_gm_1h | %{tiled} | %run_cpu | FileCheck %s --check-prefix=G1H
// G1H-COUNT-4: case t_gm_1h/d{{q|k|v|mask}}: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 2 --H 3 --Sq 4 --Sk 9 --D 4 --mask add --mask-bcast B,1 --grad-mask --window 2,1 --seed 36 --name t_gm_b1 | %{tiled} | %run_cpu | FileCheck %s --check-prefix=GB1
// GB1-COUNT-4: case t_gm_b1/d{{q|k|v|mask}}: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --dtype bf16 --B 2 --H 2 --Sq 6 --Sk 5 --D 8 --Dv 4 --mask add --mask-bcast 1,1 --mask-neginf 0.1 --grad-mask --seed 42 --name t_gm_11 | %{tiled} | %run_cpu | FileCheck %s --check-prefix=G11
// G11-COUNT-4: case t_gm_11/d{{q|k|v|mask}}: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/grad_case.py attention_grad --dynamic --B 2 --H 4 --Hkv 2 --Sq 5 --Sk 7 --D 4 --Dv 3 --causal --mask add --mask-bcast 1,H --grad-mask --kv-lengths 7,3 --seed 43 --name t_gm_dyn | %{tiled} | %run_cpu | FileCheck %s --check-prefix=GDYN
// GDYN-COUNT-4: case t_gm_dyn/d{{q|k|v|mask}}: relerr {{.*}} ok 1

// The check can fail: f32 gradients are not exact to 1e-12.
// RUN: %python %S/Inputs/grad_case.py attention_grad --B 1 --H 2 --Sq 5 --Sk 7 --D 4 --causal --tol 1e-12 --seed 31 --name t_tight | %{tiled} | %run_cpu | FileCheck %s --check-prefix=TIGHT
// TIGHT: case t_tight/dq: relerr {{.*}} ok 0
