#!/usr/bin/env python3
"""CPU tests of tx.distributed (no GPU): the ring algorithm of
``ring_attention`` run over gloo in N processes with a float64 attention
callable, against float64 attention of the whole sequence on one process;
the zig-zag shard/unshard layout; the LSE merge with rows that see no key;
the argument checks and their messages; the kernel source of the tx library
(read by tx.read_manifest elsewhere: here its function names and types).

    python3 python/tests/test_distributed.py
"""
import math
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

import tx  # noqa: E402
from tx import distributed as txd  # noqa: E402


def reference_attention(q, k, v, causal):
    """float64 attention with GQA, bottom-right causal alignment, and the
    natural-log LSE of the scaled scores (-inf, output 0 for a row that sees
    no key)."""
    q, k, v = q.double(), k.double(), v.double()
    g = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(g, dim=1)
    v = v.repeat_interleave(g, dim=1)
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        sq, sk = q.shape[2], k.shape[2]
        i = torch.arange(sq).unsqueeze(1)
        j = torch.arange(sk).unsqueeze(0)
        s = s.masked_fill(j > i + (sk - sq), float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse.unsqueeze(-1)).nan_to_num(0.0)
    return p @ v, lse


def _inputs(b, h, hkv, s, d, seed):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(b, h, s, d, generator=g, dtype=torch.float64)
    k = torch.randn(b, hkv, s, d, generator=g, dtype=torch.float64) * 1.5
    v = torch.randn(b, hkv, s, d, generator=g, dtype=torch.float64)
    return q, k, v


def _worker(rank, world, init_file, cases, results):
    dist.init_process_group("gloo", init_method="file://" + init_file, rank=rank,
                            world_size=world)
    calls = []

    def attention(q, k, v, causal):
        calls.append((tuple(q.shape), tuple(k.shape), causal))
        return reference_attention(q, k, v, causal)

    errs = []
    for (b, h, hkv, s, d, causal, seed) in cases:
        q, k, v = _inputs(b, h, hkv, s, d, seed)
        ref, ref_lse = reference_attention(q, k, v, causal)
        sh = lambda x, dim=2: txd.shard(x, rank, world, causal=causal, dim=dim)  # noqa: E731
        del calls[:]
        out, lse = txd.ring_attention(sh(q), sh(k), sh(v), causal=causal,
                                      attention=attention, return_lse=True)
        e = max((out - sh(ref)).abs().max().item(), (lse - sh(ref_lse)).abs().max().item())
        # The whole output, gathered from every rank, is the reference's.
        full = txd.gather(out, causal=causal)
        e = max(e, (full - ref).abs().max().item())
        # Work per rank: causal steps after the first attend half of the
        # local queries or half of the received keys.
        work = sum(a[2] * kk[2] for a, kk, _ in calls)
        errs.append((e, work, [c[2] for c in calls]))
    results[rank] = errs
    dist.barrier()
    dist.destroy_process_group()


def run_ring(world, cases):
    with tempfile.TemporaryDirectory() as tmp:
        init_file = os.path.join(tmp, "store")
        manager = mp.Manager()
        results = manager.dict()
        mp.spawn(_worker, args=(world, init_file, cases, results), nprocs=world, join=True)
        return [results[r] for r in range(world)]


