#!/usr/bin/env python3
"""txfuzz: a mutation fuzzer for tx-opt, tx's pipelines and the mlir-opt plugin.

Every input is a tx program; every run is one tool invocation. An input is
either a seed from the repository (test/**/*.mlir, examples/, harness/, split
at `// -----`) mutated at the text level, or a program generated from scratch
(tx.softmax / tx.attention / tx.online_attention with random shapes, static
and dynamic dims, element types, masks, scales, causal, `tensor.dim` of the
result), optionally followed by a transform-dialect script. It is run through
one of:

  * tx-opt --tx-gpu-pipeline="format=isa chip=sm_90|sm_90a|... <options>"
  * tx-opt --tx-cpu-pipeline="attention=simple|tiled softmax=simple|tiled ..."
  * tx-opt --<one tx pass>[=options] (and short chains ending in one)
  * tx-opt --transform-interpreter (tile_using_forall / tile_using_for /
    decompose_interface on tx ops, odd sizes)
  * mlir-opt --load-dialect-plugin=TxPlugin.so --pass-pipeline='builtin.module(...)'

A FINDING is a run that crashes (signal, "PLEASE submit a bug report"), asserts,
prints "LLVM ERROR" or "UNREACHABLE", trips ASan/UBSan/LSan, runs longer than
--timeout seconds, or exits non-zero without printing an `error:` diagnostic.
A run that prints `error:` and exits 0 is a finding too (the error was not
propagated). Bad input that gets a diagnostic and a non-zero exit is fine.

Each finding is minimized (lines removed while the failure signature stays the
same, then passes and options dropped) and kept in --findings
DIR/<kind>-<signature-hash>/ (input.mlir, original.mlir, command.sh,
stderr.txt, info.json). One finding is kept per signature. Crashes that are
upstream's and reproduce without tx (KNOWN_UPSTREAM) are counted apart. Every
run is capped in memory (--memory-mb) and time (--timeout).

The run is deterministic for a seed: input i is drawn from
Random("<seed>:<i>"), so `--seed S --start I --iterations 1` replays input I.
Details and recorded runs: docs/Fuzzing.md.

Exit status: 0 when no finding, 1 when there was at least one, 2 on a usage
or setup error.
"""
import argparse
import hashlib
import json
import os
import random
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LLVM_BIN = "/usr/lib/llvm-22/bin"

# ----------------------------------------------------------------------------
# Value pools
# ----------------------------------------------------------------------------

# Sizes worth trying: empty, unit, odd, tile and warp boundaries, large, huge.
SIZES_SMALL = [0, 1, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65]
SIZES_MED = [77, 96, 100, 127, 128, 129, 192, 255, 256, 257, 300, 512, 1000,
             1024, 1025]
SIZES_BIG = [4096, 8191, 16384, 32768, 65536, 131072, 1 << 20, 1 << 31,
             (1 << 31) + 1, 1 << 40, 1 << 62]
HEAD_DIMS = [0, 1, 2, 3, 8, 15, 16, 24, 32, 48, 64, 80, 96, 112, 128, 129,
             160, 192, 255, 256, 257, 512]
FLOAT_TYPES = ["f16", "bf16", "f32"]
ODD_TYPES = ["f64", "i1", "i8", "i32", "f8E4M3FN", "f8E5M2", "index",
             "complex<f32>", "tf32", "f80"]
MASK_TYPES = ["i1", "f16", "bf16", "f32"]
SCALES = ["0.125", "1.0", "0.5", "0.0", "-0.0", "-1.0", "1.0e+30", "-1.0e+30",
          "1.0e-45", "3.4e+38", "0x7F800000", "0xFF800000", "0x7FC00000",
          "0x00000001", "100.0", "-0.125"]
CHIPS = ["sm_90", "sm_90", "sm_90a", "sm_90a", "sm_80", "sm_86", "sm_89",
         "sm_75", "sm_70", "sm_60", "sm_50", "sm_100a", "sm_100", "sm_120a",
         "sm_100f", "sm_91", "sm_90b", "gfx90a", "", "sm_"]
WEIRD_INTS = [-1, 0, 1, 2, 3, 5, 7, 16, 17, 31, 32, 33, 48, 64, 100, 128,
              255, 256, 1000, 1024, 1025, 4096, 1 << 20, 1 << 31, 1 << 40,
              (1 << 63) - 1, -(1 << 63)]


def pick_size(rng, big=0.08):
    r = rng.random()
    if r < big:
        return rng.choice(SIZES_BIG)
    if r < 0.35:
        return rng.choice(SIZES_MED)
    return rng.choice(SIZES_SMALL)


def dimstr(d):
    return "?" if d is None else str(d)


def ttype(shape, elem):
    if not shape:
        return "tensor<%s>" % elem
    return "tensor<%sx%s>" % ("x".join(dimstr(d) for d in shape), elem)


# ----------------------------------------------------------------------------
# Program generators
# ----------------------------------------------------------------------------


class Func:
    """Builds one func.func: arguments, body lines, returns."""

    def __init__(self, name):
        self.name = name
        self.args = []  # (name, type)
        self.body = []
        self.rets = []  # (value, type)
        self.n = 0

    def arg(self, ty, prefix="a"):
        name = "%%%s%d" % (prefix, len(self.args))
        self.args.append((name, ty))
        return name

    def tmp(self):
        self.n += 1
        return "%%t%d" % self.n

    def text(self, attrs=""):
        sig = ", ".join("%s: %s" % a for a in self.args)
        rt = ", ".join(t for _, t in self.rets)
        rts = "" if not self.rets else (" -> (%s)" % rt if len(self.rets) > 1 else " -> " + rt)
        out = ["func.func @%s(%s)%s%s {" % (self.name, sig, rts, attrs)]
        out += ["  " + l for l in self.body]
        if self.rets:
            out.append("  return %s : %s" % (", ".join(v for v, _ in self.rets), rt))
        else:
            out.append("  return")
        out.append("}")
        return "\n".join(out)


def maybe_dyn(rng, v, p):
    return None if rng.random() < p else v


def operand(rng, f, shape, elem, prefix):
    """A function argument, or (static shapes) a splat constant/tensor.empty."""
    ty = ttype(shape, elem)
    r = rng.random()
    static = all(d is not None for d in shape)
    small = static and all(d <= 4096 for d in shape)
    if static and small and r < 0.08 and elem in ("f16", "bf16", "f32", "f64"):
        t = f.tmp()
        val = rng.choice(["0.0", "1.0", "-1.0", "0x7F800000", "0xFF800000", "0x7FC00000", "6.0e+04"])
        if elem == "bf16" and val.startswith("0x"):
            val = {"0x7F800000": "0x7F80", "0xFF800000": "0xFF80", "0x7FC00000": "0x7FC0"}[val]
        if elem == "f16" and val.startswith("0x"):
            val = {"0x7F800000": "0x7C00", "0xFF800000": "0xFC00", "0x7FC00000": "0x7E00"}[val]
        if elem == "f64" and val.startswith("0x"):
            val = "1.0"
        f.body.append("%s = arith.constant dense<%s> : %s" % (t, val, ty))
        return t
    if static and r < 0.12:
        t = f.tmp()
        f.body.append("%s = tensor.empty() : %s" % (t, ty))
        return t
    return f.arg(ty, prefix)


def gen_softmax(rng, f, chaos):
    rank = rng.choice([1, 2, 2, 2, 3, 3, 4] + ([0, 5] if chaos else []))
    shape = [maybe_dyn(rng, pick_size(rng), 0.2) for _ in range(rank)]
    elem = rng.choice(FLOAT_TYPES * 6 + ODD_TYPES) if chaos else rng.choice(FLOAT_TYPES)
    if not chaos or rng.random() < 0.7:
        dim = rng.choice([-1, -1, rank - 1, 0, -rank]) if rank else -1
    else:
        dim = rng.choice([-rank - 1, -rank, -2, 0, 1, rank, rank + 1, 1 << 40, -(1 << 62)])
    x = operand(rng, f, shape, elem, "x")
    t = f.tmp()
    ty = ttype(shape, elem)
    f.body.append("%s = tx.softmax %s dim = %d : %s" % (t, x, dim, ty))
    return t, shape, elem


def attention_shapes(rng):
    B = pick_size(rng) if rng.random() < 0.3 else rng.choice([1, 1, 2, 3, 0])
    Hkv = rng.choice([1, 1, 2, 4, 8, 3, 0, 16])
    G = rng.choice([1, 1, 1, 2, 4, 3, 8])
    H = Hkv * G
    if rng.random() < 0.1:
        H = rng.choice([0, 1, 3, 5, 6, 7, 32])
    Sq = pick_size(rng)
    Sk = Sq if rng.random() < 0.4 else pick_size(rng)
    D = rng.choice(HEAD_DIMS)
    Dv = D if rng.random() < 0.7 else rng.choice(HEAD_DIMS)
    return dict(B=B, H=H, Hkv=Hkv, Sq=Sq, Sk=Sk, D=D, Dv=Dv)


