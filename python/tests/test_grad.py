#!/usr/bin/env python3
"""Autograd through tx entry points (no GPU): the real manifest of
test/Python/Inputs/pkg.mlir (compiled with tx-derive-gradients by
scripts/tx-compile.sh), its entry points bound to fake C functions on CPU
tensors (test_torch.py's Fake; the fakes here write a known value into each
result), and opened check-only (tx.load(..., device="meta")).

Checked: which entry point runs (the plain one without grad, __tx_fwd with
grad), what the backward entry point receives (the arguments, the forward's
results and LSE, the incoming gradient made contiguous), which arguments get
which gradient, the refusals (functions without backward, out= with
autograd, double backward), and the argument errors of the backward entry
point (a missing LSE, mismatched O/dO/LSE sizes, a non-contiguous or
wrong-dtype gradient). The values themselves are checked on a GPU against
PyTorch's float64 autograd (harness/check_autograd.py).

    python3 python/tests/test_grad.py OUT_DIR     # OUT_DIR holds libpkg.so/.json
"""
import ctypes
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import tx  # noqa: E402
from tx import torch_ops  # noqa: E402
from tx._manifest import ELEMENT_BYTES  # noqa: E402
import test_torch  # noqa: E402  (Fake: entry points bound to fake C functions)

LIB_DIR = None
DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}


class Filling(test_torch.Fake):
    """A fake library whose C functions also fill result j of each call
    with the value j + 1 (so a gradient can be traced to the result it came
    from)."""

    def bind(self, fn, mode):
        cf, mode = super().bind(fn, mode)
        nargs = len(fn.arguments)

        def impl(*ptrs):
            rc = cf(*ptrs)
            descs = self.calls[-1][1]
            for j, r in enumerate(fn.results):
                d = descs[nargs + j]
                n = 1
                for s in d["sizes"]:
                    n *= s
                data = torch.full((n,), float(j + 1), dtype=DTYPES[r.element_type])
                raw = data.view(torch.int16 if data.element_size() == 2 else torch.int32)
                ctypes.memmove(d["aligned"], raw.numpy().tobytes(),
                               n * ELEMENT_BYTES[r.element_type])
            return rc

        n = len(fn.arguments) + len(fn.results)
        if mode == "stream":
            wrapped = ctypes.CFUNCTYPE(ctypes.c_int32, *[ctypes.c_void_p] * (n + 1))(impl)
        else:
            wrapped = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * n)(impl)
        self.keep.append(wrapped)
        return wrapped, mode


def qkv(grad=(True, True, True)):
    h = torch.float16
    ts = (torch.randn(1, 8, 16, 64).to(h), torch.randn(1, 2, 16, 64).to(h),
          torch.randn(1, 2, 16, 64).to(h))
    return tuple(t.requires_grad_(g) for t, g in zip(ts, grad))


class Manifest(unittest.TestCase):
    def test_entries(self):
        m = tx.read_manifest(os.path.join(LIB_DIR, "libpkg.so"))
        fs = m.functions
        self.assertEqual(fs["attn"].gradient_entries, ("attn__tx_fwd", "attn__tx_bwd", (0, 1, 2)))
        self.assertEqual(fs["attn_mask"].gradient_entries[2], (0, 1, 2))   # i1 mask: none
        self.assertEqual(fs["attn_bias"].gradient_entries[2], (0, 1, 2, 3))
        self.assertEqual(fs["attn_lengths"].gradient_entries[2], (0, 1, 2))
        self.assertEqual(fs["pair"].gradient_entries[2], (0, 1))
        self.assertIsNone(fs["attn"].no_gradient)
        self.assertEqual(fs["attn_lse"].no_gradient,
                         "result 1 is a tx.attention's log-sum-exp (no gradient through the LSE)")
        self.assertEqual(fs["zeros_like"].no_gradient,
                         "result 0 is not computed by a tx.attention or tx.softmax")
        self.assertIn("no double backward", fs["attn__tx_bwd"].no_gradient)
        bwd = fs["attn__tx_bwd"]
        self.assertEqual([a.pyname for a in bwd.arguments],
                         ["q", "k", "v", "output", "lse", "grad_output"])
        self.assertEqual([a.role for a in bwd.arguments],
                         ["query", "key", "value", "output", "lse", "grad_output"])
        self.assertEqual([r.shape_from for r in bwd.results],
                         [(1, 8, 16, 64), (1, 2, 16, 64), (1, 2, 16, 64)])
        fwd = fs["attn_bias__tx_fwd"]
        self.assertEqual(fwd.results[1].shape_from, ((0, 0), (0, 1), (0, 2)))
        self.assertEqual(fs["attn_bias__tx_bwd"].results[3].shape_from,
                         (1, 1, (3, 2), (3, 3)))


