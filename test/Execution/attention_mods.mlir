// Score and mask functions (tx.attention's score_mod / mask_mod regions,
// issue #42) on the CPU: random inputs, checked in MLIR against a float64
// reference that applies the same function (Inputs/attention_mods.py,
// Inputs/numeric_case.py), on the reference lowering and through
// tx-cpu-pipeline's tiled path (tx.online_attention carries the regions
// with the tile's offsets: query tiles, key tiles and split-KV chunks).

// ALiBi (per-head slopes, a captured f32 tensor), GQA 8/2 (the grouped
// layout: h = k * G + g), causal with Sq < Sk.
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 8 --Hkv 2 --Sq 9 --Sk 21 --D 16 --causal --mod alibi --seed 4201 --name alibi | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=ALIBI
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 8 --Hkv 2 --Sq 9 --Sk 21 --D 16 --causal --mod alibi --seed 4201 --name alibi | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=4 attention-kv-tile=8" | %run_cpu | FileCheck %s --check-prefix=ALIBI
// ALIBI: case alibi: relerr {{.*}} ok 1
// The same case against a reference without the region must fail.
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 8 --Hkv 2 --Sq 9 --Sk 21 --D 16 --causal --mod alibi --seed 4201 --name alibi --mod-drop-from-ref | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DROP
// DROP: case alibi: relerr {{.*}} ok 0

// Dynamic shapes (the flat layout: h read directly), f16, GQA 4/1.
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 4 --Hkv 1 --Sq 13 --Sk 13 --D 8 --dtype f16 --dynamic --mod alibi --seed 4202 --name alibi_dyn | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=ADYN
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 4 --Hkv 1 --Sq 13 --Sk 13 --D 8 --dtype f16 --dynamic --mod alibi --seed 4202 --name alibi_dyn | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=3 attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=ADYN
// ADYN: case alibi_dyn: relerr {{.*}} ok 1

// A learned relative-position bias table (f16, captured), bf16 inputs,
// per-sequence kv_lengths (0 included) and an additive mask.
// RUN: %python %S/Inputs/numeric_case.py attention --B 3 --H 2 --Sq 7 --Sk 17 --D 8 --dtype bf16 --kv-lengths 17,0,9 --mask add --mod relbias --seed 4203 --name relbias | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=REL
// RUN: %python %S/Inputs/numeric_case.py attention --B 3 --H 2 --Sq 7 --Sk 17 --D 8 --dtype bf16 --kv-lengths 17,0,9 --mask add --mod relbias --seed 4203 --name relbias | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=2 attention-kv-tile=5" | %run_cpu | FileCheck %s --check-prefix=REL
// REL: case relbias: relerr {{.*}} ok 1

// Document masking of packed sequences (captured i32 document ids), causal,
// the LSE result (rows of a one-token document see only themselves).
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 3 --Sq 31 --Sk 31 --D 16 --causal --mod document --lse --seed 4204 --name document | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=DOC
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 3 --Sq 31 --Sk 31 --D 16 --causal --mod document --lse --seed 4204 --name document | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=8 attention-kv-tile=8" | %run_cpu | FileCheck %s --check-prefix=DOC
// DOC: case document: relerr {{.*}} ok 1

// Prefix-LM: the first 6 keys visible to every query, causal after them.
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 12 --Sk 20 --D 8 --mod prefix --mod-arg 6 --seed 4205 --name prefix | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=PRE
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 12 --Sk 20 --D 8 --mod prefix --mod-arg 6 --seed 4205 --name prefix | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=5 attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=PRE
// PRE: case prefix: relerr {{.*}} ok 1

// causal, window and softcap written as regions: the reference is the
// attribute's (numeric_case.py with causal / window / softcap set), so each
// case shows the region gives the attribute's result.
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 11 --Sk 19 --D 8 --mod causal --seed 4206 --name causal_region | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=CAUSAL
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 11 --Sk 19 --D 8 --mod causal --seed 4206 --name causal_region | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=4 attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=CAUSAL
// CAUSAL: case causal_region: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 20 --Sk 30 --D 8 --mod window --mod-window 3,1 --seed 4207 --name window_region | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=WIN
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 20 --Sk 30 --D 8 --mod window --mod-window 3,1 --seed 4207 --name window_region | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=8 attention-kv-tile=3" | %run_cpu | FileCheck %s --check-prefix=WIN
// WIN: case window_region: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 9 --Sk 9 --D 16 --range=-4,4 --mod softcap --mod-arg 5 --seed 4208 --name softcap_region | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=CAP
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 9 --Sk 9 --D 16 --range=-4,4 --mod softcap --mod-arg 5 --seed 4208 --name softcap_region | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=4 attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=CAP
// CAP: case softcap_region: relerr {{.*}} ok 1

// A paged KV cache: the region sees the logical key indices after
// tx-gather-kv-pages (page size 4, shuffled pages, lengths 16 and 5).
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 4 --Hkv 2 --Sq 3 --Sk 16 --D 8 --page-size 4 --kv-lengths 16,5 --causal --mod alibi --seed 4209 --name paged_alibi | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=PAGED
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 4 --Hkv 2 --Sq 3 --Sk 16 --D 8 --page-size 4 --kv-lengths 16,5 --causal --mod alibi --seed 4209 --name paged_alibi | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=2 attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=PAGED
// PAGED: case paged_alibi: relerr {{.*}} ok 1

// Split-KV chunks (attention-kv-splits): each chunk's key offset reaches
// the region. Decode-like Sq = 1 with ALiBi under GQA, and a document mask
// whose documents cross the chunks.
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 8 --Hkv 2 --Sq 1 --Sk 37 --D 16 --mod alibi --seed 4210 --name split_alibi | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=4 attention-kv-splits=4" | %run_cpu | FileCheck %s --check-prefix=SPLIT
// SPLIT: case split_alibi: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 29 --Sk 29 --D 8 --mod document --lse --seed 4211 --name split_doc | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=2 attention-kv-tile=3 attention-kv-splits=5" | %run_cpu | FileCheck %s --check-prefix=SPLITDOC
// SPLITDOC: case split_doc: relerr {{.*}} ok 1
// The tiled path against a reference without the region must fail too.
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 8 --Hkv 2 --Sq 9 --Sk 21 --D 16 --causal --mod alibi --seed 4201 --name alibi --mod-drop-from-ref | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=4 attention-kv-tile=8" | %run_cpu | FileCheck %s --check-prefix=DROP

// The math ops upstream does not lower on every target (math.clampf,
// math.ipowi, math.isinf, math.erf, math.cbrt, arith.remf: tx-expand-math,
// convert-math-to-funcs, convert-math-to-libm; tx-gpu-libdevice-calls on
// the GPU), in one score function (Inputs/attention_mods.py, "mathops").
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 10 --Sk 14 --D 8 --range=-3,3 --mod mathops --seed 4212 --name mathops | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=MATH
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 10 --Sk 14 --D 8 --range=-3,3 --mod mathops --seed 4212 --name mathops | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=4 attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=MATH
// MATH: case mathops: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 10 --Sk 14 --D 8 --range=-3,3 --mod mathops --seed 4212 --name mathops --mod-drop-from-ref | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=MATHDROP
// MATHDROP: case mathops: relerr {{.*}} ok 0
