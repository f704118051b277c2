// The entry points tx-derive-gradients adds, run on the CPU
// (tx-cpu-pipeline): @main calls @tx_case__tx_fwd (the forward tx.attention
// with its LSE, as tx computes them), feeds O, the LSE and a random dO to
// @tx_case__tx_bwd, and checks the gradients it returns against float64
// (Inputs/grad_case.py --derived: TxGradOps.td's formulas with the float64
// forward's O and LSE; tolerances as grad_attention.mlir's). The additive
// mask gets its gradient as the fourth result; lengths and i1 masks none.

// GQA 4/2, causal with Sq < Sk, Dv != D, a broadcast additive mask with
// -inf entries: dQ, dK, dV, dMask.
// RUN: %python %S/Inputs/grad_case.py attention_grad --derived --B 2 --H 4 --Hkv 2 --Sq 5 --Sk 9 --D 8 --Dv 6 --causal --mask add --mask-bcast 1,H --mask-neginf 0.2 --seed 41 --name d_mask | tx-opt --tx-derive-gradients --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=MASK
// MASK-COUNT-4: case d_mask/d{{q|k|v|mask}}: relerr {{.*}} ok 1

// f16, dynamic sizes, window + per-sequence lengths (one of them 0) + softcap.
// RUN: %python %S/Inputs/grad_case.py attention_grad --derived --dtype f16 --dynamic --B 3 --H 2 --Sq 6 --Sk 8 --D 8 --window 2,1 --kv-lengths 8,0,5 --q-lengths 6,3,2 --softcap 3.0 --seed 42 --name d_dyn | tx-opt --tx-derive-gradients --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DYN
// DYN-COUNT-3: case d_dyn/d{{q|k|v}}: relerr {{.*}} ok 1

// bf16 MQA 4/1 with an i1 keep-mask (a fully masked row) and a scale.
// RUN: %python %S/Inputs/grad_case.py attention_grad --derived --dtype bf16 --B 2 --H 4 --Hkv 1 --Sq 7 --Sk 5 --D 4 --mask keep --mask-bcast B,H --masked-row 2 --scale 0.3 --causal --seed 43 --name d_keep | tx-opt --tx-derive-gradients --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=KEEP
// KEEP-COUNT-3: case d_keep/d{{q|k|v}}: relerr {{.*}} ok 1

// The check can fail: f32 gradients are not exact to 1e-12.
// RUN: %python %S/Inputs/grad_case.py attention_grad --derived --B 1 --H 2 --Sq 5 --Sk 7 --D 4 --causal --tol 1e-12 --seed 31 --name d_tight | tx-opt --tx-derive-gradients --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=TIGHT
// TIGHT: case d_tight/dq: relerr {{.*}} ok 0
