#!/usr/bin/env python3
"""tx.flex's Python surface without a GPU: what tracing refuses (each a
tx.flex.TraceError naming the way out), the argument errors of
flex_attention, and a whole flex_attention call on meta tensors (trace,
compile into a library directory, load check-only, call with the captured
tensors; a second call reuses the library). Values are checked by
python/tests/test_flex.py (CPU) and harness/check_flex.py (GPU).

    test_flex_api.py LIBRARY_DIR
"""
import math
import os
import sys
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tx  # noqa: E402
import tx.flex as F  # noqa: E402

LIB_DIR = None
SLOPES = torch.rand(4)
BYTES = torch.zeros(8, dtype=torch.uint8)
HELD = {"slopes": torch.rand(4)}


def trace_error(fn, kind="score_mod"):
    try:
        F.trace(fn, kind)
    except F.TraceError as e:
        return str(e)
    raise AssertionError("no TraceError")


class Refusals(unittest.TestCase):
    def test_python_control_flow(self):
        m = trace_error(lambda s, b, h, i, j: s if i > j else 0.0)
        self.assertIn("score_mod: Python control flow on a traced value", m)
        self.assertIn("torch.where(cond, a, b)", m)
        self.assertIn("Python control flow", trace_error(lambda b, h, i, j: i < j < 5, "mask_mod"))
        self.assertIn("Python control flow", trace_error(lambda b, h, i, j: min(i, j) > 2,
                                                         "mask_mod"))

    def test_python_numbers(self):
        m = trace_error(lambda s, b, h, i, j: math.tanh(s))
        self.assertIn("cannot become a Python number", m)
        self.assertIn("torch.tanh", m)
        self.assertIn("Python number", trace_error(lambda s, b, h, i, j: s + [1.0, 2.0][h]))

    def test_signature(self):
        self.assertIn("must take (score, b, h, q_idx, kv_idx)",
                      trace_error(lambda b, h, i, j: b))
        self.assertIn("must take (b, h, q_idx, kv_idx)",
                      trace_error(lambda s, b, h, i, j: s, "mask_mod"))
        self.assertIn("expected a Python function", trace_error(42))

    def test_results(self):
        self.assertIn("must return one scalar (the new score), got None",
                      trace_error(lambda s, b, h, i, j: None))
        self.assertIn("must return one scalar (a boolean: true = visible), got _Captured",
                      trace_error(lambda b, h, i, j: SLOPES, "mask_mod"))
        self.assertIn("got tuple", trace_error(lambda s, b, h, i, j: (s, s)))

    def test_captured_tensors(self):
        self.assertIn("SLOPES[...] of shape [4] needs 1 scalar index(es)",
                      trace_error(lambda s, b, h, i, j: s + SLOPES[h, i]))
        self.assertIn("no slices", trace_error(lambda s, b, h, i, j: s + SLOPES[1:3]))
        self.assertIn("index 4 is out of bounds for dimension 0 of SLOPES (size 4)",
                      trace_error(lambda s, b, h, i, j: s + SLOPES[4]))
        self.assertIn("SLOPES is indexed by a f32 value",
                      trace_error(lambda s, b, h, i, j: s + SLOPES[s]))
        self.assertIn("used as a tensor (.sum)", trace_error(lambda s, b, h, i, j: SLOPES.sum()))
        self.assertIn("torch.exp on the captured tensor SLOPES",
                      trace_error(lambda s, b, h, i, j: torch.exp(SLOPES)))
        self.assertIn("dtype uint8", trace_error(lambda s, b, h, i, j: s + BYTES[i]))
        self.assertIn("did not capture", trace_error(lambda s, b, h, i, j: s + HELD["slopes"][h]))

    def test_untraceable_torch_functions(self):
        m = trace_error(lambda s, b, h, i, j: torch.softmax(s, 0))
        self.assertIn("torch.softmax cannot be traced", m)
        self.assertIn("& on float values: compare them first",
                      trace_error(lambda b, h, i, j: (i * 0.5) & j, "mask_mod"))
        with self.assertRaisesRegex(AttributeError, "traced value has no method 'view'"):
            F.trace(lambda s, b, h, i, j: s.view(1), "score_mod")

    def test_pytorch_forms(self):
        # Conversions (.long(), .to(dtype)), bound methods, torch.div's
        # rounding modes, add's alpha, shifts, bool + bool as PyTorch (or).
        t = F.trace(lambda s, b, h, i, j: s + SLOPES[(s * 2).long().clamp(0, 3)], "score_mod")
        self.assertIn("arith.fptosi", "\n".join(t.lines))
        t = F.trace(lambda s, b, h, i, j: s + torch.div(i - j, 2, rounding_mode="trunc")
                    + torch.add(s, 1.0, alpha=2) + (i >> 1).to(torch.float32), "score_mod")
        self.assertIn("arith.divsi", "\n".join(t.lines))
        self.assertIn("arith.shrsi", "\n".join(t.lines))
        t = F.trace(lambda b, h, i, j: (i > j) + (j == 0), "mask_mod")
        self.assertIn("arith.ori", t.lines[-2])

        class Mod:
            def score(self, s, b, h, i, j):
                return s * 2.0
        self.assertEqual(F.trace(Mod().score, "score_mod").lines[-1], "tx.yield %v1 : f32")

    def test_pytorch_refusals(self):
        self.assertIn("by the constant 0", trace_error(lambda s, b, h, i, j: s + i // 0))
        self.assertIn("does not fit index", trace_error(lambda s, b, h, i, j: s + i * 2 ** 70))
        self.assertIn("only decimals=0", trace_error(lambda s, b, h, i, j: torch.round(s, decimals=2)))
        self.assertIn("negating a boolean", trace_error(lambda s, b, h, i, j: s - (-(i > j))))
        self.assertIn("clamp needs min or max", trace_error(lambda s, b, h, i, j: s.clamp()))
        self.assertIn("use torch.round", trace_error(lambda s, b, h, i, j: round(s)))
        with self.assertRaisesRegex(F.TraceError, "no method 'frobnicate'"):
            F.trace(lambda s, b, h, i, j: s.frobnicate(), "score_mod")

    def test_accepted_forms(self):
        # Tensor methods, keyword arguments, Python scalars, bools.
        t = F.trace(lambda s, b, h, i, j: torch.where(j > i, s.clamp(min=-5.0), 0.0),
                    "score_mod")
        self.assertIn("arith.maximumf", "\n".join(t.lines))
        self.assertIn("arith.select", t.lines[-2])
        t = F.trace(lambda b, h, i, j: True, "mask_mod")
        self.assertEqual(t.lines, ["%v0 = arith.constant true", "tx.yield %v0 : i1"])


class Arguments(unittest.TestCase):
    def meta(self, *shape, dtype=torch.float16):
        return torch.empty(*shape, dtype=dtype, device="meta")

    def test_shapes_and_dtypes(self):
        q, k = self.meta(1, 4, 8, 16), self.meta(1, 2, 8, 16)
        with self.assertRaisesRegex(tx.ShapeError, "pass enable_gqa=True"):
            F.flex_attention(q, k, k)
        with self.assertRaisesRegex(tx.ShapeError, "must be 4-D"):
            F.attention_source(self.meta(4, 8, 16), k, k)
        with self.assertRaisesRegex(tx.ArgumentTypeError, "dtype int32"):
            F.attention_source(self.meta(1, 4, 8, 16, dtype=torch.int32), k, k)
        with self.assertRaisesRegex(tx.ArgumentTypeError, "one dtype"):
            F.attention_source(q, self.meta(1, 2, 8, 16, dtype=torch.bfloat16), k)
        with self.assertRaisesRegex(tx.ShapeError, "k's head_dim 32 is not q's 16"):
            F.attention_source(q, self.meta(1, 2, 8, 32), k)
        with self.assertRaisesRegex(tx.ShapeError, "q's 4 heads are not a multiple of k's 3"):
            F.attention_source(q, self.meta(1, 3, 8, 16), self.meta(1, 3, 8, 16))
        with self.assertRaisesRegex(tx.ArgumentError, "scale must be a positive finite"):
            F.attention_source(q, k, k, scale=-1.0)
        with self.assertRaisesRegex(tx.ArgumentError, "query is on cpu"):
            F.flex_attention(torch.empty(1, 2, 8, 16), torch.empty(1, 2, 8, 16),
                             torch.empty(1, 2, 8, 16))
        # Captures named like the function's or the regions' own values.
        o, c0, score = torch.rand(4), torch.rand(4), torch.rand(4)
        src = F.attention_source(q, k, k, lambda s, b, h, i, j: s + o[h] + c0[h] + score[h])
        # A capture indexed by h with fewer entries than the query's heads.
        with self.assertRaisesRegex(F.TraceError, "indexed by h along dimension 0 of size 2, "
                                                  "but the query has 4 heads"):
            short = torch.rand(2)
            F.attention_source(q, k, k, lambda s, b, h, i, j: s + short[h])
        self.assertIn("%cap0: tensor<4xf32>, %cap1: tensor<4xf32>, %cap2: tensor<4xf32>",
                      src.text)

    def test_meta_call(self):
        bias = torch.rand(5, 9)  # captured; on the CPU: the meta call takes it

        def relbias(score, b, h, q_idx, kv_idx):
            return score + bias[h, torch.clamp(kv_idx - q_idx, -4, 4) + 4]

        q, k, v = self.meta(2, 5, 33, 64), self.meta(2, 5, 70, 64), self.meta(2, 5, 70, 64)
        src = F.attention_source(q, k, v, relbias, lambda b, h, i, j: j <= i + 37,
                                 name="attention")
        self.assertIn("%bias: tensor<5x9xf32>", src.text)
        o = F.flex_attention(q, k, v, relbias, lambda b, h, i, j: j <= i + 37,
                             library_dir=LIB_DIR)
        self.assertEqual((o.shape, o.dtype, o.device.type),
                         (torch.Size([2, 5, 33, 64]), torch.float16, "meta"))
        built = sorted(os.listdir(LIB_DIR))
        self.assertEqual(len(built), 1)
        self.assertTrue(built[0].startswith("flex_"))
        lib = os.path.join(LIB_DIR, built[0], "lib%s.so" % built[0])
        stamp = os.stat(lib).st_mtime_ns
        o2, lse = F.flex_attention(q, k, v, relbias, return_lse=True, library_dir=LIB_DIR)
        self.assertEqual((o2.shape, lse.shape, lse.dtype),
                         (o.shape, torch.Size([2, 5, 33]), torch.float32))
        self.assertEqual(len(os.listdir(LIB_DIR)), 2)  # another source: another library
        F.flex_attention(q, k, v, relbias, lambda b, h, i, j: j <= i + 37, library_dir=LIB_DIR)
        self.assertEqual(os.stat(lib).st_mtime_ns, stamp)  # reused, not rebuilt
        # Autograd: the library holds the backward (the score function's
        # derivative generated by tx), also through Python's % on the score
        # (x - floor(x / y) * y).
        qg = q.detach().requires_grad_()
        og = F.flex_attention(qg, k, v, relbias, lambda b, h, i, j: j <= i + 37,
                              library_dir=LIB_DIR)
        self.assertIsNotNone(og.grad_fn)
        og.sum().backward()
        self.assertEqual((qg.grad.shape, qg.grad.device.type), (q.shape, "meta"))
        qg.grad = None
        F.flex_attention(qg, k, v, lambda s, b, h, i, j: s % 3.0,
                         library_dir=LIB_DIR).sum().backward()
        self.assertEqual(qg.grad.shape, q.shape)
        # A captured tensor of another shape is another source; a wrong
        # argument is the call's ArgumentError naming the capture.
        with self.assertRaisesRegex(tx.ArgumentError, "bias"):
            F._LIBS[(lib, "meta")].attention(q, k, v, torch.rand(5, 8))


if __name__ == "__main__":
    LIB_DIR = sys.argv.pop(1)
    os.makedirs(LIB_DIR, exist_ok=True)
    print("torch", torch.__version__)
    unittest.main(verbosity=1)
