#!/usr/bin/env python3
"""Attention backward benchmark (issue #40): tx's backward against PyTorch
SDPA's flash and cuDNN backends, same process, same timing.

    bash scripts/tx-compile.sh bench/grad_shapes.mlir OUT chip=sm_90a attention-grad-kernels=true
    python3 bench/grad_bench.py OUT [--iters 20] [--only f16]

For each shape (the attention benchmark's 8 prefill shapes, f16 and bf16,
and Llama-3-8B's GQA 32/8): Q, K, V random normal, the forward run once with
requires_grad, then `torch.autograd.grad(O, (Q, K, V), dO, retain_graph=True)`
timed: back-to-back CUDA events around each call, median of --iters calls
after 3 warm-up calls. tx's backward is the library's `<fn>__tx_bwd` entry
point through python/tx autograd (Δ = rowsum(dO ∘ O), the dK/dV and dQ
kernels, the roundings); SDPA's is its own autograd node. TFLOP/s counts
2.5x the forward's 4·B·H·Sq·Sk·D FLOPs (half of them with causal). Before
timing, each tx result is compared with SDPA's (relative error of dQ, dK, dV
in f32; printed).
"""
import math
import os
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tx  # noqa: E402

# (B, H, Hkv, S, D, causal)
SHAPES = [(16, 12, 12, 1024, 64, c) for c in (False, True)] + \
         [(4, 16, 16, 4096, 64, c) for c in (False, True)] + \
         [(4, 16, 16, 4096, 128, c) for c in (False, True)] + \
         [(1, 32, 32, 16384, 128, c) for c in (False, True)] + \
         [(1, 32, 8, 4096, 128, True)]  # Llama-3-8B GQA


def timed(fn, iters):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def relerr(x, r):
    return float((x.float() - r.float()).norm() / r.float().norm().clamp_min(1e-30))


def main():
    argv = sys.argv[1:]
    lib = tx.load(os.path.join(argv[0], "libgrad_shapes.so"))
    iters = int(argv[argv.index("--iters") + 1]) if "--iters" in argv else 20
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    print("%-34s %9s %9s %9s | %7s %7s %7s | %6s %6s | %s" % (
        "shape", "tx ms", "flash ms", "cudnn ms", "tx TF", "fl TF", "cu TF", "x fl", "x cu", "err vs flash (dq dk dv)"))
    for dt in (torch.float16, torch.bfloat16):
        dname = "f16" if dt == torch.float16 else "bf16"
        if only and only != dname:
            continue
        for (B, H, Hkv, S, D, causal) in SHAPES:
            fn = getattr(lib, "attn_%s_d%d%s" % (dname, D, "_causal" if causal else ""))
            g = torch.Generator(device="cuda").manual_seed(S + D + H)
            q = torch.randn(B, H, S, D, device="cuda", generator=g).to(dt).requires_grad_()
            k = torch.randn(B, Hkv, S, D, device="cuda", generator=g).to(dt).requires_grad_()
            v = torch.randn(B, Hkv, S, D, device="cuda", generator=g).to(dt).requires_grad_()
            do = torch.randn(B, H, S, D, device="cuda", generator=g).to(dt)
            o_tx = fn(q, k, v)
            bwd_tx = lambda: torch.autograd.grad(o_tx, (q, k, v), do, retain_graph=True)
            res, grads = {}, {}
            for name, be in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)):
                try:
                    with sdpa_kernel(be):
                        o = F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                           enable_gqa=H != Hkv)
                    f = lambda o=o: torch.autograd.grad(o, (q, k, v), do, retain_graph=True)
                    grads[name] = f()
                    res[name] = timed(f, iters)
                    del o
                except RuntimeError as e:
                    res[name] = float("nan")
                    print("  %s: %s" % (name, str(e).splitlines()[0][:100]))
            got = bwd_tx()
            errs = [relerr(x, r) for x, r in zip(got, grads.get("flash", got))]
            t_tx = timed(bwd_tx, iters)
            flops = 2.5 * 4 * B * H * S * S * D * (0.5 if causal else 1.0)
            tf = lambda ms: flops / (ms * 1e-3) / 1e12
            label = "%s B%d H%d/%d S%d D%d%s" % (dname, B, H, Hkv, S, D, " causal" if causal else "")
            print("%-34s %9.3f %9.3f %9.3f | %7.1f %7.1f %7.1f | %6.3f %6.3f | %s" % (
                label, t_tx, res["flash"], res["cudnn"], tf(t_tx), tf(res["flash"]), tf(res["cudnn"]),
                res["flash"] / t_tx, res["cudnn"] / t_tx, " ".join("%.1e" % e for e in errs)))
            sys.stdout.flush()
            del o_tx, got, grads
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
