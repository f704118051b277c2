#!/usr/bin/env python3
"""python/tx without a GPU (issue #44): tx.load(path, device="meta") opens a
library's manifest as callables that run every argument check of a GPU
call (but the device) and return meta tensors of the result shapes;
tx.compile checks for a CUDA device before it compiles; tx.compile_library
and tx.compile(..., device="meta") work without one. On the real manifest
of test/Python/Inputs/pkg.mlir (the library file must exist; it is never
opened).

    python3 python/tests/test_meta.py OUT_DIR     # OUT_DIR holds libpkg.so/.json
"""
import os
import shutil
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import tx  # noqa: E402
import tx._compile  # noqa: E402
import test_torch  # noqa: E402  (Fake: the same manifest bound to fake C functions)

LIB_DIR = None
META = torch.device("meta")


def meta(*shape, dtype=torch.float32):
    return torch.empty(*shape, dtype=dtype, device="meta")


class Load(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.path = os.path.join(LIB_DIR, "libpkg.so")
        cls.lib = tx.load(cls.path, device="meta")

    def test_library(self):
        lib = self.lib
        self.assertEqual(lib.device, META)
        self.assertIsNone(lib.runtime)
        self.assertEqual(sorted(lib.functions), sorted(tx.read_manifest(self.path).functions))
        self.assertEqual(lib.attn.mode, "check")
        self.assertIn("Check only (tx.load(..., device='meta'))", lib.attn.__doc__)
        self.assertIn("attn(q: f16[1, 8, 16, 64]", lib.attn.__doc__)
        self.assertEqual(tx.load(self.path, device=META).device, META)

    def test_results_are_meta_tensors_of_the_result_shapes(self):
        h = torch.float16
        o = self.lib.attn(meta(1, 8, 16, 64, dtype=h), meta(1, 2, 16, 64, dtype=h),
                          meta(1, 2, 16, 64, dtype=h))
        self.assertEqual((tuple(o.shape), o.dtype, o.device), ((1, 8, 16, 64), h, META))
        o, lse = self.lib.attn_lse(meta(2, 4, 5, 64, dtype=h), meta(2, 2, 7, 64, dtype=h),
                                   meta(2, 2, 7, 64, dtype=h))
        self.assertEqual((tuple(o.shape), tuple(lse.shape), lse.dtype, lse.device),
                         ((2, 4, 5, 64), (2, 4, 5), torch.float32, META))
        o = self.lib.attn_bias(q=meta(3, 6, 5, 32), k=meta(3, 2, 9, 32), v=meta(3, 2, 9, 16),
                               bias=meta(1, 1, 5, 9))
        self.assertEqual(tuple(o.shape), (3, 6, 5, 16))

    def test_the_same_errors_as_a_gpu_call(self):
        """Each bad call raises the exception, with the message, of the same
        call on the library bound to (fake) C functions."""
        fake = test_torch.Fake().lib
        cpu = lambda a: torch.empty_like(a, device="cpu") if isinstance(a, torch.Tensor) else a
        h = torch.float16
        cases = [
            ("softmax", (meta(4, 64),), {}),
            ("softmax", ([1.0],), {}),
            ("attn", (meta(1, 8, 16, 64, dtype=h), meta(1, 2, 16, 64),
                      meta(1, 2, 16, 64, dtype=h)), {}),
            ("attn_mask", (meta(2, 4, 5, 8), meta(2, 3, 7, 8), meta(2, 3, 7, 3),
                           meta(2, 4, 5, 7, dtype=torch.bool)), {}),
            ("attn_mask", (meta(2, 4, 5, 8), meta(2, 2, 7, 6), meta(2, 2, 7, 3),
                           meta(2, 4, 5, 7, dtype=torch.bool)), {}),
            ("softmax", (meta(128, 4).t(),), {}),
            ("softmax", (meta(4, 128),), {"out": meta(4, 64)}),
            ("zeros_like", (meta(2, 3),), {}),
        ]
        for fn, args, kw in cases:
            with self.subTest(fn=fn, args=args):
                with self.assertRaises(tx.TxError) as want:
                    fake[fn](*map(cpu, args), **{k: cpu(v) for k, v in kw.items()})
                with self.assertRaises(tx.TxError) as got:
                    self.lib[fn](*args, **kw)
                self.assertIs(type(got.exception), type(want.exception))
                self.assertEqual(str(got.exception), str(want.exception))

    def test_out(self):
        out = meta(4, 128)
        self.assertIs(self.lib.softmax(meta(4, 128), out=out), out)
        o = meta(2, 4, 5, 64, dtype=torch.float16), meta(2, 4, 5)
        h = torch.float16
        r = self.lib.attn_lse(meta(2, 4, 5, 64, dtype=h), meta(2, 2, 7, 64, dtype=h),
                              meta(2, 2, 7, 64, dtype=h), out=list(o))
        self.assertEqual(r, o)
        self.assertEqual(self.lib.zeros_like(meta(2, 3), out=meta(2, 3)).device, META)

    def test_cpu_tensors_are_checked_by_value(self):
        """Any device is accepted; on CPU the per-sequence lengths are checked
        by value (meta tensors have none), and results are still meta."""
        h, i32 = torch.float16, torch.int32
        q, k, v = (torch.zeros(2, 4, 5, 32, dtype=h), torch.zeros(2, 2, 7, 32, dtype=h),
                   torch.zeros(2, 2, 7, 32, dtype=h))
        with self.assertRaisesRegex(tx.ArgumentError, r"^attn_lengths: argument 'kv_len' "
                                                      r"\(kv_lengths\): entry 1 is 8, outside "
                                                      r"\[0, Sk = 7\]$"):
            self.lib.attn_lengths(q, k, v, torch.tensor([7, 8], dtype=i32),
                                  torch.tensor([5, 0], dtype=i32))
        o = self.lib.attn_lengths(q, k, v, torch.tensor([7, 0], dtype=i32),
                                  torch.tensor([5, 0], dtype=i32))
        self.assertEqual((tuple(o.shape), o.device), ((2, 4, 5, 32), META))
        o = self.lib.attn_lengths(*(t.to("meta") for t in (q, k, v)), meta(2, dtype=i32),
                                  meta(2, dtype=i32))
        self.assertEqual(tuple(o.shape), (2, 4, 5, 32))
        out = torch.zeros(4, 128)
        self.assertIs(self.lib.softmax(torch.ones(4, 128), out=out), out)
        self.assertEqual(float(out.abs().sum()), 0.0)  # untouched: nothing is computed
        with self.assertRaisesRegex(tx.ArgumentError, "overlaps argument 'x'"):
            x = torch.ones(4, 128)
            self.lib.softmax(x, out=x)

    def test_errors_of_load(self):
        with self.assertRaisesRegex(tx.TxError, r"libnope\.so: no such library"):
            tx.load(os.path.join(LIB_DIR, "libnope.so"), device="meta")
        with self.assertRaisesRegex(tx.TxError, r"device=\"meta\" opens a library for "
                                                r"argument checks only"):
            tx.load(self.path, device="cpu")
        with self.assertRaisesRegex(tx.TxError, r"^register_custom_ops: .*libpkg\.so was "
                                                r"opened with device=\"meta\""):
            self.lib.register_custom_ops("txmeta")


class Compile(unittest.TestCase):
    SRC = ("func.func @sm(%x: tensor<?x?xf16>) -> tensor<?x?xf16> {\n"
           "  %p = tx.softmax %x dim = -1 : tensor<?x?xf16>\n"
           "  return %p : tensor<?x?xf16>\n}\n")

    def test_no_cuda_device_is_said_before_compiling(self):
        if torch.cuda.is_available():
            self.skipTest("a CUDA device is present")
        called = []
        saved = tx._compile.compile_library
        tx._compile.compile_library = lambda *a, **k: called.append(a) or saved(*a, **k)
        try:
            t0 = time.time()
            with self.assertRaises(tx.TxError) as cm:
                tx.compile(self.SRC, chip="sm_80", out_dir=tempfile.mkdtemp())
            dt = time.time() - t0
        finally:
            tx._compile.compile_library = saved
        self.assertNotIsInstance(cm.exception, tx.CompileError)
        self.assertEqual(str(cm.exception),
                         "tx.compile: PyTorch sees no CUDA device (tx libraries run on NVIDIA "
                         "GPUs), so the library could not be loaded: nothing was compiled "
                         "(tx.compile_library builds it without loading); device=\"meta\" "
                         "opens a library for argument checks only")
        self.assertEqual(called, [])
        self.assertLess(dt, 1.0)

    def test_compile_library_and_meta_need_no_gpu(self):
        d = tempfile.mkdtemp()
        try:
            lib = tx.compile(self.SRC, chip="sm_80", device="meta", out_dir=d, name="sm")
            self.assertEqual(lib.path, os.path.join(d, "libsm.so"))
            self.assertEqual(lib.device, META)
            o = lib.sm(meta(3, 7, dtype=torch.float16))
            self.assertEqual((tuple(o.shape), o.device), ((3, 7), META))
            self.assertEqual(tx.compile_library(self.SRC, chip="sm_80", out_dir=d, name="sm"),
                             lib.path)
        finally:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    LIB_DIR = test_torch.LIB_DIR = sys.argv.pop(1)
    print("torch", torch.__version__, file=sys.stderr, flush=True)
    unittest.main(verbosity=1)
