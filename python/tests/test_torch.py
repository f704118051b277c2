#!/usr/bin/env python3
"""Tests of python/tx's call path without a GPU: the entry points of the
real manifest of test/Python/Inputs/pkg.mlir, bound to fake C functions
(ctypes callbacks that read the memref descriptors they receive), called on
CPU tensors. Everything but the dlopen and the device runs as on a GPU:
argument checks and their messages, result allocation, out=, descriptor
packing, stream passing, runtime errors, both calling conventions, threads,
and custom-op registration (guarded by the torch version).

    python3 python/tests/test_torch.py OUT_DIR     # OUT_DIR holds libpkg.json
"""
import ctypes
import os
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import torch  # noqa: E402

import tx  # noqa: E402
from tx import torch_ops  # noqa: E402

LIB_DIR = None
STREAM = 0x5EED


class FakeRuntime:
    """Stands in for libtx_cuda_runtime.so's error API."""

    def __init__(self):
        self.message = None
        self.count = 0
        self.streams = []

    def last_error(self):
        return self.message

    def error_count(self):
        return self.count

    call_error_count = error_count

    def set_stream(self, stream, asynchronous):
        self.streams.append((stream, asynchronous))


class Fake:
    """A library whose C functions record their descriptors."""

    def __init__(self, mode="stream", device_index=-1, label="cpu"):
        self.manifest = tx.read_manifest(os.path.join(LIB_DIR, "libpkg.so"))
        self.calls = []
        self.rc = 0
        self.fail_count = False
        self.runtime = FakeRuntime()
        self.keep = []
        self.lib = tx._bind_library("fake/libpkg.so", self.manifest, None, self.runtime, torch,
                                    device_index, torch.device("cpu"), lambda d: STREAM,
                                    lambda fn: self.bind(fn, mode), device_label=label)

    def bind(self, fn, mode):
        ranks = [a.rank for a in fn.arguments] + [r.rank for r in fn.results]
        n = len(ranks)

        def read(ptrs):
            descs = []
            for p, r in zip(ptrs, ranks):
                w = list((ctypes.c_int64 * (3 + 2 * r)).from_address(p))
                descs.append({"allocated": w[0], "aligned": w[1], "offset": w[2],
                              "sizes": tuple(w[3:3 + r]), "strides": tuple(w[3 + r:])})
            return descs

        if mode == "stream":
            def impl(*ptrs):
                self.calls.append((fn.name, read(ptrs[:n]), ptrs[n], threading.get_ident()))
                return self.rc
            cf = ctypes.CFUNCTYPE(ctypes.c_int32, *[ctypes.c_void_p] * (n + 1))(impl)
        else:
            def impl(*ptrs):
                self.calls.append((fn.name, read(ptrs), None, threading.get_ident()))
                if self.fail_count:
                    self.runtime.count += 1
                    self.runtime.message = "tx.attention: head dimension D of query and key differ"
            cf = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * n)(impl)
        self.keep.append(cf)
        return cf, mode


