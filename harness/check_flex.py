#!/usr/bin/env python3
"""GPU check of tx.flex (issue #42): FlexAttention-style Python score and
mask functions traced into tx.attention's regions and run by
tx.flex.flex_attention, against a float64 reference that PyTorch computes
by calling the same Python functions on index tensors; and the gradients
dQ, dK, dV (the backward through the derivative tx generates) against
PyTorch's float64 autograd of that reference.

    python3 harness/check_flex.py --build DIR [--chip sm_90a]   # needs tx built
    python3 harness/check_flex.py --lib-dir DIR [--only TEXT]    # on a GPU

--build traces every case on meta tensors and compiles its library into
DIR/<chip> (flex_attention's library_dir: a directory of flex_<hash>/
libraries keyed by the traced source), so the GPU machine needs no LLVM;
--lib-dir runs the cases there (a case whose library is missing would be
compiled, which needs tx). Exits 1 when a case fails.
"""
import argparse
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
import tx.flex as F  # noqa: E402

TOL = {torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 1e-2}


def reference(q, k, v, score_mod, mask_mod, causal):
    """float64 attention: the user's functions on the whole score matrix
    (index tensors broadcast); rows that see no key are zeros."""
    B, H, Sq, D = q.shape
    Hkv, Sk = k.shape[1], k.shape[2]
    dev = q.device
    kf = k.double().repeat_interleave(H // Hkv, dim=1)
    vf = v.double().repeat_interleave(H // Hkv, dim=1)
    s = q.double() @ kf.transpose(-1, -2) / math.sqrt(D)
    b = torch.arange(B, device=dev).view(B, 1, 1, 1)
    h = torch.arange(H, device=dev).view(1, H, 1, 1)
    i = torch.arange(Sq, device=dev).view(1, 1, Sq, 1)
    j = torch.arange(Sk, device=dev).view(1, 1, 1, Sk)
    if score_mod is not None:
        s = (score_mod(s, b, h, i, j) + torch.zeros_like(s)).double()
    visible = torch.ones(B, H, Sq, Sk, dtype=torch.bool, device=dev)
    if mask_mod is not None:
        visible = visible & mask_mod(b, h, i, j)
    if causal:
        visible = visible & (j <= i + Sk - Sq)
    s = s.masked_fill(~visible, float("-inf"))
    m = s.amax(-1, keepdim=True)
    p = torch.where(torch.isneginf(m), torch.zeros_like(s), torch.exp(s - m))
    l = p.sum(-1, keepdim=True)
    o = p @ vf
    return torch.where(l == 0, torch.zeros_like(o), o / torch.where(l == 0, torch.ones_like(l), l))


GRAD_TOL = {torch.float32: 1e-4, torch.float16: 5e-3, torch.bfloat16: 3e-2}


def row(name, chip, what, got, ref, tol):
    """Prints one comparison (relative L2 error, NaNs) and returns whether
    it passes."""
    diff = got.double() - ref
    norm = float(torch.linalg.vector_norm(ref))
    rel = float(torch.linalg.vector_norm(diff)) / norm if norm > 0 else float(diff.abs().max())
    nan = int(torch.isnan(got).sum())
    ok = nan == 0 and rel <= tol
    print("%-58s [%s] %-2s rel %.3e  maxabs %.3e  nan %d  %s" % (
        name, chip, what, rel, float(diff.abs().max()), nan, "PASS" if ok else "FAIL"),
        flush=True)
    return ok


def cases(dev, gen):
    """(name, q, k, v, score_mod, mask_mod, causal): FlexAttention's usual
    variants at harness sizes (tails of the tiles, GQA, f16/bf16/f32)."""
    def rand(*shape, dtype=torch.float16, lo=-3.0, hi=3.0):
        x = torch.rand(*shape, generator=gen, device="cpu") * (hi - lo) + lo
        return x.to(dtype).to(dev)

    def qkv(B, H, Hkv, Sq, Sk, D, dt):
        return rand(B, H, Sq, D, dtype=dt), rand(B, Hkv, Sk, D, dtype=dt), \
            rand(B, Hkv, Sk, D, dtype=dt)

    out = []
    slopes = torch.exp2(-8.0 * torch.arange(1, 9, dtype=torch.float32) / 8).to(dev)

    def alibi(score, b, h, q_idx, kv_idx):
        return score + slopes[h] * (kv_idx - q_idx)
    out.append(("alibi f16 GQA 8/2 causal Sq 200 Sk 333 D 128",)
               + qkv(2, 8, 2, 200, 333, 128, torch.float16) + (alibi, None, True))

    table = rand(4, 2 * 64 + 1, dtype=torch.bfloat16, lo=-2, hi=2)

    def relbias(score, b, h, q_idx, kv_idx):
        return score + table[h, torch.clamp(kv_idx - q_idx, -64, 64) + 64]
    out.append(("relbias table bf16 D 64 Sq 300 Sk 300",)
               + qkv(2, 4, 4, 300, 300, 64, torch.bfloat16) + (relbias, None, False))

    lengths = [1, 90, 17, 150, 42]
    doc = torch.repeat_interleave(torch.arange(len(lengths), dtype=torch.int32),
                                  torch.tensor(lengths)).to(dev)

    def document(b, h, q_idx, kv_idx):
        return doc[q_idx] == doc[kv_idx]
    out.append(("document f16 D 64 S 300 documents %s" % lengths,)
               + qkv(1, 4, 4, 300, 300, 64, torch.float16) + (None, document, False))

    def softcap(score, b, h, q_idx, kv_idx):
        return 30.0 * torch.tanh(score / 30.0)
    q, k, v = qkv(1, 4, 1, 129, 400, 128, torch.float16)
    out.append(("softcap 30 f16 GQA 4/1 Sq 129 Sk 400 D 128", q * 4, k, v, softcap, None, False))

    def prefix_lm(b, h, q_idx, kv_idx):
        return (kv_idx < 100) | (kv_idx <= q_idx)
    out.append(("prefix-LM 100 bf16 D 128 S 257",)
               + qkv(2, 2, 2, 257, 257, 128, torch.bfloat16) + (None, prefix_lm, False))

    def window(b, h, q_idx, kv_idx):
        return ((q_idx - kv_idx) <= 64) & (kv_idx <= q_idx)
    out.append(("sliding window 64 f32 D 64 S 300",)
               + qkv(1, 2, 2, 300, 300, 64, torch.float32) + (None, window, False))

    def both(score, b, h, q_idx, kv_idx):
        return torch.where((kv_idx - q_idx) % 7 == 3, score - 2.0, score * 0.75)

    def late(b, h, q_idx, kv_idx):
        return (q_idx >= 40) & ((b + h) % 3 != 1)
    out.append(("floor-mod score + late-row mask f16 GQA 6/2 Sq 100 Sk 250",)
               + qkv(2, 6, 2, 100, 250, 64, torch.float16) + (both, late, False))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--build", metavar="DIR", help="trace and compile every case into DIR/<chip>")
    g.add_argument("--lib-dir", metavar="DIR", help="run the cases with DIR/<chip>'s libraries")
    ap.add_argument("--chip", action="append", default=None,
                    help="sm_90a (default) and/or sm_90; repeatable")
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--seed", type=int, default=4207)
    ap.add_argument("--no-grad", action="store_true", help="check the forward only")
    a = ap.parse_args()
    chips = a.chip or ["sm_90a"]
    dev = "meta" if a.build else "cuda"
    failed = total = 0
    for chip in chips:
        gen = torch.Generator().manual_seed(a.seed)
        for name, q, k, v, sm, mm, causal in cases(dev, gen):
            if a.only and not any(o in name for o in a.only):
                continue
            total += 1
            libs = os.path.join(a.build or a.lib_dir, chip)
            if a.build:
                src = F.attention_source(q, k, v, sm, mm, causal=causal, name="attention")
                F._library(src, chip, libs, {})
                print("%-58s [%s] built" % (name, chip), flush=True)
                continue
            try:
                o = F.flex_attention(q, k, v, sm, mm, causal=causal, enable_gqa=True,
                                     chip=chip, library_dir=libs)
            except Exception as e:  # a failed row, not a crash
                print("%-58s [%s] ERROR %s" % (name, chip, e), flush=True)
                failed += 1
                continue
            ref = reference(q, k, v, sm, mm, causal)
            failed += not row(name, chip, "O", o, ref, TOL[q.dtype])
            if a.no_grad:
                continue
            # The backward (the score function's derivative generated by
            # tx) against float64 autograd of the same functions.
            qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
            do = torch.randn(o.shape, generator=torch.Generator().manual_seed(a.seed + 1))
            do = do.to(q.dtype).to(q.device)
            try:
                og = F.flex_attention(qg, kg, vg, sm, mm, causal=causal, enable_gqa=True,
                                      chip=chip, library_dir=libs)
                og.backward(do)
            except Exception as e:
                print("%-58s [%s] grad ERROR %s" % (name, chip, e), flush=True)
                failed += 1
                continue
            q64, k64, v64 = (t.detach().double().requires_grad_() for t in (q, k, v))
            (reference(q64, k64, v64, sm, mm, causal) * do.double()).sum().backward()
            for what, got, want in (("dQ", qg.grad, q64.grad), ("dK", kg.grad, k64.grad),
                                    ("dV", vg.grad, v64.grad)):
                failed += not row(name, chip, what, got, want, GRAD_TOL[q.dtype])
    print("%d cases, %d failed" % (total, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
