#!/usr/bin/env python3
"""Softmax benchmark: tx (fast and simple strategies) beside torch.softmax, in
one process on one GPU.

    python3 bench/softmax_bench.py --lib-dir build/bench [--iters 200]

For every shape and dtype: check tx's output against a float64 reference
first (random inputs with a -inf row and a 1e4 logit planted), then time with
CUDA events, median of --iters launches after warm-up, rotating among enough
input/output buffers that L2 (60 MB on an H200) cannot hold them. GB/s counts
one read and one write of the tensor. The device-copy bandwidth is measured in
the same run (a 2 GiB device-to-device copy, bytes read + written).
"""
import argparse
import ctypes
import json
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import check  # noqa: E402  (ABI helpers and the float64 reference)

SHAPES = [(32768, 1024), (8192, 4096), (4096, 32768), (65536, 128), (1024, 50257)]
DTYPES = {"f32": torch.float32, "f16": torch.float16}
L2_BYTES = 60 * 2**20


def time_events(fn, iters, warmup, rotate, set_stream=None):
    """Median time of one launch of fn, in seconds. The launches are captured
    into a CUDA graph (`iters` of them, rotating over the buffers) and the
    graph is replayed 7 times; each replay gives the mean launch time, and the
    median of those is returned. Graph replay keeps host launch overhead
    (Python, ctypes) out of GPU timings for both tx and PyTorch. The mean
    counts the gaps between consecutive kernels (launch latency, ramp-up,
    drain), which weigh most on small tensors. (Timing each launch with its
    own pair of event-record nodes inside the graph gave lower numbers for
    every kernel, 5-20% on the 16-32 MB tensors: the event nodes add their
    own gaps; bench/softmax-2026-11-29-s4-per-launch-events.log.)"""
    for i in range(warmup):
        fn(i % rotate)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        if set_stream:
            set_stream(torch.cuda.current_stream().cuda_stream)
        for i in range(iters):
            fn(i % rotate)
        if set_stream:
            set_stream(None)
    g.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(7):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        g.replay()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) * 1e-3 / iters)
    return statistics.median(times)


def time_each(fn, iters, warmup, rotate):
    """Median of per-launch CUDA event timings (for synchronous calls)."""
    for i in range(warmup):
        fn(i % rotate)
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for i in range(iters):
        starts[i].record()
        fn(i % rotate)
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends)) * 1e-3


