#!/usr/bin/env python3
"""Attention benchmark: tx (flash and naive strategies) beside PyTorch SDPA
(flash and cuDNN backends), in one process on one GPU.

    bash bench/build_attention.sh                  # here, where LLVM is
    python3 bench/attention_bench.py --lib-dir build/bench-attn   # on the GPU

Libraries: <lib-dir>/flash/libattention_shapes.so (attention=flash) and
<lib-dir>/simple/libattention_shapes.so (attention=simple, the naive path that
materializes the Sq x Sk f32 scores), built from bench/attention_shapes.mlir.
Shapes: f16, [B, H, S, D] for Q, K, V and O, Sq == Sk (so PyTorch's top-left
causal mask equals tx's bottom-right one), default scale 1/sqrt(D).

For every shape (non-causal and causal): random inputs (torch.randn, seeded);
tx flash's output (poisoned with NaN first) is CHECKED against a float64
reference, softmax(Q K^T * scale) V computed on the GPU (every query row up to
S = --full-check-max-s, a sample of query rows of every head above that), by
||out - ref|| / ||ref|| <= 2e-3 (harness/check.py's f16 tolerance); the naive
path and the two SDPA backends are compared with the same reference. Then
timing:
  - tx flash and SDPA: --iters launches captured into one CUDA graph (tx
    enqueues on PyTorch's capturing stream: the python/tx package calls the
    _on_stream entry point on torch.cuda.current_stream(), as
    bench/softmax_bench.py does), replayed --reps times after warm-up; each
    replay gives the mean launch time, the median is reported. If a capture
    fails, CUDA events around --iters back-to-back launches instead (said in
    the notes). --max-seconds caps one kernel's timed launches (fewer
    launches are noted). The benchmark reads each function's host code
    (<lib-dir>/flash/attention_shapes.ll, which tx-compile.sh leaves beside
    the library) and, should a flash function allocate temporaries or copy,
    times it with synchronous calls instead (each call followed by a wait
    for the stream; said in the notes).
  - tx naive: synchronous calls (each call, with its device temporaries
    allocated and freed, followed by a wait for PyTorch's stream), CUDA
    events around each call, median of at most --naive-iters calls (fewer
    when one call is slow: --naive-seconds). Skipped when its Sq x Sk f32
    scores would exceed --naive-mem-gb, or do not fit in free device memory,
    or with --no-naive.
TFLOP/s = 4 B H Sq Sk D / time, halved for causal.

The libraries are called through python/tx (lib.<fn>(q, k, v, out=o); the
manifests lib<stem>.json that tx-compile.sh writes must be beside them).
--dry-run (no GPU, no torch) checks that every library the run would load
has its manifest and every entry point it would call, with the shapes it
would call it with, and exits.

Run time: dominated by the slow tx kernels (S = 16384: ~100 flash launches and
a few naive calls of seconds each); with the flash path at ~5 TFLOP/s a full
run takes roughly 5-6 minutes. To stay under a per-command limit, split it:
--only s1024 --only s4096, then --only s16384.
"""
import argparse
import datetime
import json
import math
import os
import platform
import statistics
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STEM = "attention_shapes"

# (B, H, S, D); each non-causal and causal. Must match bench/attention_shapes.mlir.
SHAPES = [
    (16, 12, 1024, 64),    # GPT-2 small
    (4, 16, 4096, 64),
    (4, 16, 4096, 128),
    (1, 32, 16384, 128),
]

# The naive (attention=simple) lowering's device temporaries per call, used
# only when <lib-dir>/simple/attention_shapes.ll (left by tx-compile.sh, which
# host_calls() reads) is missing: as of this writing ONE f32 buffer of
# B*H*Sq*Sk scores (exp and normalization in place), B*H*Sq f32 row
# statistics, the f32 output (B*H*Sq*Dv) and an f16 copy of it.
NAIVE_SCORE_BUFFERS = 1


def fn_name(b, h, s, d, causal):
    return "attn_b%d_h%d_s%d_d%d%s" % (b, h, s, d, "_causal" if causal else "")


def flops(b, h, sq, sk, d, causal):
    f = 4.0 * b * h * sq * sk * d
    return f / 2 if causal else f


