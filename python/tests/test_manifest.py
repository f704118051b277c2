#!/usr/bin/env python3
"""Manifest tests of python/tx (no torch, no GPU): the manifest that
scripts/tx-compile.sh wrote for test/Python/Inputs/pkg.mlir, read through
tx.read_manifest.

    python3 python/tests/test_manifest.py OUT_DIR     # OUT_DIR holds libpkg.json
"""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tx  # noqa: E402

LIB_DIR = None


class RealManifest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = tx.read_manifest(os.path.join(LIB_DIR, "libpkg.so"))

    def test_header(self):
        m = self.m
        self.assertEqual(m.library, "libpkg.so")
        self.assertTrue(m.source.endswith("pkg.mlir"), m.source)
        self.assertIn("format=", m.pipeline)
        # Each differentiable function is followed by its derived entry
        # points (tx-derive-gradients).
        grad = lambda n: [n, n + "__tx_fwd", n + "__tx_bwd"]
        self.assertEqual(list(m.functions),
                         grad("attn") + grad("attn_mask") + grad("attn_bias") + grad("softmax")
                         + grad("softmax_dyn") + grad("pair") + ["attn_lse", "zeros_like"]
                         + grad("attn_lengths"))
        op = m.functions["attn_lengths"].ops[0]
        self.assertEqual(op.operands, {"query": 0, "key": 1, "value": 2, "mask": None,
                                       "kv_lengths": 3, "q_lengths": 4})
        self.assertEqual([a.role for a in m.functions["attn_lengths"].arguments][3:],
                         ["kv_lengths", "q_lengths"])

    def test_static_gqa_attention(self):
        f = self.m.functions["attn"]
        self.assertEqual(f.symbols, {"sync": "_mlir_ciface_attn",
                                     "on_stream": "_mlir_ciface_attn_on_stream"})
        self.assertEqual([(a.name, a.role, a.element_type, a.rank, a.shape) for a in f.arguments],
                         [("q", "query", "f16", 4, (1, 8, 16, 64)),
                          ("k", "key", "f16", 4, (1, 2, 16, 64)),
                          ("v", "value", "f16", 4, (1, 2, 16, 64))])
        r, = f.results
        self.assertEqual((r.name, r.element_type, r.shape, r.shape_from),
                         ("result", "f16", (1, 8, 16, 64), (1, 8, 16, 64)))
        op = f.op
        self.assertEqual((op.op, op.causal, op.scale, op.mask), ("tx.attention", True, None, "none"))
        self.assertEqual(op.operands, {"query": 0, "key": 1, "value": 2, "mask": None,
                                       "kv_lengths": None, "q_lengths": None})
        self.assertEqual(op.results, (0,))
        self.assertRegex(op.loc, r"pkg\.mlir:5:")
        self.assertEqual(f.signature(), "attn(q: f16[1, 8, 16, 64], k: f16[1, 2, 16, 64], "
                                        "v: f16[1, 2, 16, 64]) -> f16[1, 8, 16, 64]")

    def test_dynamic_masked_attention(self):
        f = self.m.functions["attn_mask"]
        # Source names, not role names.
        self.assertEqual([a.name for a in f.arguments], ["query", "key", "value", "keep"])
        self.assertEqual([a.role for a in f.arguments], ["query", "key", "value", "mask"])
        self.assertEqual(f.arguments[3].element_type, "i1")
        self.assertEqual(f.arguments[0].shape, (None,) * 4)
        # [B, H, Sq, Dv]: q's dims 0-2, v's dim 3.
        self.assertEqual(f.results[0].shape_from, ((0, 0), (0, 1), (0, 2), (2, 3)))
        self.assertTrue(f.results[0].derivable)
        self.assertEqual((f.op.mask, f.op.causal, f.op.scale), ("i1", True, None))
        self.assertEqual(f.op.operands["mask"], 3)

    def test_additive_mask_scale_static_dims(self):
        f = self.m.functions["attn_bias"]
        self.assertEqual(f.arguments[3].shape, (1, 1, None, None))
        self.assertEqual((f.op.mask, f.op.scale, f.op.causal), ("additive", 0.5, False))
        # Dv is static (16) in the result type; the rest comes from q.
        self.assertEqual(f.results[0].shape_from, ((0, 0), (0, 1), (0, 2), 16))

    def test_softmax(self):
        f = self.m.functions["softmax"]
        self.assertEqual((f.arguments[0].name, f.arguments[0].role), ("x", "input"))
        self.assertEqual((f.op.op, f.op.dim), ("tx.softmax", 1))
        g = self.m.functions["softmax_dyn"]
        self.assertEqual((g.arguments[0].name, g.arguments[0].element_type), ("logits", "bf16"))
        self.assertEqual(g.op.dim, 0)
        self.assertEqual(g.results[0].shape_from, ((0, 0), (0, 1), (0, 2)))

    def test_two_results(self):
        f = self.m.functions["pair"]
        self.assertEqual([r.name for r in f.results], ["result0", "result1"])
        self.assertEqual([r.shape_from for r in f.results], [((0, 0), (0, 1)), ((1, 0), 8)])
        self.assertEqual([o.results for o in f.ops], [(0,), (1,)])
        self.assertIsNone(f.op)  # not a single tx op

    def test_attention_with_lse(self):
        f = self.m.functions["attn_lse"]
        o, lse = f.results
        self.assertEqual([r.name for r in f.results], ["result0", "result1"])
        self.assertEqual((o.element_type, o.shape, o.shape_from),
                         ("f16", (None, None, None, 64), ((0, 0), (0, 1), (0, 2), 64)))
        # The log-sum-exp: f32 [B, H, Sq], the query's dims 0-2.
        self.assertEqual((lse.element_type, lse.rank, lse.shape, lse.shape_from),
                         ("f32", 3, (None, None, None), ((0, 0), (0, 1), (0, 2))))
        self.assertTrue(o.derivable and lse.derivable)
        self.assertEqual(f.op.results, (0, 1))  # one op returns both
        self.assertEqual((f.op.op, f.op.causal), ("tx.attention", True))
        self.assertEqual(f.signature(), "attn_lse(q: f16[?, ?, ?, 64], k: f16[?, ?, ?, 64], "
                                        "v: f16[?, ?, ?, 64]) -> (f16[?, ?, ?, 64], f32[?, ?, ?])")

    def test_not_a_tx_op(self):
        f = self.m.functions["zeros_like"]
        self.assertEqual(f.ops, ())
        self.assertEqual(f.results[0].shape_from, (None, None))
        self.assertFalse(f.results[0].derivable)
        self.assertEqual(f.arguments[0].name, "x")
        self.assertIsNone(f.arguments[0].role)


