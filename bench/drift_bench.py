#!/usr/bin/env python3
"""Mean signed error of attention outputs (issue #38): tx libraries beside
PyTorch SDPA's backends, on the same inputs in one process.

    python3 bench/drift_bench.py --lib NAME=DIR [--lib NAME=DIR ...]

Each DIR holds libdrift_shapes.so (scripts/tx-compile.sh
bench/drift_shapes.mlir DIR [chip=...]). Inputs as harness/check.py's drift
cases: Q = randn with Q[..., 0] = 4, K = 0.5 randn with K[j, 0] = 8 j / Sk
(logits rise along the keys), V = 3 + 0.5 randn, scale 0.0721. For every
output: out - (float64 reference rounded to the output type); the table
gives its mean (the systematic part; "ulp" = that mean over the ulp of 3)
and the relative L2 error. SDPA runs with each backend forced
(sdpa_kernel); "flash xH" repeats the single head H times, so that
FlashAttention-2 has enough CTAs not to split the keys (its split-KV path
is taken for few CTAs), to show whether the split is what keeps it unbiased.

--time also times every call (same process, same inputs): 3 warm-up calls,
then 11 repetitions of 10 back-to-back calls between two CUDA events; the
median per call, in a second table.
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "harness"))

CASES = [  # (function, label, B, H, Hkv, Sq, Sk, D, dtype, causal)
    ("drift_f16", "rising logits", 1, 1, 1, 128, 131072, 128, "f16", False),
    ("drift_bf16", "rising logits", 1, 1, 1, 128, 131072, 128, "bf16", False),
    ("drift_f32", "rising logits", 1, 1, 1, 128, 131072, 128, "f32", False),
    ("drift_causal_f16", "causal GQA", 1, 4, 1, 256, 65536, 64, "f16", True),
    ("drift_dec_f16", "decode GQA", 1, 32, 8, 1, 131072, 128, "f16", False),
    ("drift_dec1_f16", "decode GQA 1 split", 1, 32, 8, 1, 131072, 128, "f16", False),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--heads", type=int, default=32, help="heads of the 'flash xH' rows")
    ap.add_argument("--time", action="store_true", help="also time every call (second table)")
    args = ap.parse_args()
    import torch
    import check
    from torch.nn.attention import sdpa_kernel, SDPBackend
    tx = check.tx
    dev = "cuda"
    dts = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
    ulp3 = {"f16": 2.0 ** -9, "bf16": 2.0 ** -6, "f32": 2.0 ** -22}
    libs = []
    for spec in args.lib:
        name, _, d = spec.partition("=")
        libs.append((name, tx.load(os.path.join(d, "libdrift_shapes.so"))))
    backends = [("sdpa_flash", SDPBackend.FLASH_ATTENTION), ("sdpa_cudnn", SDPBackend.CUDNN_ATTENTION),
                ("sdpa_efficient", SDPBackend.EFFICIENT_ATTENTION)]
    times = []

    def timed(label, dname, who, call):
        if not args.time:
            return
        for _ in range(3):
            call()
        ms = []
        for _ in range(11):
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            for _ in range(10):
                call()
            e1.record()
            torch.cuda.synchronize()
            ms.append(e0.elapsed_time(e1) / 10)
        times.append((label, dname, who, sorted(ms)[len(ms) // 2]))

    print("| case | dtype | who | mean signed err | ulp of 3 | rel L2 err |")
    print("|---|---|---|---|---|---|")
    for fn, label, b, h, hkv, sq, sk, d, dname, causal in CASES:
        dt = dts[dname]
        g = torch.Generator(device=dev)
        g.manual_seed(38 + sk + h)
        q = torch.randn((b, h, sq, d), generator=g, device=dev)
        q[..., 0] = 4
        k = 0.5 * torch.randn((b, hkv, sk, d), generator=g, device=dev)
        k[..., 0] = 8 * torch.arange(sk, device=dev, dtype=torch.float32) / sk
        v = 3 + 0.5 * torch.randn((b, hkv, sk, d), generator=g, device=dev)
        q, k, v = q.to(dt), k.to(dt), v.to(dt)
        ref = check.ref_attention(q, k, v, causal=causal, scale=0.0721)
        refr = ref if dt == torch.float32 else ref.to(dt).double()

        def row(who, out):
            err = out.double() - refr
            mean = float(err.mean())
            rel = float(torch.linalg.vector_norm(out.double() - ref) / torch.linalg.vector_norm(ref))
            print("| %s %s | %s | %s | %.3e | %+.3f | %.2e |" % (
                label, "B%d H%d/%d Sq%d Sk%d D%d" % (b, h, hkv, sq, sk, d), dname, who, mean,
                mean / ulp3[dname], rel), flush=True)

        for name, lib in libs:
            out = torch.full((b, h, sq, d), float("nan"), dtype=dt, device=dev)
            try:
                getattr(lib, fn)(q, k, v, out=out)
                torch.cuda.synchronize()
                row(name, out)
                timed(label, dname, name, lambda: getattr(lib, fn)(q, k, v, out=out))
            except Exception as e:  # noqa: BLE001 (a library without the function)
                print("| %s | %s | %s | error: %s | | |" % (label, dname, name, e))
        if causal and sq != sk:
            continue  # SDPA's is_causal is top-left: not the same function
        kk = k.repeat_interleave(h // hkv, dim=1)
        vv = v.repeat_interleave(h // hkv, dim=1)
        for name, be in backends:
            try:
                with sdpa_kernel([be]):
                    out = torch.nn.functional.scaled_dot_product_attention(
                        q, kk, vv, is_causal=causal, scale=0.0721)
                torch.cuda.synchronize()
                row(name, out)

                def sdpa(be=be):
                    with sdpa_kernel([be]):
                        torch.nn.functional.scaled_dot_product_attention(
                            q, kk, vv, is_causal=causal, scale=0.0721)
                timed(label, dname, name, sdpa)
            except Exception as e:  # noqa: BLE001 (backend refuses the input)
                print("| %s | %s | %s | n/a (%s) | | |" % (label, dname, name, str(e).split("\n")[0][:60]))
        if h == 1 and dt != torch.float32:
            try:
                with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                    out = torch.nn.functional.scaled_dot_product_attention(
                        q.expand(b, args.heads, sq, d).contiguous(), kk.expand(b, args.heads, sk, d).contiguous(),
                        vv.expand(b, args.heads, sk, d).contiguous(), is_causal=causal, scale=0.0721)
                torch.cuda.synchronize()
                row("sdpa_flash x%dH" % args.heads, out[:, :1])
            except Exception as e:  # noqa: BLE001
                print("| %s | %s | sdpa_flash xH | n/a (%s) | | |" % (label, dname, str(e)[:60]))

    if times:
        print()
        print("| case | dtype | who | ms per call (median) |")
        print("|---|---|---|---|")
        for label, dname, who, ms in times:
            print("| %s | %s | %s | %.3f |" % (label, dname, who, ms))


if __name__ == "__main__":
    main()
