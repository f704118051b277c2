#!/usr/bin/env python3
"""Host time per call of torch.softmax and of tx softmax entry points called
from Python (ctypes) on PyTorch's current stream, the way a Python package
calls them: txRuntimeBeginCall(stream); _mlir_ciface_f(in, out);
txRuntimeEndCall() - or _mlir_ciface_f_on_stream(in, out, stream) when the
library has it.

    python3 runtime/bench/torch_host_cost.py --lib build/rt-h200/host_cost/libhost_cost.so

Method as in tx-runtime-bench: batches of --iters calls timed on the host
(time.perf_counter_ns), the device synchronized between batches (untimed);
median over batches, in microseconds. The first tx results are checked
against torch.softmax. Needs a CUDA GPU and PyTorch.
"""
import argparse
import ctypes
import statistics
import time

import torch


class MemRef2D(ctypes.Structure):
    _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                ("offset", ctypes.c_int64), ("sizes", ctypes.c_int64 * 2),
                ("strides", ctypes.c_int64 * 2)]


def memref(t):
    m = MemRef2D()
    m.allocated = m.aligned = t.data_ptr()
    m.offset = 0
    m.sizes[0], m.sizes[1] = t.shape
    m.strides[0], m.strides[1] = t.stride()
    return m


def time_calls(call, iters, batches):
    for _ in range(20):
        call()
    torch.cuda.synchronize()
    per_call = []
    for _ in range(batches):
        t0 = time.perf_counter_ns()
        for _ in range(iters):
            call()
        t1 = time.perf_counter_ns()
        torch.cuda.synchronize()
        per_call.append((t1 - t0) / iters / 1000.0)
    return statistics.median(per_call), min(per_call)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lib", required=True, help="libhost_cost.so")
    p.add_argument("--iters", type=int, default=200)
    p.add_argument("--batches", type=int, default=50)
    a = p.parse_args()

    torch.cuda.init()
    lib = ctypes.CDLL(a.lib)  # loads the kernels: after CUDA is usable
    lib.txRuntimeBeginCall.argtypes = [ctypes.c_void_p]
    lib.txRuntimeEndCall.restype = ctypes.c_int32
    lib.txRuntimeGetLastError.restype = ctypes.c_char_p
    stream = torch.cuda.current_stream()
    handle = ctypes.c_void_p(stream.cuda_stream)

    cases = [("softmax_static", 4, 128), ("softmax_dynamic", 4, 128),
             ("softmax_static_big", 65536, 128)]
    print(f"{'case':<34} {'us/call median':>15} {'min':>8}")
    for fn, rows, cols in cases:
        x = torch.randn(rows, cols, device="cuda", dtype=torch.float32)
        y = torch.empty_like(x)
        mx, my = memref(x), memref(y)
        px, py = ctypes.byref(mx), ctypes.byref(my)

        med, lo = time_calls(lambda: torch.softmax(x, dim=-1), a.iters,
                             a.batches)
        print(f"{'torch.softmax ' + f'{rows}x{cols}':<34} {med:>15.2f} {lo:>8.2f}")

        entry = getattr(lib, "_mlir_ciface_" + fn)
        on_stream = getattr(lib, "_mlir_ciface_" + fn + "_on_stream", None)
        if on_stream is not None:
            on_stream.restype = ctypes.c_int32

            def call():
                if on_stream(px, py, handle) != 0:
                    raise RuntimeError(lib.txRuntimeGetLastError())
            how = "_on_stream"
        else:
            def call():
                lib.txRuntimeBeginCall(handle)
                entry(px, py)
                if lib.txRuntimeEndCall() != 0:
                    raise RuntimeError(lib.txRuntimeGetLastError())
            how = "Begin/EndCall"
        y.zero_()
        call()
        torch.cuda.synchronize()
        err = (y - torch.softmax(x, dim=-1)).abs().max().item()
        if err > 1e-5:
            raise SystemExit(f"FAILED: tx {fn} differs from torch by {err}")
        med, lo = time_calls(call, a.iters, a.batches)
        print(f"{f'tx {fn} ({how})':<34} {med:>15.2f} {lo:>8.2f}")


if __name__ == "__main__":
    main()