def naive_bytes(b, h, sq, sk, d):
    """(score bytes, all temporaries) of one naive call."""
    scores = 4 * b * h * sq * sk * NAIVE_SCORE_BUFFERS
    return scores, scores + 4 * b * h * sq + 4 * b * h * sq * d + 2 * b * h * sq * d


_host_cache = {}


def host_calls(variant_dir, fn):
    """What the host code of `fn` does per call besides launching kernels,
    read from the LLVM IR that tx-compile.sh leaves beside the library
    (<variant_dir>/attention_shapes.ll): {"allocs": [bytes or None (size
    known only at run time)], "copies": number of mgpuMemcpy/mgpuMemset
    calls}; None when the .ll is missing. A function with device temporaries
    or copies is timed with synchronous calls, not in a CUDA graph (the
    method from before the stream-ordered entry points, whose temporaries
    are stream-ordered; kept so that timings stay comparable)."""
    import re
    path = os.path.join(variant_dir, STEM + ".ll")
    if path not in _host_cache:
        bodies = {}
        if os.path.exists(path):
            name, lines = None, []
            with open(path) as fh:
                for line in fh:
                    if line.startswith("define "):
                        m = re.search(r"@([\w.$]+)\(", line)
                        name, lines = (m.group(1) if m else None), []
                        bodies[name] = lines
                    elif name is not None:
                        lines.append(line)
                        if line.startswith("}"):
                            name = None
        _host_cache[path] = bodies if os.path.exists(path) else None
    bodies = _host_cache[path]
    if bodies is None or fn not in bodies:
        return None
    text = "".join(bodies[fn])
    allocs = [int(m.group(1)) if m.group(1) else None
              for m in re.finditer(r"@mgpuMemAlloc\(i64 (?:(\d+)|%[\w.]+)", text)]
    copies = len(re.findall(r"@mgpuMem(?:cpy|set\d+)\(", text))
    return {"allocs": allocs, "copies": copies}


def sample_rows(s, n, seed):
    """Query rows checked when S is too long for a full reference: the edges,
    the middle, and n random ones (seeded)."""
    import random
    fixed = {r for r in (0, 1, 2, 31, 32, 63, 64, 127, 128, s // 2 - 1, s // 2, s - 65, s - 2, s - 1)
             if 0 <= r < s}
    want = min(s, len(fixed) + n)
    rnd = random.Random(seed)
    while len(fixed) < want:
        fixed.add(rnd.randrange(s))
    return sorted(fixed)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.split("\n")[1:]))
    ap.add_argument("--lib-dir", default=os.path.join(ROOT, "build", "bench-attn"),
                    help="directory with flash/ and simple/ from bench/build_attention.sh "
                         "(default: build/bench-attn)")
    ap.add_argument("--only", action="append", default=[],
                    help="run the functions whose name (e.g. attn_b4_h16_s4096_d128_causal) "
                         "contains this; repeatable (any match)")
    ap.add_argument("--no-naive", action="store_true", help="do not run the naive (attention=simple) path")
    ap.add_argument("--iters", type=int, default=20,
                    help="launches per CUDA graph (per timed repetition) for tx flash and SDPA (default 20)")
    ap.add_argument("--reps", type=int, default=5,
                    help="timed repetitions (graph replays); the median is reported (default 5)")
    ap.add_argument("--warmup", type=int, default=3, help="warm-up launches before capture (default 3)")
    ap.add_argument("--max-seconds", type=float, default=150.0,
                    help="cap on one kernel's timed launches (iters*reps*time); iters is reduced "
                         "beyond it and the output says so (default 150)")
    ap.add_argument("--naive-iters", type=int, default=5,
                    help="at most this many timed synchronous naive calls (default 5)")
    ap.add_argument("--naive-seconds", type=float, default=30.0,
                    help="fewer naive calls when they would take longer than this (default 30)")
    ap.add_argument("--naive-mem-gb", type=float, default=60.0,
                    help="skip the naive path when its Sq x Sk f32 scores exceed this many GB (default 60)")
    ap.add_argument("--full-check-max-s", type=int, default=4096,
                    help="check every query row up to this S; a sample of rows above it (default 4096)")
    ap.add_argument("--check-rows", type=int, default=50,
                    help="random query rows (besides edges and middle) checked when sampling (default 50)")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=DIR",
                    help="another tx flash build (DIR/libattention_shapes.so, e.g. other tile options), "
                         "checked and timed like tx flash as tx_NAME (repeatable)")
    ap.add_argument("--out", help="also write the results as JSON here")
    ap.add_argument("--dry-run", action="store_true",
                    help="no GPU: check the manifests of the libraries for every entry point "
                         "the run would call, and exit")
    return ap.parse_args(argv)


