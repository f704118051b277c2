// Paged KV cache (issue #43): tx.attention with K/V page pools
// [num_pages, page_size, Hkv, D] read through a page table [B, max_pages].
// Each case draws contiguous K/V, scatters every live page of every
// sequence to a shuffled pool page (Inputs/paged_kv.py), fills the unused
// pool pages with NaN/Inf and the table entries past each sequence's length
// with -1, out-of-range or stale ids, and checks in MLIR against the float64
// reference of the contiguous attention (Inputs/numeric_case.py): on the
// reference lowering and on the tiled FlashAttention-2 path (with and
// without split-KV), both after tx-gather-kv-pages.

// Page size 2, GQA 4/2, causal, lengths 8 (all pages), 0, 4 (exactly a page
// boundary) and 5; one prefix page shared by every sequence.
// RUN: %python %S/Inputs/numeric_case.py attention --B 4 --H 4 --Hkv 2 --Sq 3 --Sk 8 --D 8 --page-size 2 --kv-lengths 8,0,4,5 --shared-prefix 1 --causal --seed 4301 --name p2 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=P2
// RUN: %python %S/Inputs/numeric_case.py attention --B 4 --H 4 --Hkv 2 --Sq 3 --Sk 8 --D 8 --page-size 2 --kv-lengths 8,0,4,5 --shared-prefix 1 --causal --seed 4301 --name p2 | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=2 attention-kv-tile=3" | %run_cpu | FileCheck %s --check-prefix=P2
// RUN: %python %S/Inputs/numeric_case.py attention --B 4 --H 4 --Hkv 2 --Sq 3 --Sk 8 --D 8 --page-size 2 --kv-lengths 8,0,4,5 --shared-prefix 1 --causal --seed 4301 --name p2 | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-splits=2 attention-kv-tile=2" | %run_cpu | FileCheck %s --check-prefix=P2
// P2: case p2: relerr {{.*}} ok 1
// The same case with sequence 0's first and last page ids swapped must fail
// (the table is what the result follows; under causal, key order matters).
// RUN: %python %S/Inputs/numeric_case.py attention --B 4 --H 4 --Hkv 2 --Sq 3 --Sk 8 --D 8 --page-size 2 --kv-lengths 8,0,4,5 --shared-prefix 1 --causal --seed 4301 --name p2 --corrupt-table swap | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=SWAP
// SWAP: case p2: relerr {{.*}} ok 0

// Page size 1 (token-granular), MQA 4/1, no lengths (every page live).
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 4 --Hkv 1 --Sq 2 --Sk 7 --D 8 --page-size 1 --seed 4302 --name p1 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=P1
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 4 --Hkv 1 --Sq 2 --Sk 7 --D 8 --page-size 1 --seed 4302 --name p1 | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=3" | %run_cpu | FileCheck %s --check-prefix=P1
// P1: case p1: relerr {{.*}} ok 1

// Page size 4, a chunk of new queries over a cached prefix (q_lengths and
// kv_lengths, causal bottom-right per sequence), a window, and the LSE.
// RUN: %python %S/Inputs/numeric_case.py attention --B 3 --H 2 --Sq 4 --Sk 12 --D 8 --page-size 4 --kv-lengths 12,6,9 --q-lengths 4,2,0 --window=5,0 --lse --seed 4303 --name p4_lse | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=P4
// RUN: %python %S/Inputs/numeric_case.py attention --B 3 --H 2 --Sq 4 --Sk 12 --D 8 --page-size 4 --kv-lengths 12,6,9 --q-lengths 4,2,0 --window=5,0 --lse --seed 4303 --name p4_lse | tx-opt --tx-cpu-pipeline="attention=tiled attention-q-tile=2 attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=P4
// P4: case p4_lse: relerr {{.*}} ok 1

// f16 with every dimension dynamic (the page size too), softcap, and NaN/Inf
// in the K/V rows past the lengths inside a sequence's last page.
// RUN: %python %S/Inputs/numeric_case.py attention --dtype f16 --dynamic --B 2 --H 2 --Hkv 1 --Sq 3 --Sk 16 --D 16 --page-size 8 --kv-lengths 13,3 --garbage-padding --softcap 5 --causal --seed 4304 --name p8_f16 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=F16
// RUN: %python %S/Inputs/numeric_case.py attention --dtype f16 --dynamic --B 2 --H 2 --Hkv 1 --Sq 3 --Sk 16 --D 16 --page-size 8 --kv-lengths 13,3 --garbage-padding --softcap 5 --causal --seed 4304 --name p8_f16 | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=4" | %run_cpu | FileCheck %s --check-prefix=F16
// F16: case p8_f16: relerr {{.*}} ok 1

// bf16 with an additive mask over the max_pages * page_size keys and Dv != D.
// RUN: %python %S/Inputs/numeric_case.py attention --dtype bf16 --B 2 --H 2 --Sq 5 --Sk 8 --D 16 --Dv 8 --page-size 4 --kv-lengths 7,8 --mask add --mask-bcast B,1 --mask-neginf 0.1 --seed 4305 --name p4_bf16 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=BF16
// BF16: case p4_bf16: relerr {{.*}} ok 1

// A live key's page id outside [0, num_pages) is a run-time error naming the
// operand (tx-check-attention-lengths).
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 1 --Sq 2 --Sk 4 --D 8 --page-size 2 --kv-lengths 3,4 --corrupt-table out-of-range --name bad_page | tx-opt --tx-cpu-pipeline | not %run_cpu 2>&1 | FileCheck %s --check-prefix=BADPAGE
// BADPAGE: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: tx_case: tx.attention: page_table has an entry outside [0, num_pages) for a live key: [[N:[0-9]+]] >= num_pages = [[N]]
// BADPAGE-NOT: PLEASE submit
// kv_lengths is bounded by max_pages * page_size.
// RUN: %python %S/Inputs/numeric_case.py attention --B 2 --H 1 --Sq 2 --Sk 4 --D 8 --page-size 2 --kv-lengths 4,4 --name bad_len | sed -e 's/dense<\[4, 4\]> : tensor<2xi32>/dense<[4, 5]> : tensor<2xi32>/' | tx-opt --tx-cpu-pipeline | not %run_cpu 2>&1 | FileCheck %s --check-prefix=BADLEN
// BADLEN: error: tx_case: tx.attention: kv_lengths has an entry outside [0, Sk]: 5 > Sk = 4
// A dynamic page size that is not a power of two is a run-time error too
// (a static one is a verifier error, test/Dialect/paged-invalid.mlir).
// RUN: %python %S/Inputs/numeric_case.py attention --dynamic --B 2 --H 1 --Sq 2 --Sk 6 --D 8 --page-size 3 --kv-lengths 5,6 --name bad_ps | tx-opt --tx-cpu-pipeline | not %run_cpu 2>&1 | FileCheck %s --check-prefix=BADPS
// BADPS: error: tx_case: tx.attention: the page size must be a power of two from 1 to 256: page_size & (page_size - 1) = 2, not 0
// BADPS-NOT: PLEASE submit
