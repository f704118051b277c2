// Split-KV on the tiled CPU path (issue #17): tx-tile-attention{kv-splits=N}
// splits the keys into N chunks (an scf.forall of partial states from the
// initial state) and merges them with the log-sum-exp rule, the algorithm
// of the GPU's decode kernels. Each case is checked in MLIR against a
// float64 reference computed independently by Inputs/numeric_case.py from
// random inputs (relative L2 error <= 1e-5 in f32, 2e-3 in f16; rows with no
// visible key exactly 0, their log-sum-exp -inf; no NaN).

// Decode shapes: one query row, GQA and MQA, Sk not a multiple of the chunk;
// static and dynamic.
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 8 --Hkv 2 --Sq 1 --Sk 37 --D 16 --seed 701 --name s_gqa | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=4 attention-kv-splits=4" | %run_cpu | FileCheck %s --check-prefix=GQA
// GQA: case s_gqa: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 3 --H 4 --Hkv 1 --Sq 1 --Sk 50 --D 8 --dynamic --seed 702 --name s_mqa_dyn | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=3 attention-kv-splits=7" | %run_cpu | FileCheck %s --check-prefix=MQA
// MQA: case s_mqa_dyn: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 1 --Sk 40 --D 16 --dtype f16 --seed 703 --name s_f16 | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-splits=3" | %run_cpu | FileCheck %s --check-prefix=F16
// F16: case s_f16: relerr {{.*}} ok 1

// More splits than keys: chunks of one key, the last ones empty.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 2 --Sk 3 --D 8 --seed 704 --name s_empty_chunks | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-splits=8" | %run_cpu | FileCheck %s --check-prefix=EMPTY
// EMPTY: case s_empty_chunks: relerr {{.*}} ok 1

// Causal with Sq > 1 (bottom-right: later chunks hidden from early rows) and
// Sq > Sk (rows that see no key are 0).
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 4 --Hkv 2 --Sq 4 --Sk 21 --D 8 --causal --seed 705 --name s_causal | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=2 attention-kv-tile=3 attention-kv-splits=5" | %run_cpu | FileCheck %s --check-prefix=CAUSAL
// CAUSAL: case s_causal: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 9 --Sk 5 --D 8 --causal --seed 706 --name s_causal_gt | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-splits=4" | %run_cpu | FileCheck %s --check-prefix=CGT
// CGT: case s_causal_gt: relerr {{.*}} ok 1

// Masks: a whole chunk hidden from a row (keys 0-1 = chunk 0 with 8 chunks
// of 2 keys), a row that sees no key (0), additive -inf entries.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 3 --Sk 16 --D 8 --mask keep --first-keys-masked 0 --masked-row 2 --seed 707 --name s_keep | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-splits=8" | %run_cpu | FileCheck %s --check-prefix=KEEP
// KEEP: case s_keep: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 3 --Sk 40 --D 8 --mask add --mask-neginf 0.6 --masked-row 1 --seed 708 --name s_add | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=3 attention-kv-splits=5" | %run_cpu | FileCheck %s --check-prefix=ADD
// ADD: case s_add: relerr {{.*}} ok 1

// The log-sum-exp of the merged state (what the merge itself combines).
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 2 --Sq 3 --Sk 50 --D 8 --dynamic --lse --causal --seed 709 --name s_lse | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=3 attention-kv-splits=7" | %run_cpu | FileCheck %s --check-prefix=LSE
// LSE: case s_lse: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 3 --Sk 16 --D 8 --lse --mask keep --masked-row 1 --seed 710 --name s_lse_masked | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-splits=4" | %run_cpu | FileCheck %s --check-prefix=LSEM
// LSEM: case s_lse_masked: relerr {{.*}} ok 1
