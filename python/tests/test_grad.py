#!/usr/bin/env python3
"""Gradients are not supported yet (issue #44): a call of a tx entry point on
tensors that require grad, while grad mode is on, raises tx.UnsupportedError
(naming the tensor and saying how to proceed) instead of returning a result
without grad_fn, for direct calls, out= buffers and the torch.library custom
ops (torch >= 2.4); under torch.no_grad() / torch.inference_mode() or with
detached tensors calls work as before. The entry points of the real manifest
of test/Python/Inputs/pkg.mlir, bound to fake C functions on CPU tensors
(test_torch.py's Fake), and opened check-only (tx.load(..., device="meta")).

    python3 python/tests/test_grad.py OUT_DIR     # OUT_DIR holds libpkg.so/.json
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import tx  # noqa: E402
from tx import torch_ops  # noqa: E402
import test_torch  # noqa: E402  (Fake: entry points bound to fake C functions)

LIB_DIR = None

MSG = ("attn: argument 'q' (query): requires grad, but tx functions have no backward "
       "(autograd) yet: the result would carry no gradient. Call attn under torch.no_grad() "
       "or torch.inference_mode(), or pass q.detach()")


def qkv(grad=(True, False, False)):
    h = torch.float16
    ts = (torch.randn(1, 8, 16, 64).to(h), torch.randn(1, 2, 16, 64).to(h),
          torch.randn(1, 2, 16, 64).to(h))
    return tuple(t.requires_grad_(g) for t, g in zip(ts, grad))


class DirectCalls(unittest.TestCase):
    def setUp(self):
        self.f = test_torch.Fake()
        self.lib = self.f.lib

    def test_requires_grad_raises_before_the_call(self):
        with self.assertRaises(tx.UnsupportedError) as cm:
            self.lib.attn(*qkv())
        e = cm.exception
        self.assertEqual(str(e), MSG)
        self.assertEqual((e.function, e.argument), ("attn", "q"))
        self.assertIsInstance(e, tx.TxError)
        self.assertIsInstance(e, NotImplementedError)
        self.assertEqual(self.f.calls, [])

    def test_names_the_first_tensor_that_requires_grad(self):
        with self.assertRaisesRegex(tx.UnsupportedError, r"^attn: argument 'v' \(value\): "
                                                         r"requires grad.* pass v\.detach\(\)$"):
            self.lib.attn(*qkv((False, False, True)))
        # A leaf that requires grad seen through a view/op (non-leaf) too.
        x = torch.randn(4, 128, requires_grad=True)
        with self.assertRaisesRegex(tx.UnsupportedError, "^softmax: argument 'x' \\(input\\): "
                                                         "requires grad"):
            self.lib.softmax(x * 2)
        self.assertEqual(self.f.calls, [])

    def test_no_grad_inference_mode_and_detach_work(self):
        q, k, v = qkv((True, True, True))
        with torch.no_grad():
            o1 = self.lib.attn(q, k, v)
        with torch.inference_mode():
            o2 = self.lib.attn(q, k, v)
        o3 = self.lib.attn(q.detach(), k.detach(), v.detach())
        for o in (o1, o2, o3):
            self.assertEqual(tuple(o.shape), (1, 8, 16, 64))
            self.assertIsNone(o.grad_fn)
            self.assertFalse(o.requires_grad)
        self.assertEqual(len(self.f.calls), 3)

    def test_argument_errors_come_first(self):
        x = torch.randn(4, 64, requires_grad=True)
        with self.assertRaisesRegex(tx.ShapeError, "dimension 1 is 64, expected 128"):
            self.lib.softmax(x)

    def test_out_that_requires_grad(self):
        x = torch.randn(4, 128)
        out = torch.empty(4, 128, requires_grad=True)
        with self.assertRaises(tx.UnsupportedError) as cm:
            self.lib.softmax(x, out=out)
        self.assertEqual(str(cm.exception),
                         "softmax: out requires grad, but tx functions have no backward "
                         "(autograd) yet: writing into it would bypass autograd. Pass a "
                         "tensor that does not require grad, or call softmax under "
                         "torch.no_grad()")
        self.assertEqual(cm.exception.argument, "out")
        a, b = torch.randn(3, 5), torch.randn(2, 8).half()
        outs = (torch.empty(3, 5), torch.empty(2, 8, dtype=torch.float16, requires_grad=True))
        with self.assertRaisesRegex(tx.UnsupportedError, r"^pair: out\[1\] requires grad"):
            self.lib.pair(a, b, out=outs)
        self.assertEqual(self.f.calls, [])
        with torch.no_grad():
            self.assertIs(self.lib.softmax(x, out=out), out)
        self.assertEqual(len(self.f.calls), 1)

    def test_sync_convention_too(self):
        lib = test_torch.Fake(mode="sync").lib
        with self.assertRaisesRegex(tx.UnsupportedError, "^attn: argument 'q'"):
            lib.attn(*qkv())

    def test_docstring_says_so(self):
        self.assertIn("tx.UnsupportedError", self.lib.attn.__doc__)


class CheckOnly(unittest.TestCase):
    """tx.load(path, device="meta") refuses gradients the same way."""

    def test_meta(self):
        lib = tx.load(os.path.join(LIB_DIR, "libpkg.so"), device="meta")
        q, k, v = (t.to("meta") for t in qkv((False, False, False)))
        with self.assertRaises(tx.UnsupportedError) as cm:
            lib.attn(q.requires_grad_(), k, v)
        self.assertEqual(str(cm.exception), MSG)
        with torch.no_grad():
            self.assertEqual(tuple(lib.attn(q, k, v).shape), (1, 8, 16, 64))


class CustomOps(unittest.TestCase):
    """The torch.library ops (torch >= 2.4) raise in the same situation: their
    autograd kernel's setup_context raises UnsupportedError."""

    def test_custom_ops(self):
        if not torch_ops.supported(torch):
            self.skipTest("torch %s has no torch.library.custom_op" % torch.__version__)
        f = test_torch.Fake()
        f.lib.register_custom_ops("txgrad")
        with self.assertRaises(tx.UnsupportedError) as cm:
            torch.ops.txgrad.attn(*qkv())
        self.assertEqual(str(cm.exception), MSG)
        x = torch.randn(4, 128, requires_grad=True)
        with self.assertRaisesRegex(tx.UnsupportedError, "^softmax: argument 'x' \\(input\\): "
                                                         "requires grad"):
            torch.ops.txgrad.softmax(x)
        with torch.no_grad():
            o = torch.ops.txgrad.softmax(x)
        self.assertIsNone(o.grad_fn)
        o = torch.ops.txgrad.softmax(x.detach())
        self.assertEqual(tuple(o.shape), (4, 128))


if __name__ == "__main__":
    LIB_DIR = test_torch.LIB_DIR = sys.argv.pop(1)
    print("torch", torch.__version__, "| custom ops:", "yes" if torch_ops.supported(torch)
          else "no (needs torch >= 2.4)", file=sys.stderr, flush=True)
    unittest.main(verbosity=1)
