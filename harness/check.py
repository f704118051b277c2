#!/usr/bin/env python3
"""GPU check harness for tx-compiled libraries.

Runs on a machine with a CUDA GPU and PyTorch (no LLVM/MLIR needed): it loads
libraries built by scripts/tx-compile.sh, calls their entry points on fresh
random device tensors (never zeros), with the outputs poisoned (NaN) first, and
compares against a float64 PyTorch reference by ||out - ref|| / ||ref|| and by
max absolute error.

    python3 harness/check.py --lib-dir build/examples [--only NAME] [--out FILE]
    python3 harness/check.py --lib-dir build/examples --flash --dry-run   # no GPU

The libraries are called through the python/tx package (docs/Python.md; this
script puts the checkout's python/ first on sys.path): tx.load reads each
library's manifest (lib<stem>.json, written by tx-compile.sh), and a call
lib.<fn>(*inputs, out=outputs) checks the arguments against the manifest
(a tx.ArgumentError before the library is called), then runs
_mlir_ciface_<fn>_on_stream on torch.cuda.current_stream() (a failure the
library reports: tx.TxRuntimeError with the runtime's message). The harness
then waits for the device with txRuntimeSynchronize, which reports an
asynchronous failure (a kernel fault), before it compares.

--dry-run (no GPU): every library is opened for argument checks only
(tx.load(path, device="meta")), and every check runs on CPU tensors: the
libraries, manifests and entry points exist and every call passes the
package's checks. No numbers are compared and nothing is timed.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tx  # noqa: E402  (python/tx)

TOL = {torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 1e-2}
NAMES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}

#: Where tensors are made: "cuda", or "cpu" in a dry run (set_dry_run).
DEVICE = "cuda"
DRY_RUN = False


def set_dry_run():
    """Dry run: libraries are their manifests with fake entry points (load),
    tensors live on the CPU, calls do not wait (call)."""
    global DEVICE, DRY_RUN
    DEVICE, DRY_RUN = "cpu", True


# ----------------------------------------------------------------------------
# Calling the libraries (python/tx)
# ----------------------------------------------------------------------------
def load(path):
    """The tx.Library of lib<stem>.so at ``path`` (with lib<stem>.json beside
    it). In a dry run, opened for argument checks only (tx.load with
    device="meta": every check of a GPU call runs, on CPU tensors here,
    and nothing is computed)."""
    return tx.load(path, device="meta" if DRY_RUN else None)


def call(lib, fn, args, out):
    """Calls entry point ``fn`` of ``lib`` (a tx.Library) on ``args`` into
    ``out`` (the result tensor, or a list of them, one per result) on the
    current stream, and waits for the device. Raises tx.ArgumentError when the
    package refuses the arguments, tx.TxRuntimeError when the library reports
    an error or the device a fault."""
    lib[fn](*args, out=out)
    if DRY_RUN:
        return
    rt = lib.runtime
    if rt.synchronize is None:
        torch.cuda.synchronize()
        return
    rc = rt.synchronize()
    if rc != 0:
        raise tx.TxRuntimeError("%s: the device reported an error after the call (%s)" % (
            fn, rt.last_error() or "txRuntimeSynchronize returned %d" % rc))


# ----------------------------------------------------------------------------
# References (float64)
# ----------------------------------------------------------------------------
def ref_softmax(x, dim=-1):
    x = x.double()
    if x.numel() == 0:
        return x.clone()
    m = x.amax(dim=dim, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(dim=dim, keepdim=True)


def window_visible(sq, sk, window, dev):
    """bool [Sq, Sk]: key j is inside query i's sliding window [left, right]
    (-1 = unbounded) around the bottom-right diagonal i + Sk - Sq."""
    i = torch.arange(sq, device=dev)[:, None]
    j = torch.arange(sk, device=dev)[None, :]
    d = j - (i + sk - sq)
    ok = torch.ones(sq, sk, dtype=torch.bool, device=dev)
    if window[0] >= 0:
        ok &= d >= -window[0]
    if window[1] >= 0:
        ok &= d <= window[1]
    return ok


def rand_qkv(gen, b, h, hkv, sq, sk, d, dv, dt, lo=-3, hi=3):
    """Random Q [b,h,sq,d], K [b,hkv,sk,d], V [b,hkv,sk,dv] in [lo, hi)."""
    return (rand((b, h, sq, d), dt, gen, lo, hi), rand((b, hkv, sk, d), dt, gen, lo, hi),
            rand((b, hkv, sk, dv), dt, gen, lo, hi))


def ref_lse(q, k, mask=None, causal=False, scale=None, window=None, softcap=None):
    """float64 log-sum-exp of every query row's scores [B, H, Sq] (tx
    semantics as ref_attention; -inf for a row that sees no key)."""
    B, H, Sq, D = q.shape
    Hkv, Sk = k.shape[1], k.shape[2]
    if Sk == 0 or q.numel() == 0:
        return torch.full((B, H, Sq), float("-inf"), dtype=torch.float64, device=q.device)
    if scale is None:
        scale = 1.0 / math.sqrt(D)
    kk = k.double().repeat_interleave(H // Hkv, dim=1)
    s = torch.matmul(q.double(), kk.transpose(-1, -2)) * scale
    if softcap is not None:
        s = softcap * torch.tanh(s / softcap)
    if mask is not None:
        if mask.dtype == torch.bool:
            s = s.masked_fill(~mask, float("-inf"))
        else:
            s = torch.where(torch.isneginf(mask), torch.full_like(s, float("-inf")), s + mask.double())
    if causal:
        i = torch.arange(Sq, device=q.device)[:, None]
        j = torch.arange(Sk, device=q.device)[None, :]
        s = s.masked_fill(j > i + Sk - Sq, float("-inf"))
    if window is not None:
        s = s.masked_fill(~window_visible(Sq, Sk, window, q.device), float("-inf"))
    return torch.logsumexp(s, dim=-1)


def ref_attention(q, k, v, mask=None, causal=False, scale=None, softcap=None, window=None):
    """tx semantics: GQA, bottom-right causal, logit soft-capping
    (softcap * tanh(s / softcap) after the scale), i1 keep-mask or additive
    mask, rows that see no key are zeros."""
    B, H, Sq, D = q.shape
    Hkv, Sk, Dv = k.shape[1], k.shape[2], v.shape[3]
    dev = q.device
    out = torch.zeros(B, H, Sq, Dv, dtype=torch.float64, device=dev)
    if out.numel() == 0 or Sk == 0:
        return out
    if scale is None:
        scale = 1.0 / math.sqrt(D)
    g = H // Hkv
    kk = k.double().repeat_interleave(g, dim=1)
    vv = v.double().repeat_interleave(g, dim=1)
    s = torch.matmul(q.double(), kk.transpose(-1, -2)) * scale
    if softcap is not None:
        s = softcap * torch.tanh(s / softcap)
    if mask is not None:
        if mask.dtype == torch.bool:
            s = s.masked_fill(~mask, float("-inf"))
        else:
            s = s + mask.double()
    if causal:
        i = torch.arange(Sq, device=dev)[:, None]
        j = torch.arange(Sk, device=dev)[None, :]
        s = s.masked_fill(j > i + Sk - Sq, float("-inf"))
    if window is not None:
        s = s.masked_fill(~window_visible(Sq, Sk, window, dev), float("-inf"))
    m = s.amax(dim=-1, keepdim=True)
    dead = torch.isneginf(m)
    p = torch.where(dead, torch.zeros_like(s), torch.exp(s - m))
    l = p.sum(dim=-1, keepdim=True)
    o = torch.matmul(p, vv)
    return torch.where(l == 0, torch.zeros_like(o), o / torch.where(l == 0, torch.ones_like(l), l))


def visible_lengths(sq, sk, kl, ql, causal=False, window=None):
    """bool [B, 1, Sq, Sk]: tx's per-sequence visibility (key j of batch b
    visible to query i when j < kv_lengths[b], i < q_lengths[b], and the
    causal / window diagonal lies at i + Lk - Lq)."""
    dev = DEVICE
    i = torch.arange(sq, device=dev)[None, :, None]
    j = torch.arange(sk, device=dev)[None, None, :]
    lk = kl.to(dev).long()[:, None, None]
    lq = ql.to(dev).long()[:, None, None]
    ok = (j < lk) & (i < lq)
    d = j - (i + lk - lq)
    if causal:
        ok &= d <= 0
    if window is not None:
        if window[0] >= 0:
            ok &= d >= -window[0]
        if window[1] >= 0:
            ok &= d <= window[1]
    return ok[:, None]


# ----------------------------------------------------------------------------
# Comparison
# ----------------------------------------------------------------------------
def compare(out, ref, tol, exact=False):
    """Returns a result row. NaN must appear exactly where the reference has
    NaN; elsewhere relative L2 error (absolute when ||ref|| == 0)."""
    o = out.double()
    nan_ref, nan_out = torch.isnan(ref), torch.isnan(o)
    nan_mismatch = int((nan_ref != nan_out).sum().item())
    ok_mask = ~nan_ref & ~nan_out
    diff = (o - ref)[ok_mask]
    refv = ref[ok_mask]
    norm_ref = float(torch.linalg.vector_norm(refv)) if refv.numel() else 0.0
    norm_diff = float(torch.linalg.vector_norm(diff)) if diff.numel() else 0.0
    max_abs = float(diff.abs().max()) if diff.numel() else 0.0
    rel = norm_diff / norm_ref if norm_ref > 0 else norm_diff
    limit = 0.0 if exact else tol
    passed = nan_mismatch == 0 and rel <= limit and math.isfinite(rel)
    return {"rel_err": rel, "max_abs_err": max_abs,
            "nan_mismatch": nan_mismatch, "tol": limit, "pass": passed}


def rand(shape, dtype, gen, lo=-3.0, hi=3.0):
    if DRY_RUN:  # no value is ever compared: skip the (CPU) random numbers
        return torch.empty(shape, dtype=dtype, device=DEVICE)
    x = torch.rand(shape, generator=gen, device=DEVICE, dtype=torch.float32)
    return (x * (hi - lo) + lo).to(dtype).contiguous()


#: The row of a call made in a dry run (nothing compared).
DRY_ROW = {"rel_err": 0.0, "max_abs_err": 0.0, "nan_mismatch": 0, "tol": 0.0, "pass": True,
           "dry_run": True}


def poisoned(shape, dtype):
    return torch.full(shape, float("nan"), dtype=dtype, device=DEVICE)


# ----------------------------------------------------------------------------
# Checks
# ----------------------------------------------------------------------------
def main_of_cases(runner_class, stem, doc):
    """The command line of a harness over one library of cases
    (check_paged.py, check_mods.py): --lib-dir, repeatable --only, --seed,
    --dry-run; runner_class(lib_dir, only, seed).all(stem) records the rows.
    Returns the exit status (1 when a row failed)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--lib-dir", required=True,
                    help="holds %s/lib%s.so and its .json manifest" % (stem, stem))
    ap.add_argument("--only", action="append", default=[],
                    help="run the cases whose name contains this (repeatable: any)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dry-run", action="store_true",
                    help="no GPU: argument checks only (check.py --dry-run)")
    a = ap.parse_args()
    if a.dry_run:
        set_dry_run()
    r = runner_class(a.lib_dir, a.only, a.seed)
    r.all(stem)
    bad = [x for x in r.rows if not x["pass"]]
    print("%d rows, %d failed" % (len(r.rows), len(bad)))
    return 1 if bad else 0


