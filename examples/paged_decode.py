#!/usr/bin/env python3
"""Decoding with a paged KV cache (issue #43), on a CUDA GPU.

    scripts/tx-compile.sh examples/paged_decode.mlir out/ chip=sm_90a
    PYTHONPATH=python python3 examples/paged_decode.py out/ [--steps 64]

B sequences of different prompt lengths keep their K/V in 16-token pages
drawn from one shuffled pool (page ids handed out by a free list, as
vLLM's block manager does; two sequences share their first page, a common
prompt). Each decode step appends every sequence's new token's K/V to its
last page with plain torch indexing (a new page when the last one is
full), then calls the paged function of examples/paged_decode.mlir and the
same attention on a contiguous cache [B, 8, Sk, 128] kept beside it, and
compares the two (they read the same keys, so they agree to f16 rounding
of the output). At the end, one step is also checked against float64
attention, and tx.merge_states joins a shared prefix's result with the
suffix's into the whole call's result. Exits 1 on a mismatch.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tx  # noqa: E402

PAGE, HKV, H, D = 16, 8, 32, 128


class PagedCache:
    """K/V page pools [num_pages, PAGE, HKV, D], a page table [B, max_pages]
    (unused entries -1) and the lengths."""

    def __init__(self, B, max_pages, num_pages, dev, gen):
        self.k = torch.randn(num_pages, PAGE, HKV, D, device=dev, dtype=torch.float16)
        self.v = torch.randn_like(self.k)            # stale contents: never read
        self.table = torch.full((B, max_pages), -1, dtype=torch.int32, device=dev)
        self.lengths = torch.zeros(B, dtype=torch.int32, device=dev)
        self.free = torch.randperm(num_pages, generator=gen).tolist()

    def append(self, b, k, v):
        """Appends one token's K/V ([HKV, D]) to sequence b."""
        n = int(self.lengths[b])
        page, slot = divmod(n, PAGE)
        if slot == 0:
            self.table[b, page] = self.free.pop()
        pid = int(self.table[b, page])
        self.k[pid, slot] = k
        self.v[pid, slot] = v
        self.lengths[b] = n + 1


def reference64(q, k, v, lengths):
    """float64 decode attention (the new query sees every cached key)."""
    out = torch.zeros(q.shape, dtype=torch.float64, device=q.device)
    for b, n in enumerate(lengths.tolist()):
        kk = k[b, :, :n].double().repeat_interleave(H // HKV, 0)
        vv = v[b, :, :n].double().repeat_interleave(H // HKV, 0)
        s = q[b].double() @ kk.transpose(-1, -2) / D ** 0.5
        out[b] = torch.softmax(s, -1) @ vv
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("lib_dir")
    p.add_argument("--steps", type=int, default=64)
    p.add_argument("--batch", type=int, default=4)
    a = p.parse_args()
    dev = "cuda"
    lib = tx.load(os.path.join(a.lib_dir, "libpaged_decode.so"))
    gen = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    B = a.batch
    prompts = [37, 16, 100, 1][:B] + [5] * max(0, B - 4)
    sk = max(prompts) + a.steps
    max_pages = -(-sk // PAGE)
    cache = PagedCache(B, max_pages, B * max_pages + 7, dev, gen)
    kc = torch.zeros(B, HKV, sk, D, device=dev, dtype=torch.float16)  # contiguous
    vc = torch.zeros_like(kc)
    for b, n in enumerate(prompts):          # prefill the prompts' K/V
        start = 0
        if b == 1 and n >= PAGE and prompts[0] >= PAGE:
            # A common prompt: sequence 1's first page is sequence 0's.
            cache.table[1, 0] = cache.table[0, 0]
            cache.lengths[1] = PAGE
            kc[1, :, :PAGE], vc[1, :, :PAGE] = kc[0, :, :PAGE], vc[0, :, :PAGE]
            start = PAGE
        for t in range(start, n):
            k = torch.randn(HKV, D, device=dev, dtype=torch.float16)
            v = torch.randn(HKV, D, device=dev, dtype=torch.float16)
            cache.append(b, k, v)
            kc[b, :, t], vc[b, :, t] = k, v
    worst = 0.0
    for step in range(a.steps):
        q = torch.randn(B, H, 1, D, device=dev, dtype=torch.float16)
        for b in range(B):
            k = torch.randn(HKV, D, device=dev, dtype=torch.float16)
            v = torch.randn(HKV, D, device=dev, dtype=torch.float16)
            kc[b, :, int(cache.lengths[b])], vc[b, :, int(cache.lengths[b])] = k, v
            cache.append(b, k, v)
        o_paged = lib.paged_decode(q, cache.k, cache.v, cache.table, cache.lengths)
        o_flat = lib.decode(q, kc, vc, cache.lengths)
        worst = max(worst, (o_paged.float() - o_flat.float()).abs().max().item())
    ref = reference64(q, kc, vc, cache.lengths)
    err = ((o_paged.double() - ref).norm() / ref.norm()).item()
    print("paged decode: %d steps, B = %d, lengths %s, %d pool pages" %
          (a.steps, B, cache.lengths.tolist(), cache.k.shape[0]))
    print("  max |paged - contiguous| over all steps: %.3g" % worst)
    print("  last step vs float64: relative L2 error %.3g" % err)
    # A shared prefix and a suffix computed apart, merged by their LSEs.
    qf, kf, vf = q.double(), kc[0, :, :int(cache.lengths[0])].double(), vc[0, :, :int(cache.lengths[0])].double()
    kf, vf = kf.repeat_interleave(H // HKV, 0), vf.repeat_interleave(H // HKV, 0)
    s = qf[0] @ kf.transpose(-1, -2) / D ** 0.5
    parts = [(torch.softmax(s[..., sl], -1) @ vf[:, sl], torch.logsumexp(s[..., sl], -1))
             for sl in (slice(0, PAGE), slice(PAGE, None))]
    om, _ = tx.merge_states(parts[0][0].float(), parts[0][1].float(),
                            parts[1][0].float(), parts[1][1].float())
    merr = ((om.double() - ref[0]).norm() / ref[0].norm()).item()
    print("  prefix + suffix merged (tx.merge_states) vs one call: relative error %.3g" % merr)
    ok = worst < 2e-3 and err < 2e-3 and merr < 1e-5
    print("paged_decode: %s" % ("ok" if ok else "MISMATCH"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