class DirectCalls(unittest.TestCase):
    def setUp(self):
        self.f = Filling()
        self.lib = self.f.lib

    def test_attention_backward(self):
        q, k, v = qkv((True, False, True))
        o = self.lib.attn(q, k, v)
        self.assertEqual(o.grad_fn.name(), "TxFunctionBackward")
        self.assertTrue(o.requires_grad)
        (name, descs, _, _), = self.f.calls
        self.assertEqual(name, "attn__tx_fwd")
        self.assertEqual([d["sizes"] for d in descs[3:]], [(1, 8, 16, 64), (1, 8, 16)])
        self.assertEqual(descs[3]["aligned"], o.data_ptr())
        lse_ptr = descs[4]["aligned"]
        self.assertTrue(bool((o == 1).all()))
        # o.sum() hands backward an expanded (stride 0) gradient: made contiguous.
        (o.float() * 3).sum().backward()
        name, descs, _, _ = self.f.calls[1]
        self.assertEqual(name, "attn__tx_bwd")
        self.assertEqual([d["aligned"] for d in descs[:4]],
                         [q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr()])
        self.assertEqual(descs[4]["aligned"], lse_ptr)
        self.assertEqual((descs[5]["sizes"], descs[5]["strides"]),
                         ((1, 8, 16, 64), (8192, 1024, 64, 1)))
        # dQ is result 0 (filled with 1), dV result 2 (3); K needs none.
        self.assertTrue(bool((q.grad == 1).all()))
        self.assertIsNone(k.grad)
        self.assertTrue(bool((v.grad == 3).all()))
        self.assertEqual((q.grad.dtype, v.grad.shape), (torch.float16, v.shape))

    def test_additive_mask_gets_its_gradient(self):
        q, k = torch.randn(2, 4, 5, 32), torch.randn(2, 4, 7, 32)
        v, bias = torch.randn(2, 4, 7, 16), torch.randn(1, 1, 5, 7)
        for t in (q, k, v, bias):
            t.requires_grad_()
        o = self.lib.attn_bias(q, k, v, bias)
        o.backward(torch.randn_like(o))
        self.assertEqual([c[0] for c in self.f.calls], ["attn_bias__tx_fwd", "attn_bias__tx_bwd"])
        self.assertEqual([float(t.grad.mean()) for t in (q, k, v, bias)], [1, 2, 3, 4])
        self.assertEqual(bias.grad.shape, (1, 1, 5, 7))

    def test_lengths_and_i1_mask_get_none(self):
        q, k, v = (torch.randn(2, 4, 5, 32, dtype=torch.float16, requires_grad=True),
                   torch.randn(2, 2, 7, 32, dtype=torch.float16, requires_grad=True),
                   torch.randn(2, 2, 7, 32, dtype=torch.float16, requires_grad=True))
        kl, ql = torch.tensor([7, 3], dtype=torch.int32), torch.tensor([5, 0], dtype=torch.int32)
        o = self.lib.attn_lengths(q, k, v, kl, ql)
        o.sum().backward()
        self.assertEqual([float(t.grad.float().mean()) for t in (q, k, v)], [1, 2, 3])
        name, descs, _, _ = self.f.calls[1]
        self.assertEqual([d["aligned"] for d in descs[3:5]], [kl.data_ptr(), ql.data_ptr()])

    def test_length_errors_name_the_function(self):
        q = torch.randn(2, 4, 5, 32, dtype=torch.float16, requires_grad=True)
        k, v = (torch.randn(2, 2, 7, 32, dtype=torch.float16) for _ in range(2))
        kl = torch.tensor([7, 9], dtype=torch.int32)
        ql = torch.tensor([5, 0], dtype=torch.int32)
        with self.assertRaisesRegex(tx.ArgumentError, r"^attn_lengths: argument 'kv_len' "
                                                      r"\(kv_lengths\): entry 1 is 9"):
            self.lib.attn_lengths(q, k, v, kl, ql)
        self.assertEqual(self.f.calls, [])

    def test_two_results_one_used(self):
        a = torch.randn(3, 5, requires_grad=True)
        b = torch.randn(2, 8).half().requires_grad_()
        ya, yb = self.lib.pair(a, b)
        ya.sum().backward()           # yb unused: its gradient is zeros
        name, descs, _, _ = self.f.calls[1]
        self.assertEqual(name, "pair__tx_bwd")
        self.assertEqual([d["sizes"] for d in descs[:6]],
                         [(3, 5), (2, 8), (3, 5), (2, 8), (3, 5), (2, 8)])
        self.assertEqual((float(a.grad.mean()), float(b.grad.float().mean())), (1, 2))

    def test_without_grad_the_plain_entry_point_runs(self):
        q, k, v = qkv()
        with torch.no_grad():
            o1 = self.lib.attn(q, k, v)
        with torch.inference_mode():
            o2 = self.lib.attn(q, k, v)
        o3 = self.lib.attn(q.detach(), k.detach(), v.detach())
        for o in (o1, o2, o3):
            self.assertIsNone(o.grad_fn)
        self.assertEqual([c[0] for c in self.f.calls], ["attn"] * 3)

    def test_refusals(self):
        x = torch.randn(4, 6, requires_grad=True)
        with self.assertRaises(tx.UnsupportedError) as cm:
            self.lib.zeros_like(x)
        self.assertEqual(str(cm.exception),
                         "zeros_like: argument 'x': requires grad, but zeros_like has no "
                         "backward (result 0 is not computed by a tx.attention or tx.softmax): "
                         "the result would carry no gradient. Call zeros_like under "
                         "torch.no_grad() or torch.inference_mode(), or pass x.detach()")
        q, k, v = qkv()
        with self.assertRaisesRegex(tx.UnsupportedError,
                                    r"^attn: out= cannot be combined with autograd"):
            self.lib.attn(q, k, v, out=torch.empty(1, 8, 16, 64, dtype=torch.float16))
        o = torch.empty(1, 8, 16, 64, dtype=torch.float16, requires_grad=True)
        with self.assertRaisesRegex(tx.UnsupportedError, "^attn: out requires grad, but writing "
                                                         "into it would bypass autograd"):
            self.lib.attn(q.detach(), k.detach(), v.detach(), out=o)
        # Double backward: the backward entry point has no gradient.
        lse = torch.randn(1, 8, 16)
        with self.assertRaisesRegex(tx.UnsupportedError,
                                    r"^attn__tx_bwd: argument 'q' \(query\): requires grad, but "
                                    r"attn__tx_bwd computes gradients and has none itself: no "
                                    r"double backward"):
            self.lib.attn__tx_bwd(q, k, v, o.detach(), lse, o.detach())
        self.assertEqual(self.f.calls, [])

    def test_argument_errors_come_first(self):
        x = torch.randn(4, 64, requires_grad=True)
        with self.assertRaisesRegex(tx.ShapeError, "^softmax: .*dimension 1 is 64, expected 128"):
            self.lib.softmax(x)

    def test_backward_entry_argument_errors(self):
        q, k, v = (t.detach() for t in qkv())
        o, do, lse = torch.randn(1, 8, 16, 64).half(), torch.randn(1, 8, 16, 64).half(), \
            torch.randn(1, 8, 16)
        bwd = self.lib.attn__tx_bwd
        cases = [
            (lambda: bwd(q, k, v, o, grad_output=do), tx.ArgumentTypeError,
             r"^attn__tx_bwd: argument 'lse' \(lse\): is missing \(f32\[1, 8, 16\]\)$"),
            (lambda: bwd(q, k, v, o, lse[:, :, :15], do), tx.ShapeError,
             r"argument 'lse' \(lse\): dimension 2 is 15, expected 16"),
            (lambda: bwd(q, k, v, o, lse, do.transpose(2, 3).contiguous().transpose(2, 3)),
             tx.ArgumentError, r"argument 'grad_output' \(grad_output\): is not contiguous"),
            (lambda: bwd(q, k, v, o, lse, do.float()), tx.ArgumentTypeError,
             r"argument 'grad_output' \(grad_output\): expected dtype torch.float16"),
        ]
        for call, err, msg in cases:
            with self.assertRaisesRegex(err, msg):
                call()
        # Dynamic sizes: the forward/backward rules name the argument.
        bq, bk, bv, bm = (torch.randn(2, 4, 5, 32), torch.randn(2, 4, 7, 32),
                          torch.randn(2, 4, 7, 16), torch.randn(1, 1, 5, 7))
        bo, bl = torch.randn(2, 4, 5, 16), torch.randn(2, 4, 5)
        bb = self.lib.attn_bias__tx_bwd
        cases = [
            (lambda: bb(bq, bk, bv, bm, bo, torch.randn(2, 4, 6), bo), tx.ShapeError,
             r"^attn_bias__tx_bwd: argument 'lse' \(lse\): query length Sq = 6 differs from "
             r"q's 5 \(the LSE is the forward's, \[B, H, Sq\]\)$"),
            (lambda: bb(bq, bk, bv, bm, torch.randn(2, 3, 5, 16), bl, bo), tx.ShapeError,
             r"argument 'output' \(output\): head count H = 3 differs from q's 4"),
            (lambda: bb(bq, bk, bv, bm, bo, bl, torch.randn(2, 4, 6, 16)), tx.ShapeError,
             r"argument 'grad_output' \(grad_output\): shape .* differs from output's"),
        ]
        for call, err, msg in cases:
            with self.assertRaisesRegex(err, msg):
                call()
        self.assertEqual(self.f.calls, [])
        self.assertEqual(len(bb(bq, bk, bv, bm, bo, bl, bo)), 4)

    def test_sync_convention_too(self):
        f = Filling(mode="sync")
        q, k, v = qkv()
        f.lib.attn(q, k, v).sum().backward()
        self.assertEqual([c[0] for c in f.calls], ["attn__tx_fwd", "attn__tx_bwd"])

    def test_docstrings_say_so(self):
        self.assertIn("Differentiable: on tensors that require grad", self.lib.attn.__doc__)
        self.assertIn("attn__tx_bwd", self.lib.attn.__doc__)
        self.assertIn("no backward: result 0 is not computed", self.lib.zeros_like.__doc__)


