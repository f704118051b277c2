#!/usr/bin/env python3
"""GPU check of the C ABI of tx libraries (docs/ABI.md, issue #15 items 1-2).

Needs a CUDA GPU, PyTorch and the libraries of harness/build_abi_check.sh
(built anywhere, no GPU needed), linked to a runtime that has
txRuntimeBeginCall / txRuntimeEndCall / txRuntimeFail:

    bash harness/build_abi_check.sh build/abi-check        # here
    python3 harness/abi_check.py --lib-dir build/abi-check # on the GPU machine

For both variants (fast: default strategies, simple: reference lowerings
with device temporaries) it checks:
  - results written into the caller's buffers, sync and _on_stream entry
    points, against float64 PyTorch;
  - _on_stream returns without waiting (the stream is busy with a long
    kernel when it is called) and its work is ordered on that stream;
  - a wrong out-parameter size or a broken shape rule is an error (status,
    txRuntimeGetLastError) and never aborts; nothing is written;
  - a call on a stream is captured in a CUDA graph (torch.cuda.graph) and
    replays with new inputs;
and times a dynamic 4x128 softmax per call (the issue's 78 us) beside
torch.softmax.

It calls the C entry points itself through ctypes (that is what it checks),
with the memref descriptors and the library/runtime loading of the python/tx
package (tx._abi.descriptor, tx._abi.open_library).
"""
import argparse
import ctypes
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check  # noqa: E402  (references, comparison; puts python/ on sys.path)
from tx import TxError  # noqa: E402
from tx._abi import descriptor, open_library  # noqa: E402

ROWS = []


def report(name, ok, detail=""):
    ROWS.append((name, ok))
    print("%-62s %s  %s" % (name, "PASS" if ok else "FAIL", detail), flush=True)


class Lib:
    def __init__(self, path):
        try:
            self.lib, runtime = open_library(path)
        except (OSError, TxError) as e:
            sys.exit("abi_check: cannot load %s: %s\n(the runtime needs "
                     "txRuntimeBeginCall/EndCall/Fail: branch rt)" % (path, e))
        self.rt = runtime.cdll
        for f in ("txRuntimeBeginCall", "txRuntimeEndCall", "txRuntimeFail"):
            if not hasattr(self.rt, f):
                sys.exit("abi_check: the runtime lacks %s (branch rt)" % f)
        self.rt.txRuntimeGetLastError.restype = ctypes.c_char_p
        self.rt.txRuntimeErrorCount.restype = ctypes.c_int
        self.rt.txRuntimeClearLastError.restype = None

    def sync(self, fn, tensors):
        f = getattr(self.lib, "_mlir_ciface_" + fn)
        f.restype = None
        descs = [descriptor(t) for t in tensors]
        torch.cuda.synchronize()  # the synchronous form orders after nothing
        f(*[ctypes.byref(d) for d in descs])

    def on_stream(self, fn, tensors, stream=None):
        f = getattr(self.lib, "_mlir_ciface_%s_on_stream" % fn)
        f.restype = ctypes.c_int32
        if stream is None:
            stream = torch.cuda.current_stream().cuda_stream
        descs = [descriptor(t) for t in tensors]
        return f(*[ctypes.byref(d) for d in descs], ctypes.c_void_p(stream))

    def last_error(self):
        m = self.rt.txRuntimeGetLastError()
        return m.decode() if m else ""


def cases(gen):
    """(function, inputs, output shape, dtype, float64 reference)."""
    r = lambda *s, dt=torch.float32: check.rand(s, dt, gen)
    x1 = r(4, 128)
    x2 = r(33, 1000)
    x3 = r(2, 3, 77, dt=torch.float16)
    xs = r(4, 128)
    q, k, v = r(2, 8, 100, 64, dt=torch.float16), r(2, 2, 300, 64, dt=torch.float16), r(2, 2, 300, 64, dt=torch.float16)
    qf, kf, vf = r(1, 4, 50, 40), r(1, 2, 70, 40), r(1, 2, 70, 24)
    return [
        ("softmax_dyn_f32", [x1], (4, 128), torch.float32, lambda: check.ref_softmax(x1)),
        ("softmax_dyn_f32", [x2], (33, 1000), torch.float32, lambda: check.ref_softmax(x2)),
        ("softmax_dyn_f16", [x3], (2, 3, 77), torch.float16, lambda: check.ref_softmax(x3)),
        ("softmax_static_f32", [xs], (4, 128), torch.float32, lambda: check.ref_softmax(xs)),
        ("attn_dyn_f16", [q, k, v], (2, 8, 100, 64), torch.float16,
         lambda: check.ref_attention(q, k, v, causal=True)),
        ("attn_dyn_f32", [qf, kf, vf], (1, 4, 50, 24), torch.float32,
         lambda: check.ref_attention(qf, kf, vf)),
    ]