class Runner:
    skip_examples = False  # --skip-examples: no example libraries, not even in flash()

    def __init__(self, lib_dir, only):
        self.lib_dir = lib_dir
        self.only = only
        self.rows = []
        self.libs = {}
        self.gen = torch.Generator(device=DEVICE)
        self.gen.manual_seed(int(time.time()))

    def lib(self, stem):
        if stem not in self.libs:
            try:
                self.libs[stem] = load(os.path.join(self.lib_dir, stem, "lib%s.so" % stem))
            except tx.TxError as e:  # no library or manifest: nothing can be checked
                sys.exit("check.py: %s" % e)
        return self.libs[stem]

    def record(self, name, dtype, res, seconds=None):
        if DRY_RUN:
            res = DRY_ROW
        res = dict(res)
        res.update({"name": name, "dtype": NAMES.get(dtype, str(dtype))})
        if seconds is not None:
            res["seconds"] = seconds
        self.rows.append(res)
        if DRY_RUN:
            print("%-46s %-5s called (dry run: the package accepted the arguments)"
                  % (name, res["dtype"]), flush=True)
            return
        flag = "PASS" if res["pass"] else "FAIL"
        if res.get("xfail"):  # a known failure (its reason printed above)
            flag = "XFAIL" if res["pass"] else "FAIL (XPASS or out of tolerance)"
        print("%-46s %-5s rel %.3e  maxabs %.3e  nan-mismatch %d  %s" %
              (name, res["dtype"], res["rel_err"], res["max_abs_err"],
               res["nan_mismatch"], flag), flush=True)

    def wanted(self, name):
        return not self.only or any(o in name for o in self.only)

    def run(self, stem, fn, name, args, out_shape, dtype, reference, exact):
        """Calls fn on args with a poisoned output and records the comparison
        with reference() (float64)."""
        if not self.wanted(name):
            return
        out = poisoned(out_shape, dtype)
        t0 = time.time()
        try:
            call(self.lib(stem), fn, args, out)
        except (tx.TxError, RuntimeError, KeyError) as e:
            # (KeyError: the library has no such function, e.g. one built
            # from an older copy of the cases: a failed row, not a crash.)
            print(name, "ERROR", e)
            self.rows.append({"name": name, "dtype": NAMES[dtype], "pass": False,
                              "rel_err": float("nan"), "max_abs_err": float("nan"),
                              "nan_mismatch": -1, "tol": TOL[dtype], "error": str(e)})
            return
        dt = time.time() - t0
        if DRY_RUN:
            return self.record(name, dtype, DRY_ROW)
        self.record(name, dtype, compare(out, reference(), TOL[dtype], exact), dt)

    def softmax(self, stem, fn, name, x, exact=False, expect=None):
        self.run(stem, fn, name, [x], x.shape, x.dtype,
                 lambda: ref_softmax(x) if expect is None else expect, exact)

    def attention(self, stem, fn, name, q, k, v, mask=None, causal=False,
                  scale=None, exact=False, expect=None, softcap=None, window=None):
        args = [q, k, v] + ([mask] if mask is not None else [])
        self.run(stem, fn, name, args, (q.shape[0], q.shape[1], q.shape[2], v.shape[3]),
                 q.dtype,
                 lambda: (ref_attention(q, k, v, mask, causal, scale, softcap, window)
                          if expect is None else expect),
                 exact)

    # -- the bundled examples (real model shapes) ----------------------------
    def examples(self):
        g = self.gen
        for dt, n in ((torch.float16, "f16"), (torch.float32, "f32")):
            x = rand((32768, 1024), dt, g, -8, 8)
            self.softmax("softmax", "softmax_" + n, "example softmax 32768x1024", x)
            q = rand((8, 12, 1024, 64), dt, g)
            k = rand((8, 12, 1024, 64), dt, g)
            v = rand((8, 12, 1024, 64), dt, g)
            self.attention("gpt2_attention", "gpt2_attention_" + n,
                           "example gpt2 B8 H12 S1024 D64 causal", q, k, v, causal=True)
            q = rand((1, 32, 4096, 128), dt, g)
            k = rand((1, 8, 4096, 128), dt, g)
            v = rand((1, 8, 4096, 128), dt, g)
            self.attention("llama3_gqa_attention", "llama3_gqa_attention_" + n,
                           "example llama3 GQA H32/8 S4096 D128 causal", q, k, v, causal=True)

    # -- CASES.md RUN cases through the fully dynamic functions --------------
    def cases(self):
        g, C = self.gen, "cases"
        dev = DEVICE
        ninf = float("-inf")
        # S1: all -inf rows, every length, f32 and f16: NaN in every lane.
        for n in (1, 31, 32, 33, 127, 128, 1024, 1025):
            for dt in (torch.float32, torch.float16):
                x = rand((3, n), dt, g)
                x[1].fill_(ninf)
                self.softmax(C, "softmax_dyn_" + NAMES[dt], "S1 -inf row len %d" % n, x)
        # S1 and random rows through the static kernels (register-resident,
        # streaming and peeled head/tail paths are picked by row length).
        for (r, n) in ((3, 31), (3, 33), (3, 127), (3, 128), (3, 1025), (5, 1000),
                       (3, 77), (7, 50257), (3, 4096)):
            for dt in (torch.float32, torch.float16):
                x = rand((r, n), dt, g)
                x[1].fill_(ninf)
                x[0, n // 2] = 1e4 if dt == torch.float32 else 6e4
                self.softmax(C, "softmax_%dx%d_%s" % (r, n, NAMES[dt]),
                             "S1 static %dx%d (-inf row, huge logit)" % (r, n), x)
        # Rows copied in by cp.async.bulk (sm_90: rows kept in shared memory,
        # persistent grid of 132 or 264 CTAs): more rows than CTAs, so the
        # next row's chunks are loaded while a row is written; 49157 f32
        # rows whose start is not 16-byte aligned (4, 8 or 12 bytes past)
        # have an empty last chunk; 40000 f16 rows are 16-byte aligned (no
        # head or tail).
        for (r, n, dt) in ((400, 49157, torch.float32), (140, 49157, torch.float32),
                           (600, 50257, torch.float16), (600, 40000, torch.float16),
                           (300, 50257, torch.bfloat16)):
            x = rand((r, n), dt, g, -8, 8)
            x[1].fill_(ninf)
            x[r - 1, 3] = 1e4 if dt == torch.float32 else 6e4
            self.softmax(C, "softmax_%dx%d_%s" % (r, n, NAMES[dt]),
                         "S1 bulk rows %dx%d (-inf row, huge logit)" % (r, n), x)
        # A user's row tiling (transform-dialect tiles of 8 and 2 rows,
        # cases.mlir): the kernels at the user's rows per CTA, partial last
        # tiles (37 and 13 rows), a -inf row and a huge logit.
        for r in (37, 13, 1):
            x = rand((r, 1000), torch.float32, g, -8, 8)
            x[r // 2].fill_(ninf)
            x[0, 5] = 1e4
            self.softmax(C, "softmax_user_rows8_dyn_f32",
                         "user row tiles of 8: %dx1000 f32 (-inf row, huge logit)" % r, x)
        x = rand((37, 50257), torch.float16, g, -8, 8)
        x[36].fill_(ninf)
        x[3, 7] = 6e4
        self.softmax(C, "softmax_user_rows2_f16",
                     "user row tiles of 2: 37x50257 f16 (-inf row, huge logit)", x)
        # S2: rows split across lanes must combine partial (max, sum) pairs,
        # lanes holding only -inf included: exact answers.
        s2 = torch.tensor([[0.0, 0, 0, 0], [ninf] * 4, [1000.0, 1001.0, ninf, ninf]], device=dev)
        s2_ref = torch.tensor([[0.25] * 4, [float("nan")] * 4,
                               [0.2689414213699951, 0.7310585786300049, 0, 0]],
                              dtype=torch.float64, device=dev)
        self.softmax(C, "softmax_3x4_f32", "S2 static 3x4", s2, expect=s2_ref)
        self.softmax(C, "softmax_dyn_f32", "S2 dynamic 3x4", s2, expect=s2_ref)
        # Softmax along a non-innermost dim (reference lowering).
        for shape in ((37, 5), (1024, 64)):
            x = rand(shape, torch.float32, g)
            self.run(C, "softmax_dim0_dyn_f32", "softmax dim 0 %dx%d" % shape, [x], x.shape,
                     torch.float32, lambda: ref_softmax(x, dim=0), False)
        # S3: half precision.
        self.softmax(C, "softmax_dyn_f32", "S3a [1000,1001]",
                     torch.tensor([[1000.0, 1001.0]], device=dev))
        self.softmax(C, "softmax_dyn_f16", "S3b f16 [60000,60000]",
                     torch.tensor([[60000.0, 60000.0]], device=dev, dtype=torch.float16),
                     exact=True)
        self.softmax(C, "softmax_dyn_f16", "S3c f16 4096 zeros -> 2^-12",
                     torch.zeros((1, 4096), device=dev, dtype=torch.float16), exact=True)
        self.softmax(C, "softmax_dyn_f16", "S3d f16 [-65504,65504]",
                     torch.tensor([[-65504.0, 65504.0]], device=dev, dtype=torch.float16),
                     exact=True)
        self.softmax(C, "softmax_dyn_bf16", "S3e bf16 4096 zeros -> 2^-12",
                     torch.zeros((1, 4096), device=dev, dtype=torch.bfloat16), exact=True)
        # Random softmax, odd lengths and a huge logit.
        for shape in ((3, 77), (5, 1000), (1024, 50257)):
            for dt in (torch.float32, torch.float16, torch.bfloat16):
                x = rand(shape, dt, g)
                x[0, 0] = 1e4 if dt != torch.float16 else 6e4
                self.softmax(C, "softmax_dyn_" + NAMES[dt], "softmax %dx%d" % shape, x)
        # Rank 3 and rank 1 softmax (the GPU path's [R, N] view of the
        # operand and of the result buffer), dynamic and static.
        for shape in ((2, 5, 300), (7, 3, 1000), (1, 1, 8)):
            x = rand(shape, torch.float16, g)
            self.softmax(C, "softmax_rank3_dyn_f16", "softmax rank 3 %dx%dx%d" % shape, x)
        self.softmax(C, "softmax_rank3_f32", "softmax rank 3 2x3x77",
                     rand((2, 3, 77), torch.float32, g))
        for n in (1, 77, 5000):
            self.softmax(C, "softmax_rank1_dyn_f32", "softmax rank 1 %d" % n,
                         rand((n,), torch.float32, g))
        # A1: fully masked query row -> exactly 0; f32 and f16; causal+mask;
        # only the first key tile masked is not zeroed.
        for dt in (torch.float32, torch.float16):
            q, k, v = rand((1, 1, 3, 2), dt, g), rand((1, 1, 4, 2), dt, g), rand((1, 1, 4, 2), dt, g)
            m = torch.ones((1, 1, 3, 4), dtype=torch.bool, device=dev)
            m[0, 0, 1, :] = False
            m[0, 0, 2, 0:2] = False
            self.attention(C, "attn_mask_dyn_" + NAMES[dt], "A1 fully masked row", q, k, v, mask=m)
            self.attention(C, "attn_mask_causal_dyn_" + NAMES[dt], "A1 masked row + causal",
                           q, k, v, mask=m, causal=True)
        # A2: causal alignment bottom-right (exact expected values).
        for sq, sk, want in ((2, 5, [2.5, 3.0]), (5, 2, [0, 0, 0, 1.0, 1.5])):
            q = torch.zeros((1, 1, sq, 1), device=dev)
            k = torch.zeros((1, 1, sk, 1), device=dev)
            v = (torch.arange(sk, device=dev, dtype=torch.float32) + 1).reshape(1, 1, sk, 1)
            exp = torch.tensor(want, dtype=torch.float64, device=dev).reshape(1, 1, sq, 1)
            self.attention(C, "attn_causal_dyn_f32", "A2 causal Sq=%d Sk=%d" % (sq, sk),
                           q, k, v, causal=True, expect=exp)
        # A3: GQA head mapping.
        for h, hkv in ((4, 2), (4, 1)):
            q = rand((1, h, 1, 2), torch.float32, g)
            k = rand((1, hkv, 1, 2), torch.float32, g)
            v = (torch.arange(hkv, device=dev, dtype=torch.float32) + 1).reshape(1, hkv, 1, 1).repeat(1, 1, 1, 2).contiguous()
            exp = v.double().repeat_interleave(h // hkv, dim=1)
            self.attention(C, "attn_dyn_f32", "A3 GQA H=%d Hkv=%d" % (h, hkv), q, k, v, expect=exp)
        # A4: default scale from D of Q/K, never Dv.
        q = torch.tensor([2.0, 0, 0, 0], device=dev).reshape(1, 1, 1, 4)
        k = torch.tensor([[2.0, 0, 0, 0], [0, 0, 0, 0]], device=dev).reshape(1, 1, 2, 4)
        v = torch.tensor([[1.0, 0], [0, 1.0]], device=dev).reshape(1, 1, 2, 2)
        exp = torch.tensor([0.8807970779778823, 0.11920292202211769], dtype=torch.float64, device=dev).reshape(1, 1, 1, 2)
        self.attention(C, "attn_dyn_f32", "A4 default scale", q, k, v, expect=exp)
        exp1 = torch.tensor([0.9820137900379085, 0.01798620996209156], dtype=torch.float64, device=dev).reshape(1, 1, 1, 2)
        self.attention(C, "attn_scale1_dyn_f32", "A4 scale 1.0", q, k, v, expect=exp1)
        v8 = torch.zeros((1, 1, 2, 8), device=dev)
        v8[0, 0, 0, 0] = 1.0
        v8[0, 0, 1, 1] = 1.0
        exp8 = torch.zeros((1, 1, 1, 8), dtype=torch.float64, device=dev)
        exp8[..., :2] = exp
        self.attention(C, "attn_dyn_f32", "A4 D=4 Dv=8", q, k, v8, expect=exp8)
        # A5: zero-size dims (no crash, empty or zeros, no zero-grid launch).
        for (b, h, sq, sk, d, dv) in ((0, 2, 4, 4, 8, 8), (1, 2, 0, 4, 8, 8),
                                      (1, 2, 4, 0, 8, 8), (1, 2, 4, 4, 8, 0)):
            q, k, v = rand((b, h, sq, d), torch.float32, g), rand((b, h, sk, d), torch.float32, g), rand((b, h, sk, dv), torch.float32, g)
            self.attention(C, "attn_dyn_f32", "A5 zero dims %s" % str((b, h, sq, sk, d, dv)), q, k, v)
        for shape in ((0, 16), (4, 0)):
            self.softmax(C, "softmax_dyn_f32", "A5 softmax %dx%d" % shape, rand(shape, torch.float32, g))
        # The log-sum-exp result through the reference lowering.
        for (b, h, hkv, sq, sk, d) in ((2, 4, 2, 37, 50, 24), (1, 2, 2, 9, 5, 8)):
            name = "LSE reference lowering %s" % str((b, h, hkv, sq, sk, d))
            if self.wanted(name):
                q, k, v = rand((b, h, sq, d), torch.float32, g), rand((b, hkv, sk, d), torch.float32, g), rand((b, hkv, sk, d), torch.float32, g)
                o, l = poisoned((b, h, sq, d), torch.float32), poisoned((b, h, sq), torch.float32)
                call(self.lib(C), "attn_lse_causal_dyn_f32", [q, k, v], [o, l])
                if DRY_RUN:
                    self.record(name, torch.float32, DRY_ROW)
                    continue
                ref = ref_lse(q, k, None, True)
                fin = ~torch.isneginf(ref)
                res = compare(l[fin], ref[fin], TOL[torch.float32])
                res["pass"] = res["pass"] and bool((torch.isneginf(ref) == torch.isneginf(l)).all())
                self.record(name, torch.float32, res)
        # A6: fully dynamic shapes, random inputs.
        for (b, h, hkv, sq, sk, d) in ((2, 1, 1, 37, 37, 24), (1, 1, 1, 1, 1, 1),
                                       (3, 2, 2, 130, 130, 64), (1, 4, 4, 1, 300, 64),
                                       (2, 8, 2, 77, 77, 64)):
            for dt in (torch.float32, torch.float16):
                q, k, v = rand((b, h, sq, d), dt, g), rand((b, hkv, sk, d), dt, g), rand((b, hkv, sk, d), dt, g)
                self.attention(C, "attn_dyn_" + NAMES[dt], "A6 dyn %s" % str((b, h, hkv, sq, sk, d)), q, k, v)
                self.attention(C, "attn_causal_dyn_" + NAMES[dt], "A6 dyn causal %s" % str((b, h, hkv, sq, sk, d)), q, k, v, causal=True)
        # Additive mask broadcast over B and H.
        q, k, v = rand((2, 4, 33, 64), torch.float32, g), rand((2, 4, 65, 64), torch.float32, g), rand((2, 4, 65, 64), torch.float32, g)
        am = rand((1, 1, 33, 65), torch.float32, g, -2, 2)
        self.attention(C, "attn_addmask_dyn_f32", "additive mask [1,1,Sq,Sk]", q, k, v, mask=am)

    def flash(self):
        """The flash path (attention=flash, the default): static-head-dim
        cases and S=16384 (checked on a sample of query rows: a float64
        reference of every row would need 68 GB); and the examples compiled
        with attention=simple (the reference path)."""
        g, dev = self.gen, DEVICE
        f16, f32, bf16 = torch.float16, torch.float32, torch.bfloat16
        # flash_cases_sm90a and flash_cases_ws (the wgmma kernel, the second
        # with its producer warpgroup) exist where main.sh built them.
        libs = [F for F in TAGS if os.path.exists(os.path.join(self.lib_dir, F, "lib%s.so" % F))]
        for F in libs:
            self.flash_cases(F, g, dev, f16, f32, bf16)

        def qkv(b, h, hkv, sq, sk, d, dv, dt):
            return rand((b, h, sq, d), dt, g), rand((b, hkv, sk, d), dt, g), rand((b, hkv, sk, dv), dt, g)

        # The examples' reference-path builds (skipped with --skip-examples).
        for dt, n in (() if self.skip_examples else ((f16, "f16"), (f32, "f32"))):
            q, k, v = rand((8, 12, 1024, 64), dt, g), rand((8, 12, 1024, 64), dt, g), rand((8, 12, 1024, 64), dt, g)
            self.attention("gpt2_attention_simple", "gpt2_attention_" + n, "simple-path example gpt2 B8 H12 S1024 D64 causal", q, k, v, causal=True)
            q, k, v = rand((1, 32, 4096, 128), dt, g), rand((1, 8, 4096, 128), dt, g), rand((1, 8, 4096, 128), dt, g)
            self.attention("llama3_gqa_attention_simple", "llama3_gqa_attention_" + n, "simple-path example llama3 GQA S4096 D128 causal", q, k, v, causal=True)
        # S = 16384: runs with no Sq x Sk buffer; rows sampled for the check.
        for F in libs:
            if F != "flash_cases_tiles":
                self.flash_long(F, qkv, dev)

    def flash_long(self, F, qkv, dev):
        """flash_long_f16 (S = 16384, H 32/8, D 128, causal) through library F,
        checked on a sample of query rows."""
        f16 = torch.float16
        name = "flash S=16384 H32/8 D128 causal (sampled rows)" + TAGS[F]
        if self.wanted(name):
            q, k, v = qkv(1, 32, 8, 16384, 16384, 128, 128, f16)
            out = poisoned((1, 32, 16384, 128), f16)
            t0 = time.time()
            call(self.lib(F), "flash_long_f16", [q, k, v], out)
            dt_s = time.time() - t0
            if DRY_RUN:
                return self.record(name, f16, DRY_ROW)
            rows = torch.tensor([0, 1, 2, 777, 8191, 12345, 16382, 16383], device=dev)
            kk = k.double().repeat_interleave(4, dim=1)
            vv = v.double().repeat_interleave(4, dim=1)
            s = torch.matmul(q.double()[:, :, rows], kk.transpose(-1, -2)) / math.sqrt(128)
            j = torch.arange(16384, device=dev)[None, :]
            s = s.masked_fill(j > rows[:, None], float("-inf"))
            ref = torch.matmul(torch.softmax(s, dim=-1), vv)
            self.record(name, f16, compare(out[:, :, rows], ref, TOL[f16]), dt_s)
            nan_total = int(torch.isnan(out).sum())
            print("  S=16384: %.1f s, NaN left in the whole output: %d" % (dt_s, nan_total))
            self.rows[-1]["pass"] = self.rows[-1]["pass"] and nan_total == 0


    def flash_cases(self, F, g, dev, f16, f32, bf16):
        """The static-head-dim flash cases through library F (default tiles,
        or flash_cases_tiles: 2 warps x 3 rows, 32 keys per step)."""
        tag = TAGS[F]

        def qkv(b, h, hkv, sq, sk, d, dv, dt):
            return rand((b, h, sq, d), dt, g), rand((b, hkv, sk, d), dt, g), rand((b, hkv, sk, dv), dt, g)

        def att(fn, name, *args, **kw):
            self.attention(F, fn, name + tag, *args, **kw)

        att("flash_causal_gqa_f16", "flash causal GQA 2x8/2x77x64", *qkv(2, 8, 2, 77, 77, 64, 64, f16), causal=True)
        att("flash_causal_sq_lt_sk_f32", "flash causal Sq=5 < Sk=9", *qkv(1, 2, 2, 5, 9, 32, 32, f32), causal=True)
        att("flash_causal_sq_gt_sk_f32", "flash causal Sq=9 > Sk=5 (rows -> 0)", *qkv(1, 2, 2, 9, 5, 32, 32, f32), causal=True)
        m = torch.rand((1, 1, 33, 65), generator=g, device=dev) > 0.3
        m[0, 0, 3, :] = False
        att("flash_keep_mask_f32", "flash keep-mask, a fully masked row", *qkv(2, 4, 4, 33, 65, 64, 64, f32), mask=m)
        am = rand((2, 4, 33, 65), f16, g, -2, 2)
        att("flash_add_mask_f16", "flash additive mask, scale 0.2", *qkv(2, 4, 4, 33, 65, 64, 64, f16), mask=am, scale=0.2)
        att("flash_dv32_f32", "flash Dv=32 != D=64", *qkv(1, 2, 2, 16, 40, 64, 32, f32))
        att("flash_sk0_f32", "flash Sk=0 (zeros)", *qkv(1, 2, 2, 4, 0, 64, 64, f32))
        for shape in ((2, 4, 2, 37, 37), (1, 4, 4, 1, 300), (3, 6, 3, 130, 130)):
            b, h, hkv, sq, sk = shape
            att("flash_dyn_f16", "flash dynamic causal %s" % str(shape), *qkv(b, h, hkv, sq, sk, 64, 64, f16), causal=True)
        for fn, (b, h, hkv, sq, sk, d, dv, dt, causal) in {
                "flash_d32_bf16_causal": (1, 2, 2, 50, 70, 32, 32, bf16, True),
                "flash_d80_f16": (2, 3, 1, 100, 100, 80, 80, f16, False),
                "flash_d96_f32_causal": (1, 2, 2, 65, 129, 96, 96, f32, True),
                "flash_d128_bf16_causal": (1, 4, 2, 200, 200, 128, 128, bf16, True),
                "flash_d256_f32": (1, 2, 1, 40, 90, 256, 256, f32, False),
                "flash_d256_f16_causal": (1, 2, 2, 70, 70, 256, 256, f16, True),
                "flash_sq1_f16_causal": (1, 4, 4, 1, 513, 64, 64, f16, True),
                "flash_sk1_f32": (2, 2, 2, 33, 1, 64, 64, f32, False),
                "flash_d18_dv40_f16": (1, 2, 2, 45, 77, 18, 40, f16, False),
                "flash_d128_f16_causal": (1, 4, 2, 200, 300, 128, 128, f16, True),
                "flash_d64_dv128_f16": (2, 2, 2, 150, 333, 64, 128, f16, False),
                "flash_causal_sq_gt_sk_f16": (1, 2, 2, 256, 64, 64, 64, f16, True),
                "flash_sk0_f16": (1, 2, 2, 70, 0, 128, 128, f16, False)}.items():
            att(fn, "%s B%d H%d/%d Sq%d Sk%d D%d Dv%d" % (fn, b, h, hkv, sq, sk, d, dv),
                *qkv(b, h, hkv, sq, sk, d, dv, dt), causal=causal)
        m3 = torch.rand((1, 1, 130, 257), generator=g, device=dev) > 0.4
        att("flash_d128_dv64_f16_mask", "flash D128 Dv64 keep-mask Sq130 Sk257",
            *qkv(1, 2, 2, 130, 257, 128, 64, f16), mask=m3)
        # CASES.md A1: a fully masked row is exactly 0; only the first keys
        # masked is not zeroed; also with causal (f16, tensor cores).
        m = torch.ones((1, 1, 3, 4), dtype=torch.bool, device=dev)
        m[0, 0, 1, :] = False
        m[0, 0, 2, 0:2] = False
        att("flash_a1_f32", "A1 fully masked row", *qkv(1, 1, 1, 3, 4, 2, 2, f32), mask=m)
        m2 = torch.rand((2, 3, 70, 90), generator=g, device=dev) > 0.5
        m2[1, 2, 5, :] = False
        att("flash_a1_causal_f16", "A1 masked rows + causal Sq<Sk", *qkv(2, 3, 3, 70, 90, 16, 16, f16), mask=m2, causal=True)
        # A2: causal alignment bottom-right, exact values.
        for sq, sk, want in ((2, 5, [2.5, 3.0]), (5, 2, [0, 0, 0, 1.0, 1.5])):
            q = torch.zeros((1, 1, sq, 1), device=dev)
            k = torch.zeros((1, 1, sk, 1), device=dev)
            v = (torch.arange(sk, device=dev, dtype=torch.float32) + 1).reshape(1, 1, sk, 1)
            exp = torch.tensor(want, dtype=torch.float64, device=dev).reshape(1, 1, sq, 1)
            att("flash_a2_f32", "A2 causal Sq=%d Sk=%d" % (sq, sk), q, k, v, causal=True, expect=exp)
        # A5: zero-size dims (empty, or zeros for Sk = 0; no zero-grid launch).
        for (b, h, sq, sk) in ((0, 2, 4, 4), (1, 2, 0, 4), (1, 2, 4, 0)):
            att("flash_a5_f32", "A5 zero dims %s" % str((b, h, sq, sk, 8, 8)), *qkv(b, h, h, sq, sk, 8, 8, f32))
        # A6: the dynamic shapes with static head dims.
        for (b, h, hkv, sq, sk, d, dt, fn) in ((2, 1, 1, 37, 37, 24, f32, "flash_a6_d24_f32"),
                                               (1, 1, 1, 1, 1, 1, f32, "flash_a6_d1_f32"),
                                               (3, 2, 2, 130, 130, 64, f16, "flash_a6_d64_f16"),
                                               (1, 4, 4, 1, 300, 64, f16, "flash_a6_d64_f16")):
            att(fn, "A6 %s" % str((b, h, hkv, sq, sk, d)), *qkv(b, h, hkv, sq, sk, d, d, dt),
                causal=fn.endswith("d24_f32"))
        # S2 as attention scores: Q = K = 0 and the rows of S2 as an additive
        # mask, V = identity, so O = softmax(row); the all -inf row sees no
        # key and gives zeros (tx.attention semantics), not NaN.
        ninf = float("-inf")
        rows = [[0, 0, 0, 0], [ninf] * 4, [1000, 1001, ninf, ninf]]
        want = [[.25] * 4, [0] * 4, [0.2689414213699951, 0.7310585786300049, 0, 0]]
        for dt, fn, dv in ((f32, "flash_s2_f32", 4), (f16, "flash_s2_f16", 16)):
            q = torch.zeros((1, 1, 3, 16), device=dev, dtype=dt)
            k = torch.zeros((1, 1, 4, 16), device=dev, dtype=dt)
            v = torch.eye(4, dv, device=dev, dtype=dt).reshape(1, 1, 4, dv).contiguous()
            am = torch.tensor(rows, device=dev, dtype=dt).reshape(1, 1, 3, 4)
            exp = torch.zeros((1, 1, 3, dv), dtype=torch.float64, device=dev)
            exp[0, 0, :, :4] = torch.tensor(want, dtype=torch.float64, device=dev)
            att(fn, "S2 rows as additive mask (%s)" % NAMES[dt], q, k, v, mask=am, expect=exp)
        am = rand((1, 4, 33, 65), bf16, g, -2, 2)
        att("flash_addmask_bcast_bf16", "flash additive bf16 mask [1,H,Sq,Sk] + causal Sq<Sk",
            *qkv(2, 4, 4, 33, 65, 64, 64, bf16), mask=am, causal=True)
        self.hidden_keys(F, tag)
        self.lse(F, tag)
        self.decode(F, tag)
        if F != "flash_cases_tiles":
            self.drift(F, tag)
            self.split_kv(F, tag)
        self.softcap(F, tag)
        self.window(F, tag)
        self.lengths(F, tag)

    def split_kv(self, F, tag):
        """Split-KV of the prefill tensor-core kernels (issue #38): grids
        that fill at most half of the chip's CTA slots, over more than 512
        keys, cut every query tile's keys into chunks (count chosen at run
        time for the dynamic functions, at compile time for the static
        split_* ones) merged by a second kernel. Through it: causal with
        rows that see no key and chunks past every row's band, GQA, Dv !=
        D, i1 and additive masks, a window (chunks below every row's window
        holding NaN/Inf K/V), the LSE (-inf rows exact), bf16. (Per-sequence
        lengths: lengths().)"""
        g, dev = self.gen, DEVICE
        f16, bf16 = torch.float16, torch.bfloat16

        def att(fn, name, *args, **kw):
            self.attention(F, fn, "split " + name + tag, *args, **kw)

        def qkv(*a, **kw):
            return rand_qkv(g, *a, **kw)

        att("flash_dyn_f16", "causal Sq700 > Sk600 (rows -> 0)", *qkv(1, 2, 2, 700, 600, 64, 64, f16),
            causal=True)
        att("flash_dyn_f16", "causal Sq37 Sk1500", *qkv(1, 2, 2, 37, 1500, 64, 64, f16), causal=True)
        am = rand((1, 2, 33, 1200), f16, g, -2, 2)
        am[..., 500:1100] = float("-inf")
        att("split_add_mask_f16", "additive mask scale 0.2 Sq33 Sk1200 (a hidden chunk)",
            *qkv(1, 2, 2, 33, 1200, 64, 64, f16), mask=am, scale=0.2)
        km = torch.rand((1, 1, 130, 1500), generator=g, device=dev) > 0.4
        km[0, 0, 7, :] = False
        att("split_keep_d128_dv64_f16", "i1 mask D128 Dv64 Sq130 Sk1500 (a row sees no key)",
            *qkv(1, 2, 2, 130, 1500, 128, 64, f16), mask=km)
        att("split_causal_d128_bf16", "causal GQA 4/2 bf16 D128 Sq64 Sk1777",
            *qkv(1, 4, 2, 64, 1777, 128, 128, bf16), causal=True)
        att("split_d64_dv128_f16", "D64 Dv128 Sq150 Sk2333", *qkv(1, 2, 2, 150, 2333, 64, 128, f16))
        q, k, v = qkv(1, 8, 2, 100, 3000, 64, 64, f16)
        exp = None if DRY_RUN else ref_attention(q, k, v, window=(100, 0))
        k[:, :, :2700] = float("nan")
        v[:, :, :2700] = float("inf")
        att("window_left_gqa_f16", "window [100, 0] GQA 8/2 Sq100 Sk3000, NaN/Inf K/V below "
            "every window", q, k, v, window=(100, 0), expect=exp)
        for fn, dt, d, causal, (b, h, hkv, sq, sk) in (
                ("lse_causal_d128_f16", f16, 128, True, (1, 2, 2, 100, 2500)),
                ("lse_keep_causal_d64_f16", f16, 64, True, (1, 2, 2, 65, 1300))):
            name = "split LSE %s %s%s" % (fn, str((b, h, hkv, sq, sk)), tag)
            if not self.wanted(name):
                continue
            q, k, v = qkv(b, h, hkv, sq, sk, d, d, dt)
            args, m = [q, k, v], None
            if fn.startswith("lse_keep"):
                m = torch.rand((b, h, sq, sk), generator=g, device=dev) > 0.3
                m[:, :, 0, :] = False  # a row that sees no key: -inf
                args.append(m)
            self.lse_call(F, fn, name, args, (b, h, sq, d), dt,
                          lambda: ref_lse(q, k, m, causal),
                          lambda: ref_attention(q, k, v, m, causal))

    def lengths(self, F, tag):
        """Per-sequence lengths (issue #19) through every kernel family:
        kv_lengths (and q_lengths) of 0, 1, partial tiles and Sk; decode
        (Sq 1 and 4, GQA), prefill (causal GQA D128, D64 bf16), f32 with a
        window and an additive mask, an i1 mask, the LSE result. The K/V rows
        past kv_lengths and the Q rows past q_lengths hold NaN/Inf (never
        read into a result); the reference is PyTorch float64 with the
        equivalent dense keep-mask, computed before the garbage is written."""
        g, dev = self.gen, DEVICE
        f16, f32, bf16 = torch.float16, torch.float32, torch.bfloat16
        visible = visible_lengths

        def garbage(q, k, v, kl, ql):
            for b in range(q.shape[0]):
                k[b, :, int(kl[b]):] = float("nan")
                v[b, :, int(kl[b]):] = float("inf")
                q[b, :, int(ql[b]):] = float("nan")

        def case(fn, name, q, k, v, kl, ql=None, causal=False, window=None, mask=None,
                 with_q=True):
            name = name + tag
            if not self.wanted(name):
                return
            qlx = ql if ql is not None else torch.full_like(kl, q.shape[2])
            vis = visible(q.shape[2], k.shape[2], kl, qlx, causal, window)
            m = vis
            if mask is not None:
                m = (mask & vis) if mask.dtype == torch.bool else \
                    mask.masked_fill(~vis, float("-inf"))
            exp = None if DRY_RUN else ref_attention(q, k, v, m)
            garbage(q, k, v, kl, qlx)
            lens = [kl.to(dev, torch.int32)]
            if with_q:
                lens.append(qlx.to(dev, torch.int32))
            args = [q, k, v] + ([mask] if mask is not None else []) + lens
            self.run(F, fn, name, args, (q.shape[0], q.shape[1], q.shape[2], v.shape[3]),
                     q.dtype, lambda: exp, False)

        T = lambda *x: torch.tensor(x, dtype=torch.int32)
        case("len_dec_gqa_f16", "lengths decode GQA 32/8 f16 Sk3000 kv (3000, 0, 1, 1234, 64)",
             *rand_qkv(g, 5, 32, 8, 1, 3000, 128, 128, f16), T(3000, 0, 1, 1234, 64),
             causal=True, with_q=False)
        case("len_dec_sq4_bf16", "lengths decode Sq4 causal bf16 Sk2100 kv (2100, 3, 700) q (4, 2, 0)",
             *rand_qkv(g, 3, 32, 8, 4, 2100, 128, 128, bf16), T(2100, 3, 700), T(4, 2, 0),
             causal=True)
        case("len_prefill_gqa_f16", "lengths prefill causal GQA 8/2 f16 D128 S500 kv=q (500, 1, 257, 0)",
             *rand_qkv(g, 4, 8, 2, 500, 500, 128, 128, f16), T(500, 1, 257, 0),
             T(500, 1, 257, 0), causal=True)
        case("len_prefill_d64_bf16", "lengths bf16 D64 Sq300 Sk400 kv (129, 400) q (300, 65)",
             *rand_qkv(g, 2, 4, 4, 300, 400, 64, 64, bf16), T(129, 400), T(300, 65))
        q, k, v = rand_qkv(g, 2, 2, 2, 90, 130, 64, 64, f32)
        am = rand((2, 2, 90, 130), f32, g, -2, 2)
        am[..., 40:50] = float("-inf")
        case("len_window_add_f32", "lengths f32 window [16, 0] additive mask kv (100, 33) q (90, 20)",
             q, k, v, T(100, 33), T(90, 20), window=(16, 0), mask=am)
        q, k, v = rand_qkv(g, 3, 4, 2, 77, 260, 64, 64, f16)
        km = torch.rand((3, 4, 77, 260), generator=g, device=dev) > 0.3
        case("len_keep_f16", "lengths i1 mask GQA f16 Sq77 Sk260 kv (260, 64, 5)",
             q, k, v, T(260, 64, 5), mask=km, with_q=False)
        # Split-KV (few CTAs, many keys): chunks past a batch's Lk are empty.
        case("len_prefill_gqa_f16", "lengths split-KV causal GQA 8/2 f16 D128 Sq200 Sk3000 "
             "kv (3000, 1300) q (200, 7)", *rand_qkv(g, 2, 8, 2, 200, 3000, 128, 128, f16),
             T(3000, 1300), T(200, 7), causal=True)
        case("len_prefill_d64_bf16", "lengths split-KV bf16 D64 Sq100 Sk2500 kv (2500) q (60)",
             *rand_qkv(g, 1, 4, 4, 100, 2500, 64, 64, bf16), T(2500), T(60))
        # The LSE result: -inf exactly for rows past q_lengths and Lk = 0.
        name = "lengths LSE causal f16 D128 S200 kv (200, 0, 77) q (200, 5, 70)" + tag
        if self.wanted(name):
            q, k, v = rand_qkv(g, 3, 4, 4, 200, 200, 128, 128, f16)
            kl, ql = T(200, 0, 77), T(200, 5, 70)
            vis = visible(200, 200, kl, ql, causal=True)
            ref_l, ref_o = ref_lse(q, k, vis), ref_attention(q, k, v, vis)
            garbage(q, k, v, kl, ql)
            self.lse_call(F, "len_lse_f16", name,
                          [q, k, v, kl.to(dev), ql.to(dev)], (3, 4, 200, 128), f16,
                          lambda: ref_l, lambda: ref_o)

    def window(self, F, tag):
        """Sliding windows (issue #19) through every kernel family: one- and
        two-sided windows, Sq < Sk and Sq > Sk (rows that see no key), a
        window wider than Sk, with causal, i1 and additive masks, GQA/MQA,
        f16/bf16/f32, D 32/64/128; K/V below every row's window hold NaN/Inf
        (never read); the LSE result."""
        g, dev = self.gen, DEVICE
        f16, f32, bf16 = torch.float16, torch.float32, torch.bfloat16

        def att(fn, name, *args, **kw):
            self.attention(F, fn, name + tag, *args, **kw)

        def qkv(*a, **kw):
            return rand_qkv(g, *a, **kw)

        att("window_left_gqa_f16", "window [100, 0] GQA 8/2 f16 Sq=Sk=1000",
            *qkv(2, 8, 2, 1000, 1000, 64, 64, f16), window=(100, 0))
        att("window_two_d128_bf16", "window [37, 50] bf16 D128 Sq300 Sk700",
            *qkv(1, 4, 2, 300, 700, 128, 128, bf16), window=(37, 50))
        q, k, v = qkv(1, 4, 1, 64, 2000, 128, 128, f16)
        exp = ref_attention(q, k, v, window=(100, 0))  # before the garbage
        k[:, :, :1836] = float("nan")
        v[:, :, :1836] = float("inf")
        att("window_nan_d128_f16", "window [100, 0] MQA f16 D128 Sq64 Sk2000, NaN/Inf K/V "
            "below every window", q, k, v, window=(100, 0), expect=exp)
        att("window_wide_f16", "window [5000, 5000] (wider than Sk) f16 Sq=Sk=300",
            *qkv(2, 4, 2, 300, 300, 64, 64, f16), window=(5000, 5000))
        q, k, v = qkv(1, 4, 2, 200, 260, 64, 64, f16)
        m = torch.rand((1, 4, 200, 260), generator=g, device=dev) > 0.3
        att("window_keep_causal_f16", "window [30, -1] causal i1 mask f16 Sq200 Sk260",
            q, k, v, mask=m, causal=True, window=(30, -1))
        q, k, v = qkv(2, 4, 4, 150, 450, 128, 128, f16)
        am = rand((2, 4, 150, 450), f16, g, -2, 2)
        am[..., 300:340] = float("-inf")
        att("window_add_d128_f16", "window [200, 0] additive mask f16 D128 Sq150 Sk450",
            q, k, v, mask=am, window=(200, 0))
        # The LSE result: -inf exactly for rows that see no key.
        for fn, dt, d, causal, w, (b, h, hkv, sq, sk) in (
                ("window_causal_f32", f32, 32, True, (5, 3), (2, 2, 2, 130, 130)),
                ("window_zero_f16", f16, 64, False, (0, 0), (1, 4, 4, 77, 50))):
            name = "window LSE %s %s%s" % (fn, str((b, h, hkv, sq, sk)), tag)
            if not self.wanted(name):
                continue
            q, k, v = qkv(b, h, hkv, sq, sk, d, d, dt)
            self.lse_call(F, fn, name, [q, k, v], (b, h, sq, d), dt,
                          lambda: ref_lse(q, k, None, causal, window=w),
                          lambda: ref_attention(q, k, v, None, causal, window=w))

    def softcap(self, F, tag):
        """Logit soft-capping (issue #19): prefill GQA causal f16 with scores
        well past the cap (mma.sync on sm_90, wgmma on sm_90a), bf16 D = 128
        with an additive mask (mma.sync on sm_90, wgmma on sm_90a), huge
        f32 logits (CUDA cores), decode bf16 with an additive mask and decode
        f16 Sq = 3 causal (the split-KV decode kernel), and scores well past
        the cap at D = 128 (f16) and D = 64 causal (bf16)."""
        g = self.gen
        f16, f32, bf16 = torch.float16, torch.float32, torch.bfloat16

        def att(fn, name, *args, **kw):
            self.attention(F, fn, name + tag, *args, **kw)

        def qkv(*a, **kw):
            return rand_qkv(g, *a, **kw)

        att("softcap_gqa_causal_f16", "softcap 30 GQA 8/2 causal f16 Sq77 Sk130",
            *qkv(2, 8, 2, 77, 130, 64, 64, f16), causal=True, softcap=30.0)
        q, k, v = qkv(3, 8, 2, 1, 700, 128, 128, bf16)
        am = rand((3, 8, 1, 700), bf16, g, -2, 2)
        am[..., 300:400] = float("-inf")
        att("softcap_dec_add_bf16", "softcap 50 decode bf16 additive mask Sk700", q, k, v,
            mask=am, softcap=50.0)
        att("softcap_huge_f32", "softcap 5 huge f32 logits (|s| ~ 1e6)",
            *qkv(1, 2, 2, 9, 33, 16, 16, f32, -500, 500), softcap=5.0)
        att("softcap_dec_causal_f16", "softcap 20 decode f16 Sq3 causal 8/2 Sk3001",
            *qkv(2, 8, 2, 3, 3001, 64, 64, f16), causal=True, softcap=20.0)
        q, k, v = qkv(1, 4, 2, 200, 333, 128, 128, bf16)
        am = rand((1, 4, 200, 333), bf16, g, -2, 2)
        am[..., :70] = float("-inf")
        att("softcap_add_d128_bf16", "softcap 15 bf16 D128 additive mask Sq200 Sk333", q, k, v,
            mask=am, softcap=15.0)
        # Scores well past the cap, where the capped scores crowd near +-c and
        # an absolute error in them is a relative error in P: Gemma 2's cap
        # 50 with |s * scale| up to ~100 (f16, D = 128: wgmma / mma.sync),
        # and cap 30 with |s * scale| up to ~50 (bf16, D = 64, causal).
        att("softcap50_d128_f16", "softcap 50 f16 D128 scores past the cap Sq200 Sk333",
            *qkv(1, 4, 2, 200, 333, 128, 128, f16, -11, 11), softcap=50.0)
        att("softcap30_d64_causal_bf16", "softcap 30 bf16 D64 causal scores past the cap Sq150 Sk150",
            *qkv(2, 4, 4, 150, 150, 64, 64, bf16, -9, 9), causal=True, softcap=30.0)
        att("softcap40_static_causal_d128_f16", "softcap 40 f16 D128 causal static GQA Sq333 Sk333",
            *qkv(1, 4, 2, 333, 333, 128, 128, f16, -9, 9), causal=True, softcap=40.0)
        # The log-sum-exp of capped scores (the tensor-core kernels anchor
        # it on max t * c log2 e without an additive mask, on the scaled
        # score with one).
        q, k, v = qkv(1, 4, 2, 130, 200, 128, 128, f16, -8, 8)
        self.lse_call(F, "lse_softcap_causal_d128_f16",
                      "softcap 50 LSE causal f16 D128 Sq130 Sk200" + tag, [q, k, v],
                      (1, 4, 130, 128), f16,
                      lambda: ref_lse(q, k, causal=True, softcap=50.0),
                      lambda: ref_attention(q, k, v, causal=True, softcap=50.0))
        q, k, v = qkv(2, 4, 4, 70, 90, 64, 64, bf16, -6, 6)
        am = rand((2, 4, 70, 90), bf16, g, -3, 3)
        am[..., 20:40] = float("-inf")
        self.lse_call(F, "lse_softcap_add_d64_bf16",
                      "softcap 20 LSE bf16 D64 additive mask Sq70 Sk90" + tag, [q, k, v, am],
                      (2, 4, 70, 64), bf16,
                      lambda: ref_lse(q, k, am, softcap=20.0),
                      lambda: ref_attention(q, k, v, am, softcap=20.0))

    def drift(self, F, tag):
        """Systematic error (issue #38): the mean over all outputs of
        out - (float64 reference rounded to the output type), on long rows
        whose logits rise along the keys (the running maximum changes in
        almost every key tile) with V = 3 + 0.5 randn (|out| ~ 3, one
        binade). Rounding alone averages out; a kernel that loses an ulp
        fraction in one direction shows here although its largest error
        stays in tolerance. Limits: 0.05 ulp of 3 in f16 / bf16 (about 1e-4
        in f16, the level of SDPA's flash backend), 2e-6 in f32."""
        f16, f32, bf16 = torch.float16, torch.float32, torch.bfloat16
        dev = DEVICE
        ulp3 = {f16: 2.0 ** -9, bf16: 2.0 ** -6}

        def inputs(b, h, hkv, sq, sk, d, dt):
            if DRY_RUN:
                return (torch.empty((b, h, sq, d), dtype=dt), torch.empty((b, hkv, sk, d), dtype=dt),
                        torch.empty((b, hkv, sk, d), dtype=dt))
            g = torch.Generator(device=dev)
            g.manual_seed(38 + sk + h)
            q = torch.randn((b, h, sq, d), generator=g, device=dev)
            q[..., 0] = 4
            k = 0.5 * torch.randn((b, hkv, sk, d), generator=g, device=dev)
            k[..., 0] = 8 * torch.arange(sk, device=dev, dtype=torch.float32) / sk
            v = 3 + 0.5 * torch.randn((b, hkv, sk, d), generator=g, device=dev)
            return q.to(dt), k.to(dt), v.to(dt)

        # The prefill tensor-core kernels (mma.sync, wgmma) add P V into O on
        # the tensor cores, which round toward zero: about one f16 ulp low
        # over 131072 keys of one accumulation (bench/RESULTS.md session 22).
        # These grids are small, so the keys are split into chunks of at
        # most a few thousand keys merged in f32 (split-KV, issue #38).
        def check(fn, name, shape, dt, causal=False, xfail=None):
            name = "drift %s %s%s" % (name, "B%d H%d/%d Sq%d Sk%d D%d" % shape, tag)
            if not self.wanted(name):
                return
            q, k, v = inputs(*shape, dt)
            out = poisoned((shape[0], shape[1], shape[3], shape[5]), dt)
            try:
                call(self.lib(F), fn, [q, k, v], out)
            except (tx.TxError, RuntimeError, KeyError) as e:
                print(name, "ERROR", e)
                self.rows.append({"name": name, "dtype": NAMES[dt], "pass": False,
                                  "rel_err": float("nan"), "max_abs_err": float("nan"),
                                  "nan_mismatch": -1, "tol": TOL[dt], "error": str(e)})
                return
            if DRY_RUN:
                return self.record(name, dt, DRY_ROW)
            ref = ref_attention(q, k, v, causal=causal, scale=0.0721)
            res = compare(out, ref, TOL[dt])
            if dt == f32:
                drift, limit = float((out.double() - ref).mean()), 2e-6
            else:
                drift = float((out.double() - ref.to(dt).double()).mean())
                limit = 0.05 * ulp3[dt]
            res["mean_signed_err"] = drift
            ok = res["pass"] and abs(drift) <= limit
            print("  mean signed error %.3e (limit %.1e%s)%s" % (
                drift, limit, "" if dt == f32 else ", %.3f ulp of 3" % (drift / ulp3[dt]),
                "" if not xfail else " XPASS: remove the expected failure" if ok
                else " XFAIL (expected: %s)" % xfail))
            if xfail:
                res["xfail"] = xfail
                # An expected failure must still be finite and within the
                # ordinary tolerance; only its mean error may exceed the limit.
                ok = res["pass"] and not ok
            res["pass"] = ok
            self.record(name, dt, res)

        long_row = (1, 1, 1, 128, 131072, 128)
        check("drift_f16", "rising logits", long_row, f16)
        check("drift_bf16", "rising logits", long_row, bf16)
        check("drift_f32", "rising logits", long_row, f32)
        check("drift_causal_f16", "causal GQA", (1, 4, 1, 256, 65536, 64), f16, causal=True)
        check("drift_dec_f16", "decode GQA", (1, 32, 8, 1, 131072, 128), f16)
        check("drift_dec1_f16", "decode GQA one split", (1, 32, 8, 1, 131072, 128), f16)

    def decode(self, F, tag):
        """The split-KV decode kernels (issue #17) against float64: Sk not a
        multiple of the split size and smaller than the number of parts,
        splits whose keys are all hidden by the mask, Sq > 1 with causal
        (rows that see no key give zeros), GQA, MQA and MHA, hidden keys
        whose K/V hold NaN, huge finite mask values, and the log-sum-exp."""
        g, dev = self.gen, DEVICE
        f16, f32, bf16 = torch.float16, torch.float32, torch.bfloat16
        ninf = float("-inf")

        def att(fn, name, *args, **kw):
            self.attention(F, fn, name + tag, *args, **kw)

        def qkv(b, h, hkv, sq, sk, d, dv, dt):
            return rand((b, h, sq, d), dt, g), rand((b, hkv, sk, d), dt, g), rand((b, hkv, sk, dv), dt, g)

        for b, sk in ((1, 1), (3, 5), (1, 31), (2, 33), (1, 1000), (2, 4097), (1, 20000)):
            att("dec_gqa_f16", "decode GQA 32/8 B%d Sk%d" % (b, sk), *qkv(b, 32, 8, 1, sk, 128, 128, f16))
        for b, sk in ((1, 77), (2, 3000)):
            att("dec_mha_bf16", "decode MHA 32/32 bf16 B%d Sk%d" % (b, sk), *qkv(b, 32, 32, 1, sk, 128, 128, bf16))
        for b, sk in ((4, 1), (1, 513), (2, 9000)):
            att("dec_mqa_d64_f16", "decode MQA 8/1 D64 B%d Sk%d" % (b, sk), *qkv(b, 8, 1, 1, sk, 64, 64, f16))
        for b, sk in ((1, 2), (2, 7), (1, 300), (2, 5000)):
            att("dec_sq4_causal_f16", "decode Sq4 causal 32/8 B%d Sk%d" % (b, sk),
                *qkv(b, 32, 8, 4, sk, 128, 128, f16), causal=True)
        for b, sk in ((1, 2), (2, 700)):
            att("dec_causal_f32", "decode Sq3 causal 4/2 f32 D64 Dv32 B%d Sk%d" % (b, sk),
                *qkv(b, 4, 2, 3, sk, 64, 32, f32), causal=True)
        # Tensor-core decode at D 96 / Dv 32 and D 32 with G * Sq = 2 * 2.
        for b, sk in ((1, 3), (2, 1500)):
            att("dec_d96_dv32_f16", "decode GQA 8/2 D96 Dv32 f16 B%d Sk%d" % (b, sk),
                *qkv(b, 8, 2, 1, sk, 96, 32, f16))
            att("dec_d32_sq2_causal_f16", "decode Sq2 causal 2/1 D32 f16 B%d Sk%d" % (b, sk),
                *qkv(b, 2, 1, 2, sk, 32, 32, f16), causal=True)
        # bf16 on tensor cores (nvvm.mma.sync): GQA 32/8 (G = 4 rows), Sq 4
        # causal 8/2 D64 (16 rows), and H3's huge equal logits.
        for b, sk in ((1, 1), (3, 5), (2, 33), (1, 1000), (2, 4097), (1, 20000)):
            att("dec_gqa_bf16", "decode GQA 32/8 bf16 B%d Sk%d" % (b, sk), *qkv(b, 32, 8, 1, sk, 128, 128, bf16))
        for b, sk in ((1, 2), (2, 7), (1, 300), (2, 5000)):
            att("dec_sq4_causal_bf16", "decode Sq4 causal 8/2 D64 bf16 B%d Sk%d" % (b, sk),
                *qkv(b, 8, 2, 4, sk, 64, 64, bf16), causal=True)
        for sk in (4, 3000):
            big = torch.full((1, 32, 1, 128), 133120.0, dtype=bf16, device=dev)
            kv = torch.full((1, 8, sk, 128), 133120.0, dtype=bf16, device=dev)
            att("dec_gqa_bf16", "decode GQA 32/8 bf16 Q=K=V=133120 Sk%d" % sk, big, kv, kv,
                expect=torch.full((1, 32, 1, 128), 133120.0, dtype=torch.float64, device=dev), exact=True)
        # Head dims of 256 (CUDA-core form; the grouped merge of Dv > 128):
        # one split, a few, and more than 32.
        for b, sk in ((1, 3), (2, 3000), (1, 20000)):
            att("dec_d256_f16", "decode GQA 8/2 D256 f16 B%d Sk%d" % (b, sk), *qkv(b, 8, 2, 1, sk, 256, 256, f16))
            att("dec_d256_sq2_causal_f32", "decode Sq2 causal 4/2 D256 f32 B%d Sk%d" % (b, sk),
                *qkv(b, 4, 2, 2, sk, 256, 256, f32), causal=True)
        # i1 mask: the first `hide` keys hidden (whole splits), one head
        # sees no key (zeros); the hidden keys' K and V hold NaN (or Inf).
        # B 2, Sk 4097: the workspace merge; B 1, Sk 2000: the cluster
        # merge's short calls (sm_90+: B * Hkv * 8 <= 66 and Sk <= 2048, 8
        # splits of 256 keys: five of them hidden).
        for b, sk, hide, dead, span, vbad, name in (
                (2, 4097, 3000, (1, 5), (100, 200), "nan",
                 "decode keep-mask: hidden splits, a row with no key, NaN in hidden K/V"),
                (1, 2000, 1500, (0, 7), (300, 400), "inf",
                 "decode keep-mask cluster: hidden splits, a row with no key, NaN/Inf in hidden K/V")):
            q, k, v = qkv(b, 32, 8, 1, sk, 128, 128, f16)
            m = torch.rand((b, 32, 1, sk), generator=g, device=dev) > 0.3
            m[:, :, :, :hide] = False
            m[dead[0], dead[1], 0, :] = False
            want = None if DRY_RUN else ref_attention(q, k, v, m)
            k[:, :, span[0]:span[1], :] = float("nan")
            v[:, :, span[0]:span[1], :] = float(vbad)
            att("dec_keep_f16", name, q, k, v, mask=m, expect=want)
        # additive bf16 mask [1, H, Sq, Sk]: -inf spans, -1e30 and -1e10
        # (H1: no finite magnitude may give NaN; all keys -1e10: f32 scores
        # lose s, float64 keeps it), causal Sq = 2; Sk 2500 the workspace
        # merge, Sk 2000 the cluster merge (B 3 x Hkv 2 x 8 <= 66).
        for sk, big, tag_ in ((2500, 2000, ""), (2000, 1900, " cluster")):
            q, k, v = qkv(3, 8, 2, 2, sk, 64, 64, bf16)
            am = rand((1, 8, 2, sk), bf16, g, -2, 2)
            am[..., 100:1500] = ninf
            am[0, 3, :, :big] = -1e30
            am[0, 4, :, :big] = -1e10
            att("dec_add_sq2_causal_bf16", "decode additive bf16 mask (-inf, -1e30, -1e10) causal Sq2" + tag_,
                q, k, v, mask=am, causal=True)
        # Log-sum-exp of the merged parts.
        for b, sk in ((1, 1), (1, 1500), (2, 6000)):
            name = "decode LSE 32/8 B%d Sk%d%s" % (b, sk, tag)
            if not self.wanted(name):
                continue
            q, k, v = qkv(b, 32, 8, 1, sk, 128, 128, f16)
            o = poisoned((b, 32, 1, 128), f16)
            l = poisoned((b, 32, 1), f32)
            call(self.lib(F), "dec_lse_f16", [q, k, v], [o, l])
            if DRY_RUN:
                self.record(name, f16, DRY_ROW)
                continue
            self.record(name, f16, compare(l, ref_lse(q, k), TOL[f16]))
            self.record(name + " (O)", f16, compare(o, ref_attention(q, k, v), TOL[f16]))

    def lse(self, F, tag):
        """The log-sum-exp result (f32 [B, H, Sq]) of every kernel family
        against float64 (-inf rows exact), with the output checked too."""
        g, dev = self.gen, DEVICE
        f16, f32, bf16 = torch.float16, torch.float32, torch.bfloat16
        cases = (("lse_causal_d128_f16", f16, 128, None, True, (1, 4, 2, 77, 130)),
                 ("lse_causal_d128_f16", f16, 128, None, True, (2, 8, 2, 1, 300)),
                 ("lse_causal_d128_f16", f16, 128, None, True, (1, 2, 2, 130, 64)),
                 ("lse_add_d64_bf16", bf16, 64, bf16, False, (2, 2, 2, 70, 257)),
                 ("lse_keep_causal_d64_f16", f16, 64, torch.bool, True, (1, 3, 3, 65, 129)),
                 ("lse_causal_d64_f32", f32, 64, None, True, (2, 2, 1, 33, 40)),
                 ("lse_d80_f16", f16, 80, None, False, (1, 2, 2, 45, 100)))
        for fn, dt, d, mdt, causal, (b, h, hkv, sq, sk) in cases:
            name = "LSE %s %s%s" % (fn, str((b, h, hkv, sq, sk)), tag)
            if not self.wanted(name):
                continue
            q, k, v = rand((b, h, sq, d), dt, g), rand((b, hkv, sk, d), dt, g), rand((b, hkv, sk, d), dt, g)
            args = [q, k, v]
            m = None
            if mdt is torch.bool:
                m = torch.rand((b, h, sq, sk), generator=g, device=dev) > 0.3
                m[:, :, 0, :] = False  # a row that sees no key: -inf
                args.append(m)
            elif mdt is not None:
                m = rand((b, h, sq, sk), mdt, g, -2, 2)
                m[:, :, 1, :] = float("-inf")
                args.append(m)
            self.lse_call(F, fn, name, args, (b, h, sq, d), dt,
                          lambda: ref_lse(q, k, m, causal),
                          lambda: ref_attention(q, k, v, m, causal))

    def lse_call(self, F, fn, name, args, o_shape, dt, ref_l, ref_o):
        """Calls a function with the LSE result (O, lse) into poisoned
        buffers and records the LSE (finite rows against ref_l(), -inf rows
        exactly) and O (against ref_o())."""
        o = poisoned(o_shape, dt)
        l = poisoned(o_shape[:3], torch.float32)
        try:
            call(self.lib(F), fn, args, [o, l])
        except (tx.TxError, RuntimeError, KeyError) as e:
            # (KeyError: the library has no such function, e.g. one built
            # from an older copy of the cases: a failed row, not a crash.)
            print(name, "ERROR", e)
            self.rows.append({"name": name, "dtype": NAMES[dt], "pass": False,
                              "rel_err": float("nan"), "max_abs_err": float("nan"),
                              "nan_mismatch": -1, "tol": TOL[dt], "error": str(e)})
            return
        if DRY_RUN:
            self.record(name, dt, DRY_ROW)
            self.record(name + " (O)", dt, DRY_ROW)
            return
        ref = ref_l()
        inf_ok = bool((torch.isneginf(ref) == torch.isneginf(l)).all())
        fin = ~torch.isneginf(ref)
        res = compare(l[fin], ref[fin], TOL[dt])
        res["pass"] = res["pass"] and inf_ok
        self.record(name, dt, res)
        self.record(name + " (O)", dt, compare(o, ref_o(), TOL[dt]))

    def hidden_keys(self, F, tag):
        """Issue #13 / CASES.md H1-H3 through library F: huge finite mask
        values (no magnitude may give NaN), huge but equal logits, and hidden
        keys whose K/V hold NaN/Inf (they contribute nothing), with exact
        expected values where the issue gives them and random variants."""
        g, dev = self.gen, DEVICE
        f16, f32, bf16 = torch.float16, torch.float32, torch.bfloat16
        N = {f16: "f16", bf16: "bf16", f32: "f32"}
        ninf = float("-inf")

        def att(fn, name, *args, **kw):
            self.attention(F, fn, name + tag, *args, **kw)

        def qkv(b, h, sq, sk, d, dt, hkv=None):
            hkv = hkv or h
            return rand((b, h, sq, d), dt, g), rand((b, hkv, sk, d), dt, g), rand((b, hkv, sk, d), dt, g)

        # H2: bf16 D=128, additive bf16 mask, first third of the keys -1e30,
        # the rest small random values (rel <= 4e-3 against float64).
        for (b, h, sq, sk) in ((2, 4, 130, 257), (1, 8, 333, 200), (1, 2, 77, 77)):
            q, k, v = qkv(b, h, sq, sk, 128, bf16)
            m = rand((b, h, sq, sk), bf16, g, -1, 1)
            m[..., : sk // 3] = -1e30
            name = "H2 bf16 mask -1e30 first third %s%s" % (str((b, h, sq, sk)), tag)
            self.attention(F, "hk_add_d128_bf16", name, q, k, v, mask=m)
            if self.wanted(name):  # (not run under --only filters that exclude it)
                self.rows[-1]["pass"] = self.rows[-1]["pass"] and self.rows[-1]["rel_err"] <= 4e-3
        # H2 sweep: (1,2,64,257), the first 64/128/200 keys set to one value.
        bf16_min = -torch.finfo(bf16).max
        for dt, d in ((bf16, 128), (bf16, 64), (f16, 128), (f16, 64)):
            vals = ((-1e4, -1e9, -1e10, -1e12, -1e20, -1e30, -1e38, bf16_min, ninf) if dt == bf16
                    else (-1e4, -6.5e4, ninf))
            q, k, v = qkv(1, 2, 64, 257, d, dt)
            for val in vals:
                for n in (64, 128, 200):
                    m = rand((1, 2, 64, 257), dt, g, -1, 1)
                    m[..., :n] = val
                    att("hk_add_d%d_%s" % (d, N[dt]), "H2 sweep %s D%d first %d keys %g" % (N[dt], d, n, val),
                        q, k, v, mask=m)
        # Huge finite values at every tile position (blocks of 32 keys), i1
        # and additive, random values elsewhere.
        for dt, d in ((bf16, 128), (f16, 128), (f16, 64), (bf16, 64), (f32, 64)):
            sk = 300
            q, k, v = qkv(2, 2, 70, sk, d, dt)
            for p0 in range(0, sk, 32):
                m = rand((2, 2, 70, sk), dt, g, -1, 1)
                huge = -1e30 if dt != f16 else -6.5e4
                m[..., p0:p0 + 32] = huge
                att("hk_add_d%d_%s" % (d, N[dt]), "huge mask keys [%d,%d) %s D%d" % (p0, p0 + 32, N[dt], d),
                    q, k, v, mask=m)
        # H3: Q = K = V = a huge value: every output element is that value.
        for dt, val, d in ((f16, 60000.0, 64), (bf16, 133120.0, 64), (f32, 2.0 ** 60, 64),
                           (f16, 60000.0, 128), (bf16, 133120.0, 128)):
            x = torch.full((1, 1, 1, d), val, dtype=dt, device=dev)
            kv = torch.full((1, 1, 4, d), val, dtype=dt, device=dev)
            exp = torch.full((1, 1, 1, d), val, dtype=torch.float64, device=dev)
            att("hk_d%d_%s" % (d, N[dt]), "H3 Q=K=V=%g %s D%d" % (val, N[dt], d), x, kv, kv,
                expect=exp, exact=True)
        # H1: B=1, H=2, Sq=3, Sk=130, D=Dv=64; row i keeps keys j < L_i,
        # L = (1, 37, 100); visible K = 0, V[j, :] = j; keys 100..129 (hidden
        # from every row) hold NaN or +Inf in V, random K. Answer: (L_i-1)/2.
        L = (1, 37, 100)
        for dt in (f16, bf16, f32):
            for garbage in (float("nan"), float("inf")):
                for kind in ("keep", "add"):
                    for d in ((64, 128) if dt != f32 else (64,)):
                        q = rand((1, 2, 3, d), dt, g)
                        k = torch.zeros((1, 2, 130, d), dtype=dt, device=dev)
                        k[:, :, 100:] = rand((1, 2, 30, d), dt, g)
                        v = torch.arange(130, device=dev, dtype=torch.float32).reshape(1, 1, 130, 1).repeat(1, 2, 1, d).to(dt)
                        v[:, :, 100:] = garbage
                        keep = torch.zeros((1, 2, 3, 130), dtype=torch.bool, device=dev)
                        for i, li in enumerate(L):
                            keep[:, :, i, :li] = True
                        m = keep if kind == "keep" else torch.where(
                            keep, torch.zeros((), dtype=dt, device=dev),
                            torch.full((), ninf, dtype=dt, device=dev)).contiguous()
                        exp = torch.tensor([(li - 1) / 2 for li in L], dtype=torch.float64, device=dev)
                        exp = exp.reshape(1, 1, 3, 1).repeat(1, 2, 1, d)
                        att("hk_%s_d%d_%s" % (kind, d, N[dt]),
                            "H1 %s mask, hidden V=%g %s D%d" % (kind, garbage, N[dt], d),
                            q, k, v, mask=m, expect=exp, exact=(dt != f32))
        # Random variants: per-row key lengths, random K/V, and NaN/+-Inf in
        # the K and V of the keys hidden from every row (the reference sees
        # zeros there: a hidden key contributes nothing).
        for dt, d, kind, causal in ((f16, 64, "keep", False), (f16, 128, "add", False),
                                    (bf16, 128, "keep", False), (bf16, 64, "add", False),
                                    (f32, 64, "keep", False), (f16, 128, "keep", True),
                                    (bf16, 64, "add", True)):
            for (b, h, sq, sk) in ((2, 2, 77, 200), (1, 3, 130, 333)):
                q, k, v = qkv(b, h, sq, sk, d, dt)
                lens = torch.randint(1, sk, (b, h, sq, 1), generator=g, device=dev)
                j = torch.arange(sk, device=dev).reshape(1, 1, 1, sk)
                keep = j < lens
                keep &= torch.rand((b, h, sq, sk), generator=g, device=dev) > 0.2
                hidden_all = ~keep.any(dim=2, keepdim=True)  # [b,h,1,sk]: hidden from every row
                kk, vv = k.clone(), v.clone()
                gk = torch.where(torch.rand(k.shape, generator=g, device=dev) > 0.5,
                                 torch.tensor(float("nan"), device=dev), torch.tensor(float("inf"), device=dev)).to(dt)
                gv = torch.where(torch.rand(v.shape, generator=g, device=dev) > 0.5,
                                 torch.tensor(float("nan"), device=dev), torch.tensor(-float("inf"), device=dev)).to(dt)
                hk = hidden_all.reshape(b, h, sk, 1)
                kk = torch.where(hk, gk, k).contiguous()
                vv = torch.where(hk, gv, v).contiguous()
                k0 = torch.where(hk, torch.zeros_like(k), k)
                v0 = torch.where(hk, torch.zeros_like(v), v)
                m = keep if kind == "keep" else torch.where(
                    keep, rand((b, h, sq, sk), dt, g, -1, 1), torch.full((), ninf, dtype=dt, device=dev)).contiguous()
                fn = "hk_%s%s_d%d_%s" % (kind, "_causal" if causal else "", d, N[dt])
                att(fn, "hidden keys NaN/Inf in K,V %s %s D%d%s %s" % (kind, N[dt], d, " causal" if causal else "",
                                                                      str((b, h, sq, sk))),
                    q, kk, vv, mask=m, causal=causal,
                    expect=ref_attention(q, k0, v0, m, causal))

    def time_dim0(self):
        """How much slower softmax along a non-innermost dim is: tx's
        reference lowering (dim 0 of 4096x4096 f32, calls on PyTorch's
        stream) vs torch.softmax(dim=0), CUDA events around each call,
        median of 10."""
        name = "timing: softmax dim 0 4096x4096 f32"
        if not self.wanted(name) or DRY_RUN:
            return
        x = rand((4096, 4096), torch.float32, self.gen)
        out = torch.empty_like(x)
        f = self.lib("cases").softmax_dim0_dyn_f32

        def median_ms(fn):
            fn()
            torch.cuda.synchronize()
            ts = []
            for _ in range(10):
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                fn()
                e.record()
                torch.cuda.synchronize()
                ts.append(s.elapsed_time(e))
            return sorted(ts)[5]

        t_tx = median_ms(lambda: f(x, out=out))
        t_torch = median_ms(lambda: torch.softmax(x, dim=0))
        print("%s: tx %.3f ms, torch %.3f ms, tx %.1fx slower" % (name, t_tx, t_torch, t_tx / t_torch))

    def mismatch_is_error(self):
        """A6: a mismatch of D between Q and K is an error, not wrong numbers:
        the package checks the op's shape rules before it calls the library,
        so the call raises tx.ShapeError naming the argument and the rule,
        the library never sees it (the output stays as it was), and the
        next call works."""
        name = "A6 D mismatch is a run-time error"
        if not self.wanted(name):
            return
        lib = self.lib("cases")
        q = torch.rand(1, 1, 4, 8, device=DEVICE)
        k = torch.rand(1, 1, 4, 4, device=DEVICE)
        v = torch.rand(1, 1, 4, 8, device=DEVICE)
        o = torch.zeros(1, 1, 4, 8, device=DEVICE)
        want = "attn_dyn_f32: argument 'k' (key): head dim D = 4 differs from q's 8"
        try:
            lib.attn_dyn_f32(q, k, v, out=o)
            got = "no error"
        except tx.ShapeError as e:
            got = "tx.ShapeError: %s" % e
        except Exception as e:  # noqa: BLE001  (the wrong kind of error)
            got = "%s: %s" % (type(e).__name__, e)
        untouched = bool((o == 0).all())
        try:
            call(lib, "attn_dyn_f32", [q, torch.rand(1, 1, 4, 8, device=DEVICE), v], o)
            after = "next call OK"
        except Exception as e:  # noqa: BLE001
            after = "next call: %s: %s" % (type(e).__name__, e)
        ok = got == "tx.ShapeError: " + want and untouched and after == "next call OK"
        print("%-46s %-5s %s  %s; %s; output %s" % (
            name, "f32", "PASS" if ok else "FAIL", got, after,
            "untouched" if untouched else "WRITTEN"), flush=True)
        self.rows.append({"name": name, "dtype": "f32", "pass": ok, "rel_err": 0.0,
                          "max_abs_err": 0.0, "nan_mismatch": 0, "tol": 0.0})

    def library_error(self):
        """A failure inside the library (not one the package can check
        first) raises tx.TxRuntimeError with the runtime's message, never
        aborts, writes nothing, and the next call works. The package is
        loaded with libcases' manifest minus attn_dyn_f32's op and result
        sizes, so it cannot see the shape rules nor the result's size: a D
        mismatch and an out= of the wrong size reach the library, whose
        run-time checks report them (docs/ABI.md). In a child process, so
        that an abort would only fail this check."""
        name = "A6 library-level error raises TxRuntimeError"
        if not self.wanted(name) or DRY_RUN:
            return
        code = r"""
import json, sys, torch
sys.path.insert(0, %(here)r)
import check
tx = check.tx
path = %(lib)r
with open(path[:-len(".so")] + ".json") as f:
    m = json.load(f)
for fn in m["functions"]:
    if fn["name"] == "attn_dyn_f32":
        fn["ops"] = []
        for r in fn["results"]:
            r["shape_from"] = [None] * r["rank"]
lib = tx.load(path, manifest=tx.Manifest(m, "libcases.json without attn_dyn_f32's rules"))
f = lib.attn_dyn_f32
q, k, v = (torch.rand(1, 1, 4, d, device="cuda") for d in (8, 4, 8))
o = torch.zeros(1, 1, 4, 8, device="cuda")
for what, args, out in (("D", (q, k, v), o), ("SIZE", (q, v, v), torch.zeros(1, 1, 4, 7, device="cuda"))):
    try:
        f(*args, out=out)
        print(what, "no error")
    except tx.TxRuntimeError as e:
        print(what, "RAISED:", e)
    torch.cuda.synchronize()
    print(what, "untouched" if bool((out == 0).all()) else "WRITTEN")
k = torch.rand(1, 1, 4, 8, device="cuda")
check.call(lib, "attn_dyn_f32", [q, k, v], o)
res = check.compare(o, check.ref_attention(q, k, v), check.TOL[torch.float32])
print("NEXT CALL", "OK" if res["pass"] else "WRONG rel %%g" %% res["rel_err"])
""" % {"here": os.path.dirname(os.path.abspath(__file__)),
       "lib": os.path.join(self.lib_dir, "cases", "libcases.so")}
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        want = ["D RAISED: attn_dyn_f32: the library failed (attn_dyn_f32: tx.attention: "
                "head dimension D of query and key differ: 8 vs 4)", "D untouched",
                "SIZE RAISED: attn_dyn_f32: the library failed (attn_dyn_f32: result #0 has "
                "size 7 in dim 3, but the computation produces 8)", "SIZE untouched",
                "NEXT CALL OK"]
        lines = [l for l in p.stdout.splitlines() if l.split(" ")[0] in ("D", "SIZE", "NEXT")]
        ok = p.returncode == 0 and lines == want
        print("%-46s %-5s exit %d  %s" % (name, "f32", p.returncode, "PASS" if ok else "FAIL"))
        if not ok:
            print(p.stdout[-2000:], p.stderr[-2000:])
        self.rows.append({"name": name, "dtype": "f32", "pass": ok, "rel_err": 0.0,
                          "max_abs_err": 0.0, "nan_mismatch": 0, "tol": 0.0})


# The flash-case libraries (scripts/main.sh) and the tag of their check names.
TAGS = {"flash_cases": "", "flash_cases_tiles": " [tiles 6x32]",
        "flash_cases_sm90a": " [sm_90a]", "flash_cases_ws": " [sm_90a producer]"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib-dir", required=True,
                    help="directory with <stem>/lib<stem>.so from tx-compile.sh")
    ap.add_argument("--only", action="append", help="run checks whose name contains this")
    ap.add_argument("--skip-examples", action="store_true")
    ap.add_argument("--skip-cases", action="store_true")
    ap.add_argument("--flash", action="store_true",
                    help="also check the flash attention path (flash_cases and *_flash libraries)")
    ap.add_argument("--out", help="write the rows as JSON here")
    ap.add_argument("--dry-run", action="store_true",
                    help="no GPU: open the libraries' manifests only (fake entry points, CPU "
                         "tensors) and make every call up to the library, comparing nothing")
    args = ap.parse_args()
    if args.dry_run:
        set_dry_run()
        print("dry run: %s | torch %s | tx from %s" % (
            args.lib_dir, torch.__version__, os.path.dirname(tx.__file__)), flush=True)
    else:
        if not torch.cuda.is_available():
            sys.exit("check.py: no CUDA GPU visible to PyTorch")
        torch.cuda.init()
        print("device:", torch.cuda.get_device_name(), "| torch", torch.__version__, flush=True)
    r = Runner(args.lib_dir, args.only)
    r.skip_examples = args.skip_examples
    if not args.skip_cases:
        r.cases()
        r.mismatch_is_error()
        r.library_error()
        r.time_dim0()
    if not args.skip_examples:
        r.examples()
    if args.flash:
        r.flash()
    npass = sum(1 for x in r.rows if x["pass"])
    nfail = len(r.rows) - npass
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"device": "dry run" if DRY_RUN else torch.cuda.get_device_name(),
                       "torch": torch.__version__, "rows": r.rows}, f, indent=1)
    if DRY_RUN:
        print("check --dry-run: %d calls accepted, %d failed; %d libraries: %s" % (
            npass, nfail, len(r.libs), ", ".join(sorted(r.libs))))
        sys.exit(1 if nfail else 0)
    nxfail = sum(1 for x in r.rows if x["pass"] and x.get("xfail"))
    print("check: %d passed, %d failed%s" % (
        npass, nfail, " (%d of the passed are expected failures, XFAIL)" % nxfail if nxfail else ""))
    sys.exit(1 if nfail else 0)


if __name__ == "__main__":
    main()
