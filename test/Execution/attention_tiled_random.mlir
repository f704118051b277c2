// The tiled (FlashAttention-2) path on the CPU: tx-cpu-pipeline with
// attention=tiled runs tx-tile-attention (scf.forall over query tiles, scf.for
// over key tiles, online softmax) and executes the result. Each case is
// checked in MLIR against a float64 reference computed independently by
// Inputs/numeric_case.py from random inputs (relative L2 error <= 1e-5 in
// f32, 2e-3 in f16, 1e-2 in bf16; rows with no visible key exactly 0; no NaN).
// Tiles are chosen so that partial tiles, causal tile skipping and the
// diagonal tiles all occur.

// Causal, Sq < Sk (bottom-right: query tiles see every key up to i + Sk - Sq),
// partial tiles on both axes; and with the default 64 x 64 tiles, Sk = 130.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 3 --Sq 5 --Sk 23 --D 16 --causal --seed 601 --name t_causal_lt | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=4 attention-kv-tile=3" | %run_cpu | FileCheck %s --check-prefix=CLT
// CLT: case t_causal_lt: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 50 --Sk 130 --D 16 --causal --seed 602 --name t_causal_lt_default | tx-opt --tx-cpu-pipeline="attention=tiled" | %run_cpu | FileCheck %s --check-prefix=CLTD
// CLTD: case t_causal_lt_default: relerr {{.*}} ok 1

// Causal, Sq > Sk: the first Sq - Sk rows see no key (exactly 0; whole query
// tiles skip every key tile).
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 1 --Sq 21 --Sk 6 --D 8 --causal --seed 603 --name t_causal_gt | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=4 attention-kv-tile=3" | %run_cpu | FileCheck %s --check-prefix=CGT
// CGT: case t_causal_gt: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 150 --Sk 70 --D 8 --causal --seed 604 --name t_causal_gt_default | tx-opt --tx-cpu-pipeline="attention=tiled" | %run_cpu | FileCheck %s --check-prefix=CGTD
// CGTD: case t_causal_gt_default: relerr {{.*}} ok 1

// Sq = Sk = 77 with the default q-tile 64 and kv-tile 64 (a 64 + 13 split on
// both axes), plain and causal.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 77 --Sk 77 --D 24 --seed 605 --name t_77 | tx-opt --tx-cpu-pipeline="attention=tiled" | %run_cpu | FileCheck %s --check-prefix=N77
// N77: case t_77: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 77 --Sk 77 --D 24 --causal --seed 606 --name t_77_causal | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=64 attention-kv-tile=64" | %run_cpu | FileCheck %s --check-prefix=N77C
// N77C: case t_77_causal: relerr {{.*}} ok 1

// GQA, H = 8, Hkv = 2 (query head h reads K/V head h / 4 in place), causal,
// and MQA with Dv != D.
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 8 --Hkv 2 --Sq 10 --Sk 14 --D 16 --causal --seed 607 --name t_gqa | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=3 attention-kv-tile=5" | %run_cpu | FileCheck %s --check-prefix=GQA
// GQA: case t_gqa: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 4 --Hkv 1 --Sq 9 --Sk 13 --D 8 --Dv 20 --seed 608 --name t_mqa_dv | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=4 attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=MQA
// MQA: case t_mqa_dv: relerr {{.*}} ok 1

// i1 keep-masks with fully masked rows (exactly 0), broadcast and full, and a
// row whose first two keys (one whole key tile) are masked (not zeroed).
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 8 --Sk 12 --D 8 --mask keep --masked-row 3 --first-keys-masked 5 --seed 609 --name t_keep_bcast | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=3 attention-kv-tile=2" | %run_cpu | FileCheck %s --check-prefix=KEEP
// KEEP: case t_keep_bcast: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 4 --Hkv 2 --Sq 8 --Sk 12 --D 8 --causal --mask keep --mask-bcast B,H --masked-row 0 --masked-row 7 --keep-prob 0.4 --seed 610 --name t_keep_full | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=4 attention-kv-tile=5" | %run_cpu | FileCheck %s --check-prefix=KEEPBH
// KEEPBH: case t_keep_full: relerr {{.*}} ok 1

