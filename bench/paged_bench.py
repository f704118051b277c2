#!/usr/bin/env python3
"""Paged KV caches (issue #43) against tx's contiguous cache, same process,
same timing (N launches in one CUDA graph, median of the replays after
warm-up; bench/decode_bench.py's graph_time_us).

  scripts/tx-compile.sh bench/paged_shapes.mlir OUT/paged_shapes chip=sm_90a
  PYTHONPATH=python python3 bench/paged_bench.py --lib OUT/paged_shapes/libpaged_shapes.so

Decode rows (Sq = 1, H/Hkv = 32/8, D = 128): K/V page pools with a random
page table (a shuffled permutation of the pool's pages), every sequence
Sk keys long (kv_lengths = Sk), against the contiguous [B, 8, Sk, 128]
cache with the same kv_lengths. "KV TB/s" is the K/V bytes read per second,
"copy TB/s" a device-to-device copy of the same bytes (at most 8 GB; read +
write counted), "KV/copy" their ratio for the paged call. The chunked-prefill row: Sq new queries over Sk keys
(the cached prefix and the new tokens), causal bottom-right. The paged and
contiguous calls read the same keys for sequence 0 (the contiguous cache is
rebuilt from the pools there): their results must agree (max abs diff
printed). One cache form lives at a time (B = 64, Sk = 131072 is 34 GB)."""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decode_bench import graph_time_us  # noqa: E402
import tx  # noqa: E402

H, HKV, D = 32, 8, 128


def rows():
    out = []
    for page in (16, 1):
        for dt in ("f16", "bf16"):
            for b in (1, 8, 64):
                for sk in (2048, 32768, 131072):
                    out.append(("decode", dt, page, b, 1, sk))
    out.append(("prefill", "f16", 16, 1, 512, 8192 + 512))
    return out


def timed(fn, reps):
    """Median us per call; fewer launches per graph for long calls."""
    fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    torch.cuda.synchronize()
    iters = max(2, min(20, int(20000 / max(s.elapsed_time(e) * 1e3, 1.0))))
    return graph_time_us(fn, iters, reps)


def run_row(lib, kind, dt, page, b, sq, sk, reps, gen):
    dtype = torch.float16 if dt == "f16" else torch.bfloat16
    dev = "cuda"
    max_pages = -(-sk // page)
    num_pages = b * max_pages
    kl = torch.full((b,), sk, dtype=torch.int32, device=dev)
    q = torch.randn((b, H, sq, D), device=dev, dtype=dtype, generator=gen)
    out_p = torch.empty((b, H, sq, D), device=dev, dtype=dtype)
    # Paged: pools and a shuffled table.
    kp = torch.randn((num_pages, page, HKV, D), device=dev, dtype=dtype, generator=gen)
    vp = torch.randn_like(kp)
    table = torch.randperm(num_pages, device=dev, generator=gen).to(torch.int32).view(b, max_pages)
    fp = getattr(lib, ("pgp%d_f16" % page) if kind == "prefill" else "pg%d_%s" % (page, dt))
    call_p = lambda: fp(q, kp, vp, table, kl, out=out_p)
    t_p = timed(call_p, reps)
    call_p()
    torch.cuda.synchronize()
    # Sequence 0's keys, contiguous, for the comparison.
    k0 = kp[table[0].long()].reshape(max_pages * page, HKV, D)[:sk].permute(1, 0, 2).contiguous()
    v0 = vp[table[0].long()].reshape(max_pages * page, HKV, D)[:sk].permute(1, 0, 2).contiguous()
    del kp, vp, table
    torch.cuda.empty_cache()
    kc = torch.randn((b, HKV, sk, D), device=dev, dtype=dtype, generator=gen)
    vc = torch.randn_like(kc)
    kc[0], vc[0] = k0, v0
    del k0, v0
    out_c = torch.empty_like(out_p)
    fc = getattr(lib, "ctp_f16" if kind == "prefill" else "ct_%s" % dt)
    call_c = lambda: fc(q, kc, vc, kl, out=out_c)
    t_c = timed(call_c, reps)
    call_c()
    torch.cuda.synchronize()
    diff = (out_p[0].float() - out_c[0].float()).abs().max().item()
    del kc, vc
    torch.cuda.empty_cache()
    kv_bytes = 2 * b * HKV * sk * D * 2
    copy_bytes = min(kv_bytes, 8 << 30)  # (the copy's bandwidth is flat past 8 GB)
    src = torch.empty(copy_bytes // 2, dtype=torch.float16, device=dev)
    dst = torch.empty_like(src)
    t_copy = timed(lambda: dst.copy_(src), reps)
    del src, dst
    torch.cuda.empty_cache()
    return t_p, t_c, kv_bytes, copy_bytes / (t_copy * 1e-6) * 2 / 1e12, diff


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--only", action="append", default=[],
                    help="rows whose label (e.g. 'decode f16 p16 B8 Sk32768') contains this (repeatable)")
    a = ap.parse_args()
    lib = tx.load(a.lib)
    print("device:", torch.cuda.get_device_name(), "torch", torch.__version__)
    print("timing: launches in one CUDA graph, median of %d replays (us per call)" % a.reps)
    hdr = ("| kind | dtype | page | B | Sq | Sk | paged us | contiguous us | paged/contig speed | "
           "paged KV TB/s | copy TB/s | KV/copy | max abs diff seq 0 |")
    print(hdr)
    print("|" + "---|" * (hdr.count("|") - 1))
    gen = torch.Generator(device="cuda").manual_seed(0)
    for kind, dt, page, b, sq, sk in rows():
        label = "%s %s p%d B%d Sk%d" % (kind, dt, page, b, sk)
        if a.only and not any(o in label for o in a.only):
            continue
        need = 2 * b * HKV * sk * D * 2 * 1.1 + b * H * sq * D * 4
        if need > torch.cuda.mem_get_info()[0]:
            print("| %s | %s | %d | %d | %d | %d | skipped (does not fit) |" % (kind, dt, page, b, sq, sk))
            continue
        t_p, t_c, kv_bytes, copy_tbs, diff = run_row(lib, kind, dt, page, b, sq, sk, a.reps, gen)
        kv_tbs = kv_bytes / (t_p * 1e-6) / 1e12
        print("| %s | %s | %d | %d | %d | %d | %.1f | %.1f | %.3f | %.2f | %.2f | %.2f | %.3g |" % (
            kind, dt, page, b, sq, sk, t_p, t_c, t_c / t_p, kv_tbs, copy_tbs, kv_tbs / copy_tbs, diff))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