def paged_kv(rng, s, k_shape, v_shape, b_dim, chaos):
    """K/V as page pools [num_pages, page_size, Hkv, D|Dv] for a logical
    Sk = max_pages * page_size: ((table shape [B, max_pages], whether
    kv_lengths come too), the pools' shapes, the logical Sk for a mask).
    Without chaos the shapes agree (page size a power of two in [1, 256]);
    with it, page sizes 0, 3, 512 and mismatched pools."""
    ps = rng.choice([1, 2, 16, 16, 64, 256] + ([0, 3, 512] if chaos else []))
    max_pages = max(1, -(-max(s["Sk"], 1) // max(ps, 1)))
    pages = rng.choice([max_pages * max(s["B"], 1), max_pages + 3, 1, pick_size(rng)])
    dyn_ps = rng.random() < 0.25
    # (Chaos may have dropped or added a dim of K/V: take Hkv and D from
    # the shapes' ends.)
    pool = [maybe_dyn(rng, pages, 0.4), None if dyn_ps else ps] + list(k_shape[-3:][:1]) + \
        list(k_shape[-1:])
    vpool = [pool[0], pool[1]] + list(v_shape[-3:][:1]) + list(v_shape[-1:])
    if chaos and rng.random() < 0.3:
        vpool[rng.randrange(len(vpool))] = rng.choice([None, 1, 3, pick_size(rng)])
    table = [b_dim, maybe_dyn(rng, max_pages, 0.3)]
    if chaos and rng.random() < 0.2:
        table = rng.choice([[b_dim], [b_dim, 1, max_pages], [1, max_pages]])
    sk = None if dyn_ps or table[-1] is None or ps <= 0 else max_pages * ps
    return (table, rng.random() < 0.6), pool, vpool, sk


def gen_attention(rng, f, chaos, online=False):
    s = attention_shapes(rng)
    if not chaos:
        if s["Hkv"] == 0 or s["H"] % s["Hkv"]:
            s["H"] = s["Hkv"]
        if s["D"] == 0:
            s["D"] = 16
    # Dynamic: none, all, or each dim independently.
    mode = rng.random()
    pdyn = 0.0 if mode < 0.5 else (1.0 if mode < 0.65 else 0.3)
    dyn = {k: rng.random() < pdyn for k in s}
    q_shape = [s["B"], s["H"], s["Sq"], s["D"]]
    k_shape = [s["B"], s["Hkv"], s["Sk"], s["D"]]
    v_shape = [s["B"], s["Hkv"], s["Sk"], s["Dv"]]
    o_shape = [s["B"], s["H"], s["Sq"], s["Dv"]]
    keys = ["B", "H", "Sq", "D"], ["B", "Hkv", "Sk", "D"], ["B", "Hkv", "Sk", "Dv"], ["B", "H", "Sq", "Dv"]
    q_shape, k_shape, v_shape, o_shape = [
        [None if dyn[k] else v for k, v in zip(ks, sh)]
        for ks, sh in zip(keys, [q_shape, k_shape, v_shape, o_shape])]
    # Occasionally one operand's dim is inconsistent, or a rank is off.
    if chaos and rng.random() < 0.2:
        sh = rng.choice([q_shape, k_shape, v_shape, o_shape])
        i = rng.randrange(len(sh))
        sh[i] = rng.choice([None, pick_size(rng)])
    if chaos and rng.random() < 0.08:
        sh = rng.choice([q_shape, k_shape, v_shape, o_shape])
        if rng.random() < 0.5:
            sh.pop()
        else:
            sh.insert(0, 1)
    elem = rng.choice(FLOAT_TYPES * 8 + ODD_TYPES[:4]) if chaos else rng.choice(FLOAT_TYPES)
    etypes = [elem] * 4
    if chaos and rng.random() < 0.12:
        etypes[rng.randrange(4)] = rng.choice(FLOAT_TYPES + ODD_TYPES[:3])
    # A paged KV cache (issue #43): K/V page pools and a page table.
    sk_dim = k_shape[2]
    paged = None
    if not online and rng.random() < 0.12:
        paged, k_shape, v_shape, sk_dim = paged_kv(rng, s, k_shape, v_shape, q_shape[0], chaos)
    q = operand(rng, f, q_shape, etypes[0], "q")
    k = operand(rng, f, k_shape, etypes[1], "k")
    v = operand(rng, f, v_shape, etypes[2], "v")
    clauses = ""
    if paged:
        pt_shape, with_lens = paged
        pt = operand(rng, f, pt_shape, "i32" if not chaos or rng.random() < 0.9 else "i64", "pt")
        if with_lens:
            lens = operand(rng, f, [pt_shape[0]], "i32", "kl")
            clauses += " kv_lengths(%s : %s)" % (lens, ttype([pt_shape[0]], "i32"))
        clauses += " page_table(%s : %s)" % (pt, ttype(pt_shape, "i32"))
    mask = ""
    if rng.random() < 0.35:
        mt = rng.choice(MASK_TYPES + (["f64", "i8"] if rng.random() < 0.1 else [])) if chaos else \
            rng.choice(["i1", elem])
        if chaos:
            ms = [rng.choice([s["B"], 1, None]), rng.choice([s["H"], 1, None]),
                  rng.choice([s["Sq"], s["Sq"], None, 1]), rng.choice([s["Sk"], s["Sk"], None, 1])]
        else:
            ms = [rng.choice([q_shape[0], 1]), rng.choice([q_shape[1], 1]), q_shape[2], sk_dim]
        if chaos and rng.random() < 0.1:
            ms = ms[rng.randrange(1, 3):]
        mty = ttype(ms, mt)
        m = operand(rng, f, ms, mt, "m")
        mask = " mask(%s : %s)" % (m, mty)
    scale = ""
    if online or rng.random() < 0.3:
        scale = " scale = %s" % (rng.choice(SCALES) if chaos else rng.choice(SCALES[:3] + ["100.0", "1.0e-03"]))
    if rng.random() < 0.15:  # logit soft-capping
        scale += " softcap = %s" % (rng.choice(SCALES) if chaos else rng.choice(["30.0", "50.0", "1.0e-03"]))
    if rng.random() < 0.15:  # sliding window [left, right]
        side = lambda: rng.choice([-1, 0, 1, 3, 64, 4096] + ([-2, 1 << 62] if chaos else []))  # noqa: E731
        scale += " window = [%d, %d]" % (side(), side())
    causal = " causal" if rng.random() < 0.4 else ""
    tys = "%s, %s, %s" % (ttype(q_shape, etypes[0]), ttype(k_shape, etypes[1]), ttype(v_shape, etypes[2]))
    if not online:
        t = f.tmp()
        oty = ttype(o_shape, etypes[3] if rng.random() < 0.95 else rng.choice(FLOAT_TYPES))
        f.body.append("%s = tx.attention %s, %s, %s%s%s%s%s : %s -> %s" % (
            t, q, k, v, mask, clauses, scale, causal, tys, oty))
        return t, o_shape, etypes[3]
    # tx.online_attention: f32 state acc [B,H,Sq,Dv], max/sum [B,H,Sq].
    st = o_shape[:3]
    selem = "f32" if not chaos or rng.random() < 0.85 else rng.choice(["f16", "f64"])
    acc = operand(rng, f, o_shape, selem, "acc")
    mx = operand(rng, f, st, selem, "mx")
    sm = operand(rng, f, st, selem, "sm")
    off = ""
    if (causal or " window" in scale) and (not chaos or rng.random() < 0.6):
        if rng.random() < 0.5:
            o = f.arg("index", "off")
        else:
            o = f.tmp()
            f.body.append("%s = arith.constant %d : index" % (o, rng.choice([0, 1, -1, 5, -7, 1 << 40, -(1 << 62)])))
        off = " causal_offset(%s)" % o
    t = f.tmp()
    rtys = "%s, %s, %s" % (ttype(o_shape, selem), ttype(st, selem), ttype(st, selem))
    f.body.append("%s:3 = tx.online_attention %s, %s, %s%s%s%s%s outs(%s, %s, %s) : %s -> %s" % (
        t, q, k, v, mask, scale, causal, off, acc, mx, sm, tys, rtys))
    r = rng.randrange(3)
    return "%s#%d" % (t, r), (o_shape if r == 0 else st), selem


def gen_program(rng, chaos):
    """A module of 1-3 functions, each with 1-2 tx ops. Without chaos the
    program is meant to verify (consistent shapes, float types, valid dims);
    with it anything goes."""
    funcs = []
    for fi in range(rng.choice([1, 1, 1, 2, 3] if chaos else [1, 1, 1, 1, 2])):
        f = Func("f%d" % fi)
        results = []
        for _ in range(rng.choice([1, 1, 1, 2])):
            kind = rng.random()
            if kind < 0.35:
                results.append(gen_softmax(rng, f, chaos))
            elif kind < 0.85:
                results.append(gen_attention(rng, f, chaos))
            else:
                results.append(gen_attention(rng, f, chaos, online=True))
        # Chain: softmax of an attention result.
        if rng.random() < 0.1 and results and "#" not in results[-1][0]:
            v, sh, el = results[-1]
            t = f.tmp()
            f.body.append("%s = tx.softmax %s dim = %d : %s" % (t, v, rng.choice([-1, 0, 3] if chaos else [-1]), ttype(sh, el)))
            results.append((t, sh, el))
        for v, sh, el in results:
            if rng.random() < 0.2:
                # tensor.dim of the result with a constant index (in or out of range).
                c, d = f.tmp(), f.tmp()
                if chaos or rng.random() < 0.3:
                    idx = rng.choice([0, 1, 2, 3, 4, 5, -1, -5, 1 << 40, -(1 << 62), len(sh) - 1])
                else:
                    idx = rng.randrange(max(1, len(sh)))
                f.body.append("%s = arith.constant %d : index" % (c, idx))
                f.body.append("%s = tensor.dim %s, %s : %s" % (d, v, c, ttype(sh, el)))
                f.rets.append((d, "index"))
            elif rng.random() < 0.9:
                f.rets.append((v, ttype(sh, el)))
        attrs = " attributes {llvm.emit_c_interface}" if rng.random() < 0.3 else ""
        funcs.append(f.text(attrs))
    return "\n".join(funcs) + "\n"


# ----------------------------------------------------------------------------
# Text mutations (on seeds and on generated programs)
# ----------------------------------------------------------------------------

TENSOR_RE = re.compile(r"tensor<((?:[0-9]+x|\?x)*)([a-wyzA-Z][A-Za-z0-9]*)>")
SM_DIM_RE = re.compile(r"(tx\.softmax [^\n]*?dim = )(-?\d+)")
CONST_IDX_RE = re.compile(r"(arith\.constant )(-?\d+)( : index)")
SCALE_RE = re.compile(r"scale = ([-+0-9.eEx]+[0-9A-Fa-f]*)")


def mut_tensor_dim(rng, text, everywhere):
    ms = list(TENSOR_RE.finditer(text))
    if not ms:
        return text
    m = rng.choice(ms)
    dims = [d for d in m.group(1).split("x") if d]
    if not dims:
        return text
    i = rng.randrange(len(dims))
    dims[i] = rng.choice(["?", str(pick_size(rng)), "0", "1"])
    new = "tensor<%s%s>" % ("".join(d + "x" for d in dims), m.group(2))
    if everywhere:
        return text.replace(m.group(0), new)
    return text[:m.start()] + new + text[m.end():]


def mut_tensor_rank(rng, text):
    ms = list(TENSOR_RE.finditer(text))
    if not ms:
        return text
    m = rng.choice(ms)
    dims = [d for d in m.group(1).split("x") if d]
    if dims and rng.random() < 0.5:
        dims.pop(rng.randrange(len(dims)))
    else:
        dims.insert(rng.randrange(len(dims) + 1), rng.choice(["1", "?", "2"]))
    new = "tensor<%s%s>" % ("".join(d + "x" for d in dims), m.group(2))
    return text.replace(m.group(0), new) if rng.random() < 0.5 else text[:m.start()] + new + text[m.end():]


def mut_elem_type(rng, text, everywhere):
    ms = list(TENSOR_RE.finditer(text))
    if not ms:
        return text
    m = rng.choice(ms)
    new = "tensor<%s%s>" % (m.group(1), rng.choice(FLOAT_TYPES * 2 + ODD_TYPES + MASK_TYPES))
    if everywhere:
        # Every tensor with this element type (keeps programs consistent).
        old = m.group(2)
        return TENSOR_RE.sub(lambda mm: "tensor<%s%s>" % (mm.group(1), new[len("tensor<" + m.group(1)):-1])
                             if mm.group(2) == old else mm.group(0), text)
    return text[:m.start()] + new + text[m.end():]


def mut_regex_value(rng, text, regex, values):
    ms = list(regex.finditer(text))
    if not ms:
        return text
    m = rng.choice(ms)
    return text[:m.start(2)] + str(rng.choice(values)) + text[m.end(2):]


def mut_softmax_dim(rng, text):
    return mut_regex_value(rng, text, SM_DIM_RE, [-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 1 << 40, -(1 << 63)])


def mut_const_index(rng, text):
    return mut_regex_value(rng, text, CONST_IDX_RE, [-5, -1, 0, 1, 2, 3, 4, 7, 64, 1 << 31, 1 << 62, -(1 << 63)])


def mut_scale(rng, text):
    ms = list(SCALE_RE.finditer(text))
    if ms and rng.random() < 0.7:
        m = rng.choice(ms)
        if rng.random() < 0.2 and "tx.attention" in text[max(0, m.start() - 400):m.start()]:
            return text[:m.start()] + text[m.end():]  # drop (tx.attention only)
        return text[:m.start(1)] + rng.choice(SCALES) + text[m.end(1):]
    # Add a scale to a tx.attention without one.
    lines = text.split("\n")
    idx = [i for i, l in enumerate(lines) if "tx.attention" in l and "scale" not in l]
    if not idx:
        return text
    i = rng.choice(idx)
    lines[i] = re.sub(r"( causal)? :", " scale = %s\\1 :" % rng.choice(SCALES), lines[i], count=1)
    return "\n".join(lines)


def mut_causal(rng, text):
    lines = text.split("\n")
    idx = [i for i, l in enumerate(lines) if "tx.attention" in l or "tx.online_attention" in l]
    if not idx:
        return text
    i = rng.choice(idx)
    if " causal" in lines[i]:
        lines[i] = lines[i].replace(" causal_offset", " CAUSALOFF").replace(" causal", "", 1).replace(" CAUSALOFF", " causal_offset")
    else:
        lines[i] = re.sub(r" :", " causal :", lines[i], count=1) if "outs(" not in lines[i] else lines[i].replace(" outs(", " causal outs(", 1)
    return "\n".join(lines)


def mut_mask(rng, text):
    lines = text.split("\n")
    idx = [i for i, l in enumerate(lines) if " mask(" in l]
    if idx:
        i = rng.choice(idx)
        r = rng.random()
        if r < 0.4:
            lines[i] = re.sub(r" mask\([^)]*\)", "", lines[i])
        elif r < 0.7:
            lines[i] = re.sub(r"(mask\([^:]*: tensor<(?:[0-9]+x|\?x)*)([a-wyzA-Z][A-Za-z0-9]*)>",
                              lambda m: m.group(1) + rng.choice(MASK_TYPES + ["f64", "i8"]) + ">", lines[i])
        else:
            lines[i] = re.sub(r"(mask\([^:]*: tensor<)((?:[0-9]+x|\?x)*)", lambda m: m.group(1) + "".join(
                rng.choice(["1x", "?x", "2x", "0x"]) for _ in range(rng.choice([2, 3, 4, 4, 5]))), lines[i])
        return "\n".join(lines)
    # Add a mask operand that refers to the query (wrong type on purpose).
    idx = [i for i, l in enumerate(lines) if "tx.attention " in l]
    if not idx:
        return text
    i = rng.choice(idx)
    m = re.search(r"tx\.attention (%[\w#]+), (%[\w#]+), (%[\w#]+)", lines[i])
    tys = re.search(r": (tensor<[^>]*>)", lines[i])
    if m and tys:
        lines[i] = lines[i].replace(m.group(0), m.group(0) + " mask(%s : %s)" % (m.group(1), tys.group(1)), 1)
    return "\n".join(lines)


def mut_operands(rng, text):
    lines = text.split("\n")
    idx = [i for i, l in enumerate(lines) if re.search(r"tx\.\w+ %", l)]
    if not idx:
        return text
    i = rng.choice(idx)
    m = re.search(r"(tx\.\w+ )(%[\w#]+(?:, %[\w#]+)*)", lines[i])
    if not m:
        return text
    ops = m.group(2).split(", ")
    r = rng.random()
    if r < 0.35 and len(ops) > 1:
        ops.pop(rng.randrange(len(ops)))
    elif r < 0.7:
        ops.insert(rng.randrange(len(ops) + 1), rng.choice(ops))
    else:
        rng.shuffle(ops)
    lines[i] = lines[i][:m.start(2)] + ", ".join(ops) + lines[i][m.end(2):]
    return "\n".join(lines)


def mut_lines(rng, text):
    lines = text.split("\n")
    if len(lines) < 2:
        return text
    r = rng.random()
    i = rng.randrange(len(lines))
    if r < 0.4:
        del lines[i]
    elif r < 0.7:
        lines.insert(i, lines[i])
    else:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def mut_bytes(rng, text):
    """A few random characters changed (parser robustness)."""
    if not text:
        return text
    t = list(text)
    for _ in range(rng.choice([1, 1, 2, 3])):
        i = rng.randrange(len(t))
        t[i] = rng.choice("0123456789?x<>()[]{},:%#@-+. \nabcdefi")
    return "".join(t)


PROP_RE = re.compile(r"<\{([^{}]*)\}>")
SEG_RE = re.compile(r"(operandSegmentSizes = array<i32: )([0-9, ]*)(>)")


def mut_props(rng, text):
    """Generic form: a property of a tx op gets another value or type, is
    dropped, or a new one appears (the verifiers and accessors must cope)."""
    ms = [m for m in PROP_RE.finditer(text) if "tx." in text[max(0, m.start() - 40):m.start()]]
    if not ms:
        return text
    m = rng.choice(ms)
    items = [x.strip() for x in m.group(1).split(",") if x.strip()] if "array<" not in m.group(1) else None
    if items is None:
        return text
    r = rng.random()
    if items and r < 0.6:
        i = rng.randrange(len(items))
        name = items[i].split("=")[0].strip()
        items[i] = "%s = %s" % (name, rng.choice([
            "1 : i64", "-1 : i64", "7 : i32", "1.5 : f32", "0x7FC00000 : f32", "2.0 : f64", "unit",
            "\"x\"", "[1, 2]", "1 : i1", "9223372036854775807 : i64", "-9223372036854775808 : i64",
            "0.0 : f16", "dense<1> : tensor<2xi64>"]))
    elif items and r < 0.8:
        items.pop(rng.randrange(len(items)))
    else:
        items.append(rng.choice(["causal", "causal = unit", "scale = 1.0 : f32", "dim = 0 : i64",
                                 "bogus = 1 : i64"]))
    return text[:m.start(1)] + ", ".join(items) + text[m.end(1):]


def mut_segments(rng, text):
    ms = list(SEG_RE.finditer(text))
    if not ms:
        return text
    m = rng.choice(ms)
    nums = [int(x) for x in m.group(2).split(",") if x.strip()]
    if nums:
        i = rng.randrange(len(nums))
        nums[i] = rng.choice([0, 1, 2, -1, 5])
    if rng.random() < 0.2:
        nums.append(1) if rng.random() < 0.5 else (nums.pop() if nums else None)
    return text[:m.start(2)] + ", ".join(map(str, nums)) + text[m.end(2):]


MUTATORS = [
    (3, mut_props),
    (2, mut_segments),
    (8, lambda r, t: mut_tensor_dim(r, t, everywhere=True)),
    (5, lambda r, t: mut_tensor_dim(r, t, everywhere=False)),
    (3, mut_tensor_rank),
    (4, lambda r, t: mut_elem_type(r, t, everywhere=True)),
    (2, lambda r, t: mut_elem_type(r, t, everywhere=False)),
    (4, mut_softmax_dim),
    (4, mut_const_index),
    (4, mut_scale),
    (4, mut_causal),
    (4, mut_mask),
    (3, mut_operands),
    (2, mut_lines),
    (1, mut_bytes),
]


def mutate(rng, text):
    total = sum(w for w, _ in MUTATORS)
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        x = rng.random() * total
        for w, fn in MUTATORS:
            x -= w
            if x < 0:
                text = fn(rng, text)
                break
    return text


# ----------------------------------------------------------------------------
# Transform scripts
# ----------------------------------------------------------------------------


def gen_transform(rng, text):
    ops = [o for o in ("tx.softmax", "tx.online_attention", "tx.attention") if o in text]
    if not ops:
        ops = ["tx.softmax"]
    op = rng.choice(ops)
    nsizes = rng.choice([0, 1, 2, 3, 4, 4, 5])
    sizes = [rng.choice([0, 0, 1, 1, 2, 3, 4, 7, 16, 64, 1 << 40]) for _ in range(nsizes)]
    r = rng.random()
    lines = ['module attributes {transform.with_named_sequence} {',
             '  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {',
             '    %%op = transform.structured.match ops{["%s"]} in %%root : (!transform.any_op) -> !transform.any_op' % op]
    if r < 0.45:
        kw = "tile_sizes" if rng.random() < 0.75 else "num_threads"
        mapping = ""
        if rng.random() < 0.2:
            mapping = " (mapping = [%s])" % ", ".join(
                "#gpu.block<%s>" % "xyz"[i] for i in range(min(3, max(1, sum(1 for s in sizes if s)))))
        lines.append("    %%t, %%l = transform.structured.tile_using_forall %%op %s [%s]%s"
                     " : (!transform.any_op) -> (!transform.any_op, !transform.any_op)"
                     % (kw, ", ".join(map(str, sizes)), mapping))
    elif r < 0.8:
        nloops = sum(1 for s in sizes if s)
        if rng.random() < 0.15:
            nloops += rng.choice([-1, 1])
        nloops = max(0, nloops)
        res = ", ".join(["%t"] + ["%%l%d" % i for i in range(nloops)])
        rty = ", ".join(["!transform.any_op"] * (1 + nloops))
        lines.append("    %s = transform.structured.tile_using_for %%op tile_sizes [%s]"
                     " : (!transform.any_op) -> (%s)" % (res, ", ".join(map(str, sizes)), rty))
        if op == "tx.online_attention" and rng.random() < 0.5:
            # Staging and pipelining by hand (tx-stage-attention's and
            # tx-pipeline-attention's forms), sometimes wrong.
            for i in range(rng.choice([1, 2, 3, 3, 4])):
                space = rng.choice(["workgroup", "workgroup", "global", "private"])
                lines.append("    %%v%d = transform.get_operand %%t[%d] : (!transform.any_op) -> !transform.any_value"
                             % (i, rng.choice([i, i, 3, 4])))
                lines.append("    %%s%d = transform.structured.promote_tensor to #gpu.address_space<%s> %%v%d"
                             " : !transform.any_value" % (i, space, i))
            if nloops and rng.random() < 0.6:
                val = rng.choice(["1 : i64", "2 : i64", "3 : i64", "4 : i64", "0 : i64", "9 : i64",
                                  "-1 : i64", '"x"'])
                ty = "!transform.param<i64>" if ":" in val else "!transform.any_param"
                lines.append("    %%n = transform.param.constant %s -> %s" % (val, ty))
                lines.append('    transform.annotate %%l0 "tx.pipeline_stages" = %%n : !transform.any_op, %s' % ty)
    elif r < 0.9:
        lines.append("    %d = transform.structured.decompose_interface %op : (!transform.any_op) -> !transform.any_op")
    else:
        lines.append("    %g = transform.structured.generalize %op : (!transform.any_op) -> !transform.any_op")
    lines += ["    transform.yield", "  }", "}"]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------
# Commands
# ----------------------------------------------------------------------------


# Option values: plausible ones (the pass should take them) and odd ones (it
# should reject them with a diagnostic, or cope).
POW2 = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
TILES = [1, 2, 3, 4, 5, 7, 8, 16, 17, 32, 33, 64, 100, 128, 256]
OPTS = {
    "format": (["isa"], ["bin", "fatbin", "offload", "llvm", "assembly", ""]),
    "chip": (["sm_90", "sm_90a", "sm_80", "sm_86", "sm_89", "sm_75", "sm_70", "sm_100a"], CHIPS),
    "softmax": (["fast", "simple"], ["tiled", "", "FAST"]),
    "attention": (["flash", "simple"], ["tiled", "", "flash2"]),
    "attention-warps": ([0, 1, 2, 4, 8, 16], WEIRD_INTS),
    "attention-q-tile": ([0, 8, 16, 32, 64, 128], WEIRD_INTS),
    "attention-kv-tile": ([0, 16, 32, 64, 128], WEIRD_INTS),
    "attention-mma-row-tiles": ([0, 1, 2, 4], [-1, 3, 5, 8, 1 << 40]),
    "attention-stages": ([0, 2, 3, 4], [-1, 1, 5, 16, 1 << 40]),
    "attention-producer-warps": ([-1, 0, 4], [-2, 1, 3, 8, 1 << 40]),
    "attention-tensor-cores": (["true", "false"], ["1", "0", "yes"]),
    "attention-wgmma": (["true", "false"], ["2"]),
    "attention-kv-splits": ([0, 1, 2, 8, 16, 33], [-1, 65537, 1 << 40]),
    "attention-decode-cluster": ([-1, 0, 1, 2, 4, 8, 16], [-2, 17, 1 << 40]),
    "attention-decode-merge-kernel": ([-1, 0, 1], [-2, 2, 1 << 40]),
    "softmax-block-size": ([0] + POW2[5:], WEIRD_INTS),
    "softmax-threads-per-row": ([0] + POW2[:6], WEIRD_INTS),
    "softmax-max-cached-vectors": ([0, 1, 4, 16, 64], WEIRD_INTS),
    "softmax-grid-ctas": ([0, 1, 2, 132, 1000], WEIRD_INTS),
    "softmax-prefetch": (["true", "false"], ["x"]),
    "block-size": ([32, 64, 128, 256, 1024], WEIRD_INTS),
    "opt-level": ([0, 1, 2, 3], [-1, 4, 100]),
    "features": (["+ptx80", "+ptx86", "+ptx87"], ["+ptx78", "+ptx60", "+ptx90", "+ptx99", "+ptx", "+sm_90",
                                                  "ptx80", "+ptx80,+ptx86"]),
    "c-interface": (["true", "false"], ["maybe"]),
    "toolkit": (["/usr/local/cuda"], ["/nonexistent", ""]),
    # tx-cpu-pipeline
    "cpu:attention": (["simple", "tiled"], ["flash", ""]),
    "cpu:softmax": (["simple", "tiled"], ["fast", ""]),
    "softmax-rows-per-tile": (TILES, WEIRD_INTS),
    "softmax-cols-per-tile": ([0] + TILES, WEIRD_INTS),
    # single passes
    "threads-per-row": ([0] + POW2[:6], WEIRD_INTS),
    "vector-width": ([0, 1, 2, 4, 8], [-1, 3, 16, 1 << 40]),
    "max-cached-vectors": ([0, 1, 4, 16, 64], WEIRD_INTS),
    "grid-ctas": ([0, 1, 2, 132], WEIRD_INTS),
    "prefetch": (["true", "false"], ["x"]),
    "warps": ([0, 1, 2, 4, 8], WEIRD_INTS),
    "q-tile": ([0, 1, 8, 16, 32, 64, 128] + TILES, WEIRD_INTS),
    "kv-tile": ([0, 1, 16, 32, 64] + TILES, WEIRD_INTS),
    "tensor-cores": (["true", "false"], ["x"]),
    "sm": ([70, 75, 80, 86, 89, 90, 100], [-1, 0, 50, 1000]),
    "wgmma": (["true", "false"], ["x"]),
    "stages": ([0, 2, 3, 4], [-1, 1, 7, 1 << 40]),
    "producer-warps": ([-1, 0, 4], [-2, 1, 3, 1 << 40]),
    "kv-splits": ([0, 1, 2, 8, 16, 33], [-1, 65537, 1 << 40]),
    "decode-cluster": ([-1, 0, 1, 2, 4, 8, 16], [-2, 17, 1 << 40]),
    "decode-merge-kernel": ([-1, 0, 1], [-2, 2, 1 << 40]),
    "mma-row-tiles": ([0, 1, 2, 4], [-1, 3, 5, 1 << 40]),
    "max-shared-memory": ([49152, 101376, 166912, 232448], [-1, 0, 1024, 1 << 40]),
    "num-sms": ([1, 108, 132], [-1, 0, 5000, 1 << 40]),
    "rows-per-tile": (TILES, WEIRD_INTS),
    "cols-per-tile": ([0] + TILES, WEIRD_INTS),
    "decompose": (["true", "false"], ["x"]),
    "from-strategy": (["true", "false"], ["x"]),
    "deterministic": (["true", "false"], ["x"]),
    "attention-grad-kernels": (["true", "false"], ["2"]),
    "attention-grad-deterministic": (["true", "false"], ["x"]),
    "chk:features": (["+ptx80", "+ptx86"], ["+ptx60", "+ptx99", "x"]),
    "chk:format": (["isa", "bin", "fatbin"], ["offload", "x"]),
}


class Opts:
    def __init__(self, rng, chaos):
        self.rng, self.chaos, self.out = rng, chaos, []

    def __call__(self, p, key):
        rng = self.rng
        if rng.random() >= p:
            return self
        valid, odd = OPTS[key]
        v = rng.choice(odd) if self.chaos and rng.random() < 0.5 else rng.choice(valid)
        self.out.append("%s=%s" % (key.split(":")[-1], v))
        return self


def gpu_options(rng, chaos):
    o = Opts(rng, chaos)
    o(1.0, "format")(0.8, "chip")
    for k in ("softmax", "attention", "attention-warps", "attention-q-tile", "attention-kv-tile",
              "attention-mma-row-tiles", "attention-stages", "attention-producer-warps",
              "attention-tensor-cores", "attention-wgmma", "attention-kv-splits",
              "attention-decode-cluster", "attention-decode-merge-kernel", "softmax-block-size", "softmax-threads-per-row", "softmax-max-cached-vectors",
              "softmax-grid-ctas", "softmax-prefetch", "block-size",
              "attention-grad-kernels", "attention-grad-deterministic"):
        o(0.1, k)
    for k in ("opt-level", "features", "c-interface", "toolkit"):
        o(0.04, k)
    rng.shuffle(o.out)
    return "tx-gpu-pipeline", o.out


def cpu_options(rng, chaos):
    o = Opts(rng, chaos)
    o(0.6, "cpu:attention")(0.5, "cpu:softmax")
    for k in ("attention-q-tile", "attention-kv-tile", "softmax-rows-per-tile", "softmax-cols-per-tile"):
        o(0.4, k)
    rng.shuffle(o.out)
    return "tx-cpu-pipeline", o.out


PASS_OPTIONS = {
    "convert-tx-to-linalg": [],
    "tx-decompose-softmax": [],
    "tx-derive-gradients": [],
    "tx-emit-c-interface": [],
    "tx-softmax-to-gpu": ["block-size", "threads-per-row", "vector-width", "max-cached-vectors",
                          "grid-ctas", "prefetch"],
    "tx-attention-to-gpu": ["warps", "q-tile", "kv-tile", "tensor-cores", "sm", "wgmma", "stages", "producer-warps",
                            "mma-row-tiles", "max-shared-memory", "kv-splits", "decode-cluster",
                            "decode-merge-kernel"],
    "tx-map-parallel-loops-to-gpu": ["block-size"],
    "tx-check-gpu-target": ["chip", "chk:features", "chk:format", "softmax", "attention"],
    "tx-tile-softmax": ["rows-per-tile", "cols-per-tile", "from-strategy"],
    "tx-tile-attention": ["q-tile", "kv-tile", "decompose", "from-strategy"],
    "tx-tile-attention-grad": ["q-tile", "kv-tile", "decompose", "from-strategy"],
    "tx-attention-grad-strategy": ["sm", "wgmma", "deterministic"],
    "tx-map-attention-grad-to-gpu": [],
    "tx-attention-strategy": ["warps", "q-tile", "kv-tile", "tensor-cores", "sm", "wgmma", "stages", "producer-warps",
                              "mma-row-tiles", "max-shared-memory", "kv-splits", "decode-cluster",
                            "decode-merge-kernel"],
    "tx-map-attention-to-gpu": ["sm", "wgmma", "max-shared-memory"],
    "tx-stage-attention": [],
    "tx-pipeline-attention": [],
    "tx-stage-softmax": [],
    "tx-softmax-strategy": ["block-size", "threads-per-row", "vector-width", "max-cached-vectors",
                            "grid-ctas", "prefetch"],
    "tx-map-softmax-to-gpu": ["sm", "num-sms", "max-shared-memory"],
}


def pass_options(rng, name, chaos):
    o = Opts(rng, chaos)
    for k in PASS_OPTIONS[name]:
        o(0.35, k)
    return o.out


FUNC_PASSES = {"tx-softmax-to-gpu", "tx-attention-to-gpu", "tx-map-parallel-loops-to-gpu",
               "tx-tile-softmax", "tx-tile-attention", "tx-tile-attention-grad",
               "tx-attention-strategy", "tx-attention-grad-strategy",
               "tx-map-attention-grad-to-gpu",
               "tx-map-attention-to-gpu", "tx-softmax-strategy", "tx-map-softmax-to-gpu",
               "tx-stage-attention", "tx-pipeline-attention", "tx-stage-softmax"}
BUFFERIZE = "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}"


class Case:
    """One run: input text plus a pass list, rendered for tx-opt or mlir-opt."""

    def __init__(self, text, passes, tool, extra=()):
        self.text = text
        self.passes = passes  # [(name, [opts], nested_in_func)]
        self.tool = tool  # "tx-opt" | "mlir-opt" | "tx-opt-flags"
        self.extra = list(extra)

    def render_pipeline(self):
        parts = []
        for name, opts, nested in self.passes:
            p = name + ("{%s}" % " ".join(opts) if opts else "")
            parts.append("func.func(%s)" % p if nested else p)
        return "builtin.module(%s)" % ",".join(parts)

    def argv(self, tools, path):
        if self.tool == "tx-opt-flags":
            a = [tools["tx-opt"], path]
            for name, opts, _ in self.passes:
                a.append("--%s=%s" % (name, " ".join(opts)) if opts else "--" + name)
            return a + self.extra
        if self.tool == "mlir-opt":
            flags = ["--load-dialect-plugin=" + tools["plugin"]]
            if "pass-plugin" in self.extra:
                flags.append("--load-pass-plugin=" + tools["plugin"])
            rest = [e for e in self.extra if e != "pass-plugin"]
            return [tools["mlir-opt"]] + flags + [path, "--pass-pipeline=" + self.render_pipeline()] + rest
        return [tools["tx-opt"], path, "--pass-pipeline=" + self.render_pipeline()] + self.extra

    def key(self):
        return (self.tool, tuple((n, tuple(o), f) for n, o, f in self.passes), tuple(self.extra))


def pick_passes(rng, chaos):
    r = rng.random()
    # Sometimes a tx pass first: the pipelines then meet scf.forall tiles,
    # tx.online_attention, gpu.launch ops or linalg instead of tx ops.
    prefix = []
    if r < 0.58 and rng.random() < 0.15:
        first = rng.choice(["tx-tile-attention", "tx-tile-softmax", "tx-attention-to-gpu",
                            "tx-softmax-to-gpu", "convert-tx-to-linalg", "tx-decompose-softmax",
                            "tx-derive-gradients", "tx-tile-attention-grad"])
        prefix = [(first, pass_options(rng, first, chaos), first in FUNC_PASSES)]
    if r < 0.36:
        name, o = gpu_options(rng, chaos)
        return prefix + [(name, o, False)]
    if r < 0.58:
        name, o = cpu_options(rng, chaos)
        return prefix + [(name, o, False)]
    # One tx pass alone, or a short chain ending in it.
    name = rng.choice(sorted(PASS_OPTIONS))
    passes = []
    if name == "tx-map-parallel-loops-to-gpu":
        passes = [("convert-tx-to-linalg", [], False), ("tx-decompose-softmax", [], False),
                  (BUFFERIZE, [], False), ("convert-linalg-to-parallel-loops", [], False)]
    elif name == "tx-map-attention-to-gpu" and rng.random() < 0.7:
        # The GPU path step by step: strategy, tiling from it, staging,
        # pipelining (each sometimes left out), mapping.
        passes = [("tx-attention-strategy", pass_options(rng, "tx-attention-strategy", chaos), True),
                  ("tx-tile-attention", ["from-strategy=true", "decompose=false"], True)]
        if rng.random() < 0.9:
            passes.append(("tx-stage-attention", [], True))
        if rng.random() < 0.8:
            passes.append(("tx-pipeline-attention", [], True))
    elif name == "tx-map-attention-grad-to-gpu" and rng.random() < 0.8:
        # The backward's GPU path: strategy, tiling from it (derived
        # gradients first when the program has none).
        if rng.random() < 0.5:
            passes.append(("tx-derive-gradients", [], False))
        passes += [("tx-attention-grad-strategy", pass_options(rng, "tx-attention-grad-strategy", chaos), True),
                   ("tx-tile-attention-grad", ["from-strategy=true", "decompose=false"], True)]
    elif name == "tx-map-softmax-to-gpu" and rng.random() < 0.7:
        passes = [("tx-softmax-strategy", pass_options(rng, "tx-softmax-strategy", chaos), True),
                  ("tx-tile-softmax", ["from-strategy=true"], True)]
        if rng.random() < 0.9:
            passes.append(("tx-stage-softmax", [], True))
    elif rng.random() < 0.15:
        first = rng.choice(["tx-tile-attention", "tx-tile-softmax", "canonicalize", "cse"])
        passes = [(first, [], first in FUNC_PASSES)]
    passes.append((name, pass_options(rng, name, chaos), name in FUNC_PASSES))
    if rng.random() < 0.2:
        passes.append((rng.choice(["canonicalize", "cse", "convert-tx-to-linalg"]), [], False))
    return passes


def make_case(seed, index, seeds):
    rng = random.Random("%d:%d" % (seed, index))
    if seeds and rng.random() < 0.5:
        text = rng.choice(seeds)
        if rng.random() < 0.9:
            text = mutate(rng, text)
    else:
        chaos = rng.random() < 0.35
        text = gen_program(rng, chaos)
        if chaos and rng.random() < 0.5:
            text = mutate(rng, text)
    if not text.endswith("\n"):
        text += "\n"
    extra = []
    r = rng.random()
    if r < 0.1:
        text = text + gen_transform(rng, text)
        return Case(text, [("transform-interpreter", [], False)] +
                    ([("canonicalize", [], False)] if rng.random() < 0.3 else []) +
                    # A user's tiling, then tx's GPU mapping.
                    ([(rng.choice(["tx-stage-attention", "tx-stage-softmax"]), [], True)]
                     if rng.random() < 0.2 else []) +
                    # (tx-attention-strategy gives a user's tiling its
                    # strategy; without it the mapping refuses the forall.)
                    (rng.choice([[("tx-attention-strategy", [], True),
                                  ("tx-map-attention-to-gpu", [], True)],
                                 [("tx-map-attention-to-gpu", [], True)],
                                 [("tx-map-softmax-to-gpu", [], True)]])
                     if rng.random() < 0.3 else []),
                    rng.choice(["tx-opt", "tx-opt", "mlir-opt"]))
    passes = pick_passes(rng, rng.random() < 0.3)
    if rng.random() < 0.1:
        extra.append("--mlir-disable-threading")
    tool = "tx-opt" if r < 0.55 else ("tx-opt-flags" if r < 0.75 else "mlir-opt")
    if tool == "tx-opt-flags" and any(n.startswith("one-shot") for n, _, _ in passes):
        tool = "tx-opt"
    if tool == "mlir-opt" and rng.random() < 0.3:
        extra.append("pass-plugin")
    return Case(text, passes, tool, extra)


# ----------------------------------------------------------------------------
# Running and classifying
# ----------------------------------------------------------------------------

SAN_RE = re.compile(r"(ERROR: AddressSanitizer: [\w-]+|ERROR: LeakSanitizer|runtime error: [^\n]*|"
                    r"ERROR: UndefinedBehaviorSanitizer[^\n]*)")
FRAME_RE = re.compile(r"^ *#\d+ 0x[0-9a-f]+ (.*)$", re.M)


def normalize(s):
    s = re.sub(r"0x[0-9a-fA-F]+", "0x?", s)
    s = re.sub(r"\d+", "N", s)
    s = re.sub(r"/[^\s:']*/", "", s)
    return s.strip()[:200]


def crash_frame(stderr):
    """The frame that faulted: the one after libc's signal trampoline
    (frames before it are LLVM's signal handler); its symbol if it has one,
    else library+offset (stable: offsets do not move with ASLR)."""
    frames = FRAME_RE.findall(stderr)
    start = 0
    for i, fr in enumerate(frames[:8]):
        if "libc.so" in fr:
            start = i + 1
            break
    for fr in frames[start:]:
        if any(x in fr for x in ("PrintStackTrace", "RunSignalHandlers", "SignalHandler")):
            continue
        m = re.match(r"(.*?) \((.*?)\)$", fr)
        if m and m.group(1) and not m.group(1).startswith("("):
            return re.sub(r"\s+\S+:\d+:\d+$", "", m.group(1))[:160]
        return os.path.basename(fr.strip("()"))
    return "?"


# Crashes in upstream MLIR (Debian's LLVM 22.1.8) that tx cannot fix: they
# reproduce with upstream ops only in Debian's mlir-opt. Reported and counted
# apart from findings; docs/Fuzzing.md has the reproducers.
KNOWN_UPSTREAM = [
    # transform.structured.tile_using_forall whose tile sizes tile no loop
    # (all zero, or only sizes past the op's rank): tileToForallOpImpl takes
    # the first of zero generated loops. Same with linalg.add.
    ("upstream-tile-using-forall-no-loop", re.compile(r"mlir::transform::tileToForallOpImpl")),
    # transform.named_sequence's verify() walks the memory effects of its
    # nested transform ops before they are verified: a tile_using_forall in
    # generic form whose operandSegmentSizes claim more operands than it has
    # is read out of bounds (SIGSEGV/SIGBUS in getConsumedBlockArguments), or,
    # with a segment of -1, tries to allocate gigabytes (out of memory).
    ("upstream-named-sequence-verifier", re.compile(r"mlir::transform::getConsumedBlockArguments")),
    # A gpu.launch_func of a gpu.func whose region has no block: the gpu
    # dialect's verifier of gpu.container_module reads the kernel's entry
    # block while parsing (segfault), before any tx pass.
    ("upstream-gpu-launch-bodiless-kernel",
     re.compile(r"mlir::gpu::GPUDialect::verifyOperationAttribute")),
]


def known_upstream(err):
    for name, rx in KNOWN_UPSTREAM:
        if rx.search(err):
            return name
    return None


def classify(rc, out, err, timed_out):
    """(kind, signature) for a finding, or None for an acceptable run."""
    if timed_out:
        return "hang", "hang"
    m = SAN_RE.search(err)
    if m:
        return "sanitizer", normalize(m.group(1))
    m = re.search(r"Assertion `(.*)' failed", err)
    if m:
        return "assert", normalize(m.group(1))
    m = re.search(r"LLVM ERROR: ([^\n]*)", err)
    if m:
        return "llvm-error", normalize(m.group(1))
    m = re.search(r"UNREACHABLE executed[^\n]*", err)
    if m:
        return "unreachable", normalize(m.group(0))
    if rc < 0 or "PLEASE submit a bug report" in err or "Stack dump:" in err:
        sig = -rc if rc < 0 else 0
        return "crash", "signal %d at %s" % (sig, crash_frame(err))
    if rc not in (0, 1):
        return "bad-exit", "exit %d" % rc
    # A diagnostic: MLIR's "error:", or llvm::cl's "<tool>: for the --x
    # option: ..." / "<tool>: Unknown command line argument" (bad flags).
    if rc != 0 and "error:" not in err and not re.search(r"^[\w.-]*opt: ", err, re.M):
        return "no-diagnostic", "exit %d without error:" % rc
    if rc == 0 and re.search(r"(^|\s)error:", err):
        return "error-exit-0", "error: printed, exit 0"
    return None


class Runner:
    def __init__(self, tools, timeout, tmpdir, memory_mb=4096):
        self.tools = tools
        self.timeout = timeout
        self.tmpdir = tmpdir
        self.memory_mb = memory_mb
        self._asan = self._find_asan_runtime()
        self.counter = 0
        self.lock = threading.Lock()

    def _find_asan_runtime(self):
        try:
            out = subprocess.run(["ldd", self.tools["plugin"]], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL).stdout.decode()
        except OSError:
            return None
        m = re.search(r"libasan\.so[.\d]* => (\S+)", out)
        return m.group(1) if m else None

    def asan_runtime(self):
        """The ASan runtime the plugin needs preloaded into Debian's
        (uninstrumented) mlir-opt when the build is a sanitizer build (found
        once, before any worker thread runs)."""
        return self._asan

    def run(self, case, slow_unwind=False):
        with self.lock:
            self.counter += 1
            n = self.counter
        path = os.path.join(self.tmpdir, "in%d.mlir" % n)
        with open(path, "w") as f:
            f.write(case.text)
        argv = case.argv(self.tools, path)
        env = dict(os.environ)
        # A memory cap, so that a run that blows up fails by itself instead
        # of inviting the kernel's OOM killer onto a shared machine. Under
        # ASan (which reserves terabytes of address space) through ASan's own
        # limits; otherwise through RLIMIT_AS.
        asan = self.asan_runtime()
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1:hard_rss_limit_mb=%d:max_allocation_size_mb=%d"
                       % (self.memory_mb, self.memory_mb))
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
        if slow_unwind:
            # Full stacks through the uninstrumented libMLIR in malloc-time
            # reports (slow; only to re-run a finding).
            env["ASAN_OPTIONS"] += ":fast_unwind_on_malloc=0"
        if case.tool == "mlir-opt" and asan:
            env["LD_PRELOAD"] = asan
        limit = None if asan else self.memory_mb << 20

        def preexec():
            if limit:
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        t0 = time.time()
        try:
            p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 env=env, start_new_session=True, preexec_fn=preexec)
            try:
                out, err = p.communicate(timeout=self.timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                out, err = p.communicate()
                timed_out = True
        finally:
            try:
                os.unlink(path)
            except OSError:
                pass
        err = err.decode("utf-8", "replace")
        res = classify(p.returncode, out, err, timed_out)
        return res, p.returncode, err, time.time() - t0


# ----------------------------------------------------------------------------
# Minimization
# ----------------------------------------------------------------------------


def minimize(runner, case, sig, budget_s):
    """Line-level delta debugging, then option dropping; keeps `sig`."""
    deadline = time.time() + budget_s
    cache = {}

    def same(text, passes, tool=case.tool, extra=case.extra):
        c = Case(text, passes, tool, extra)
        key = (text, c.key())
        if key not in cache:
            if time.time() > deadline:
                return False
            res, _, _, _ = runner.run(c)
            cache[key] = res is not None and res[1] == sig
        return cache[key]

    lines = case.text.rstrip("\n").split("\n")
    # Drop comment and blank lines first.
    stripped = [l for l in lines if l.strip() and not l.strip().startswith("//")]
    if stripped != lines and same("\n".join(stripped) + "\n", case.passes):
        lines = stripped
    n = 2
    while len(lines) >= 2 and time.time() < deadline:
        chunk = max(1, len(lines) // n)
        removed = False
        for start in range(0, len(lines), chunk):
            cand = lines[:start] + lines[start + chunk:]
            if cand and same("\n".join(cand) + "\n", case.passes):
                lines = cand
                n = max(n - 1, 2)
                removed = True
                break
        if not removed:
            if chunk == 1:
                break
            n = min(len(lines), n * 2)
    text = "\n".join(lines) + "\n"
    passes = [(nm, list(o), f) for nm, o, f in case.passes]
    # Drop passes of a chain, then options, one at a time.
    i = 0
    while len(passes) > 1 and i < len(passes) and time.time() < deadline:
        cand = passes[:i] + passes[i + 1:]
        if same(text, cand):
            passes = cand
        else:
            i += 1
    for pi in range(len(passes)):
        j = 0
        while j < len(passes[pi][1]) and time.time() < deadline:
            nm, o, f = passes[pi]
            cand = passes[:pi] + [(nm, o[:j] + o[j + 1:], f)] + passes[pi + 1:]
            if same(text, cand):
                passes = cand
            else:
                j += 1
    extra = list(case.extra)
    for e in list(extra):
        cand = [x for x in extra if x != e]
        if same(text, passes, extra=cand):
            extra = cand
    return Case(text, passes, case.tool, extra)


def shell_command(case, tools, path, preload=None):
    pre = "LD_PRELOAD=%s " % shlex.quote(preload) if preload and case.tool == "mlir-opt" else ""
    return pre + " ".join(shlex.quote(a) for a in case.argv(tools, path))


def save_finding(outdir, tools, kind, sig, case, minimized, rc, err, seed, index, preload=None):
    h = hashlib.sha1(sig.encode()).hexdigest()[:10]
    d = os.path.join(outdir, "%s-%s" % (kind, h))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "original.mlir"), "w") as f:
        f.write(case.text)
    with open(os.path.join(d, "input.mlir"), "w") as f:
        f.write(minimized.text)
    with open(os.path.join(d, "stderr.txt"), "w") as f:
        f.write(err)
    with open(os.path.join(d, "command.sh"), "w") as f:
        f.write("#!/bin/sh\n# %s: %s\n%s\n" % (kind, sig, shell_command(minimized, tools, os.path.join(d, "input.mlir"), preload)))
    with open(os.path.join(d, "info.json"), "w") as f:
        json.dump({"kind": kind, "signature": sig, "seed": seed, "index": index, "exit": rc,
                   "replay": "txfuzz.py --seed %d --start %d --iterations 1" % (seed, index),
                   "pipeline": minimized.render_pipeline(), "tool": minimized.tool,
                   "extra": minimized.extra}, f, indent=1)
    return d