def check_variant(tag, lib, gen):
    # 1. Results in the caller's buffers, both entry points.
    for fn, ins, shape, dt, ref in cases(gen):
        out = check.poisoned(shape, dt)
        nerr = lib.rt.txRuntimeErrorCount()
        lib.sync(fn, ins + [out])
        torch.cuda.synchronize()
        res = check.compare(out, ref(), check.TOL[dt])
        ok = res["pass"] and lib.rt.txRuntimeErrorCount() == nerr
        report("%s: %s %s sync" % (tag, fn, list(shape)), ok, "rel %.2e" % res["rel_err"])
        out = check.poisoned(shape, dt)
        rc = lib.on_stream(fn, ins + [out])
        torch.cuda.current_stream().synchronize()
        res = check.compare(out, ref(), check.TOL[dt])
        report("%s: %s %s on_stream" % (tag, fn, list(shape)), res["pass"] and rc == 0,
               "rc %d rel %.2e" % (rc, res["rel_err"]))

    # 2. _on_stream does not wait, and is ordered on its stream.
    for fn, ins, shape, dt, ref in cases(gen)[0:1] + cases(gen)[4:]:
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            out = check.poisoned(shape, dt)
            torch.cuda.synchronize()
            torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU time on this stream
            t0 = time.perf_counter()
            rc = lib.on_stream(fn, ins + [out], s.cuda_stream)
            host_ms = (time.perf_counter() - t0) * 1e3
            after = out.double() * 2  # consumer on the same stream
            busy = not s.query()
        s.synchronize()
        res = check.compare(out, ref(), check.TOL[dt])
        res2 = check.compare(after / 2, ref(), check.TOL[dt])
        report("%s: %s on_stream returns without waiting" % (tag, fn),
               rc == 0 and busy and host_ms < 20 and res["pass"] and res2["pass"],
               "host %.2f ms, stream busy after return: %s" % (host_ms, busy))

    # 3. Errors: a wrong out-parameter size, a broken shape rule. Never abort,
    #    nothing written, the next call works.
    x = check.rand((4, 128), torch.float32, gen)
    bad = check.poisoned((4, 127), torch.float32)
    lib.rt.txRuntimeClearLastError()
    nerr = lib.rt.txRuntimeErrorCount()
    lib.sync("softmax_dyn_f32", [x, bad])
    torch.cuda.synchronize()
    msg = lib.last_error()
    want = "softmax_dyn_f32: result #0 has size 127 in dim 1, but the computation produces 128"
    report("%s: sync call into a 4x127 buffer is an error" % tag,
           lib.rt.txRuntimeErrorCount() > nerr and want in msg and bool(torch.isnan(bad).all()),
           repr(msg))
    lib.rt.txRuntimeClearLastError()
    rc = lib.on_stream("softmax_dyn_f32", [x, bad])
    torch.cuda.synchronize()
    msg = lib.last_error()
    report("%s: on_stream call into a 4x127 buffer returns an error" % tag,
           rc != 0 and want in msg and bool(torch.isnan(bad).all()), "rc %d %r" % (rc, msg))
    q = check.rand((2, 4, 16, 64), torch.float16, gen)
    k = check.rand((3, 2, 16, 64), torch.float16, gen)
    v = check.rand((2, 2, 16, 64), torch.float16, gen)
    o = check.poisoned((2, 4, 16, 64), torch.float16)
    lib.rt.txRuntimeClearLastError()
    rc = lib.on_stream("attn_dyn_f16", [q, k, v, o])
    torch.cuda.synchronize()
    msg = lib.last_error()
    report("%s: attention batch 2 vs 3 returns an error" % tag,
           rc != 0 and "attn_dyn_f16: tx.attention: batch size of query and key differ" in msg
           and bool(torch.isnan(o).all()), "rc %d %r" % (rc, msg))
    qf = check.rand((1, 2, 8, 16), torch.float32, gen)
    kf = check.rand((1, 2, 8, 12), torch.float32, gen)
    vf = check.rand((1, 2, 8, 16), torch.float32, gen)
    of = check.poisoned((1, 2, 8, 16), torch.float32)
    lib.rt.txRuntimeClearLastError()
    rc = lib.on_stream("attn_dyn_f32", [qf, kf, vf, of])
    torch.cuda.synchronize()
    msg = lib.last_error()
    report("%s: attention D 16 vs 12 returns an error" % tag,
           rc != 0 and "head dimension D of query and key differ" in msg, "rc %d %r" % (rc, msg))
    out = check.poisoned((4, 128), torch.float32)
    rc = lib.on_stream("softmax_dyn_f32", [x, out])
    torch.cuda.synchronize()
    res = check.compare(out, check.ref_softmax(x), check.TOL[torch.float32])
    report("%s: a good call after the errors" % tag, rc == 0 and res["pass"], "rc %d" % rc)
    lib.rt.txRuntimeClearLastError()

    # 4. CUDA graph capture of calls on a stream, replayed with new inputs.
    for fn, ins, shape, dt, ref in cases(gen):
        out = check.poisoned(shape, dt)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        rcs = []
        try:
            with torch.cuda.graph(g):
                rcs.append(lib.on_stream(fn, ins + [out]))
            oks = []
            for _ in range(3):
                for t in ins:
                    t.copy_(check.rand(tuple(t.shape), t.dtype, gen))
                out.fill_(float("nan"))
                g.replay()
                torch.cuda.synchronize()
                oks.append(check.compare(out, ref(), check.TOL[dt])["pass"])
            report("%s: %s %s captured in a CUDA graph" % (tag, fn, list(shape)),
                   rcs == [0] and all(oks), "rc %s replays %s" % (rcs, oks))
        except Exception as e:  # noqa: BLE001
            report("%s: %s %s captured in a CUDA graph" % (tag, fn, list(shape)), False,
                   "%s: %s" % (type(e).__name__, str(e).split("\n")[0][:150]))
            torch.cuda.synchronize()


