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

The libraries are called through the python/tx package (lib.<fn>(x, out=o):
the _on_stream entry point on torch.cuda.current_stream(), which a CUDA
graph captures). --dry-run (no GPU) checks that every library has its
manifest and every entry point the run calls, with the sizes it calls it
with, and exits.
"""
import argparse
import json
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import check  # noqa: E402  (the float64 reference; puts python/ on sys.path)
import tx  # noqa: E402

SHAPES = [(32768, 1024), (8192, 4096), (4096, 32768), (65536, 128), (1024, 50257)]
DTYPES = {"f32": torch.float32, "f16": torch.float16}
L2_BYTES = 60 * 2**20


def time_events(fn, iters, warmup, rotate):
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
        for i in range(iters):
            fn(i % rotate)
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


def dry_run(paths, shapes):
    """--dry-run: every library's manifest has every entry point the run
    calls, callable by the package, with an f32/f16 [R, N] argument and
    result of the shape's sizes. Returns the exit status."""
    bad = []
    for v, path in paths.items():
        try:
            fns = tx.read_manifest(path).functions
            if not os.path.exists(path):
                raise tx.TxError("%s: no such library" % path)
        except tx.TxError as e:
            bad.append(str(e))
            continue
        for (r, n) in shapes:
            for dname in DTYPES:
                fn = "softmax_%dx%d_%s" % (r, n, dname)
                f = fns.get(fn)
                sig = None if f is None else (
                    [(a.element_type, a.shape) for a in f.arguments + f.results],
                    f.unsupported, f.symbols.get("on_stream"))
                if sig != ([(dname, (r, n))] * 2, None, "_mlir_ciface_%s_on_stream" % fn):
                    bad.append("%s: %s: %s" % (path, fn, "missing" if f is None else f.signature()))
        print("%-10s %s: %d entry points" % (v, path, len(fns)))
    for b in bad:
        print("MISSING/WRONG", b)
    print("softmax_bench --dry-run: %d libraries, %d entry points each checked, %s" % (
        len(paths), len(shapes) * len(DTYPES), "%d problems" % len(bad) if bad else "all present"))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib-dir", required=True)
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--simple-iters", type=int, default=5)
    ap.add_argument("--no-simple", action="store_true",
                    help="leave out the reference-mapping library (softmax_simple): it is "
                         "slow on long rows and its column is then left empty")
    ap.add_argument("--out")
    ap.add_argument("--shapes", help="comma-separated RxN subset of the shapes (default all)")
    ap.add_argument("--dry-run", action="store_true",
                    help="no GPU: check the libraries' manifests for every entry point the run "
                         "calls, and exit")
    args = ap.parse_args()
    shapes = SHAPES
    if args.shapes:
        want = set(args.shapes.split(","))
        shapes = [s for s in SHAPES if "%dx%d" % s in want]
    variants = sorted(d[len("softmax_"):] for d in os.listdir(args.lib_dir)
                      if d.startswith("softmax_") and d != "softmax_simple")
    variants.remove("fast")
    variants.insert(0, "fast")
    # The reference mapping (softmax_simple), unless --no-simple.
    simple = [] if args.no_simple else ["simple"]
    paths = {v: os.path.join(args.lib_dir, "softmax_" + v, "libsoftmax_shapes.so")
             for v in variants + simple}
    if args.dry_run:
        sys.exit(dry_run(paths, shapes))
    torch.cuda.init()
    dev = torch.cuda.get_device_name()
    libs = {}
    for v, path in paths.items():
        try:
            libs[v] = tx.load(path)
        except tx.TxError as e:
            sys.exit("softmax_bench: %s" % e)
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
            # Correctness first: a -inf row and a huge logit planted, output
            # poisoned, each call waited for.
            x = xs[0].clone()
            x[0].fill_(float("-inf"))
            x[1, 7] = 1e4 if dt == torch.float32 else 6e4
            ref = check.ref_softmax(x)
            row = {"shape": "%dx%d" % (r, n), "dtype": dname, "rows": r, "variants": {}}
            for v in variants + simple:
                o = torch.full_like(x, float("nan"))
                try:
                    check.call(libs[v], fn, [x], o)
                    res = check.compare(o, ref, check.TOL[dt])
                except (tx.TxError, RuntimeError) as e:
                    print(v, "ERROR", e)
                    res = {"pass": False, "rel_err": float("nan")}
                entry = libs[v][fn]
                call = lambda i: entry(xs[i], out=outs[i])
                if v == "simple":
                    # Synchronous calls on PyTorch's stream (it has
                    # temporaries): each call, then a wait for the stream.
                    cur = torch.cuda.current_stream()
                    t = time_each(lambda i: (call(i), cur.synchronize()), args.simple_iters, 1,
                                  rotate)
                else:
                    # Enqueued on the current (in the graph: capturing)
                    # PyTorch stream; returns without waiting.
                    t = time_events(call, args.iters, 20, rotate)
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
                row["elementwise_GBs"], row["variants"].get("simple", {}).get("GBs", float("nan")),
                {True: "pass", False: "FAIL", None: "-"}[row["variants"].get("simple", {}).get("check")],
                " ".join("%s=%.0f" % (v, w["GBs"]) for v, w in row["variants"].items())), flush=True)
            del xs, outs
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
            w["variants"].get("simple", {}).get("GBs", float("nan")),
            f["GBs"] / w["variants"].get("simple", {}).get("GBs", float("nan"))))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump({"device": dev, "torch": torch.__version__, "copy_GBs": copy_bw / 1e9, "rows": rows}, fh, indent=1)
    sys.exit(0 if all(w["check"] for w in rows) else 1)


if __name__ == "__main__":
    main()