class CheckOnly(unittest.TestCase):
    """tx.load(path, device="meta"): autograd with meta tensors."""

    def test_meta(self):
        lib = tx.load(os.path.join(LIB_DIR, "libpkg.so"), device="meta")
        q, k, v = (t.detach().to("meta").requires_grad_() for t in qkv())
        o = lib.attn(q, k, v)
        self.assertIsNotNone(o.grad_fn)
        o.backward(torch.empty_like(o))
        self.assertEqual([t.grad.shape for t in (q, k, v)], [t.shape for t in (q, k, v)])
        self.assertTrue(q.grad.is_meta)
        with self.assertRaisesRegex(tx.UnsupportedError, "^zeros_like: argument 'x'"):
            lib.zeros_like(torch.empty(3, 3, device="meta", requires_grad=True))
        with torch.no_grad():
            self.assertEqual(tuple(lib.attn(q, k, v).shape), (1, 8, 16, 64))
        # CPU tensors that require grad: meta gradients would not fit them.
        x = torch.randn(4, 128, requires_grad=True)
        with self.assertRaisesRegex(tx.UnsupportedError,
                                    r"^softmax: argument 'x' requires grad and is on cpu, but a "
                                    r"check-only library \(device=\"meta\"\) differentiates "
                                    r"meta tensors only"):
            lib.softmax(x)