def rnd(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


def desc_of(t):
    shape = tuple(t.shape)
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= s
    return {"allocated": t.data_ptr(), "aligned": t.data_ptr(), "offset": 0,
            "sizes": shape, "strides": tuple(reversed(strides))}


class Calls(unittest.TestCase):
    def setUp(self):
        self.f = Fake()
        self.lib = self.f.lib

    def test_static_attention(self):
        q, k, v = rnd(1, 8, 16, 64, dtype=torch.float16), rnd(1, 2, 16, 64, dtype=torch.float16), \
            rnd(1, 2, 16, 64, dtype=torch.float16)
        o = self.lib.attn(q, k, v)
        self.assertEqual((tuple(o.shape), o.dtype), ((1, 8, 16, 64), torch.float16))
        (name, descs, stream, _), = self.f.calls
        self.assertEqual(name, "attn")
        self.assertEqual(stream, STREAM)
        self.assertEqual(descs, [desc_of(q), desc_of(k), desc_of(v), desc_of(o)])

    def test_keywords_and_out(self):
        q, k, v = rnd(2, 4, 5, 8), rnd(2, 2, 7, 8), rnd(2, 2, 7, 3)
        m = torch.ones(2, 4, 5, 7, dtype=torch.bool)
        out = torch.empty(2, 4, 5, 3)
        r = self.lib.attn_mask(query=q, key=k, value=v, keep=m, out=out)
        self.assertIs(r, out)
        descs = self.f.calls[0][1]
        self.assertEqual(descs, [desc_of(q), desc_of(k), desc_of(v), desc_of(m), desc_of(out)])

    def test_dynamic_result_shape(self):
        q, k, v = rnd(3, 6, 5, 32), rnd(3, 2, 9, 32), rnd(3, 2, 9, 16)
        bias = rnd(1, 1, 5, 9)
        o = self.lib.attn_bias(q, k, v, bias)
        self.assertEqual(tuple(o.shape), (3, 6, 5, 16))
        self.assertEqual(self.f.calls[0][1][4], desc_of(o))

    def test_canonical_strides_for_size1_dims(self):
        # Contiguous in PyTorch's sense with an odd stride on a size-1 dim:
        # the descriptor gets row-major strides.
        x = torch.empty_strided((4, 1, 3), (3, 99, 1), dtype=torch.bfloat16)
        self.assertTrue(x.is_contiguous())
        self.lib.softmax_dyn(x)
        self.assertEqual(self.f.calls[0][1][0]["strides"], (3, 3, 1))

    def test_default_stream(self):
        # _on_stream takes torch's default stream as NULL (the legacy stream).
        self.lib.softmax.__globals__["_stream"] = lambda d: 0
        self.lib.softmax(rnd(4, 128))
        self.assertIsNone(self.f.calls[0][2])  # ctypes gives a NULL c_void_p as None

    def test_zero_size(self):
        o = self.lib.softmax_dyn(torch.empty(0, 5, 2, dtype=torch.bfloat16))
        self.assertEqual(tuple(o.shape), (0, 5, 2))
        self.assertEqual(len(self.f.calls), 1)

    def test_two_results(self):
        a, b = rnd(3, 5), rnd(2, 8, dtype=torch.float16)
        r0, r1 = self.lib.pair(a, b)
        self.assertEqual((tuple(r0.shape), r0.dtype, tuple(r1.shape), r1.dtype),
                         ((3, 5), torch.float32, (2, 8), torch.float16))
        o0, o1 = torch.empty(3, 5), torch.empty(2, 8, dtype=torch.float16)
        self.assertEqual(self.lib.pair(a, b, out=(o0, o1)), (o0, o1))

    def test_attention_with_lse(self):
        # Two results of one op: the output [B, H, Sq, Dv] and the log-sum-exp
        # f32 [B, H, Sq], allocated from the query's sizes, or out= (a tuple
        # or a list); the descriptors are the arguments', then both results'.
        q, k, v = (rnd(2, 4, 5, 64, dtype=torch.float16), rnd(2, 2, 7, 64, dtype=torch.float16),
                   rnd(2, 2, 7, 64, dtype=torch.float16))
        r = self.lib.attn_lse(q, k, v)
        self.assertIsInstance(r, tuple)
        o, lse = r
        self.assertEqual((tuple(o.shape), o.dtype, tuple(lse.shape), lse.dtype),
                         ((2, 4, 5, 64), torch.float16, (2, 4, 5), torch.float32))
        (name, descs, _, _), = self.f.calls
        self.assertEqual(descs, [desc_of(q), desc_of(k), desc_of(v), desc_of(o), desc_of(lse)])
        o2, l2 = torch.empty(2, 4, 5, 64, dtype=torch.float16), torch.empty(2, 4, 5)
        self.assertEqual(self.lib.attn_lse(q, k, v, out=(o2, l2)), (o2, l2))
        r = self.lib.attn_lse(q, k, v, out=[o2, l2])
        self.assertIsInstance(r, tuple)
        self.assertTrue(r[0] is o2 and r[1] is l2)
        self.assertEqual(self.f.calls[2][1][3:], [desc_of(o2), desc_of(l2)])
        self.assertIn("log-sum-exp", self.lib.attn_lse.__doc__)
        self.assertIn("-> (f16[?, ?, ?, 64], f32[?, ?, ?])", self.lib.attn_lse.__doc__)

    def test_result_needs_out(self):
        with self.assertRaisesRegex(tx.ArgumentError, r"^zeros_like: the size of result result "
                                                      r"cannot be derived .*; pass out="):
            self.lib.zeros_like(rnd(2, 3))
        out = torch.empty(2, 3)
        self.assertIs(self.lib.zeros_like(rnd(2, 3), out=out), out)

    def test_runtime_error(self):
        self.f.rc = 1
        self.f.runtime.message = "tx.attention: mask key length differs from Sk"
        with self.assertRaisesRegex(tx.TxRuntimeError, r"^softmax: the library failed "
                                                       r"\(tx.attention: mask key length"):
            self.lib.softmax(rnd(4, 128))
        self.f.runtime.message = None
        with self.assertRaisesRegex(tx.TxRuntimeError, "status 1, no message"):
            self.lib.softmax(rnd(4, 128))

    def test_threads(self):
        x = rnd(4, 128)
        done = []

        def work():
            done.append(self.lib.softmax(x))

        t = threading.Thread(target=work)
        t.start()
        t.join()
        self.lib.softmax(x)
        (_, d1, _, t1), (_, d2, _, t2) = self.f.calls
        self.assertNotEqual(t1, t2)
        self.assertEqual(d1[0], desc_of(x))
        self.assertEqual(d2[0], desc_of(x))

    def test_library_object(self):
        self.assertIn("attn", dir(self.lib))
        self.assertIs(self.lib["attn"], self.lib.attn)
        with self.assertRaisesRegex(AttributeError, r"has no function 'nope' \(it has: attn, "):
            self.lib.nope
        doc = self.lib.attn.__doc__
        self.assertIn("attn(q: f16[1, 8, 16, 64], k: f16[1, 2, 16, 64], v: f16[1, 2, 16, 64]) "
                      "-> f16[1, 8, 16, 64]", doc)
        self.assertIn("causal", doc)
        self.assertEqual(self.lib.attn.mode, "stream")


class Errors(unittest.TestCase):
    """Every check, its exception class and message; the C function is never
    called."""

    def setUp(self):
        self.f = Fake()
        self.lib = self.f.lib

    def raises(self, cls, message, fn, *args, **kw):
        with self.assertRaises(cls) as cm:
            getattr(self.lib, fn)(*args, **kw)
        self.assertEqual(str(cm.exception), message)
        self.assertEqual(self.f.calls, [])
        return cm.exception

    def attn_args(self, b=2, h=4, hkv=2, sq=5, sk=7, d=8, dv=3, mask=None):
        q, k, v = rnd(b, h, sq, d), rnd(b, hkv, sk, d), rnd(b, hkv, sk, dv)
        m = torch.ones(*(mask or (b, h, sq, sk)), dtype=torch.bool)
        return q, k, v, m

    def test_not_a_tensor(self):
        e = self.raises(tx.ArgumentTypeError,
                        "softmax: argument 'x' (input): expected a torch.Tensor (f32[4, 128]), "
                        "got list", "softmax", [1.0])
        self.assertIsInstance(e, TypeError)
        self.assertEqual((e.function, e.argument), ("softmax", "x"))

    def test_dtype(self):
        e = self.raises(tx.ArgumentTypeError,
                        "attn: argument 'k' (key): expected dtype torch.float16 (f16), got "
                        "torch.float32", "attn", rnd(1, 8, 16, 64, dtype=torch.float16),
                        rnd(1, 2, 16, 64), rnd(1, 2, 16, 64, dtype=torch.float16))
        self.assertIsInstance(e, TypeError)
        q, k, v, m = self.attn_args()
        self.raises(tx.ArgumentTypeError,
                    "attn_mask: argument 'keep' (mask): expected dtype torch.bool (i1), got "
                    "torch.float32", "attn_mask", q, k, v, m.float())

    def test_device(self):
        lib = Fake(device_index=0, label="cuda:0").lib
        with self.assertRaises(tx.ArgumentError) as cm:
            lib.softmax(rnd(4, 128))
        self.assertEqual(str(cm.exception),
                         "softmax: argument 'x' (input): is on cpu; the library runs on cuda:0")
        self.assertIsInstance(cm.exception, ValueError)

    def test_rank(self):
        self.raises(tx.ShapeError, "softmax: argument 'x' (input): expected rank 2 "
                    "(f32[4, 128]), got rank 1 with shape [512]", "softmax", rnd(512))
        q, k, v, m = self.attn_args()
        self.raises(tx.ShapeError, "attn_mask: argument 'value' (value): expected rank 4 "
                    "(f32[?, ?, ?, ?]), got rank 3 with shape [2, 7, 3]", "attn_mask",
                    q, k, v[:, 0], m)

    def test_static_size(self):
        self.raises(tx.ShapeError, "softmax: argument 'x' (input): dimension 1 is 64, "
                    "expected 128 (f32[4, 128]); got shape [4, 64]", "softmax", rnd(4, 64))
        self.raises(tx.ShapeError, "attn_bias: argument 'v' (value): dimension 3 is 32, "
                    "expected 16 (f32[?, ?, ?, 16]); got shape [1, 1, 2, 32]", "attn_bias",
                    rnd(1, 1, 2, 32), rnd(1, 1, 2, 32), rnd(1, 1, 2, 32), rnd(1, 1, 2, 2))
        # The additive mask broadcasts over B and H: its type has static 1s.
        self.raises(tx.ShapeError, "attn_bias: argument 'bias' (mask): dimension 0 is 2, "
                    "expected 1 (f32[1, 1, ?, ?]); got shape [2, 1, 2, 2]", "attn_bias",
                    rnd(2, 1, 2, 32), rnd(2, 1, 2, 32), rnd(2, 1, 2, 16), rnd(2, 1, 2, 2))

    def test_contiguity(self):
        x = rnd(128, 4).t()
        self.raises(tx.ArgumentError, "softmax: argument 'x' (input): is not contiguous "
                    "(shape [4, 128], strides (1, 4)); tx takes row-major tensors: pass "
                    ".contiguous()", "softmax", x)

    def test_attention_rules(self):
        q, k, v, m = self.attn_args()
        cases = [
            ((q, rnd(3, 2, 7, 8), v, m), "argument 'key' (key): batch size B = 3 differs "
                                         "from query's 2"),
            ((q, k, rnd(3, 2, 7, 3), m), "argument 'value' (value): batch size B = 3 differs "
                                         "from query's 2"),
            ((q, rnd(2, 2, 7, 6), v, m), "argument 'key' (key): head dim D = 6 differs from "
                                         "query's 8"),
            ((q, k, rnd(2, 1, 7, 3), m), "argument 'value' (value): K/V head count Hkv = 1 "
                                         "differs from key's 2"),
            ((q, k, rnd(2, 2, 6, 3), m), "argument 'value' (value): key length Sk = 6 differs "
                                         "from key's 7"),
            (self.attn_args(hkv=3)[:3] + (m,), "argument 'key' (key): K/V head count Hkv = 3 "
                                               "does not divide query's H = 4 query heads "
                                               "(grouped-query attention needs H % Hkv == 0)"),
            (self.attn_args(hkv=0)[:3] + (m,), "argument 'key' (key): K/V head count Hkv is 0 "
                                               "but query has H = 4 heads"),
            (self.attn_args(mask=(1, 4, 5, 7)), "argument 'keep' (mask): batch dimension is 1, "
                                                "expected B = 2 (query's; the mask broadcasts "
                                                "over B only where the function's mask type "
                                                "has a static 1)"),
            (self.attn_args(mask=(2, 1, 5, 7)), "argument 'keep' (mask): head dimension is 1, "
                                                "expected H = 4 (query's; the mask broadcasts "
                                                "over H only where the function's mask type "
                                                "has a static 1)"),
            (self.attn_args(mask=(2, 4, 4, 7)), "argument 'keep' (mask): query length is 4, "
                                                "expected Sq = 5 (query's)"),
            (self.attn_args(mask=(2, 4, 5, 8)), "argument 'keep' (mask): key length is 8, "
                                                "expected Sk = 7 (key's)"),
            (self.attn_args(d=0)[:3] + (m,), "argument 'query' (query): head dim D is 0, but "
                                             "the default scale 1/sqrt(D) needs D > 0 (the "
                                             "function has no explicit scale)"),
        ]
        for args, msg in cases:
            with self.subTest(msg=msg):
                self.raises(tx.ShapeError, "attn_mask: " + msg, "attn_mask", *args)
        # H == 0 with Hkv == 0 is an empty result, not an error; so are zero dims.
        q0, k0, v0, m0 = self.attn_args(h=0, hkv=0, mask=(2, 0, 5, 7))
        self.assertEqual(tuple(self.lib.attn_mask(q0, k0, v0, m0).shape), (2, 0, 5, 3))
        q0, k0, v0, m0 = self.attn_args(sk=0)
        self.assertEqual(tuple(self.lib.attn_mask(q0, k0, v0, m0).shape), (2, 4, 5, 3))

    def test_lengths(self):
        """kv_lengths / q_lengths: one entry per batch (a shape rule), and
        values in [0, Sk] / [0, Sq] (checked on the tensor before the call:
        the compiled GPU code clamps them and cannot report them)."""
        h = torch.float16
        q, k, v = rnd(2, 4, 5, 32, dtype=h), rnd(2, 2, 7, 32, dtype=h), rnd(2, 2, 7, 32, dtype=h)
        i32 = lambda *x: torch.tensor(x, dtype=torch.int32)
        self.raises(tx.ShapeError, "attn_lengths: argument 'kv_len' (kv_lengths): has 3 "
                    "entries, expected one per batch, B = 2 (q's)",
                    "attn_lengths", q, k, v, i32(1, 2, 3), i32(5, 0))
        self.raises(tx.ArgumentError, "attn_lengths: argument 'kv_len' (kv_lengths): entry 1 "
                    "is 8, outside [0, Sk = 7]", "attn_lengths", q, k, v, i32(7, 8), i32(5, 0))
        self.raises(tx.ArgumentError, "attn_lengths: argument 'q_len' (q_lengths): entry 0 "
                    "is -1, outside [0, Sq = 5]", "attn_lengths", q, k, v, i32(7, 0), i32(-1, 5))
        self.lib.attn_lengths(q, k, v, i32(7, 0), i32(5, 0))
        self.assertEqual(len(self.f.calls), 1)

    def test_explicit_scale_allows_d0(self):
        q, k, v = rnd(1, 1, 2, 32), rnd(1, 1, 3, 32), rnd(1, 1, 3, 16)
        self.assertEqual(tuple(self.lib.attn_bias(q, k, v, rnd(1, 1, 2, 3)).shape), (1, 1, 2, 16))

    def test_out_errors(self):
        x = rnd(4, 128)
        pre = "softmax: out (result): "
        self.raises(tx.ShapeError, pre + "has shape [4, 64], expected [4, 128]", "softmax", x,
                    out=torch.empty(4, 64))
        self.raises(tx.ArgumentTypeError, pre + "expected dtype torch.float32 (f32), got "
                    "torch.float16", "softmax", x, out=torch.empty(4, 128, dtype=torch.float16))
        self.raises(tx.ArgumentError, pre + "is not contiguous (strides (1, 4))", "softmax", x,
                    out=torch.empty(128, 4).t())
        self.raises(tx.ArgumentError, pre + "overlaps argument 'x'; results must not alias the "
                    "arguments or each other", "softmax", x, out=x)
        self.raises(tx.ArgumentTypeError, "softmax: out= must be a torch.Tensor, got tuple",
                    "softmax", x, out=(torch.empty(4, 128), torch.empty(4, 128)))
        a, b = rnd(3, 5), rnd(2, 8, dtype=torch.float16)
        self.raises(tx.ArgumentTypeError, "pair: out= must be a sequence of 2 tensors, got "
                    "Tensor", "pair", a, b, out=torch.empty(3, 5))
        big = torch.empty(100)
        self.raises(tx.ArgumentError, "pair: out[1] (result1): overlaps out[0]; results must "
                    "not alias the arguments or each other", "pair", a, b,
                    out=(big[:15].view(3, 5), big[:8].view(torch.float16).view(2, 8)))
        q, k, v = (rnd(1, 2, 3, 64, dtype=torch.float16), rnd(1, 1, 4, 64, dtype=torch.float16),
                   rnd(1, 1, 4, 64, dtype=torch.float16))
        o = torch.empty(1, 2, 3, 64, dtype=torch.float16)
        self.raises(tx.ShapeError, "attn_lse: out[1] (result1): has shape [1, 2, 4], expected "
                    "[1, 2, 3]", "attn_lse", q, k, v, out=(o, torch.empty(1, 2, 4)))
        self.raises(tx.ArgumentTypeError, "attn_lse: out[1] (result1): expected dtype "
                    "torch.float32 (f32), got torch.float16", "attn_lse", q, k, v,
                    out=(o, torch.empty(1, 2, 3, dtype=torch.float16)))
        self.raises(tx.ArgumentTypeError, "attn_lse: out= must be a sequence of 2 tensors, got "
                    "list", "attn_lse", q, k, v, out=[o])
        self.raises(tx.ShapeError, "zeros_like: out (result): has shape [3], expected [?, ?]",
                    "zeros_like", rnd(2, 3), out=torch.empty(3))

    def test_load_without_cuda(self):
        if torch.cuda.is_available():
            self.skipTest("a CUDA device is present")
        with self.assertRaisesRegex(tx.TxError, r"libpkg\.so\): PyTorch sees no CUDA device"):
            tx.load(os.path.join(LIB_DIR, "libpkg.so"))
        # A library that does not exist is named as such (before its
        # manifest is looked for).
        with self.assertRaisesRegex(tx.TxError, r"libnope\.so: no such library"):
            tx.load(os.path.join(LIB_DIR, "libnope.so"))

    def test_missing_argument_is_an_argument_error(self):
        # Named, and also a TypeError (as Python's own missing-argument error).
        q, k = rnd(1, 8, 16, 64, dtype=torch.float16), rnd(1, 2, 16, 64, dtype=torch.float16)
        with self.assertRaisesRegex(tx.ArgumentTypeError,
                                    r"^attn: argument 'v' \(value\): is missing "
                                    r"\(f16\[1, 2, 16, 64\]\)$") as cm:
            self.lib.attn(q, k)
        self.assertIsInstance(cm.exception, TypeError)
        self.assertEqual(cm.exception.argument, "v")
        with self.assertRaisesRegex(TypeError, "unexpected keyword argument 'w'"):
            self.lib.attn(q, k, w=k)


class OddNames(unittest.TestCase):
    def test_keyword_function_and_builtin_argument_names(self):
        t = {"type": "tensor<?xf32>", "element_type": "f32", "rank": 1, "shape": [None]}
        m = tx.Manifest({"format": "tx-manifest", "version": 1, "functions": [
            {"name": "class", "symbols": {"on_stream": "x"},
             "arguments": [dict(t, index=0, name="len"), dict(t, index=1, name="Exception")],
             "results": [dict(t, index=0, name="result", shape_from=[{"arg": 0, "dim": 0}])],
             "ops": []}]})
        calls = []
        proto = ctypes.CFUNCTYPE(ctypes.c_int32, *[ctypes.c_void_p] * 4)
        cf = proto(lambda *p: calls.append(p) or 0)
        lib = tx._bind_library("x.so", m, None, FakeRuntime(), torch, -1, torch.device("cpu"),
                               lambda d: STREAM, lambda fn: (cf, "stream"))
        f = lib["class"]
        self.assertEqual(f.__name__, "class")
        o = f(rnd(5), rnd(3))
        self.assertEqual((tuple(o.shape), len(calls)), ((5,), 1))
        with self.assertRaisesRegex(tx.ShapeError, "argument 'len': expected rank 1"):
            f(rnd(5, 1), rnd(3))


class SyncConvention(unittest.TestCase):
    """Libraries without _on_stream entry points: the synchronous form on the
    current stream (txRuntimeSetStream) and the runtime's error count."""

    def test_call_and_error(self):
        f = Fake(mode="sync")
        x = rnd(4, 128)
        o = f.lib.softmax(x)
        self.assertEqual(f.runtime.streams, [(STREAM, 0)])
        # torch's default stream (NULL) goes to the runtime as CU_STREAM_LEGACY.
        f.lib.softmax.__globals__["_stream"] = lambda d: 0
        f.lib.softmax(x)
        self.assertEqual(f.runtime.streams[-1], (1, 0))
        f.lib.softmax.__globals__["_stream"] = lambda d: STREAM
        (_, descs, stream, _) = f.calls[0]
        self.assertEqual(descs, [desc_of(x), desc_of(o)])
        self.assertEqual(f.lib.softmax.mode, "sync")
        self.assertIn("waits for it", f.lib.softmax.__doc__)
        f.fail_count = True
        with self.assertRaisesRegex(tx.TxRuntimeError, "^softmax: the library reported an "
                                                       "error: tx.attention: head dimension"):
            f.lib.softmax(x)


class CustomOps(unittest.TestCase):
    def test_registration(self):
        f = Fake()
        if not torch_ops.supported(torch):
            with self.assertRaisesRegex(tx.TxError, r"^tx: registering custom ops needs torch "
                                                    r">= 2\.4 \(torch\.library\.custom_op\); "
                                                    r"this is torch " + torch.__version__):
                f.lib.register_custom_ops("txtest")
            return
        ops = f.lib.register_custom_ops("txtest")
        self.assertNotIn("zeros_like", ops)  # result size not derivable
        self.assertEqual(torch_ops.schema(f.lib.attn.info),
                         "(Tensor q, Tensor k, Tensor v) -> Tensor")
        x = rnd(4, 128)
        o = torch.ops.txtest.softmax(x)
        self.assertEqual(tuple(o.shape), (4, 128))
        self.assertEqual(len(f.calls), 1)
        from torch._subclasses.fake_tensor import FakeTensorMode
        with FakeTensorMode():
            q, k, v = torch.empty(3, 6, 5, 32), torch.empty(3, 2, 9, 32), torch.empty(3, 2, 9, 16)
            o = torch.ops.txtest.attn_bias(q, k, v, torch.empty(1, 1, 5, 9))
            self.assertEqual(tuple(o.shape), (3, 6, 5, 16))
            with self.assertRaisesRegex(tx.ShapeError, "head dim D = 16 differs"):
                torch.ops.txtest.attn_mask(q, torch.empty(3, 2, 9, 16), v,
                                           torch.empty(3, 6, 5, 9, dtype=torch.bool))
        self.assertEqual(len(f.calls), 1)
        with self.assertRaisesRegex(tx.TxError, "cannot be a custom op"):
            f.lib.register_custom_ops("txtest2", names=["zeros_like"])
        with self.assertRaisesRegex(tx.TxError, "cannot register txtest::softmax: already "
                                                "registered for softmax"):
            f.lib.register_custom_ops("txtest", names=["softmax"])
        ops2 = f.lib.register_custom_ops("txtest", names=["softmax"], prefix="again_")
        self.assertEqual(tuple(ops2["softmax"](x).shape), (4, 128))


STUB_CODE = r"""
import json, sys
sys.path.insert(0, %(python)r)
import torch, tx
from tx._abi import open_library, bind_symbol
path = %(lib)r
cdll, rt = open_library(path, device=0)  # sets the runtime's default device first
m = tx.read_manifest(path)
lib = tx._bind_library(path, m, cdll, rt, torch, -1, torch.device("cpu"), lambda d: 0,
                       lambda fn: bind_symbol(cdll, fn, rt))
out = {"modes": {f.__name__: f.mode for f in lib},
       "argtypes": {f.__name__: len(m.functions[f.__name__].arguments) + len(
           m.functions[f.__name__].results) + (f.mode == "stream") for f in lib},
       "unsupported": lib.unsupported}
n0 = rt.error_count()
try:
    lib.softmax(torch.randn(4, 64))
except tx.ShapeError as e:
    out["shape_error"] = str(e)
out["errors_after_bad_call"] = rt.error_count() - n0
try:
    lib.softmax(torch.randn(4, 128))
    out["runtime_error"] = None
except tx.TxRuntimeError as e:
    out["runtime_error"] = str(e)
print("RESULT " + json.dumps(out))
"""


class RealLibraryOnStubDriver(unittest.TestCase):
    """The real libpkg.so and its runtime, loaded on the CUDA toolkit's stub
    libcuda.so.1 ($TX_CUDA_STUB, in a child process): every entry point
    binds to an exported symbol, bad arguments never reach the library, and
    a call that fails in the runtime raises TxRuntimeError with its message."""

    def test_stub(self):
        stub = os.environ.get("TX_CUDA_STUB")
        if not stub or not os.path.exists(os.path.join(stub, "libcuda.so.1")):
            self.skipTest("TX_CUDA_STUB (a directory with the stub libcuda.so.1) not set")
        import json
        import subprocess
        code = STUB_CODE % {"python": os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   ".."),
                            "lib": os.path.join(LIB_DIR, "libpkg.so")}
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=dict(os.environ, LD_LIBRARY_PATH=stub))
        line = [l for l in p.stdout.splitlines() if l.startswith("RESULT ")]
        self.assertTrue(line, p.stdout + p.stderr)
        r = json.loads(line[0][len("RESULT "):])
        self.assertEqual(r["unsupported"], {})
        names = ["attn", "attn_bias", "attn_lengths", "attn_lse", "attn_mask", "pair",
                 "softmax", "softmax_dyn", "zeros_like"]
        # Each differentiable function also has its derived entry points.
        derived = [n + s for n in names if n not in ("attn_lse", "zeros_like")
                   for s in ("__tx_bwd", "__tx_fwd")]
        self.assertEqual(sorted(r["modes"]), sorted(names + derived))
        self.assertTrue(set(r["modes"].values()) <= {"stream", "sync"}, r["modes"])
        self.assertEqual(r["argtypes"]["attn_mask"], 5 + (r["modes"]["attn_mask"] == "stream"))
        self.assertIn("dimension 1 is 64, expected 128", r["shape_error"])
        self.assertEqual(r["errors_after_bad_call"], 0)
        self.assertRegex(r["runtime_error"] or "", r"^softmax: the library (failed|reported an "
                                                   r"error)")