def import_tx():
    """python/tx from this checkout (it imports without torch)."""
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import tx
    return tx


def library_paths(args):
    """(kind, key, path) of every library the run loads: ("flash", "tx_flash",
    ...), ("naive", "tx_naive", ...) unless --no-naive or missing, and
    ("variant", "tx_NAME", DIR/...) per --variant. Exits on a malformed
    --variant or a missing flash library, as the run does."""
    fpath = os.path.join(args.lib_dir, "flash", "lib%s.so" % STEM)
    if not os.path.exists(fpath):
        sys.exit("attention_bench: %s is missing (run bash bench/build_attention.sh and carry "
                 "build/bench-attn)" % fpath)
    out = [("flash", "tx_flash", fpath)]
    npath = os.path.join(args.lib_dir, "simple", "lib%s.so" % STEM)
    if not args.no_naive and os.path.exists(npath):
        out.append(("naive", "tx_naive", npath))
    for spec in args.variant:
        name, _, vdir = spec.partition("=")
        vpath = os.path.join(vdir, "lib%s.so" % STEM)
        if not name or not os.path.exists(vpath):
            sys.exit("attention_bench: --variant %s: expected NAME=DIR with DIR/lib%s.so" % (spec, STEM))
        out.append(("variant", "tx_" + name, vpath))
    return out


def dry_run(args):
    """--dry-run: the manifests of the libraries of library_paths() have the
    entry points the run calls (fn_name of SHAPES not excluded by --only),
    callable by the package with f16 [B, H, S, D] q, k, v and result.
    Returns the exit status."""
    tx = import_tx()
    fns = [(fn_name(b, h, s, d, c), (b, h, s, d)) for (b, h, s, d) in SHAPES for c in (False, True)
           if not args.only or any(o in fn_name(b, h, s, d, c) for o in args.only)]
    bad = []
    for kind, key, path in library_paths(args):
        try:
            m = tx.read_manifest(path)
        except tx.TxError as e:
            bad.append(str(e))
            continue
        n = 0
        for fn, shape in fns:
            f = m.functions.get(fn)
            if f is None and kind == "naive":
                continue  # the naive library may lack a function: the run notes it
            sig = None if f is None else (
                [(a.element_type, a.shape) for a in f.arguments + f.results],
                f.unsupported, f.symbols.get("on_stream"))
            if sig != ([("f16", shape)] * 4, None, "_mlir_ciface_%s_on_stream" % fn):
                bad.append("%s: %s: %s" % (path, fn, "missing" if f is None else f.signature()))
            else:
                n += 1
        print("%-14s %s: %d/%d entry points" % (key, path, n, len(fns)))
    for b in bad:
        print("MISSING/WRONG", b)
    print("attention_bench --dry-run: %s" % ("%d problems" % len(bad) if bad else "all present"))
    return 1 if bad else 0


# ----------------------------------------------------------------------------
# Everything below needs torch (imported in main(), so that --help works
# without it).
# ----------------------------------------------------------------------------
torch = None
check = None
tx = None