def copy_bandwidth(iters):
    n = 2**30 // 4
    a = torch.empty(n, device="cuda", dtype=torch.float32).uniform_()
    b = torch.empty_like(a)
    # Per-launch events, not a graph: a captured copy_ becomes a memcpy node
    # that runs on the copy engines, slower than the copy kernel.
    t = time_each(lambda i: b.copy_(a), iters, 10, 1)
    return 2 * a.numel() * 4 / t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib-dir", required=True)
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--simple-iters", type=int, default=5)
    ap.add_argument("--out")
    ap.add_argument("--shapes", help="comma-separated RxN subset of the shapes (default all)")
    args = ap.parse_args()
    shapes = SHAPES
    if args.shapes:
        want = set(args.shapes.split(","))
        shapes = [s for s in SHAPES if "%dx%d" % s in want]
    torch.cuda.init()
    dev = torch.cuda.get_device_name()
    variants = sorted(d[len("softmax_"):] for d in os.listdir(args.lib_dir)
                      if d.startswith("softmax_") and d != "softmax_simple")
    variants.remove("fast")
    variants.insert(0, "fast")
    libs = {v: check.Library(os.path.join(args.lib_dir, "softmax_" + v, "libsoftmax_shapes.so"))
            for v in variants + ["simple"]}
    rt = libs["fast"].rt
    stream = torch.cuda.current_stream().cuda_stream
    copy_bw = copy_bandwidth(50)
    print("device: %s | torch %s | device copy %.0f GB/s | variants: %s" % (
        dev, torch.__version__, copy_bw / 1e9, " ".join(variants)))
    rows = []
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234)
    for (r, n) in shapes:
        for dname, dt in DTYPES.items():
            fn = "softmax_%dx%d_%s" % (r, n, dname)
            nbytes = r * n * dt.itemsize
            rotate = max(2, -(-4 * L2_BYTES // nbytes))
            xs = [check.rand((r, n), dt, gen, -8, 8) for _ in range(rotate)]
            outs = [torch.empty_like(x) for x in xs]
            descs = [(check.descriptor(xs[i]), check.descriptor(outs[i])) for i in range(rotate)]
            # Correctness first: a -inf row and a huge logit planted, output
            # poisoned, synchronous calls.
            x = xs[0].clone()
            x[0].fill_(float("-inf"))
            x[1, 7] = 1e4 if dt == torch.float32 else 6e4
            ref = check.ref_softmax(x)
            row = {"shape": "%dx%d" % (r, n), "dtype": dname, "rows": r, "variants": {}}
            for v in variants + ["simple"]:
                o = torch.full_like(x, float("nan"))
                try:
                    libs[v].call(fn, [x], o)
                    res = check.compare(o, ref, check.TOL[dt])
                except RuntimeError as e:
                    print(v, "ERROR", e)
                    res = {"pass": False, "rel_err": float("nan")}
                entry = getattr(libs[v].lib, "_mlir_ciface_" + fn)
                call = lambda i: entry(ctypes.byref(descs[i][0]), ctypes.byref(descs[i][1]))
                if v == "simple":
                    # Synchronous calls on PyTorch's stream (it has temporaries).
                    rt.txRuntimeSetStream(stream, 0)
                    t = time_each(call, args.simple_iters, 1, rotate)
                    rt.txRuntimeSetStream(None, 0)
                else:
                    # Enqueue on the (capturing) PyTorch stream and return.
                    rt.txRuntimeSetStream(stream, 1)
                    t = time_events(call, args.iters, 20, rotate,
                                    set_stream=lambda st: rt.txRuntimeSetStream(st, 1 if st else 0))
                    rt.txRuntimeSetStream(None, 0)
                row["variants"][v] = {"check": res["pass"], "rel_err": res["rel_err"],
                                      "us": t * 1e6, "GBs": 2 * nbytes / t / 1e9}
            t_torch = time_events(lambda i: torch.softmax(xs[i], dim=-1), args.iters, 20, rotate)
            row["torch_GBs"] = 2 * nbytes / t_torch / 1e9
            row["torch_us"] = t_torch * 1e6
            # The same traffic through an elementwise kernel (x * 1, one read
            # and one write), timed the same way: what a launch of this size
            # can reach, launch gaps and ramp-up included.
            t_ew = time_events(lambda i: torch.mul(xs[i], 1.0, out=outs[i]), args.iters, 20, rotate)
            row["elementwise_GBs"] = 2 * nbytes / t_ew / 1e9
            good = {v: w for v, w in row["variants"].items() if w["check"] and v != "simple"}
            best = max(good, key=lambda v: good[v]["GBs"]) if good else "fast"
            row["best"] = best
            f = row["variants"]["fast"]
            # The simple (reference) mapping's own check is reported apart:
            # it sums long f32 rows sequentially (bench/RESULTS.md).
            row["check"] = all(w["check"] for v, w in row["variants"].items() if v != "simple")
            rows.append(row)
            print("%-12s %-4s %s | fast %6.0f GB/s x%.2f (%.2f of copy) | best %-7s %6.0f GB/s x%.2f | torch %6.0f | x*1 %6.0f | simple %5.0f (check %s) | %s" % (
                row["shape"], dname, "ok  " if row["check"] else "FAIL", f["GBs"], f["GBs"] / row["torch_GBs"],
                f["GBs"] * 1e9 / copy_bw, best, row["variants"][best]["GBs"],
                row["variants"][best]["GBs"] / row["torch_GBs"], row["torch_GBs"],
                row["elementwise_GBs"], row["variants"]["simple"]["GBs"],
                "pass" if row["variants"]["simple"]["check"] else "FAIL",
                " ".join("%s=%.0f" % (v, w["GBs"]) for v, w in row["variants"].items())), flush=True)
            del xs, outs, descs
            torch.cuda.empty_cache()
    print()
    print("| shape | dtype | check | tx GB/s (default) | torch GB/s | tx / torch | tx / copy | x*1 GB/s (same size) | x*1 / copy | best forced mapping (GB/s) | simple GB/s | default / simple |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for w in rows:
        f = w["variants"]["fast"]
        b = w["variants"][w["best"]]
        print("| %s | %s | %s (%.1e) | %.0f | %.0f | %.2f | %.2f | %.0f | %.2f | %s (%.0f) | %.0f | %.0fx |" % (
            w["shape"], w["dtype"], "pass" if w["check"] else "FAIL", f["rel_err"], f["GBs"],
            w["torch_GBs"], f["GBs"] / w["torch_GBs"], f["GBs"] * 1e9 / copy_bw,
            w["elementwise_GBs"], w["elementwise_GBs"] * 1e9 / copy_bw, w["best"], b["GBs"],
            w["variants"]["simple"]["GBs"], f["GBs"] / w["variants"]["simple"]["GBs"]))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump({"device": dev, "torch": torch.__version__, "copy_GBs": copy_bw / 1e9, "rows": rows}, fh, indent=1)
    sys.exit(0 if all(w["check"] for w in rows) else 1)


if __name__ == "__main__":
    main()
