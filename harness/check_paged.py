#!/usr/bin/env python3
"""GPU check of paged KV caches (issue #43) for the library of
harness/paged_cases.mlir.

    scripts/tx-compile.sh harness/paged_cases.mlir OUT/paged_cases chip=sm_90a
    python3 harness/check_paged.py --lib-dir OUT [--only TEXT] [--seed N]

Each case builds K/V page pools [num_pages, page_size, Hkv, D] from a
random contiguous cache: every sequence's pages drawn from a shuffled pool
(sequences 0 and 1 share their first page, a common prompt), the rows past
a sequence's length and the pages no table names filled with NaN (K) and
+Inf (V), and the page table's entries past a sequence's last page holding
garbage (-1, num_pages, 10^6, -7). Lengths include 0, 1, a page boundary
and partial pages. The reference is PyTorch float64 attention on the
contiguous cache with tx's per-sequence visibility (kv_lengths, q_lengths,
causal bottom-right, window), computed before the garbage is written;
results must agree within check.py's tolerances (LSE rows with no visible
key are -inf exactly). The split-KV decode kernel and the prefill kernels
(mma.sync on sm_90, wgmma on sm_90a) read the pools in place; the f32
prefill (CUDA cores) reads the gathers. Exits 1 when a case fails.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check as H  # noqa: E402  (harness/check.py: references, compare, call)

GARBAGE = (-1, None, 10 ** 6, -7)  # None: num_pages


def paged_cache(g, b, hkv, d, page, lens, dt, max_pages=None, spare=5):
    """(k_pages, v_pages, table, k, v): pools and an i32 table standing for
    the contiguous k, v [B, Hkv, max_pages * page, D] on the keys below
    `lens` (None: every key live)."""
    need = [max_pages] * b if lens is None else [-(-n // page) for n in lens]
    max_pages = max_pages or max(max(need) + 1, 1)
    sk = max_pages * page
    k, v = H.rand_qkv(g, b, hkv, hkv, 1, sk, d, d, dt)[1:]
    shared = b > 1 and min(need[:2]) > 0
    if shared:  # sequences 0 and 1 share their first page
        k[1, :, :page] = k[0, :, :page]
        v[1, :, :page] = v[0, :, :page]
    num_pages = sum(need) - (1 if shared else 0) + spare
    kp = torch.full((num_pages, page, hkv, d), float("nan"), dtype=dt, device=H.DEVICE)
    vp = torch.full_like(kp, float("inf"))
    table = torch.full((b, max_pages), -1, dtype=torch.int32)
    perm = torch.randperm(num_pages, generator=torch.Generator().manual_seed(int(
        torch.randint(1 << 30, (1,), generator=g, device=H.DEVICE))))
    nxt = 0
    for bi in range(b):
        for p in range(need[bi]):
            if shared and bi == 1 and p == 0:  # (its rows equal sequence 0's)
                pid = int(table[0, 0])
            else:
                pid, nxt = int(perm[nxt]), nxt + 1
            table[bi, p] = pid
            rows = page if lens is None else min(page, lens[bi] - p * page)
            kp[pid, :rows] = k[bi, :, p * page:p * page + rows].transpose(0, 1)
            vp[pid, :rows] = v[bi, :, p * page:p * page + rows].transpose(0, 1)
        for p in range(need[bi], max_pages):
            x = GARBAGE[(bi + p) % len(GARBAGE)]
            table[bi, p] = num_pages if x is None else x
    return kp, vp, table.to(H.DEVICE), k, v


class PagedRunner(H.Runner):
    def __init__(self, lib_dir, only, seed):
        super().__init__(lib_dir, only)
        self.gen = torch.Generator(device=H.DEVICE).manual_seed(seed)

    def case(self, fn, name, b, h, hkv, sq, d, page, lens, dt, qlens=None, causal=False,
             window=None, softcap=None, lse=False, max_pages=None):
        if not self.wanted(name):
            return
        g, T = self.gen, (lambda x: torch.tensor(x, dtype=torch.int32, device=H.DEVICE))
        q = H.rand_qkv(g, b, h, hkv, sq, 1, d, d, dt)[0]
        kp, vp, table, k, v = paged_cache(g, b, hkv, d, page, lens, dt, max_pages)
        sk = k.shape[2]
        kl = T(lens if lens is not None else [sk] * b)
        ql = T(qlens if qlens is not None else [sq] * b)
        vis = H.visible_lengths(sq, sk, kl, ql, causal, window)
        ref_o = None if H.DRY_RUN else H.ref_attention(q, k, v, vis, softcap=softcap)
        ref_l = None if H.DRY_RUN or not lse else H.ref_lse(q, k, vis, softcap=softcap)
        if qlens is not None:  # query rows past q_lengths: never read
            for bi in range(b):
                q[bi, :, qlens[bi]:] = float("nan")
        args = [q, kp, vp, table] + ([kl] if lens is not None else []) + \
            ([ql] if qlens is not None else [])
        shape = (b, h, sq, d)
        if lse:
            self.lse_call(self.stem, fn, name, args, shape, dt, lambda: ref_l, lambda: ref_o)
        else:
            self.run(self.stem, fn, name, args, shape, dt, lambda: ref_o, False)

    def all(self, stem):
        self.stem = stem
        f16, bf16, f32 = torch.float16, torch.bfloat16, torch.float32
        c = self.case
        c("pg_dec_f16_p16", "paged decode f16 p16 GQA 32/8 causal kv (1000, 0, 16, 1, 333)",
          5, 32, 8, 1, 128, 16, [1000, 0, 16, 1, 333], f16, causal=True)
        c("pg_dec_f16_p16", "paged decode f16 p16 long kv (20000, 4096)",
          2, 32, 8, 1, 128, 16, [20000, 4096], f16, causal=True)
        c("pg_dec_bf16_p1", "paged decode bf16 p1 GQA 32/8 kv (700, 1, 0, 64)",
          4, 32, 8, 1, 128, 1, [700, 1, 0, 64], bf16)
        for page in (4, 16, 128):
            c("pg_dec_f16_pdyn_sq4", "paged decode f16 dynamic p%d Sq4 causal kv (517, 4, 64) "
              "q (4, 1, 0)" % page, 3, 32, 8, 4, 128, page, [517, 4, 64], f16, qlens=[4, 1, 0],
              causal=True)
        c("pg_dec_bf16_p8_window", "paged decode bf16 p8 MQA 8/1 D64 window [100, 0] "
          "kv (2000, 50, 8, 0)", 4, 8, 1, 1, 64, 8, [2000, 50, 8, 0], bf16, window=(100, 0))
        c("pg_dec_f32_p64_lse", "paged decode f32 p64 GQA 8/2 D64 softcap 20 LSE kv (300, 0, 64, 129)",
          4, 8, 2, 1, 64, 64, [300, 0, 64, 129], f32, softcap=20.0, lse=True)
        c("pg_dec_f16_p32_full", "paged decode f16 p32 no kv_lengths (max_pages 9)",
          3, 32, 8, 1, 128, 32, None, f16, max_pages=9)
        c("pg_prefill_f16_p16", "paged prefill f16 p16 GQA 8/2 Sq 100 causal kv (700, 100, 131)",
          3, 8, 2, 100, 128, 16, [700, 100, 131], f16, causal=True)
        c("pg_prefill_f16_p16", "paged prefill f16 p16 GQA 8/2 Sq 300 causal kv (5000, 300)",
          2, 8, 2, 300, 128, 16, [5000, 300], f16, causal=True)
        c("pg_prefill_bf16_p256", "paged prefill bf16 p256 MHA D64 Sq 200 kv (1000, 0, 257) "
          "q (200, 7, 0)", 3, 4, 4, 200, 64, 256, [1000, 0, 257], bf16, qlens=[200, 7, 0])
        for page in (2, 32, 256):
            c("pg_prefill_f16_pdyn_lse", "paged prefill f16 dynamic p%d causal LSE Sq 150 "
              "kv (600, 150, 0)" % page, 3, 8, 2, 150, 128, page, [600, 150, 0], f16,
              causal=True, lse=True)
        c("pg_prefill_bf16_p64_qlen", "paged prefill bf16 p64 GQA 8/2 softcap 30 Sq 260 "
          "kv (900, 64, 0, 260) q (260, 1, 0, 131)", 4, 8, 2, 260, 128, 64, [900, 64, 0, 260], bf16,
          qlens=[260, 1, 0, 131], softcap=30.0)
        c("pg_prefill_f32_p16", "paged prefill f32 p16 Sq 70 causal kv (300, 0, 70)",
          3, 2, 2, 70, 64, 16, [300, 0, 70], f32, causal=True)


if __name__ == "__main__":
    sys.exit(H.main_of_cases(PagedRunner, "paged_cases", __doc__))