def reference(q, k, v, causal, rows=None, max_elems=2 ** 28):
    """float64 softmax(Q K^T / sqrt(D)) V for the query rows `rows` (all when
    None), tx semantics (bottom-right causal); chunked over B*H so that at
    most max_elems scores are held at a time."""
    B, H, Sq, D = q.shape
    Sk, Dv = k.shape[2], v.shape[3]
    dev = q.device
    qi = q if rows is None else q[:, :, rows]
    R = qi.shape[2]
    qf, kf, vf = qi.reshape(B * H, R, D), k.reshape(B * H, Sk, D), v.reshape(B * H, Sk, Dv)
    out = torch.empty(B * H, R, Dv, dtype=torch.float64, device=dev)
    qidx = torch.arange(Sq, device=dev) if rows is None else rows
    masked = (torch.arange(Sk, device=dev)[None, :] > qidx[:, None] + (Sk - Sq)) if causal else None
    scale = 1.0 / math.sqrt(D)
    step = max(1, max_elems // max(1, R * Sk))
    for s in range(0, B * H, step):
        e = min(B * H, s + step)
        sc = torch.matmul(qf[s:e].double(), kf[s:e].double().transpose(1, 2)) * scale
        if causal:
            sc.masked_fill_(masked, float("-inf"))
        out[s:e] = torch.matmul(torch.softmax(sc, dim=-1), vf[s:e].double())
        del sc
    return out.reshape(B, H, R, Dv)


def sync_median_ms(fn, n):
    """Median of per-call CUDA event timings (ms) of n calls."""
    ts = []
    for _ in range(n):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        ts.append(s.elapsed_time(e))
    return statistics.median(ts), ts


def time_fast(fn, args):
    """Times fn (asynchronous launches on PyTorch's current stream). Returns
    (ms per launch, launches timed, method, note)."""
    for _ in range(max(1, args.warmup)):
        fn()
    torch.cuda.synchronize()
    t1, _ = sync_median_ms(fn, 1)
    iters = args.iters
    note = ""
    if t1 * 1e-3 * iters * args.reps > args.max_seconds:
        iters = max(1, int(args.max_seconds / (t1 * 1e-3 * args.reps)))
        note = "iters cut to %d by --max-seconds" % iters
    method = "graph"
    g = None
    try:
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(iters):
                fn()
    except Exception as ex:  # capture not supported: events around a loop
        method = "events"
        note = (note + "; " if note else "") + "graph capture failed (%s: %s), events around %d launches" % (
            type(ex).__name__, str(ex).split("\n")[0][:100], iters)
        g = None
        torch.cuda.synchronize()

    def one_rep():
        if g is not None:
            g.replay()
        else:
            for _ in range(iters):
                fn()
    if t1 * iters < 2000:  # untimed first replay (graph upload), when cheap
        one_rep()
        torch.cuda.synchronize()
    times = []
    for _ in range(args.reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        one_rep()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) / iters)
    g = None  # frees the graph (and its memory pool)
    return statistics.median(times), iters * args.reps, method, note


def fmt(x, spec):
    return "n/a" if x is None else spec % x


