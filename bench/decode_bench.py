#!/usr/bin/env python3
"""Decode-time attention (issue #17): tx's split-KV decode kernels against
PyTorch SDPA's flash, cuDNN and efficient backends, same process, same
timing: N launches captured in one CUDA graph, median over replays after
warm-up. Also the KV bytes read per second against a device-to-device copy
of the same size.

  PYTHONPATH=python python3 bench/decode_bench.py --lib build/bench-decode/libdecode_shapes.so

Each row is first checked against SDPA's math backend in float32 (max
abs error printed); rows that do not fit in memory are skipped."""
import argparse, math, statistics, sys
import torch
import torch.nn.functional as F
import tx

ROWS = []
for dt in ("f16", "bf16"):
    for hkv in (8, 32):
        for b in (1, 8, 64):
            for sk in (2048, 8192, 32768, 131072):
                ROWS.append((dt, b, 32, hkv, 1, sk))
ROWS.append(("f16", 8, 32, 8, 4, 8192))


def fn_of(dt, h, hkv, sq):
    if sq == 4:
        return "dec_sq4_gqa_f16"
    return "dec_%s_%s" % ("gqa" if hkv == 8 else "mha", dt)


def graph_time_us(fn, iters, reps, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(iters):
            fn()
    for _ in range(3):  # warm-up replays (the first ones map the graph's memory)
        g.replay()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        g.replay()
        e.record()
        torch.cuda.synchronize()
        ts.append(s.elapsed_time(e) * 1e3 / iters)
    del g
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--only", action="append", default=[],
                    help="run rows whose label (e.g. 'f16 B8 32/8 Sq1 Sk8192') contains this (repeatable: any)")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=LIB",
                    help="also time this library's kernels (same functions), printed after the table row")
    args = ap.parse_args()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    lib = tx.load(args.lib)
    variants = [(v.split("=", 1)[0], tx.load(v.split("=", 1)[1])) for v in args.variant]
    dev = "cuda"
    print("device:", torch.cuda.get_device_name(), "torch", torch.__version__)
    print("timing: %d launches per CUDA graph, median of %d replays (us per launch)" % (args.iters, args.reps))
    hdr = "| dtype | B | H/Hkv | Sq | Sk | tx us | flash us | cuDNN us | efficient us | best SDPA | tx/best | tx KV TB/s | copy TB/s | max abs err |"
    print(hdr)
    print("|" + "---|" * (hdr.count("|") - 1))
    gen = torch.Generator(device=dev).manual_seed(0)
    for (dt, b, h, hkv, sq, sk) in ROWS:
        label = "%s B%d %d/%d Sq%d Sk%d" % (dt, b, h, hkv, sq, sk)
        if args.only and not any(o in label for o in args.only):
            continue
        dtype = torch.float16 if dt == "f16" else torch.bfloat16
        d = 128
        kv_bytes = 2 * b * hkv * sk * d * 2
        if kv_bytes * 2.5 > torch.cuda.mem_get_info()[0]:
            print("| %s | %d | %d/%d | %d | %d | skipped (does not fit) |" % (dt, b, h, hkv, sq, sk))
            continue
        q = torch.randn((b, h, sq, d), device=dev, dtype=dtype, generator=gen)
        k = torch.randn((b, hkv, sk, d), device=dev, dtype=dtype, generator=gen)
        v = torch.randn((b, hkv, sk, d), device=dev, dtype=dtype, generator=gen)
        out = torch.empty((b, h, sq, d), device=dev, dtype=dtype)
        causal = sq > 1
        f = getattr(lib, fn_of(dt, h, hkv, sq))
        f(q, k, v, out=out)
        torch.cuda.synchronize()
        # Reference: SDPA math in float32 (bottom-right causal for Sq > 1),
        # on the first sequence of the batch (the whole batch does not fit
        # in float32 at B = 64, Sk = 131072).
        with sdpa_kernel(SDPBackend.MATH):
            mask = None
            if causal:
                i = torch.arange(sq, device=dev)[:, None]
                j = torch.arange(sk, device=dev)[None, :]
                mask = j <= i + (sk - sq)
            ref = F.scaled_dot_product_attention(q[:1].float(), k[:1].float(), v[:1].float(), attn_mask=mask,
                                                 enable_gqa=hkv != h)
        err = (out[:1].float() - ref).abs().max().item()
        t_tx = graph_time_us(lambda: f(q, k, v, out=out), args.iters, args.reps)
        res = {}
        for name, be in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION),
                         ("efficient", SDPBackend.EFFICIENT_ATTENTION)):
            try:
                with sdpa_kernel(be):
                    if causal:
                        # bottom-right causal as an explicit mask (SDPA's
                        # is_causal is top-left)
                        call = lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=hkv != h)
                    else:
                        call = lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=hkv != h)
                    call()
                    torch.cuda.synchronize()
                    res[name] = graph_time_us(call, args.iters, args.reps)
            except Exception as ex:
                res[name] = None
        extra = []
        for name, vlib in variants:
            vf = getattr(vlib, fn_of(dt, h, hkv, sq))
            vf(q, k, v, out=out)
            torch.cuda.synchronize()
            verr = (out[:1].float() - ref).abs().max().item()
            extra.append("%s %.1f us (err %.3g)" % (name, graph_time_us(lambda: vf(q, k, v, out=out), args.iters, args.reps), verr))
        src = torch.empty(kv_bytes // 2, dtype=torch.float16, device=dev)
        dst = torch.empty_like(src)
        t_copy = graph_time_us(lambda: dst.copy_(src), args.iters, args.reps)
        del src, dst
        copy_tbs = 2 * kv_bytes / (t_copy * 1e-6) / 1e12  # read + write
        best = min([x for x in res.values() if x is not None], default=None)
        fmt = lambda x: "%.1f" % x if x is not None else "n/a"
        print("| %s | %d | %d/%d | %d | %d | %.1f | %s | %s | %s | %s | %s | %.2f | %.2f | %.3g |" % (
            dt, b, h, hkv, sq, sk, t_tx, fmt(res["flash"]), fmt(res["cudnn"]), fmt(res["efficient"]),
            fmt(best), ("%.2f" % (best / t_tx)) if best else "n/a", kv_bytes / (t_tx * 1e-6) / 1e12, copy_tbs, err))
        if extra:
            print("    variants: " + "; ".join(extra))
        sys.stdout.flush()
        del q, k, v, out, ref
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