# ----------------------------------------------------------------------------
# Seeds
# ----------------------------------------------------------------------------


def load_seeds(tools, roots, max_lines=400):
    chunks = []
    for r in roots:
        for dp, _, fs in sorted(os.walk(r)):
            if "fuzz" in dp.split(os.sep) or "Inputs" in dp.split(os.sep):
                continue
            for fn in sorted(fs):
                if not fn.endswith(".mlir"):
                    continue
                with open(os.path.join(dp, fn)) as f:
                    src = f.read()
                for ch in re.split(r"^// -----.*$", src, flags=re.M):
                    body = "\n".join(l for l in ch.split("\n") if not l.strip().startswith("//")).strip()
                    if "tx." in body and body.count("\n") < max_lines:
                        # A chunk of many functions (harness/flash_cases.mlir:
                        # 91, each a GPU kernel; 35 s through tx-gpu-pipeline in
                        # Release, past --timeout under ASan) goes in groups of
                        # 8 top-level functions.
                        funcs = re.split(r"(?m)^(?=func\.func )", body)
                        if len(funcs) > 41 and "module" not in body:
                            for i in range(0, len(funcs), 8):
                                group = "".join(funcs[i:i + 8]).strip()
                                if "tx." in group:
                                    chunks.append(group + "\n")
                            continue
                        chunks.append(body + "\n")
    # Whole programs with a @main and data, from the execution tests' generator.
    gen = os.path.join(ROOT, "test", "Execution", "Inputs", "numeric_case.py")
    if os.path.exists(gen):
        for args in (["softmax", "--shape", "3x77", "--dim", "-1", "--dtype", "f16"],
                     ["softmax", "--shape", "2x5x33", "--dim", "1", "--dtype", "f32", "--dynamic"],
                     ["attention", "--B", "1", "--H", "4", "--Hkv", "2", "--Sq", "5", "--Sk", "9", "--D", "8",
                      "--causal", "--mask", "keep"],
                     ["attention", "--B", "2", "--H", "2", "--Sq", "3", "--Sk", "4", "--D", "16", "--dtype", "bf16",
                      "--mask", "add", "--dynamic"],
                     ["attention", "--B", "1", "--H", "1", "--Sq", "17", "--Sk", "17", "--D", "64", "--dtype",
                      "f16", "--causal"]):
            r = subprocess.run([sys.executable, gen] + args + ["--seed", "1", "--name", "seed"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            if r.returncode == 0:
                chunks.append(r.stdout.decode())
    # Keep the chunks that parse and verify: they reach the passes. Each also
    # in MLIR's generic form (properties and operand segments to mutate).
    ok = []
    with tempfile.TemporaryDirectory() as td:
        for i, ch in enumerate(chunks):
            p = os.path.join(td, "s.mlir")
            with open(p, "w") as f:
                f.write(ch)
            r = subprocess.run([tools["tx-opt"], p, "--mlir-print-op-generic"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
            if r.returncode == 0:
                ok.append(ch)
                generic = r.stdout.decode()
                if generic.count("\n") < max_lines:
                    ok.append(generic)
    return ok


# ----------------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="txfuzz.py",
        description="Mutation fuzzer for tx-opt, tx's pipelines and passes, and TxPlugin.so under "
                    "Debian's mlir-opt. Findings: crash, assert, LLVM ERROR, sanitizer report, hang "
                    "(> --timeout s), non-zero exit without an error: diagnostic, or error: with exit 0.",
        epilog="Examples:\n"
               "  test/fuzz/txfuzz.py --seconds 120                 # CI: two minutes\n"
               "  test/fuzz/txfuzz.py --seconds 3600 --seed 1       # the one-hour run\n"
               "  test/fuzz/txfuzz.py --seed 1 --start 4242 --iterations 1 -v   # replay one input\n"
               "  test/fuzz/txfuzz.py --build build-asan --seconds 600   # against the sanitizer build\n"
               "Exit: 0 no finding, 1 findings, 2 setup error.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.environ.get("TX_BUILD_DIR", os.path.join(ROOT, "build")),
                    help="tx build directory with bin/tx-opt and lib/TxPlugin.so (default $TX_BUILD_DIR or build/)")
    ap.add_argument("--mlir-opt", default=os.path.join(LLVM_BIN, "mlir-opt"), help="Debian's mlir-opt")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--seconds", type=float, default=None, help="time budget for running inputs")
    ap.add_argument("--iterations", type=int, default=None, help="number of inputs (default: as many as --seconds allows, or 200 without --seconds)")
    ap.add_argument("--start", type=int, default=0, help="index of the first input (replay)")
    ap.add_argument("--jobs", "-j", type=int, default=1, help="parallel runs (default 1)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds before a run is a hang (default 60)")
    ap.add_argument("--memory-mb", type=int, default=4096,
                    help="memory cap per run in MiB (RLIMIT_AS, or ASan's RSS limit); exceeding it is a finding "
                         "(default 4096)")
    ap.add_argument("--minimize-seconds", type=float, default=120.0,
                    help="time to minimize each new finding (default 120; 0 = keep as is)")
    ap.add_argument("--findings", default=None, help="directory for findings (default BUILD/fuzz/findings)")
    ap.add_argument("--no-seeds", action="store_true", help="only generated programs (no repository seeds)")
    ap.add_argument("--verbose", "-v", action="store_true", help="print every input's command and result")
    ap.add_argument("--stats", default=None, help="write a JSON summary here")
    a = ap.parse_args(argv)
    if a.seconds is None and a.iterations is None:
        a.iterations = 200

    tools = {"tx-opt": os.path.join(a.build, "bin", "tx-opt"),
             "plugin": os.path.join(a.build, "lib", "TxPlugin.so"),
             "mlir-opt": a.mlir_opt}
    for k, p in tools.items():
        if not os.path.exists(p):
            print("txfuzz: %s not found at %s" % (k, p), file=sys.stderr)
            return 2
    findings_dir = a.findings or os.path.join(a.build, "fuzz", "findings")
    os.makedirs(findings_dir, exist_ok=True)

    t0 = time.time()
    seeds = [] if a.no_seeds else load_seeds(tools, [os.path.join(ROOT, d) for d in ("test", "examples", "harness")])
    print("txfuzz: seed %d, %d seed programs, tools from %s, findings in %s" % (
        a.seed, len(seeds), a.build, findings_dir), flush=True)

    tmpdir = tempfile.mkdtemp(prefix="txfuzz-")
    runner = Runner(tools, a.timeout, tmpdir, a.memory_mb)
    stats = {"runs": 0, "findings": 0, "unique": 0, "exit0": 0, "diag": 0}
    kinds = {}
    sigs = {}
    upstream = {}
    lock = threading.Lock()
    t_run = time.time()
    deadline = t_run + a.seconds if a.seconds is not None else None
    end_index = a.start + a.iterations if a.iterations is not None else None

    def one(index):
        case = make_case(a.seed, index, seeds)
        res, rc, err, dt = runner.run(case)
        with lock:
            stats["runs"] += 1
            if res is None:
                stats["exit0" if rc == 0 else "diag"] += 1
        if a.verbose:
            print("[%d] %s rc=%d %.2fs %s" % (index, case.tool, rc, dt, case.render_pipeline()), flush=True)
            if res:
                print(err[-2000:])
        if res is None:
            return
        kind, sig = res
        if kind == "sanitizer" and runner.asan_runtime():
            # ASan's malloc-time stacks stop at the first uninstrumented
            # frame: run it again with full unwinding for the record.
            res2, rc2, err2, _ = runner.run(case, slow_unwind=True)
            if res2 == res:
                rc, err = rc2, err2
        up = known_upstream(err) if kind in ("crash", "assert", "llvm-error", "sanitizer") else None
        if up:
            with lock:
                upstream[up] = upstream.get(up, 0) + 1
            if a.verbose:
                print("txfuzz: [%d] known upstream crash %s (not counted)" % (index, up), flush=True)
            return
        with lock:
            stats["findings"] += 1
            first = sig not in sigs
            if first:
                sigs[sig] = None
                kinds[kind] = kinds.get(kind, 0) + 1
                stats["unique"] += 1
        print("txfuzz: FINDING [%d] %s: %s (%s)" % (index, kind, sig, case.tool), flush=True)
        if not first:
            return
        mini = minimize(runner, case, sig, a.minimize_seconds) if a.minimize_seconds > 0 else case
        d = save_finding(findings_dir, tools, kind, sig, case, mini, rc, err, a.seed, index,
                         runner.asan_runtime())
        with lock:
            sigs[sig] = d
        print("txfuzz:   kept in %s (%d -> %d lines)" % (d, case.text.count("\n"), mini.text.count("\n")),
              flush=True)

    index = a.start
    last_report = time.time()
    try:
        with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
            pending = set()
            while True:
                if end_index is not None and index >= end_index:
                    break
                if deadline is not None and time.time() >= deadline:
                    break
                while len(pending) >= max(1, a.jobs) * 2:
                    done = [f for f in pending if f.done()]
                    for f in done:
                        pending.discard(f)
                        f.result()
                    if len(pending) >= max(1, a.jobs) * 2:
                        time.sleep(0.005)
                pending.add(ex.submit(one, index))
                index += 1
                if time.time() - last_report > 60:
                    last_report = time.time()
                    print("txfuzz: %d inputs, %d findings (%d unique), %.0f s" % (
                        stats["runs"], stats["findings"], stats["unique"], time.time() - t_run), flush=True)
            for f in pending:
                f.result()
    except KeyboardInterrupt:
        print("txfuzz: interrupted", flush=True)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)

    secs = time.time() - t_run
    summary = {"seed": a.seed, "start": a.start, "inputs": stats["runs"], "findings": stats["findings"],
               "unique_findings": stats["unique"], "kinds": kinds, "seconds": round(secs, 1),
               "exit_0": stats["exit0"], "rejected_with_diagnostic": stats["diag"],
               "seed_programs": len(seeds), "jobs": a.jobs, "date": time.strftime("%Y-%m-%d %H:%M:%S"),
               "kept": sorted(v for v in sigs.values() if v), "known_upstream": upstream}
    if a.stats:
        with open(a.stats, "w") as f:
            json.dump(summary, f, indent=1)
    print("txfuzz: summary: seed %d, %d inputs run (%d compiled, %d rejected with a diagnostic, %d known "
          "upstream crashes), %d findings (%d unique), %.0f s" % (
              a.seed, stats["runs"], stats["exit0"], stats["diag"], sum(upstream.values()),
              stats["findings"], stats["unique"], secs), flush=True)
    for s, d in sigs.items():
        print("txfuzz:   %s -> %s" % (s, d))
    for name, n in sorted(upstream.items()):
        print("txfuzz:   known upstream crash %s: %d inputs (not counted; docs/Fuzzing.md)" % (name, n))
    return 1 if stats["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
