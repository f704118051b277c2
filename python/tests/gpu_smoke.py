#!/usr/bin/env python3
"""End-to-end check of python/tx on a CUDA GPU (the H200; no LLVM needed).

The libraries are built where LLVM is, by ``bash bench/build_pytx.sh``
(build/pytx/pkg: test/Python/Inputs/pkg.mlir; build/pytx/call_overhead:
bench/call_overhead.mlir, with the README's attention example), then here:

    PYTHONPATH=python python3 python/tests/gpu_smoke.py --lib-dir build/pytx

Checks: tx.load; every entry point of pkg against a float64 PyTorch
reference (static and dynamic shapes, GQA, causal, i1 and additive masks,
scale, softmax along dim 0, two results, attention with its log-sum-exp,
out=); argument errors raise tx exceptions naming the argument (the
process survives); calls follow
torch.cuda.current_stream() (a side stream with pending work); calls from
two threads; CUDA-graph capture (stream-ordered libraries); the README's
five-line example; custom ops inside torch.compile (torch >= 2.4). Exit
status 1 on any failure.
"""
import argparse
import math
import os
import sys
import threading
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import torch  # noqa: E402

import tx  # noqa: E402
from tx import torch_ops  # noqa: E402

ROWS = []


def record(name, ok, detail=""):
    ROWS.append((name, bool(ok)))
    print("%-62s %s  %s" % (name, "PASS" if ok else "FAIL", detail), flush=True)


def run(name, fn):
    """Runs one check; an unexpected exception is a failure with its trace."""
    try:
        fn()
    except Exception:
        record(name, False, "exception:\n" + traceback.format_exc())


def rel_err(out, ref):
    o, r = out.double(), ref.double()
    n = float(torch.linalg.vector_norm(r))
    d = float(torch.linalg.vector_norm(o - r))
    return d / n if n > 0 else d


TOL = {torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 1e-2}


def compare(name, out, ref, dtype):
    e = rel_err(out, ref)
    record(name, e <= TOL[dtype] and not torch.isnan(out).any(), "rel err %.2e" % e)


def ref_attention(q, k, v, mask=None, causal=False, scale=None):
    """tx semantics in float64: GQA, bottom-right causal, i1 keep or additive
    mask, rows that see no key are zeros."""
    B, H, Sq, D = q.shape
    Hkv, Sk, Dv = k.shape[1], k.shape[2], v.shape[3]
    out = torch.zeros(B, H, Sq, Dv, dtype=torch.float64, device=q.device)
    if out.numel() == 0 or Sk == 0:
        return out
    scale = 1.0 / math.sqrt(D) if scale is None else scale
    g = H // Hkv
    kk = k.double().repeat_interleave(g, dim=1)
    vv = v.double().repeat_interleave(g, dim=1)
    s = torch.matmul(q.double(), kk.transpose(-1, -2)) * scale
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else s + mask.double()
    if causal:
        i = torch.arange(Sq, device=q.device)[:, None]
        j = torch.arange(Sk, device=q.device)[None, :]
        s = s.masked_fill(j > i + Sk - Sq, float("-inf"))
    m = s.amax(dim=-1, keepdim=True)
    p = torch.where(torch.isneginf(m), torch.zeros_like(s), torch.exp(s - m))
    l = p.sum(dim=-1, keepdim=True)
    o = torch.matmul(p, vv)
    return torch.where(l == 0, torch.zeros_like(o), o / torch.where(l == 0, torch.ones_like(l), l))


