#!/usr/bin/env python3
"""Checks the GPU compilation of the backward ops (harness/grad_cases.mlir,
compiled by scripts/tx-compile.sh) against PyTorch's float64 autograd of the
same attention (and softmax), on the current CUDA device.

    python3 harness/check_grads.py LIBDIR      # LIBDIR/libgrad_cases.so

Inputs are random, rounded to the element type; O and the LSE given to
tx.attention_grad are the float64 forward's (O rounded to the element type,
the LSE to f32). Prints one line per gradient with its relative L2 error
against the float64 gradient and the tolerance (1e-5 f32, 2e-3 f16, 1e-2
bf16, as the CPU tests); exits 1 if any fails.
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tx  # noqa: E402

TOL = {torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 1e-2}
dev = "cuda"
f64 = torch.float64


def visibility(B, H, Sq, Sk, causal, window, kv_lengths, keep=None):
    """bool [B, H, Sq, Sk]: the keys each query sees (per-sequence key
    lengths, bottom-right causal, window sides < 0 unbounded, an i1
    keep-mask)."""
    Lk = kv_lengths.to(dev).long() if kv_lengths is not None else torch.full((B,), Sk, device=dev)
    off = (Lk - Sq).view(B, 1, 1, 1)
    i = torch.arange(Sq, device=dev).view(1, 1, Sq, 1)
    j = torch.arange(Sk, device=dev).view(1, 1, 1, Sk)
    vis = (j < Lk.view(B, 1, 1, 1)).expand(B, H, Sq, Sk)
    if causal:
        vis = vis & (j <= i + off)
    if window is not None:
        if window[0] >= 0:
            vis = vis & (j >= i + off - window[0])
        if window[1] >= 0:
            vis = vis & (j <= i + off + window[1])
    if keep is not None:
        vis = vis & keep
    return vis


def attention64(q, k, v, mask, scale, causal, window, softcap, kv_lengths):
    """O and the LSE in float64 (bottom-right causal/window, per-sequence
    key lengths), differentiable in q, k, v and mask."""
    B, H, Sq, _ = q.shape
    Sk, G = k.shape[2], H // k.shape[1]
    kk, vv = k.repeat_interleave(G, 1), v.repeat_interleave(G, 1)
    s = scale * q @ kk.transpose(-1, -2)
    if softcap:
        s = softcap * torch.tanh(s / softcap)
    if mask is not None:
        s = s + mask
    vis = visibility(B, H, Sq, Sk, causal, window, kv_lengths)
    if mask is not None:
        vis = vis & (mask != -math.inf)
    any_row = vis.any(-1, keepdim=True)
    s2 = torch.where(vis, s, torch.tensor(-math.inf, dtype=f64, device=dev))
    s2 = torch.where(any_row, s2, torch.zeros_like(s2))
    p = torch.softmax(s2, -1) * any_row
    lse = torch.where(any_row.squeeze(-1), torch.logsumexp(s2, -1),
                      torch.tensor(-math.inf, dtype=f64, device=dev))
    return p @ vv, lse.detach()


def relerr(x, ref):
    x, ref = x.to(f64), ref.to(f64)
    n = ref.norm()
    return ((x - ref).norm() / n).item() if n > 0 else (x - ref).norm().item()


def attention_case(lib, name, dt, B, H, Hkv, Sq, Sk, D, Dv, scale=None, causal=False,
                   window=None, softcap=None, mask=False, kv_lengths=None, seed=0):
    g = torch.Generator(device=dev).manual_seed(seed)
    rnd = lambda *s: torch.randn(*s, generator=g, device=dev).to(dt).to(f64)
    q, k, v = rnd(B, H, Sq, D), rnd(B, Hkv, Sk, D), rnd(B, Hkv, Sk, Dv)
    m = rnd(1, H, Sq, Sk) if mask else None
    if m is not None:
        m[..., ::7] = -math.inf
    scale64 = scale if scale is not None else 1.0 / math.sqrt(D)
    scale64 = float(torch.tensor(scale64, dtype=torch.float32)) if scale is not None else scale64
    lens = torch.tensor(kv_lengths, dtype=torch.int32, device=dev) if kv_lengths else None
    leaves = [q, k, v] + ([m] if m is not None else [])
    for t in leaves:
        t.requires_grad_(True)
    o, lse = attention64(q, k, v, m, scale64, causal, window, softcap, lens)
    do = rnd(*o.shape)
    grads = torch.autograd.grad((o * do).sum(), leaves)
    args = [q.detach().to(dt), k.detach().to(dt), v.detach().to(dt), o.detach().to(dt),
            do.to(dt), lse.float()]
    if m is not None:
        args.append(m.detach().to(dt))
    if lens is not None:
        args.append(lens)
    with torch.no_grad():
        out = getattr(lib, name)(*args)
    torch.cuda.synchronize()
    ok = True
    for what, got, ref in zip(["dq", "dk", "dv", "dmask"], out, grads):
        e = relerr(got, ref)
        good = e <= TOL[dt] and torch.isfinite(got).all().item()
        ok &= good
        print("%s/%s: relerr %.3e tol %.0e %s" % (name, what, e, TOL[dt], "ok" if good else "FAIL"))
    return ok


def softmax_case(lib, seed=0):
    g = torch.Generator(device=dev).manual_seed(seed)
    x = torch.randn(64, 1000, generator=g, device=dev, dtype=f64).requires_grad_(True)
    y = torch.softmax(x, -1)
    dy = torch.randn(64, 1000, generator=g, device=dev).half().to(f64)
    y16 = y.detach().half()
    # The reference from the rounded Y: dX = Y (dY - sum(Y dY)).
    y64 = y16.to(f64)
    ref = y64 * (dy - (y64 * dy).sum(-1, keepdim=True))
    with torch.no_grad():
        got = lib.softmax_grad_f16(y16, dy.half())
    e = relerr(got, ref)
    good = e <= TOL[torch.float16]
    print("softmax_grad_f16/dx: relerr %.3e tol %.0e %s" % (e, TOL[torch.float16], "ok" if good else "FAIL"))
    return good


def main():
    lib = tx.load(os.path.join(sys.argv[1], "libgrad_cases.so"))
    ok = attention_case(lib, "grad_f16_causal_gqa", torch.float16, 1, 8, 2, 128, 128, 64, 64,
                        causal=True, seed=1)
    ok &= attention_case(lib, "grad_bf16_softcap", torch.bfloat16, 2, 4, 4, 64, 96, 128, 128,
                         causal=True, softcap=30.0, seed=2)
    ok &= attention_case(lib, "grad_f32_mask", torch.float32, 2, 4, 1, 33, 47, 32, 24,
                         scale=0.2, mask=True, seed=3)
    ok &= attention_case(lib, "grad_f16_window_lengths", torch.float16, 3, 2, 2, 40, 72, 64, 64,
                         window=(16, 0), kv_lengths=[72, 0, 31], seed=4)
    ok &= softmax_case(lib, seed=5)
    print("check_grads: %s" % ("all ok" if ok else "FAILED"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