class ManifestErrors(unittest.TestCase):
    def write(self, data):
        d = tempfile.mkdtemp()
        p = os.path.join(d, "libx.json")
        with open(p, "w") as f:
            f.write(data if isinstance(data, str) else json.dumps(data))
        return p

    def test_missing(self):
        """A file that does not exist is said to not exist; only a library
        that exists without its manifest is blamed on an old build."""
        cases = [
            ("/nowhere/libx.json", "/nowhere/libx.json: no such file"),
            ("/nowhere/libx.so", "/nowhere/libx.so: no such file (nor its manifest "
                                 "/nowhere/libx.json)"),
        ]
        for path, msg in cases:
            with self.subTest(path=path):
                with self.assertRaises(tx.ManifestError) as cm:
                    tx.read_manifest(path)
                self.assertEqual(str(cm.exception), msg)

    def test_library_without_manifest(self):
        d = tempfile.mkdtemp()
        lib = os.path.join(d, "libold.so")
        open(lib, "w").close()
        for path in (lib, os.path.join(d, "libold.json")):
            with self.subTest(path=path):
                with self.assertRaises(tx.ManifestError) as cm:
                    tx.read_manifest(path)
                self.assertEqual(str(cm.exception), (
                    "%s/libold.json: no such file: the library %s has no manifest beside it "
                    "(it was built before tx-compile.sh wrote manifests, or the .json was not "
                    "copied with it; rebuild it with scripts/tx-compile.sh)" % (d, lib)))

    def test_not_json(self):
        with self.assertRaisesRegex(tx.ManifestError, "cannot read the manifest"):
            tx.read_manifest(self.write("{"))

    def test_not_a_manifest(self):
        with self.assertRaisesRegex(tx.ManifestError, 'not a tx manifest'):
            tx.read_manifest(self.write({"functions": []}))

    def test_version(self):
        with self.assertRaisesRegex(tx.ManifestError, "manifest version 2, this package reads "
                                                      "version 1"):
            tx.read_manifest(self.write({"format": "tx-manifest", "version": 2, "functions": []}))

    def test_malformed_function(self):
        with self.assertRaisesRegex(tx.ManifestError, "function f, argument 0: malformed"):
            tx.read_manifest(self.write({"format": "tx-manifest", "version": 1, "functions": [
                {"name": "f", "symbols": {}, "arguments": [{"index": 0}], "results": []}]}))

    def test_unsupported_argument(self):
        m = tx.Manifest({"format": "tx-manifest", "version": 1, "functions": [
            {"name": "f", "symbols": {"sync": "_mlir_ciface_f"}, "results": [],
             "arguments": [{"index": 0, "name": "s", "role": None, "type": "f32",
                            "element_type": None, "rank": None, "shape": None}]}]})
        self.assertRegex(m.functions["f"].unsupported,
                         r"argument s has type f32 \(only ranked tensors of .*\)")

    def test_python_names(self):
        m = tx.Manifest({"format": "tx-manifest", "version": 1, "functions": [
            {"name": "f", "symbols": {}, "results": [], "arguments": [
                {"index": i, "name": n, "type": "tensor<4xf32>", "element_type": "f32",
                 "rank": 1, "shape": [4]} for i, n in enumerate(["x.y", "out", "class", "_p", "ok"])]}]})
        self.assertEqual([a.pyname for a in m.functions["f"].arguments],
                         ["arg0", "arg1", "arg2", "arg3", "ok"])


if __name__ == "__main__":
    LIB_DIR = sys.argv.pop(1)
    unittest.main(verbosity=1)
