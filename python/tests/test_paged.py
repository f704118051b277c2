#!/usr/bin/env python3
"""Paged KV caches and state merging in python/tx without a GPU (issue #43),
on the library of examples/paged_decode.mlir opened with
tx.load(path, device="meta"): the argument checks of a paged call (the
pools' and the table's shapes, kv_lengths against max_pages * page_size,
the page id of every live key in [0, num_pages); garbage past a sequence's
length accepted), the merge function's checks, and tx.merge_states against
float64 attention over the union of two key sets.

    python3 python/tests/test_paged.py OUT_DIR     # OUT_DIR holds libpaged_decode.so/.json
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import torch  # noqa: E402

import tx  # noqa: E402

LIB_DIR = None
f16 = torch.float16


def paged_args(B=3, pages=5, max_pages=4, lens=(64, 0, 17), seed=0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(B, 32, 1, 128, generator=g).to(f16)
    kp = torch.randn(pages * 0 + 12, 16, 8, 128, generator=g).to(f16)
    vp = torch.randn(12, 16, 8, 128, generator=g).to(f16)
    pt = torch.randperm(12, generator=g)[:B * max_pages].view(B, max_pages).to(torch.int32)
    kl = torch.tensor(lens, dtype=torch.int32)
    return q, kp, vp, pt.contiguous(), kl


class Paged(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lib = tx.load(os.path.join(LIB_DIR, "libpaged_decode.so"), device="meta")

    def call(self, *args):
        return self.lib.paged_decode(*args)

    def test_ok_and_garbage_past_lengths(self):
        q, kp, vp, pt, kl = paged_args()
        pt[1, :] = -1              # sequence 1 has no key: nothing is read
        pt[2, 2:] = 10**6          # sequence 2's pages past ceil(17 / 16) = 2
        o = self.call(q, kp, vp, pt, kl)
        self.assertEqual(tuple(o.shape), (3, 32, 1, 128))
        self.assertEqual(o.device, torch.device("meta"))

    def assertError(self, argument, text, *args):
        with self.assertRaises(tx.ArgumentError) as cm:
            self.call(*args)
        self.assertEqual(cm.exception.argument, argument, str(cm.exception))
        self.assertIn(text, str(cm.exception))

    def test_live_page_out_of_range(self):
        q, kp, vp, pt, kl = paged_args()
        pt[2, 1] = 12              # live: key 16 of 17 is on page 1
        self.assertError("page_table", "entry [2, 1] is 12, outside [0, num_pages = 12) "
                         "for a live key", q, kp, vp, pt, kl)
        pt[2, 1] = -3
        self.assertError("page_table", "entry [2, 1] is -3", q, kp, vp, pt, kl)

    def test_length_past_pages(self):
        q, kp, vp, pt, kl = paged_args()
        kl[0] = 65                 # max_pages * page_size = 4 * 16
        self.assertError("kv_lengths", "entry 0 is 65, outside [0, Sk = 64]", q, kp, vp, pt, kl)

    def test_table_rows(self):
        q, kp, vp, pt, kl = paged_args()
        self.assertError("page_table", "has 2 rows, expected one per batch, B = 3",
                         q, kp, vp, pt[:2].contiguous(), kl)

    def test_pool_mismatch(self):
        q, kp, vp, pt, kl = paged_args()
        self.assertError("v_pages", "page count num_pages = 11 differs from k_pages's 12",
                         q, kp, vp[:11].contiguous(), pt, kl)

    def test_dtype(self):
        q, kp, vp, pt, kl = paged_args()
        with self.assertRaises(tx.ArgumentTypeError) as cm:
            self.call(q, kp, vp, pt.to(torch.int64), kl)
        self.assertEqual(cm.exception.argument, "page_table")


def attention64(q, k, v):
    s = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
    return torch.softmax(s, -1) @ v, torch.logsumexp(s, -1)


class Merge(unittest.TestCase):
    def parts(self, dtype=torch.float32):
        g = torch.Generator().manual_seed(1)
        q, k, v = (torch.randn(2, 4, 5, 16, generator=g, dtype=torch.float64) for _ in range(3))
        full = attention64(q, k, v)
        a = attention64(q, k[:, :, :2], v[:, :, :2])
        b = attention64(q, k[:, :, 2:], v[:, :, 2:])
        return full, (a[0].to(dtype), a[1].float(), b[0].to(dtype), b[1].float())

    def test_union(self):
        for dtype, tol in ((torch.float32, 1e-5), (torch.float16, 2e-3), (torch.bfloat16, 1e-2)):
            (o, l), parts = self.parts(dtype)
            om, lm = tx.merge_states(*parts)
            self.assertEqual(om.dtype, dtype)
            self.assertLess(((om.double() - o).norm() / o.norm()).item(), tol)
            self.assertLess((lm.double() - l).abs().max().item(), 1e-5)

    def test_empty_parts(self):
        (o, l), (oa, la, ob, lb) = self.parts()
        ninf = torch.full_like(la, float("-inf"))
        om, lm = tx.merge_states(torch.full_like(oa, float("nan")), ninf, ob, lb)
        self.assertTrue(torch.equal(lm, lb))
        self.assertLess((om - ob).abs().max().item(), 1e-6)
        om, lm = tx.merge_states(oa, ninf, torch.full_like(ob, float("nan")), ninf)
        self.assertTrue(torch.equal(om, torch.zeros_like(om)))
        self.assertTrue(torch.isneginf(lm).all())

    def test_errors(self):
        _, (oa, la, ob, lb) = self.parts()
        with self.assertRaises(tx.ArgumentError) as cm:
            tx.merge_states(oa, la[..., :3], ob, lb)
        self.assertEqual(cm.exception.argument, "lse_a")
        with self.assertRaises(tx.ArgumentTypeError) as cm:
            tx.merge_states(oa, la, ob, lb.half())
        self.assertEqual(cm.exception.argument, "lse_b")
        with self.assertRaises(tx.ArgumentError) as cm:
            tx.merge_states(oa, la, ob[:1], lb)
        self.assertEqual(cm.exception.argument, "out_b")

    def test_library_merge_checks(self):
        lib = tx.load(os.path.join(LIB_DIR, "libpaged_decode.so"), device="meta")
        a = torch.randn(2, 32, 3, 128).to(f16)
        la = torch.randn(2, 32, 3)
        o, l = lib.merge(a, la, a, la)
        self.assertEqual((tuple(o.shape), tuple(l.shape)), ((2, 32, 3, 128), (2, 32, 3)))
        with self.assertRaises(tx.ArgumentError) as cm:
            lib.merge(a, la, a, la[:, :, :2].contiguous())
        self.assertEqual(cm.exception.argument, "lse_b")
        self.assertIn("leading dimensions", str(cm.exception))


if __name__ == "__main__":
    LIB_DIR = sys.argv.pop(1)
    print("torch", torch.__version__, file=sys.stderr, flush=True)
    unittest.main(verbosity=1)