def per_call_us(f, n):
    for _ in range(20):
        f()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        f()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / n * 1e6


def timing(tag, lib, gen):
    x = check.rand((4, 128), torch.float32, gen)
    out = torch.empty_like(x)
    d = [descriptor(t) for t in (x, out)]
    fs = getattr(lib.lib, "_mlir_ciface_softmax_dyn_f32")
    fs.restype = None
    fo = getattr(lib.lib, "_mlir_ciface_softmax_dyn_f32_on_stream")
    fo.restype = ctypes.c_int32
    args = [ctypes.byref(t) for t in d]
    sp = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    t_sync = per_call_us(lambda: fs(*args), 2000)
    t_stream = per_call_us(lambda: fo(*args, sp), 2000)
    t_torch = per_call_us(lambda: torch.softmax(x, dim=-1), 2000)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        gs = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        for _ in range(100):
            fo(*args, gs)
    t_graph = per_call_us(g.replay, 50) / 100
    print("%s: softmax 4x128 f32 (dynamic) per call: sync %.1f us, on_stream %.1f us, "
          "graph %.2f us; torch.softmax %.1f us (issue #15: 78 us before)" %
          (tag, t_sync, t_stream, t_graph, t_torch), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib-dir", default="build/abi-check")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("abi_check.py: no CUDA GPU visible to PyTorch")
    torch.cuda.init()
    print("device:", torch.cuda.get_device_name(), "| torch", torch.__version__, flush=True)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(15)
    for tag in ("fast", "simple"):
        lib = Lib(os.path.join(args.lib_dir, tag, "libabi_cases.so"))
        check_variant(tag, lib, gen)
        timing(tag, lib, gen)
    failed = [n for n, ok in ROWS if not ok]
    print("abi_check: %d/%d passed" % (len(ROWS) - len(failed), len(ROWS)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