class Bench:
    def __init__(self, args):
        self.args = args
        self.flash = self.naive = None
        npath = os.path.join(args.lib_dir, "simple", "lib%s.so" % STEM)
        self.variants = {}
        for kind, key, path in library_paths(args):
            try:
                lib = tx.load(path)
            except tx.TxError as ex:
                sys.exit("attention_bench: %s" % ex)
            if kind == "flash":
                self.flash = lib
            elif kind == "naive":
                self.naive = lib
            else:
                self.variants[key] = lib
        self.rt = self.flash.runtime
        if args.no_naive:
            self.naive_why = "--no-naive"
        elif self.naive is None:
            self.naive_why = "%s missing" % npath
        else:
            self.naive_why = None
        self.rows = []
        self.failed = False
        try:
            from torch.nn.attention import SDPBackend, sdpa_kernel
            self.sdpa_backends = {}
            for key, name in (("sdpa_flash", "FLASH_ATTENTION"), ("sdpa_cudnn", "CUDNN_ATTENTION")):
                be = getattr(SDPBackend, name, None)
                self.sdpa_backends[key] = (be, None if be is not None else "SDPBackend.%s missing" % name)
            self.sdpa_kernel = sdpa_kernel
        except ImportError as ex:
            self.sdpa_backends = {"sdpa_flash": (None, str(ex)), "sdpa_cudnn": (None, str(ex))}
            self.sdpa_kernel = None

    def entry(self, lib, fn):
        """The package's callable of entry point fn, or None."""
        return lib.functions.get(fn)

    def sdpa_fn(self, key, q, k, v, causal):
        be, why = self.sdpa_backends[key]
        if be is None:
            return None, why
        F = torch.nn.functional

        def call():
            with self.sdpa_kernel(be):
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        return call, None

    def run_shape(self, b, h, s, d, gen_seed):
        args = self.args
        gen = torch.Generator(device="cuda")
        gen.manual_seed(gen_seed)
        shape = (b, h, s, d)
        q = torch.randn(shape, generator=gen, device="cuda", dtype=torch.float16)
        k = torch.randn(shape, generator=gen, device="cuda", dtype=torch.float16)
        v = torch.randn(shape, generator=gen, device="cuda", dtype=torch.float16)
        for causal in (False, True):
            fn = fn_name(b, h, s, d, causal)
            if args.only and not any(o in fn for o in args.only):
                continue
            t_start = time.time()
            try:
                row = self.run_one(fn, q, k, v, causal, gen_seed)
            except Exception as ex:  # e.g. out of memory: report, go on
                traceback.print_exc()
                row = {"fn": fn, "B": b, "H": h, "S": s, "D": d, "causal": causal, "check": {},
                       "ms": {}, "tflops": {}, "launches": {}, "method": {},
                       "notes": ["error: %s: %s" % (type(ex).__name__, str(ex).split("\n")[0][:200])]}
                self.failed = True
                torch.cuda.synchronize()
            row["seconds"] = time.time() - t_start
            self.rows.append(row)
            self.print_row(row)
            torch.cuda.empty_cache()
        del q, k, v
        torch.cuda.empty_cache()

    def run_one(self, fn, q, k, v, causal, seed):
        args = self.args
        b, h, s, d = q.shape
        fl = flops(b, h, s, s, d, causal)
        row = {"fn": fn, "B": b, "H": h, "S": s, "D": d, "causal": causal, "flop": fl,
               "check": {}, "ms": {}, "tflops": {}, "launches": {}, "method": {}, "notes": []}
        f_flash = self.entry(self.flash, fn)
        if f_flash is None:
            row["notes"].append("%s not in the flash library (rebuild?)" % fn)
            self.failed = True
            return row

        # ---- correctness first ---------------------------------------------
        sampled = s > args.full_check_max_s
        if sampled:
            rows = torch.tensor(sample_rows(s, args.check_rows, seed), device="cuda")
            row["check_rows"] = "%d sampled query rows x %d heads" % (rows.numel(), b * h)
        else:
            rows = None
            row["check_rows"] = "all"
        ref = reference(q, k, v, causal, rows)
        pick = (lambda o: o) if rows is None else (lambda o: o[:, :, rows])
        tol = check.TOL[torch.float16]

        def verify(key, out):
            res = check.compare(pick(out), ref, tol)
            if sampled:  # and no NaN anywhere in the (poisoned) output
                res["nan_total"] = int(torch.isnan(out).sum())
                res["pass"] = res["pass"] and res["nan_total"] == 0
            row["check"][key] = res
            return res

        out = torch.full_like(q, float("nan"))
        try:
            check.call(self.flash, fn, [q, k, v], out)
            verify("tx_flash", out)
        except (tx.TxError, RuntimeError) as ex:
            row["check"]["tx_flash"] = {"pass": False, "rel_err": float("nan"), "error": str(ex)}
            row["notes"].append("tx flash failed: %s" % ex)
        if not row["check"]["tx_flash"]["pass"]:
            self.failed = True
        del out
        for key, lib in self.variants.items():
            out = torch.full_like(q, float("nan"))
            try:
                check.call(lib, fn, [q, k, v], out)
                if not verify(key, out)["pass"]:
                    self.failed = True
            except (tx.TxError, RuntimeError) as ex:
                row["check"][key] = {"pass": False, "rel_err": float("nan"), "error": str(ex)}
                self.failed = True
            del out

        # naive: check (its first call) and decide whether to time it
        f_naive = None
        naive_first_ms = None
        if self.naive is None:
            row["notes"].append("naive skipped: %s" % self.naive_why)
        else:
            score_b, all_b = naive_bytes(b, h, s, s, d)
            info = host_calls(os.path.dirname(self.naive.path), fn)
            if info is not None and info["allocs"] and None not in info["allocs"]:
                # the exact temporaries of this build; "scores" = the buffers of
                # at least B*H*Sq*Sk f32
                score_b = sum(a for a in info["allocs"] if a >= 4 * b * h * s * s)
                all_b = sum(info["allocs"])
            row["naive_temporaries_bytes"] = all_b
            torch.cuda.empty_cache()  # the naive path allocates with cuMemAlloc, outside PyTorch's cache
            free, _total = torch.cuda.mem_get_info()
            f_naive = self.entry(self.naive, fn)
            if f_naive is None:
                row["notes"].append("naive skipped: %s not in the simple library" % fn)
            elif score_b > args.naive_mem_gb * 1e9:
                row["notes"].append("naive skipped: Sq x Sk f32 scores %.1f GB > --naive-mem-gb %.0f"
                                    % (score_b / 1e9, args.naive_mem_gb))
                f_naive = None
            elif all_b > free - 4 * 2 ** 30:
                row["notes"].append("naive skipped: temporaries %.1f GB do not fit in %.1f GB free"
                                    % (all_b / 1e9, free / 1e9))
                f_naive = None
            else:
                out = torch.full_like(q, float("nan"))
                t0 = time.time()
                try:
                    check.call(self.naive, fn, [q, k, v], out)
                    naive_first_ms = (time.time() - t0) * 1e3
                    verify("tx_naive", out)
                except (tx.TxError, RuntimeError) as ex:
                    row["check"]["tx_naive"] = {"pass": False, "rel_err": float("nan"), "error": str(ex)}
                    row["notes"].append("naive failed: %s" % ex)
                    f_naive = None
                del out

        # SDPA backends: available? and agree with the reference?
        sdpa = {}
        for key in ("sdpa_flash", "sdpa_cudnn"):
            call, why = self.sdpa_fn(key, q, k, v, causal)
            if call is not None:
                try:
                    o = call()
                    torch.cuda.synchronize()
                    verify(key, o)
                    del o
                except Exception as ex:  # backend unavailable for this shape/GPU/build
                    why = "%s: %s" % (type(ex).__name__, str(ex).split("\n")[0][:120])
                    call = None
                    torch.cuda.synchronize()
            if call is None:
                row["notes"].append("%s n/a (%s)" % (key, why))
            sdpa[key] = call
        ref = None  # free it before timing
        torch.cuda.empty_cache()

        # ---- timing ---------------------------------------------------------
        if "error" in row["check"]["tx_flash"]:
            row["notes"].append("timing skipped: the tx flash call failed (a CUDA fault leaves the "
                                "context unusable: rerun the other shapes with --only)")
            return row
        o = torch.empty_like(q)
        cur = torch.cuda.current_stream()
        rt = self.rt
        nerr = rt.error_count()
        info = host_calls(os.path.dirname(self.flash.path), fn)
        if info is None:
            row["notes"].append("tx_flash: no %s.ll beside the library: assumed free of device "
                                "temporaries (graph capture)" % STEM)
        if info is not None and (info["allocs"] or info["copies"]):
            # Temporaries (or copies): synchronous calls only (the call, then
            # a wait for the stream), events around each.
            def sync_flash():
                f_flash(q, k, v, out=o)
                cur.synchronize()
            sync_flash()
            torch.cuda.synchronize()
            t1, _ = sync_median_ms(sync_flash, 1)
            n = max(1, min(args.iters * args.reps, int(args.max_seconds * 1e3 / max(t1, 1e-3))))
            t, _ = sync_median_ms(sync_flash, n)
            method = "sync"
            note = ("host code allocates %d device temporaries / copies %d per call: synchronous "
                    "calls, events around each (median), includes host time" % (len(info["allocs"]), info["copies"]))
        else:
            t, n, method, note = time_fast(lambda: f_flash(q, k, v, out=o), args)
        rc = rt.synchronize()
        if rc != 0 or rt.error_count() != nerr:
            msg = rt.last_error()
            row["notes"].append("tx runtime error while timing flash: %s" % (msg or "rc=%d" % rc))
            self.failed = True
        self.record(row, "tx_flash", t, n, method, note)
        for key, lib in self.variants.items():
            f_var = self.entry(lib, fn)
            if f_var is None or "error" in row["check"].get(key, {}):
                continue
            t, n, method, note = time_fast(lambda: f_var(q, k, v, out=o), args)
            self.record(row, key, t, n, method, note)

        if f_naive is not None:
            # Synchronous calls on PyTorch's stream (the call allocates and frees
            # its temporaries, then a wait for the stream); events around each call.
            n = max(1, min(args.naive_iters, int(args.naive_seconds * 1e3 / max(naive_first_ms, 1e-3))))

            def sync_naive():
                f_naive(q, k, v, out=o)
                cur.synchronize()
            t, _ = sync_median_ms(sync_naive, n)
            self.record(row, "tx_naive", t, n, "sync", "")
        o = None

        for key, call in sdpa.items():
            if call is None:
                continue
            try:
                t, n, method, note = time_fast(call, args)
                self.record(row, key, t, n, method, note)
            except Exception as ex:
                row["notes"].append("%s timing failed: %s" % (key, str(ex).split("\n")[0][:120]))
                torch.cuda.synchronize()
        return row

    def record(self, row, key, ms, n, method, note):
        row["ms"][key] = ms
        row["tflops"][key] = row["flop"] / (ms * 1e-3) / 1e12
        row["launches"][key] = n
        row["method"][key] = method
        if note:
            row["notes"].append("%s: %s" % (key, note))

    def print_row(self, row):
        c = row["check"]
        parts = []
        for key in ["tx_flash", "tx_naive", "sdpa_flash", "sdpa_cudnn"] + sorted(self.variants):
            if key in row["ms"]:
                parts.append("%s %.3f ms %.1f TFLOP/s (%d %s launches)" % (
                    key, row["ms"][key], row["tflops"][key], row["launches"][key], row["method"][key]))
        chk = " ".join("%s:%s(%.1e)" % (k, "ok" if r["pass"] else "FAIL", r["rel_err"]) for k, r in c.items())
        print("%-32s %s | %s | %s | %.0f s" % (row["fn"], "causal" if row["causal"] else "full  ",
                                               chk, "; ".join(parts), row.get("seconds", 0)), flush=True)
        if row.get("check_rows", "all") != "all":
            print("    checked on", row["check_rows"], flush=True)
        for n in row["notes"]:
            print("    note:", n, flush=True)