// Additive masks (with -inf entries and an all -inf row), [1,H,..] and
// [B,1,..] broadcasts, GQA + causal.
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 3 --Sq 9 --Sk 11 --D 8 --mask add --mask-bcast B,H --mask-neginf 0.3 --masked-row 4 --seed 611 --name t_add_full | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=2 attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=ADD
// ADD: case t_add_full: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 4 --Hkv 2 --Sq 9 --Sk 11 --D 8 --causal --mask add --mask-bcast B,1 --mask-range=-6,6 --seed 612 --name t_add_gqa_causal | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=4 attention-kv-tile=3" | %run_cpu | FileCheck %s --check-prefix=ADDG
// ADDG: case t_add_gqa_causal: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 4 --Hkv 1 --Sq 9 --Sk 11 --D 8 --mask add --mask-bcast 1,H --seed 613 --name t_add_1h | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=5 attention-kv-tile=5" | %run_cpu | FileCheck %s --check-prefix=ADD1H
// ADD1H: case t_add_1h: relerr {{.*}} ok 1

// f16 and bf16 (products and the online softmax in f32, rounded once).
// RUN: %python %S/Inputs/numeric_case.py attention --dtype f16 --B 1 --H 4 --Hkv 2 --Sq 21 --Sk 13 --D 16 --causal --seed 614 --name t_f16_gqa_causal | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=8 attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=F16C
// F16C: case t_f16_gqa_causal: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dtype f16 --B 2 --H 2 --Sq 9 --Sk 17 --D 8 --Dv 12 --mask add --mask-bcast B,H --mask-neginf 0.2 --masked-row 2 --seed 615 --name t_f16_add | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=4 attention-kv-tile=6" | %run_cpu | FileCheck %s --check-prefix=F16A
// F16A: case t_f16_add: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dtype f16 --B 1 --H 1 --Sq 77 --Sk 77 --D 24 --mask keep --masked-row 40 --seed 616 --name t_f16_keep_77 | tx-opt --tx-cpu-pipeline="attention=tiled" | %run_cpu | FileCheck %s --check-prefix=F16K
// F16K: case t_f16_keep_77: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dtype bf16 --B 1 --H 4 --Hkv 1 --Sq 8 --Sk 30 --D 16 --causal --seed 617 --name t_bf16_mqa_causal | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=3 attention-kv-tile=7" | %run_cpu | FileCheck %s --check-prefix=BF16
// BF16: case t_bf16_mqa_causal: relerr {{.*}} ok 1

// Edge tiles: kv-tile 1 (one key per online-softmax step), q-tile 1 (one query
// row per tile), both.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 7 --Sk 19 --D 16 --causal --mask keep --masked-row 2 --seed 618 --name t_kv1 | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=1" | %run_cpu | FileCheck %s --check-prefix=KV1
// KV1: case t_kv1: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 19 --Sk 7 --D 16 --causal --seed 619 --name t_q1 | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=1" | %run_cpu | FileCheck %s --check-prefix=Q1
// Q1: case t_q1: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dtype f16 --B 2 --H 2 --Hkv 1 --Sq 6 --Sk 9 --D 8 --causal --mask add --mask-neginf 0.2 --seed 620 --name t_q1_kv1 | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=1 attention-kv-tile=1" | %run_cpu | FileCheck %s --check-prefix=Q1KV1
// Q1KV1: case t_q1_kv1: relerr {{.*}} ok 1

// Large scores (inputs in [-10, 10]): the running max must rescale correctly.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 1 --Sq 12 --Sk 31 --D 64 --range=-10,10 --seed 621 --name t_large_scores | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=5 attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=LARGE
// LARGE: case t_large_scores: relerr {{.*}} ok 1