class CustomOps(unittest.TestCase):
    """torch >= 2.4 only (run on the GPU machine: harness/check_autograd.py
    checks the values and torch.compile)."""

    def test_custom_ops(self):
        if not torch_ops.supported(torch):
            self.skipTest("torch %s has no torch.library.custom_op" % torch.__version__)
        f = Filling()
        ops = f.lib.register_custom_ops("txgrad")
        self.assertIn("attn__tx_fwd", ops)
        q, k, v = qkv()
        o = torch.ops.txgrad.attn(q, k, v)
        o.sum().backward()
        self.assertEqual([c[0] for c in f.calls], ["attn__tx_fwd", "attn__tx_bwd"])
        self.assertTrue(bool((k.grad == 2).all()))
        # A function without backward is an op whose autograd kernel raises
        # (attn_lse returns an LSE); one whose result sizes do not follow
        # from its arguments is no op at all.
        self.assertIn("attn_lse", ops)
        self.assertNotIn("zeros_like", ops)
        with self.assertRaisesRegex(tx.UnsupportedError, "^attn_lse: argument 'q'"):
            torch.ops.txgrad.attn_lse(*qkv())


if __name__ == "__main__":
    LIB_DIR = test_torch.LIB_DIR = sys.argv.pop(1)
    print("torch", torch.__version__, "| custom ops:", "yes" if torch_ops.supported(torch)
          else "no (needs torch >= 2.4)", file=sys.stderr, flush=True)
    unittest.main(verbosity=1)
