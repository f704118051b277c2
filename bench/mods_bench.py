#!/usr/bin/env python3
"""Score and mask functions (issue #42) against FlexAttention, same process,
same timing (back-to-back launches between two CUDA events, median of the
repetitions after warm-up), forward only.

  scripts/tx-compile.sh bench/mods_shapes.mlir OUT/mods_shapes chip=sm_90a
  PYTHONPATH=python python3 bench/mods_bench.py --lib OUT/mods_shapes/libmods_shapes.so

The six variants of the issue at B 4, H 16, S 4096 (16384 for the document
mask, 8 documents of random lengths), D 128, f16: ALiBi, a learned
relative-position bias table, document masking, prefix-LM (prefix 1024), a
causal sliding window of 1024 keys by mask function, softcap 30 by score
function; and causal by mask function (not one of the issue's six: its
attribute twin gives the region's cost) and ALiBi with its index
arithmetic written in i32 (what the 64-bit `index` arithmetic per score
costs). FlexAttention is `torch.compile(flex_attention)` with its default
kernel options and a block mask built once (create_block_mask) for the
mask functions. Each row also prints tx's same variant written with
attributes where one exists (window, softcap, causal)
and tx's dense op, and the max abs difference between tx and
FlexAttention. "pairs/us" is visible (query, key) pairs per microsecond."""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tx  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from window_bench import timed  # noqa: E402

B, H, S, SD, D = 4, 16, 4096, 16384, 128


def events_time_us(fn, iters, reps):
    """Median us per call of back-to-back launches between CUDA events
    (window_bench.py's timing, which returns ms)."""
    return timed(fn, iters, reps) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    flex = torch.compile(flex_attention)
    lib = tx.load(a.lib)
    dev, f16 = "cuda", torch.float16
    gen = torch.Generator(device=dev).manual_seed(42)

    def qkv(s):
        return [torch.randn((B, H, s, D), device=dev, dtype=f16, generator=gen)
                for _ in range(3)]

    slopes = torch.tensor([2.0 ** (-8.0 * (i + 1) / H) for i in range(H)],
                          dtype=torch.float32, device=dev)
    table = (torch.rand(2 * S - 1, device=dev, generator=gen) * 2 - 1).to(f16)
    cuts = sorted(torch.randperm(SD - 1, generator=torch.Generator().manual_seed(7))[:7].add(1).tolist())
    bounds = [0] + cuts + [SD]
    doc = torch.cat([torch.full((bounds[i + 1] - bounds[i],), i, dtype=torch.int32)
                     for i in range(8)]).to(dev)
    doc_pairs = sum((bounds[i + 1] - bounds[i]) ** 2 for i in range(8))

    def causal_pairs(s, w=None):
        return sum(min(i + 1, (w + 1) if w is not None else i + 1) for i in range(s))

    prefix_pairs = sum(max(i + 1, 1024) for i in range(S))
    variants = [
        # name, S, tx fn, captures, score_mod, mask_mod, attribute fn, visible pairs
        ("alibi", S, "mod_alibi", [slopes],
         lambda s, b, h, qi, ki: s + slopes[h] * (ki - qi), None, None, S * S),
        ("alibi i32", S, "mod_alibi32", [slopes],
         lambda s, b, h, qi, ki: s + slopes[h] * (ki - qi), None, None, S * S),
        ("relbias", S, "mod_relbias", [table],
         lambda s, b, h, qi, ki: s + table[ki - qi + S - 1], None, None, S * S),
        ("document", SD, "mod_document", [doc], None,
         lambda b, h, qi, ki: doc[qi] == doc[ki], None, doc_pairs),
        ("prefix", S, "mod_prefix", [], None,
         lambda b, h, qi, ki: (ki < 1024) | (ki <= qi), None, prefix_pairs),
        ("window", S, "mod_window", [], None,
         lambda b, h, qi, ki: (qi - ki <= 1024) & (ki <= qi), "attr_window",
         causal_pairs(S, 1024)),
        ("causal", S, "mod_causal", [], None,
         lambda b, h, qi, ki: ki <= qi, "attr_causal", causal_pairs(S)),
        ("softcap", S, "mod_softcap", [],
         lambda s, b, h, qi, ki: 30.0 * torch.tanh(s / 30.0), None, "attr_softcap", S * S),
    ]
    print("| variant | S | tx us | Flex us | tx/Flex speedup | tx attr us | region/attr |"
          " tx dense us | tx pairs/us | dense pairs/us | max abs diff |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, s, fn, caps, smod, mmod, attr, pairs in variants:
        if a.only and a.only not in name:
            continue
        q, k, v = qkv(s)
        out = torch.empty_like(q)
        f = getattr(lib, fn)
        call = lambda: f(q, k, v, *caps, out=out)
        t_tx = events_time_us(call, a.iters, a.reps)
        bm = create_block_mask(mmod, None, None, s, s) if mmod else None
        ref = flex(q, k, v, score_mod=smod, block_mask=bm)
        t_fx = events_time_us(lambda: flex(q, k, v, score_mod=smod, block_mask=bm),
                              a.iters, a.reps)
        call()
        torch.cuda.synchronize()
        diff = (out.float() - ref.float()).abs().max().item()
        t_attr = None
        if attr:
            o2 = torch.empty_like(q)
            fa = getattr(lib, attr)
            t_attr = events_time_us(lambda: fa(q, k, v, out=o2), a.iters, a.reps)
        od = torch.empty_like(q)
        fd = getattr(lib, "dense_doc" if s == SD else "dense")
        t_dense = events_time_us(lambda: fd(q, k, v, out=od), a.iters, a.reps)
        attr_s = "%.1f | %.3f" % (t_attr, t_tx / t_attr) if t_attr else "- | -"
        print("| %s | %d | %.1f | %.1f | %.3f | %s | %.1f | %.0f | %.0f | %.2e |" % (
            name, s, t_tx, t_fx, t_fx / t_tx, attr_s, t_dense,
            B * H * pairs / t_tx, B * H * s * s / t_dense, diff), flush=True)
        del q, k, v, out, ref
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