def table(rows):
    lines = ["| shape (B,H,S,D) | causal | check tx flash (rel err) | tx flash ms | tx flash TFLOP/s "
             "| tx naive ms | tx naive TFLOP/s | flash / naive | SDPA flash TFLOP/s | SDPA cuDNN TFLOP/s "
             "| tx / SDPA flash | tx / cuDNN |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ms, tf = r["ms"], r["tflops"]
        c = r["check"].get("tx_flash")
        chk = "n/a" if c is None else "%s (%.1e)" % ("pass" if c["pass"] else "FAIL", c["rel_err"])
        if c is not None and r.get("check_rows", "all") != "all":
            chk += ", sampled rows"
        sp = ms["tx_naive"] / ms["tx_flash"] if "tx_naive" in ms and "tx_flash" in ms else None
        rf = tf["tx_flash"] / tf["sdpa_flash"] if "tx_flash" in tf and "sdpa_flash" in tf else None
        rc = tf["tx_flash"] / tf["sdpa_cudnn"] if "tx_flash" in tf and "sdpa_cudnn" in tf else None
        lines.append("| %d,%d,%d,%d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["B"], r["H"], r["S"], r["D"], "yes" if r["causal"] else "no", chk,
            fmt(ms.get("tx_flash"), "%.3f"), fmt(tf.get("tx_flash"), "%.2f"),
            fmt(ms.get("tx_naive"), "%.2f"), fmt(tf.get("tx_naive"), "%.2f"), fmt(sp, "%.1fx"),
            fmt(tf.get("sdpa_flash"), "%.1f"), fmt(tf.get("sdpa_cudnn"), "%.1f"),
            fmt(rf, "%.3f"), fmt(rc, "%.3f")))
    return "\n".join(lines)


