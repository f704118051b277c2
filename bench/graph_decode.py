#!/usr/bin/env python3
"""Per-call time of tx's split-KV decode kernel and SDPA's cuDNN backend in
one CUDA graph of 20 calls each (f16, H 32, D 128, Sq 1), for the short-cache
rows of issue #17 (bench/RESULTS.md sessions 16 and 19). Every library (the
`dec_gqa_f16` / `dec_mha_f16` functions of bench/decode_shapes.mlir) and
cuDNN are timed on the same tensors, in turn, several rounds; the median of
the rounds is printed.

  PYTHONPATH=python python3 bench/graph_decode.py LIB [NAME=LIB ...] \\
      [--shape B:Hkv:Sk ...] [--rounds N]"""
import argparse
import statistics

import torch
import torch.nn.functional as F
import tx
from torch.nn.attention import SDPBackend, sdpa_kernel


def graph_of(call, stream, calls=20):
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        with torch.cuda.stream(stream):
            for _ in range(3):
                call()
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=stream):
            for _ in range(calls):
                call()
    torch.cuda.synchronize()
    for _ in range(3):
        g.replay()
    torch.cuda.synchronize()
    return g


def time_graph(g, calls=20, replays=10):
    st = torch.cuda.Event(enable_timing=True)
    en = torch.cuda.Event(enable_timing=True)
    st.record()
    for _ in range(replays):
        g.replay()
    en.record()
    torch.cuda.synchronize()
    return st.elapsed_time(en) * 1000 / (calls * replays)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("libs", nargs="+", help="LIB or NAME=LIB")
    ap.add_argument("--shape", action="append", default=[], help="B:Hkv:Sk")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    libs = []
    for i, s in enumerate(args.libs):
        name, _, path = s.rpartition("=")
        libs.append((name or "tx%d" % i, tx.load(path)))
    shapes = args.shape or ["1:8:2048", "1:8:8192", "1:32:2048", "1:32:8192"]
    torch.manual_seed(0)
    for s in shapes:
        b, hkv, sk = (int(x) for x in s.split(":"))
        q = torch.randn(b, 32, 1, 128, device="cuda", dtype=torch.float16)
        k = torch.randn(b, hkv, sk, 128, device="cuda", dtype=torch.float16)
        v = torch.randn(b, hkv, sk, 128, device="cuda", dtype=torch.float16)
        with sdpa_kernel(SDPBackend.MATH):
            ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                 enable_gqa=hkv != 32)
        stream = torch.cuda.Stream()
        calls = []
        for name, lib in libs:
            f = lib.dec_gqa_f16 if hkv == 8 else lib.dec_mha_f16
            out = torch.empty_like(q)
            f(q, k, v, out=out)
            torch.cuda.synchronize()
            err = ((out.float() - ref).norm() / ref.norm()).item()
            calls.append((name, err, lambda f=f, out=out: f(q, k, v, out=out)))
        calls.append(("cudnn", float("nan"), lambda: F.scaled_dot_product_attention(
            q, k, v, enable_gqa=hkv != 32)))
        graphs = [(n, e, graph_of(c, stream)) for n, e, c in calls]
        times = {n: [] for n, _, _ in graphs}
        for _ in range(args.rounds):
            for n, _, g in graphs:
                times[n].append(time_graph(g))
        cud = statistics.median(times["cudnn"])
        for n, e, _ in graphs:
            t = statistics.median(times[n])
            print("B%d Hkv%d Sk%d %-10s us per call %7.2f  cudnn/this %.3f  rel err %.1e"
                  % (b, hkv, sk, n, t, cud / t, e), flush=True)


if __name__ == "__main__":
    main()