def ref_lse(q, k, causal=False):
    """float64 log-sum-exp of every query row's scores, [B, H, Sq] (-inf for
    a row that sees no key)."""
    B, H, Sq, D = q.shape
    Hkv, Sk = k.shape[1], k.shape[2]
    kk = k.double().repeat_interleave(H // Hkv, dim=1)
    s = torch.matmul(q.double(), kk.transpose(-1, -2)) / math.sqrt(D)
    if causal:
        i = torch.arange(Sq, device=q.device)[:, None]
        j = torch.arange(Sk, device=q.device)[None, :]
        s = s.masked_fill(j > i + Sk - Sq, float("-inf"))
    return torch.logsumexp(s, dim=-1)


def rnd(*shape, dtype=torch.float32, lo=-3.0, hi=3.0):
    return (torch.rand(*shape, device="cuda") * (hi - lo) + lo).to(dtype)


def expect_error(name, cls, text, fn):
    try:
        fn()
    except cls as e:
        record(name, text in str(e), str(e))
        return
    except Exception as e:  # the wrong kind of error
        record(name, False, "%s: %s" % (type(e).__name__, e))
        return
    record(name, False, "no exception")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib-dir", required=True, help="bench/build_pytx.sh's output (build/pytx)")
    a = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("gpu_smoke.py: PyTorch sees no CUDA device")
    print("device: %s | torch %s | custom ops: %s" % (
        torch.cuda.get_device_name(), torch.__version__,
        "yes" if torch_ops.supported(torch) else "no (torch < 2.4)"), flush=True)
    torch.manual_seed(0)

    lib = tx.load(os.path.join(a.lib_dir, "pkg", "libpkg.so"))
    modes = sorted({f.mode for f in lib})
    print("pkg: %s; calling convention: %s" % (", ".join(lib.functions), "/".join(modes)))
    record("tx.load: every function callable", set(lib.functions) == {
        "attn", "attn_mask", "attn_bias", "softmax", "softmax_dyn", "pair", "attn_lse",
        "zeros_like"},
        str(lib.unsupported))
    stream_mode = modes == ["stream"]
    # tx.load's device: a device that does not exist, a CPU device, and a
    # second device in the same process are refused before anything loads.
    pkg = os.path.join(a.lib_dir, "pkg", "libpkg.so")
    for dev, msg in (("cuda:%d" % torch.cuda.device_count(), "does not exist"),
                     ("cpu", "is not a CUDA device"), ("nonsense", "bad device")):
        try:
            tx.load(pkg, device=dev)
            record("tx.load(device=%r) refused" % dev, False, "loaded")
        except tx.TxError as e:
            record("tx.load(device=%r) refused" % dev, msg in str(e), str(e)[:80])
    if torch.cuda.device_count() > 1:
        try:
            tx.load(pkg, device=1)
            record("tx.load on a second device refused", False, "loaded")
        except tx.TxError as e:
            record("tx.load on a second device refused", "one device" in str(e), str(e)[:80])
    record("tx.load(device=0) again: the same library", tx.load(pkg, device=0).attn is not None)

    f16, f32, bf16 = torch.float16, torch.float32, torch.bfloat16

    def numerics():
        q, k, v = rnd(1, 8, 16, 64, dtype=f16), rnd(1, 2, 16, 64, dtype=f16), rnd(1, 2, 16, 64, dtype=f16)
        compare("attn: static GQA 8/2 causal f16", lib.attn(q, k, v),
                ref_attention(q, k, v, causal=True), f16)
        o = torch.full((1, 8, 16, 64), float("nan"), dtype=f16, device="cuda")
        r = lib.attn(q, k, v, out=o)
        record("attn: out= returns the buffer it wrote", r is o)
        compare("attn: out= values", o, ref_attention(q, k, v, causal=True), f16)
        for (b, h, hkv, sq, sk, d) in ((2, 4, 2, 33, 65, 24), (1, 6, 3, 70, 20, 8), (1, 1, 1, 1, 1, 1)):
            q, k, v = rnd(b, h, sq, d), rnd(b, hkv, sk, d), rnd(b, hkv, sk, d)
            m = torch.rand(b, h, sq, sk, device="cuda") > 0.3
            m[0, 0, 0, :] = False
            compare("attn_mask: dynamic %s i1 mask, causal" % str((b, h, hkv, sq, sk, d)),
                    lib.attn_mask(q, k, v, m), ref_attention(q, k, v, m, causal=True), f32)
        q, k, v = rnd(2, 4, 9, 32), rnd(2, 2, 13, 32), rnd(2, 2, 13, 16)
        bias = rnd(1, 1, 9, 13, lo=-2, hi=2)
        compare("attn_bias: additive [1,1,Sq,Sk] mask, scale 0.5, Dv 16",
                lib.attn_bias(q, k, v, bias), ref_attention(q, k, v, bias, scale=0.5), f32)
        x = rnd(4, 128)
        compare("softmax: static 4x128 f32", lib.softmax(x), torch.softmax(x.double(), -1), f32)
        x = rnd(5, 3, 7, dtype=bf16)
        compare("softmax_dyn: bf16 5x3x7 along dim 0", lib.softmax_dyn(x),
                torch.softmax(x.double(), 0), bf16)
        e = lib.softmax_dyn(torch.empty(0, 3, 2, dtype=bf16, device="cuda"))
        record("softmax_dyn: zero-size input", tuple(e.shape) == (0, 3, 2))
        xa, xb = rnd(3, 50), rnd(6, 8, dtype=f16)
        ra, rb = lib.pair(xa, xb)
        compare("pair: result 0 (f32)", ra, torch.softmax(xa.double(), 1), f32)
        compare("pair: result 1 (f16)", rb, torch.softmax(xb.double(), 1), f16)
        # attn_lse: (O, log-sum-exp), allocated from the query's sizes, and
        # out= as a tuple; Sq > Sk causal: the first rows see no key (-inf).
        q, k, v = rnd(2, 4, 40, 64, dtype=f16), rnd(2, 2, 30, 64, dtype=f16), rnd(2, 2, 30, 64, dtype=f16)
        o, lse = lib.attn_lse(q, k, v)
        record("attn_lse: result shapes and dtypes",
               (tuple(o.shape), o.dtype, tuple(lse.shape), lse.dtype)
               == ((2, 4, 40, 64), f16, (2, 4, 40), f32))
        ref = ref_lse(q, k, causal=True)
        fin = ~torch.isneginf(ref)
        compare("attn_lse: O", o, ref_attention(q, k, v, causal=True), f16)
        compare("attn_lse: log-sum-exp (finite rows)", lse[fin], ref[fin], f16)
        record("attn_lse: -inf exactly where a row sees no key",
               bool((torch.isneginf(lse) == torch.isneginf(ref)).all()) and int((~fin).sum()) > 0)
        o2 = torch.full_like(o, float("nan"))
        l2 = torch.full_like(lse, float("nan"))
        r = lib.attn_lse(q, k, v, out=(o2, l2))
        record("attn_lse: out= tuple returned and written",
               r[0] is o2 and r[1] is l2 and bool(torch.equal(o2, o))
               and bool((torch.isneginf(l2) == torch.isneginf(lse)).all())
               and rel_err(l2[fin], lse[fin]) == 0)
        z = torch.full((7, 9), 5.0, device="cuda")
        lib.zeros_like(rnd(7, 9), out=z)
        record("zeros_like: out= (result size not derivable)", bool((z == 0).all()))
        torch.cuda.synchronize()

    run("numerics", numerics)

    def errors():
        q, k, v = rnd(2, 4, 5, 8), rnd(2, 2, 7, 8), rnd(2, 2, 7, 3)
        m = torch.ones(2, 4, 5, 7, dtype=torch.bool, device="cuda")
        expect_error("error: D of q vs k (run-time shapes)", tx.ShapeError,
                     "attn_mask: argument 'key' (key): head dim D = 4 differs from query's 8",
                     lambda: lib.attn_mask(q, rnd(2, 2, 7, 4), v, m))
        expect_error("error: H % Hkv", tx.ShapeError, "does not divide query's H = 4",
                     lambda: lib.attn_mask(q, rnd(2, 3, 7, 8), rnd(2, 3, 7, 3), m))
        expect_error("error: mask broadcast", tx.ShapeError, "mask broadcasts over B only",
                     lambda: lib.attn_mask(q, k, v, m[:1]))
        expect_error("error: CPU tensor", tx.ArgumentError, "is on cpu; the library runs on cuda:0",
                     lambda: lib.softmax(torch.rand(4, 128)))
        expect_error("error: dtype", tx.ArgumentTypeError, "expected dtype torch.float32",
                     lambda: lib.softmax(rnd(4, 128, dtype=f16)))
        expect_error("error: non-contiguous", tx.ArgumentError, "is not contiguous",
                     lambda: lib.softmax(rnd(128, 4).t()))
        expect_error("error: out= aliasing an input", tx.ArgumentError, "overlaps argument 'x'",
                     lambda: (lambda x: lib.softmax(x, out=x))(rnd(4, 128)))
        # The process is still fine: a good call after the errors.
        x = rnd(4, 128)
        compare("a call after the errors", lib.softmax(x), torch.softmax(x.double(), -1), f32)

    run("errors", errors)

    def streams():
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            big = torch.randn(6144, 6144, device="cuda")
            y = big @ big                     # pending work on s
            x = (y[:4, :128] / 1e3).contiguous()
            o = lib.softmax(x)                # must run after it, on s
            ref = torch.softmax(x.double(), -1)
        s.synchronize()
        compare("current stream: ordered after pending work on a side stream", o, ref, f32)

    run("streams", streams)

    def threads():
        errs = []

        def work(seed):
            try:
                g = torch.Generator(device="cuda").manual_seed(seed)
                for _ in range(50):
                    x = torch.rand(3, 200, generator=g, device="cuda") * 6 - 3
                    o = lib.softmax_dyn(x.bfloat16().reshape(3, 200, 1))
                    if rel_err(o, torch.softmax(x.bfloat16().double().reshape(3, 200, 1), 0)) > 1e-2:
                        errs.append("mismatch")
            except Exception as e:  # noqa
                errs.append(repr(e))

        ts = [threading.Thread(target=work, args=(i,)) for i in range(2)]
        [t.start() for t in ts]
        [t.join() for t in ts]
        record("two threads, 50 calls each", not errs, "; ".join(errs[:3]))

    run("threads", threads)

    def graph():
        if not stream_mode:
            print("%-62s SKIP  (no _on_stream entry points: the library predates the "
                  "stream-ordered ABI)" % "CUDA graph capture")
            return
        x = rnd(4, 128)
        o = torch.empty_like(x)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                lib.softmax(x, out=o)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            lib.softmax(x, out=o)
            o2 = lib.softmax(x)           # allocated from the graph's pool
        x.copy_(rnd(4, 128))
        g.replay()
        torch.cuda.synchronize()
        ref = torch.softmax(x.double(), -1)
        compare("CUDA graph: out= call replayed on new input", o, ref, f32)
        compare("CUDA graph: allocating call replayed", o2, ref, f32)

    run("graph", graph)

    def readme():
        lib2 = tx.load(os.path.join(a.lib_dir, "call_overhead", "libcall_overhead.so"))
        q = torch.randn(1, 32, 4096, 128, device="cuda", dtype=torch.float16)
        k, v = (torch.randn(1, 8, 4096, 128, device="cuda", dtype=torch.float16) for _ in range(2))
        o = lib2.attn(q, k, v)
        rows = torch.tensor([0, 1, 777, 2048, 4095], device="cuda")
        kk, vv = k.float().repeat_interleave(4, 1), v.float().repeat_interleave(4, 1)
        s = torch.matmul(q.float()[:, :, rows], kk.transpose(-1, -2)) / math.sqrt(128)
        s = s.masked_fill(torch.arange(4096, device="cuda")[None, :] > rows[:, None], float("-inf"))
        ref = torch.matmul(torch.softmax(s, -1), vv)
        compare("README example: lib.attn(q, k, v) 1x32x4096x128 GQA causal", o[:, :, rows], ref, f16)

    run("readme", readme)

    def compiled():
        if not torch_ops.supported(torch):
            print("%-62s SKIP  (torch %s < 2.4)" % ("torch.compile with custom ops", torch.__version__))
            return
        ops = lib.register_custom_ops("txsmoke")
        record("register_custom_ops", set(ops) == {"attn", "attn_mask", "attn_bias", "softmax",
                                                    "softmax_dyn", "pair", "attn_lse"},
               ", ".join(ops))
        q, k, v = rnd(2, 4, 9, 32), rnd(2, 2, 13, 32), rnd(2, 2, 13, 16)
        bias = rnd(1, 1, 9, 13, lo=-2, hi=2)

        def f(q, k, v, bias):
            return torch.ops.txsmoke.attn_bias(q * 1.0, k, v, bias).relu() + 1

        ref = ref_attention(q, k, v, bias, scale=0.5).relu() + 1
        for backend in ("aot_eager", "inductor"):
            try:
                torch._dynamo.reset()
                out = torch.compile(f, backend=backend, fullgraph=True)(q, k, v, bias)
                compare("torch.compile(fullgraph, %s) with tx.attention" % backend, out, ref, f32)
            except Exception:
                record("torch.compile(fullgraph, %s) with tx.attention" % backend, False,
                       traceback.format_exc().splitlines()[-1])

        # Two results through a custom op in a compiled graph.
        q, k, v = rnd(1, 2, 20, 64, dtype=f16), rnd(1, 1, 20, 64, dtype=f16), rnd(1, 1, 20, 64, dtype=f16)
        def h(q, k, v):
            o, lse = torch.ops.txsmoke.attn_lse(q, k, v)
            return o * 1, lse * 1

        try:
            torch._dynamo.reset()
            o, lse = torch.compile(h, backend="aot_eager", fullgraph=True)(q, k, v)
            compare("torch.compile(fullgraph) attn_lse: O", o, ref_attention(q, k, v, causal=True), f16)
            compare("torch.compile(fullgraph) attn_lse: log-sum-exp", lse, ref_lse(q, k, causal=True), f16)
        except Exception:
            record("torch.compile(fullgraph) attn_lse", False, traceback.format_exc().splitlines()[-1])

        def g(x):
            return torch.ops.txsmoke.softmax_dyn(x) * 2

        try:
            torch._dynamo.reset()
            cg = torch.compile(g, dynamic=True, fullgraph=True)
            ok = True
            for n in (5, 9, 17):
                x = rnd(n, 3, 4, dtype=bf16)
                ok &= rel_err(cg(x), torch.softmax(x.double(), 0) * 2) <= 1e-2
            record("torch.compile(dynamic=True) softmax over 3 sizes", ok)
        except Exception:
            record("torch.compile(dynamic=True) softmax over 3 sizes", False,
                   traceback.format_exc().splitlines()[-1])

    run("compile", compiled)

    n_fail = sum(1 for _, ok in ROWS if not ok)
    print("gpu_smoke: %d passed, %d failed" % (len(ROWS) - n_fail, n_fail))
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main())