class Compile(unittest.TestCase):
    """tx.compile_library through scripts/tx-compile.sh (LLVM is here)."""

    def test_compile_error(self):
        with self.assertRaises(tx.CompileError) as cm:
            tx.compile_library("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                               "  %p = tx.softmax %x dim = 3 : tensor<4xf32>\n"
                               "  return %p : tensor<4xf32>\n}\n", chip="sm_90",
                               out_dir=tempfile.mkdtemp(), name="bad")
        self.assertIn("'tx.softmax' op dim 3 is out of range [-1, 1)", str(cm.exception))

    def test_compile_error_leaves_no_cache_entry(self):
        cache = tempfile.mkdtemp()
        os.environ["TX_CACHE_DIR"] = cache
        try:
            with self.assertRaises(tx.CompileError):
                tx.compile_library("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                                   "  %p = tx.softmax %x dim = 3 : tensor<4xf32>\n"
                                   "  return %p : tensor<4xf32>\n}\n", chip="sm_90", name="bad")
        finally:
            del os.environ["TX_CACHE_DIR"]
        self.assertEqual(os.listdir(cache), [])

    def test_bad_option(self):
        with self.assertRaisesRegex(tx.CompileError, "values must be non-empty words"):
            tx.compile_library("func.func @f()", softmax="a b")

    def test_compile_and_cache(self):
        src = ("func.func @sm(%x: tensor<?x?xf16>) -> tensor<?x?xf16> {\n"
               "  %p = tx.softmax %x dim = -1 : tensor<?x?xf16>\n"
               "  return %p : tensor<?x?xf16>\n}\n")
        cache = tempfile.mkdtemp()
        os.environ["TX_CACHE_DIR"] = cache
        try:
            path = tx.compile_library(src, chip="sm_80", softmax_block_size=64, name="sm")
            again = tx.compile_library(src, chip="sm_80", softmax_block_size=64, name="sm")
        finally:
            del os.environ["TX_CACHE_DIR"]
        self.assertEqual(path, again)
        self.assertTrue(path.startswith(cache) and path.endswith("/libsm.so"), path)
        m = tx.read_manifest(path)
        self.assertIn("chip=sm_80", m.pipeline)
        self.assertIn("softmax-block-size=64", m.pipeline)
        self.assertEqual(m.functions["sm"].arguments[0].name, "x")


if __name__ == "__main__":
    LIB_DIR = sys.argv.pop(1)
    print("torch", torch.__version__, "| custom ops:", "yes" if torch_ops.supported(torch)
          else "no (needs torch >= 2.4)", file=sys.stderr, flush=True)
    unittest.main(verbosity=1)