class RingTest(unittest.TestCase):
    CASES = [
        # b, h, hkv, s, d, causal, seed
        (1, 2, 2, 24, 8, False, 1),
        (2, 4, 2, 24, 8, True, 2),     # GQA
        (1, 4, 1, 48, 16, True, 3),    # MQA
        (2, 2, 1, 24, 4, False, 4),
    ]

    def check_world(self, world):
        res = run_ring(world, self.CASES)
        for ci, case in enumerate(self.CASES):
            s, causal = case[3], case[5]
            works = [res[r][ci][1] for r in range(world)]
            for r in range(world):
                err, work, kinds = res[r][ci]
                self.assertLess(err, 1e-12, "world %d case %s rank %d: error %g" % (
                    world, case, r, err))
                self.assertEqual(len(kinds), world)
                # Causal: only the first step is causal (zig-zag).
                self.assertEqual(kinds, [causal] + [False] * (world - 1))
            sl = s // world
            if causal:
                # Equal work on every rank: (local causal) + (N-1) half blocks.
                self.assertEqual(len(set(works)), 1, works)
                self.assertEqual(works[0], sl * sl + (world - 1) * sl * sl // 2)
            else:
                self.assertEqual(works, [world * sl * sl] * world)

    def test_world1(self):
        self.check_world(1)

    def test_world2(self):
        self.check_world(2)

    def test_world3(self):
        self.check_world(3)

    def test_world4(self):
        self.check_world(4)


class LayoutTest(unittest.TestCase):
    def test_zigzag(self):
        x = torch.arange(16).view(1, 1, 16, 1)
        parts = [txd.shard(x, r, 2, causal=True) for r in range(2)]
        self.assertEqual(parts[0].flatten().tolist(), [0, 1, 2, 3, 12, 13, 14, 15])
        self.assertEqual(parts[1].flatten().tolist(), [4, 5, 6, 7, 8, 9, 10, 11])
        self.assertTrue(torch.equal(txd.unshard(parts, causal=True), x))
        parts = [txd.shard(x, r, 4, causal=False) for r in range(4)]
        self.assertEqual(parts[3].flatten().tolist(), [12, 13, 14, 15])
        self.assertTrue(torch.equal(txd.unshard(parts, causal=False), x))

    def test_shard_errors(self):
        x = torch.zeros(1, 1, 12, 1)
        with self.assertRaisesRegex(tx.ShapeError, "12 .* not a multiple of 8 .*zig-zag"):
            txd.shard(x, 0, 4, causal=True)
        with self.assertRaisesRegex(ValueError, "rank 4 is not in"):
            txd.shard(x, 4, 4, causal=False)


class MergeTest(unittest.TestCase):
    def test_merge_is_attention_over_the_union(self):
        q, k, v = _inputs(2, 4, 2, 10, 8, 7)
        ref, ref_lse = reference_attention(q, k, v, False)
        a, la = reference_attention(q, k[:, :, :3], v[:, :, :3], False)
        b, lb = reference_attention(q, k[:, :, 3:], v[:, :, 3:], False)
        out, lse = a.float(), la.float()
        txd.merge_partial(out, lse, b.half(), lb.float())
        self.assertLess((out.double() - ref).abs().max().item(), 2e-3)
        self.assertLess((lse.double() - ref_lse).abs().max().item(), 1e-5)

    def test_rows_without_keys(self):
        out = torch.tensor([[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]], dtype=torch.float64)
        lse = torch.tensor([float("-inf"), 0.5, float("-inf")], dtype=torch.float64)
        part = torch.tensor([[3.0, 4.0], [5.0, 6.0], [0.0, 0.0]], dtype=torch.float64)
        lse_part = torch.tensor([0.25, float("-inf"), float("-inf")], dtype=torch.float64)
        txd.merge_partial(out, lse, part, lse_part)
        self.assertEqual(out.tolist(), [[3.0, 4.0], [1.0, 2.0], [0.0, 0.0]])
        self.assertEqual(lse.tolist(), [0.25, 0.5, float("-inf")])
        self.assertFalse(torch.isnan(out).any())

    def test_views_and_inputs_untouched(self):
        out = torch.ones(1, 1, 4, 2)
        lse = torch.zeros(1, 1, 4)
        part = torch.full((1, 1, 2, 2), 3.0)
        lse_part = torch.zeros(1, 1, 2)
        txd.merge_partial(out[:, :, 2:], lse[:, :, 2:], part, lse_part)
        self.assertEqual(out.flatten().tolist(), [1, 1, 1, 1, 2, 2, 2, 2])
        self.assertAlmostEqual(lse[0, 0, 3].item(), math.log(2), places=6)
        self.assertEqual(part.flatten().tolist(), [3.0] * 4)


class ArgumentTest(unittest.TestCase):
    def call(self, q, k, v, **kw):
        kw.setdefault("attention", reference_attention)
        return txd.ring_attention(q, k, v, **kw)

    def test_messages(self):
        q = torch.zeros(1, 4, 8, 16, dtype=torch.float16)
        k = torch.zeros(1, 2, 8, 16, dtype=torch.float16)
        cases = [
            (dict(q=q, k=k, v=k.float()), tx.ArgumentTypeError,
             r"argument 'v' \(value\) is torch.float32, q is torch.float16"),
            (dict(q=q, k=k[0], v=k), tx.ShapeError, r"argument 'k' \(key\) has rank 3"),
            (dict(q=q, k=torch.zeros(1, 3, 8, 16, dtype=torch.float16),
                  v=torch.zeros(1, 3, 8, 16, dtype=torch.float16)),
             tx.ShapeError, "H = 4 of q is not a multiple of Hkv = 3"),
            (dict(q=q, k=k[..., :8], v=k[..., :8]), tx.ShapeError,
             "head dim D = 8 differs from q's 16"),
            (dict(q=q, k=k[:, :, :6], v=k[:, :, :6]), tx.ShapeError,
             "shard has S = 6 keys, q has 8"),
            (dict(q=q[:, :, :7], k=k[:, :, :7], v=k[:, :, :7], causal=True), tx.ShapeError,
             "even shard length"),
            (dict(q=q, k=k, v=k[:, :, :4]), tx.ShapeError, "Hkv and S"),
            (dict(q=q, k=k, v="v"), tx.ArgumentTypeError, "is a str, expected a torch.Tensor"),
            (dict(q=q, k=k, v=k), tx.TxError, "torch.distributed is not initialized"),
            (dict(q=q, k=k, v=k, lib=object()), tx.ArgumentError, "exactly one of lib="),
        ]
        for kw, exc, msg in cases:
            with self.assertRaisesRegex(exc, msg):
                self.call(**kw)
        with self.assertRaisesRegex(tx.ArgumentTypeError, "take float16 or bfloat16"):
            txd.ring_attention(q.float(), k.float(), k.float(), lib=object())
        with self.assertRaisesRegex(tx.ShapeError, r"argument 'v' \(value\): batch B = 2 "
                                    "differs from q's 1"):
            self.call(q, k, torch.zeros(2, 2, 8, 16, dtype=torch.float16))
        with self.assertRaisesRegex(tx.ShapeError, "Hkv = 0"):
            self.call(q, k[:, :0], k[:, :0])
        with self.assertRaisesRegex(tx.ArgumentTypeError, "argument 'attention' is a int"):
            self.call(q, k, k, attention=3)

    def test_library_type(self):
        with self.assertRaisesRegex(tx.ArgumentTypeError, "argument 'lib' is a str, expected "
                                    "a loaded tx library"):
            txd._lib_attention("build/ring/libring_attention.so", torch.float16, 64, 64)

    def test_library_lookup(self):
        class Lib:
            path = "libx.so"

            def __getitem__(self, name):
                raise KeyError(name)
        q = torch.zeros(1, 4, 8, 64, dtype=torch.bfloat16)
        with self.assertRaisesRegex(tx.ArgumentError, "libx.so has no function "
                                    "ring_attn_bf16_d64 .*kernel_source"):
            txd._lib_attention(Lib(), q.dtype, 64, 64)
        with self.assertRaisesRegex(tx.ShapeError, "Dv = 32 differs from D = 64"):
            txd._lib_attention(Lib(), q.dtype, 64, 32)


class SourceTest(unittest.TestCase):
    def test_kernel_source(self):
        src = txd.kernel_source(head_dims=(128,), dtypes=("bf16",))
        self.assertIn("func.func @ring_attn_bf16_d128(%q: tensor<?x?x?x128xbf16>", src)
        self.assertIn("tx.attention %q, %k, %v causal : tensor<?x?x?x128xbf16>", src)
        self.assertIn("-> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>)", src)
        self.assertEqual(src.count("func.func"), 2)
        self.assertEqual(txd.kernel_name(True, torch.float16, 64), "ring_attn_causal_f16_d64")
        with self.assertRaisesRegex(ValueError, "expected float16"):
            txd.kernel_name(False, torch.int8, 64)


if __name__ == "__main__":
    print("torch %s" % torch.__version__)
    unittest.main(verbosity=1)