def main():
    args = parse_args()
    if args.dry_run:
        sys.exit(dry_run(args))
    global torch, check, tx
    try:
        import torch as _torch
    except ImportError:
        sys.exit("attention_bench: PyTorch is not importable here (it runs on the GPU machine)")
    torch = _torch
    sys.path.insert(0, os.path.join(ROOT, "harness"))
    import check as _check  # call (through python/tx), compare, TOL; no side effects
    check = _check
    tx = _check.tx
    if not torch.cuda.is_available():
        sys.exit("attention_bench: no CUDA GPU visible to PyTorch")
    torch.cuda.init()  # before loading the libraries (their constructors load kernels)
    if os.environ.get("TX_RUNTIME_SYNC_LAUNCHES"):
        print("warning: TX_RUNTIME_SYNC_LAUNCHES is set: tx flash launches synchronize (and cannot be captured)")
    props = torch.cuda.get_device_properties(0)
    cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    print("# tx attention benchmark")
    print("date: %s | host: %s" % (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
                                   platform.node()))
    print("GPU: %s (%d SMs, %.0f GiB) | torch %s | CUDA %s | cuDNN %s" % (
        torch.cuda.get_device_name(), props.multi_processor_count, props.total_memory / 2 ** 30,
        torch.__version__, torch.version.cuda, cudnn))
    info = os.path.join(args.lib_dir, "build-info.txt")
    if os.path.exists(info):
        with open(info) as fh:
            for line in fh:
                print("lib " + line.rstrip())
    print("timing: tx flash and SDPA: %d launches per CUDA graph x %d replays (median of replays) after %d "
          "warm-up launches; tx naive: at most %d synchronous calls (events around each, median; fewer: "
          "--naive-seconds %.0f); naive skipped above %.0f GB of f32 scores" % (
              args.iters, args.reps, args.warmup, args.naive_iters, args.naive_seconds, args.naive_mem_gb))
    print(flush=True)

    bench = Bench(args)
    for i, (b, h, s, d) in enumerate(SHAPES):
        if args.only and not any(o in fn_name(b, h, s, d, c) for o in args.only for c in (False, True)):
            continue
        bench.run_shape(b, h, s, d, args.seed + i)

    print()
    print(table(bench.rows))
    if bench.variants:
        print()
        print("| shape (B,H,S,D) | causal | " + " | ".join(["tx_flash"] + sorted(bench.variants)) +
              " | SDPA flash | best / SDPA flash |")
        print("|---|---|" + "---|" * (len(bench.variants) + 3))
        for r in bench.rows:
            keys = ["tx_flash"] + sorted(bench.variants)
            tf = r["tflops"]
            cells = ["%.1f%s" % (tf[k], "" if r["check"].get(k, {}).get("pass") else " (FAIL)")
                     if k in tf else "n/a" for k in keys]
            best = max((tf[k] for k in keys if k in tf and r["check"].get(k, {}).get("pass")), default=None)
            print("| %d,%d,%d,%d | %s | %s | %s | %s |" % (
                r["B"], r["H"], r["S"], r["D"], "yes" if r["causal"] else "no", " | ".join(cells),
                fmt(tf.get("sdpa_flash"), "%.1f"),
                fmt(best / tf["sdpa_flash"] if best and "sdpa_flash" in tf else None, "%.3f")))
    notes = [(r["fn"], n) for r in bench.rows for n in r["notes"]]
    methods = {"graph": "CUDA graph replays", "events": "CUDA events around back-to-back launches",
               "sync": "synchronous calls, events around each"}
    print()
    print("FLOPs = 4*B*H*Sq*Sk*D (halved for causal). Timed launches per kernel:")
    for key in ("tx_flash", "tx_naive", "sdpa_flash", "sdpa_cudnn"):
        seen = sorted({(r["launches"][key], r["method"][key]) for r in bench.rows if key in r["launches"]})
        if seen:
            print("- %s: %s%s" % (key, ", ".join("%d (%s)" % (n, methods.get(m, m)) for n, m in seen),
                                  " -- fewer than the fast kernels: every naive call allocates and frees its "
                                  "Sq x Sk f32 scores" if key == "tx_naive" else ""))
    if notes:
        print("Notes:")
    for fn, n in notes:
        print("- %s: %s" % (fn, n))
    npass = sum(1 for r in bench.rows if r["check"].get("tx_flash", {}).get("pass"))
    print("check (tx flash vs float64): %d passed, %d failed" % (npass, len(bench.rows) - npass))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "cuda": torch.version.cuda, "args": vars(args), "rows": bench.rows}, fh, indent=1)
    sys.exit(1 if bench.failed or npass != len(bench.rows) else 0)


if __name__ == "__main__":
    main()
