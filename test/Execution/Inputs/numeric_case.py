#!/usr/bin/env python3
"""Emits one self-checking MLIR execution case for tx.softmax / tx.attention.

The generator draws random inputs (rounded exactly to the element type, so the
float64 reference sees the very values the kernel sees), computes the
reference in float64 in pure Python (no numpy), and prints an MLIR module:

  * @tx_case: the tx op under test (static or fully dynamic operands);
  * @main: builds the inputs as dense constants, calls @tx_case, and compares
    the result IN MLIR (a linalg.generic reduction, in f64) against the
    embedded reference, then prints exactly one line

        case <name>: relerr <value> ok <1|0>

    relerr = ||out - ref||_2 / ||ref||_2 over the lanes where ref is not NaN
    (||out - ref||_2 when ||ref||_2 == 0). ok = 1 iff
      - no NaN mismatch (ref NaN <=> out NaN),
      - no lane where ref is exactly 0 and out is not (fully masked rows),
      - relerr <= tol (ordered compare: a NaN relerr fails).
    With --verbose a second line gives the mismatch counts.

Usage: numeric_case.py softmax --shape 3x77 --dim -1 --dtype f32 ...
       numeric_case.py attention --B 2 --H 4 --Hkv 1 --Sq 16 --Sk 32 --D 8 ...
Pipe the output through `tx-opt --tx-cpu-pipeline | mlir-runner ...`.
Negative ranges need the `=` form (argparse): --range=-8,8, --mask-range=-6,6.
Every dimension must be >= 1 (zero-size cases are written by hand).
--corrupt-ref perturbs the embedded reference (a self-test of the check: the
case must then print ok 0); see numeric_case_selftest.mlir.
"""
import argparse
import math
import random
import struct
import sys

import attention_mods
import paged_kv

DEFAULT_TOL = {"f32": 1e-5, "f16": 2e-3, "bf16": 1e-2}
NEG_INF = float("-inf")
NAN = float("nan")

# ----------------------------------------------------------------------------
# Element types: exact rounding and raw little-endian bytes.
# ----------------------------------------------------------------------------


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def round_f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bf16_bits(x):
    """Round-to-nearest-even of the float32 value of x to bfloat16."""
    b = f32_bits(round_f32(x))
    if (b & 0x7F800000) == 0x7F800000:  # inf / NaN: keep (quiet NaN)
        return (b >> 16) | (0x40 if (b & 0x007FFFFF) else 0)
    b += 0x7FFF + ((b >> 16) & 1)
    return (b >> 16) & 0xFFFF


def bf16_value(bits):
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def round_to(x, dtype):
    """The value of x rounded to dtype (as a Python float, exact)."""
    if dtype == "f32":
        return round_f32(x)
    if dtype == "f16":
        return struct.unpack("<e", struct.pack("<e", x))[0]
    if dtype == "bf16":
        return bf16_value(bf16_bits(x))
    raise ValueError(dtype)


def raw_bytes(values, dtype):
    if dtype == "f32":
        return struct.pack("<%df" % len(values), *values)
    if dtype == "f16":
        return struct.pack("<%de" % len(values), *values)
    if dtype == "bf16":
        return struct.pack("<%dH" % len(values), *[bf16_bits(v) for v in values])
    if dtype == "f64":
        return struct.pack("<%dd" % len(values), *values)
    raise ValueError(dtype)


def dense_float(values, dtype, shape):
    """`arith.constant dense<"0x..."> : tensor<...>` text for a float tensor."""
    assert len(values) == prod(shape) and len(values) > 0
    return 'dense<"0x%s"> : %s' % (raw_bytes(values, dtype).hex().upper(),
                                   ttype(shape, dtype))


def dense_bool(values, shape):
    def nest(vals, shp):
        if not shp:
            return "true" if vals[0] else "false"
        step = len(vals) // shp[0] if shp[0] else 0
        return "[" + ", ".join(nest(vals[i * step:(i + 1) * step], shp[1:])
                               for i in range(shp[0])) + "]"
    return "dense<%s> : %s" % (nest(values, list(shape)), ttype(shape, "i1"))


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def ttype(shape, elt, dynamic_dims=None):
    dims = []
    for i, s in enumerate(shape):
        dims.append("?" if dynamic_dims and dynamic_dims[i] else str(s))
    return "tensor<%s%s>" % ("".join(d + "x" for d in dims), elt)


def fmt_f32_attr(x):
    return "%.9e" % x


# ----------------------------------------------------------------------------
# Input drawing.
# ----------------------------------------------------------------------------


def draw(rng, n, lo, hi, dtype):
    vals = [round_to(rng.uniform(lo, hi), dtype) for _ in range(n)]
    # Never a degenerate tensor (all zeros / all ones / all equal).
    if n > 1 and len(set(vals)) == 1:
        vals[0] = round_to(lo + 0.37 * (hi - lo), dtype)
        vals[-1] = round_to(lo + 0.81 * (hi - lo), dtype)
    return vals


# ----------------------------------------------------------------------------
# float64 references.
# ----------------------------------------------------------------------------


def softmax_ref(x, shape, dim):
    outer = prod(shape[:dim])
    n = shape[dim]
    inner = prod(shape[dim + 1:])
    out = [0.0] * len(x)
    for o in range(outer):
        for i in range(inner):
            idx = [o * n * inner + j * inner + i for j in range(n)]
            row = [x[t] for t in idx]
            if not row:
                continue
            m = max(row)
            if m == NEG_INF:  # all -inf: NaN in every lane
                for t in idx:
                    out[t] = NAN
                continue
            e = [math.exp(v - m) for v in row]
            s = math.fsum(e)
            for t, ev in zip(idx, e):
                out[t] = ev / s
    return out


def attention_ref(a, q, k, v, mask, mshape, scale, lse=None):
    """Returns O; with a list `lse`, also fills it with the log-sum-exp of
    every row (-inf for a row that sees no key)."""
    B, H, Hkv, Sq, Sk, D, Dv = a.B, a.H, a.Hkv, a.Sq, a.Sk, a.D, a.Dv
    G = H // Hkv
    out = [0.0] * (B * H * Sq * Dv)
    if lse is not None:
        lse[:] = [NEG_INF] * (B * H * Sq)
    for b in range(B):
        # Per-sequence lengths: keys j >= Lk and rows i >= Lq do not exist;
        # the diagonal is aligned bottom-right per sequence (off = Lk - Lq).
        Lk = a.kv_lengths[b] if a.kv_lengths else Sk
        Lq = a.q_lengths[b] if a.q_lengths else Sq
        off = Lk - Lq
        for h in range(H):
            kh = h // G
            kbase = (b * Hkv + kh) * Sk
            krows = [k[(kbase + j) * D:(kbase + j + 1) * D] for j in range(Sk)]
            vrows = [v[(kbase + j) * Dv:(kbase + j + 1) * Dv] for j in range(Sk)]
            mb = b if mask is not None and mshape[0] != 1 else 0
            mh = h if mask is not None and mshape[1] != 1 else 0
            for i in range(Sq):
                qrow = q[((b * H + h) * Sq + i) * D:((b * H + h) * Sq + i + 1) * D]
                s = []
                for j in range(Sk):
                    x = scale * sum(qd * kd for qd, kd in zip(qrow, krows[j]))
                    if a.softcap is not None:  # Gemma 2 logit soft-capping
                        c = round_f32(a.softcap)
                        x = c * math.tanh(x / c)
                    if getattr(a, "mod", None):  # score_mod / mask_mod
                        x = attention_mods.score(a, x, b, h, i, j)
                        if not attention_mods.visible(a, b, h, i, j):
                            x = NEG_INF
                    if mask is not None:
                        mv = mask[((mb * mshape[1] + mh) * Sq + i) * Sk + j]
                        if a.mask == "keep":
                            if not mv:
                                x = NEG_INF
                        else:
                            x = x + mv
                    if a.causal and not (j <= i + off):
                        x = NEG_INF
                    if a.window is not None:  # sliding window [left, right]
                        wl, wr = a.window
                        if (wl >= 0 and j < i + off - wl) or \
                           (wr >= 0 and j > i + off + wr):
                            x = NEG_INF
                    if j >= Lk or i >= Lq:
                        x = NEG_INF
                    s.append(x)
                obase = ((b * H + h) * Sq + i) * Dv
                m = max(s) if s else NEG_INF
                if m == NEG_INF:  # no visible key: zeros
                    continue
                p = [math.exp(x - m) for x in s]
                l = math.fsum(p)
                if lse is not None:
                    lse[(b * H + h) * Sq + i] = m + math.log(l)
                for e in range(Dv):
                    out[obase + e] = math.fsum(pj * vr[e] for pj, vr in zip(p, vrows)
                                               if pj != 0.0) / l
    return out


# ----------------------------------------------------------------------------
# MLIR emission.
# ----------------------------------------------------------------------------


def emit_check(lines, name, out_val, out_shape, dtype, ref, tol, verbose):
    """Appends to @main the in-MLIR comparison of out_val against ref."""
    rank = len(out_shape)
    ot = ttype(out_shape, dtype)
    rt = ttype(out_shape, "f64")
    ids = ", ".join("d%d" % i for i in range(rank))
    idmap = "affine_map<(%s) -> (%s)>" % (ids, ids)
    scmap = "affine_map<(%s) -> ()>" % ids
    iters = ", ".join(['"reduction"'] * rank)
    ext = ("%of = arith.extf %o : {0} to f64".format(dtype))
    lines += [
        '  %ref = arith.constant ' + dense_float(ref, "f64", out_shape),
        '  %c0f = arith.constant 0.0 : f64',
        '  %c0i = arith.constant 0 : i64',
        '  %tol = arith.constant ' + ("%.17e" % tol) + ' : f64',
        '  %zf = tensor.empty() : tensor<f64>',
        '  %zi = tensor.empty() : tensor<i64>',
        '  %accf = linalg.fill ins(%c0f : f64) outs(%zf : tensor<f64>) -> tensor<f64>',
        '  %acci = linalg.fill ins(%c0i : i64) outs(%zi : tensor<i64>) -> tensor<i64>',
        '  %red:4 = linalg.generic {indexing_maps = [' +
        ', '.join([idmap, idmap, scmap, scmap, scmap, scmap]) +
        '], iterator_types = [' + iters + ']}',
        '      ins(' + out_val + ', %ref : ' + ot + ', ' + rt + ')',
        '      outs(%accf, %accf, %acci, %acci : tensor<f64>, tensor<f64>, tensor<i64>, tensor<i64>) {',
        '  ^bb0(%o: ' + dtype + ', %r: f64, %sd: f64, %sr: f64, %nn: i64, %nz: i64):',
        '    ' + ext,
        '    %rnan0 = arith.cmpf uno, %r, %r : f64',
        '    %onan = arith.cmpf uno, %of, %of : f64',
        '    %rabs = math.absf %r : f64',
        '    %inf = arith.constant 0x7FF0000000000000 : f64',
        '    %rinf = arith.cmpf oeq, %rabs, %inf : f64',
        '    %oeqr = arith.cmpf oeq, %of, %r : f64',
        '    %infmis = arith.andi %rinf, %oeqr : i1',
        '    %true = arith.constant true',
        '    %infbad = arith.xori %infmis, %true : i1',
        '    %infm = arith.andi %rinf, %infbad : i1',
        '    %nmis0 = arith.xori %rnan0, %onan : i1',
        '    %nmis = arith.ori %nmis0, %infm : i1',
        '    %rnan = arith.ori %rnan0, %rinf : i1',
        '    %anyn = arith.ori %rnan, %onan : i1',
        '    %d = arith.subf %of, %r : f64',
        '    %d2 = arith.mulf %d, %d : f64',
        '    %d2s = arith.select %anyn, %c0f, %d2 : f64',
        '    %r2 = arith.mulf %r, %r : f64',
        '    %r2s = arith.select %rnan, %c0f, %r2 : f64',
        '    %sd1 = arith.addf %sd, %d2s : f64',
        '    %sr1 = arith.addf %sr, %r2s : f64',
        '    %nmi = arith.extui %nmis : i1 to i64',
        '    %nn1 = arith.addi %nn, %nmi : i64',
        '    %rz = arith.cmpf oeq, %r, %c0f : f64',
        '    %onz = arith.cmpf une, %of, %c0f : f64',
        '    %zmis = arith.andi %rz, %onz : i1',
        '    %zmi = arith.extui %zmis : i1 to i64',
        '    %nz1 = arith.addi %nz, %zmi : i64',
        '    linalg.yield %sd1, %sr1, %nn1, %nz1 : f64, f64, i64, i64',
        '  } -> (tensor<f64>, tensor<f64>, tensor<i64>, tensor<i64>)',
        '  %sumd = tensor.extract %red#0[] : tensor<f64>',
        '  %sumr = tensor.extract %red#1[] : tensor<f64>',
        '  %nans = tensor.extract %red#2[] : tensor<i64>',
        '  %zeros = tensor.extract %red#3[] : tensor<i64>',
        '  %nd = math.sqrt %sumd : f64',
        '  %nr = math.sqrt %sumr : f64',
        '  %rpos = arith.cmpf ogt, %nr, %c0f : f64',
        '  %q = arith.divf %nd, %nr : f64',
        '  %rel = arith.select %rpos, %q, %nd : f64',
        '  %okr = arith.cmpf ole, %rel, %tol : f64',
        '  %okn = arith.cmpi eq, %nans, %c0i : i64',
        '  %okz = arith.cmpi eq, %zeros, %c0i : i64',
        '  %ok0 = arith.andi %okr, %okn : i1',
        '  %ok1 = arith.andi %ok0, %okz : i1',
        '  %oki = arith.extui %ok1 : i1 to i64',
        '  vector.print str "case ' + name + ': relerr "',
        '  vector.print %rel : f64 punctuation <no_punctuation>',
        '  vector.print str " ok "',
        '  vector.print %oki : i64',
    ]
    if verbose:
        lines += [
            '  vector.print str "  nan_mismatches "',
            '  vector.print %nans : i64 punctuation <no_punctuation>',
            '  vector.print str " nonzero_where_ref_zero "',
            '  vector.print %zeros : i64',
        ]
    lines += ['  return', '}']


def emit_module(a, fn_args, op_text, result_shape, dtype, consts, ref, rdyn,
                multi=False):
    """fn_args: list of (name, shape, elt, dyn_dims); consts: dense texts;
    rdyn: the dynamic dims of the result type (None: static)."""
    dyn = bool(rdyn and any(rdyn))
    lines = []
    sig = ", ".join("%%%s: %s" % (n, ttype(s, e, dd)) for n, s, e, dd in fn_args)
    rt_fn = ttype(result_shape, dtype, rdyn)
    lines.append("func.func @tx_case(%s) -> %s {" % (sig, rt_fn))
    if multi:  # op_text defines %rr (several results) and then %r
        lines.append("  %%rr:2 = %s" % op_text)
    else:
        lines.append("  %%r = %s" % op_text)
    lines.append("  return %%r : %s" % rt_fn)
    lines.append("}")
    lines.append("")
    lines.append("func.func @main() {")
    call_args, call_types = [], []
    for (n, s, e, dd), c in zip(fn_args, consts):
        lines.append("  %%%s_s = arith.constant %s" % (n, c))
        if dd and any(dd):
            lines.append("  %%%s_d = tensor.cast %%%s_s : %s to %s" %
                         (n, n, ttype(s, e), ttype(s, e, dd)))
            call_args.append("%%%s_d" % n)
        else:
            call_args.append("%%%s_s" % n)
        call_types.append(ttype(s, e, dd))
    lines.append("  %%out_f = call @tx_case(%s) : (%s) -> %s" %
                 (", ".join(call_args), ", ".join(call_types), rt_fn))
    out_val = "%out_f"
    if dyn:
        lines.append("  %%out = tensor.cast %%out_f : %s to %s" %
                     (rt_fn, ttype(result_shape, dtype)))
        out_val = "%out"
    # The tolerance follows the inputs' element type (an f32 log-sum-exp of
    # bf16 inputs is as accurate as the bf16 inputs allow).
    tol = a.tol if a.tol is not None else DEFAULT_TOL[getattr(a, "dtype", dtype)]
    if a.corrupt_ref:  # self-test of the check: it must then print ok 0
        ref = list(ref)
        if a.corrupt_ref == "scale":  # every lane 5% off
            ref = [r * 1.05 for r in ref]
        elif a.corrupt_ref == "nan":  # first non-NaN lane becomes NaN
            t = next((t for t, r in enumerate(ref) if r == r), None)
            if t is not None:
                ref[t] = NAN
        elif a.corrupt_ref == "unnan":  # first NaN lane becomes 0.5
            t = next((t for t, r in enumerate(ref) if r != r), None)
            if t is not None:
                ref[t] = 0.5
        elif a.corrupt_ref == "zero":  # smallest nonzero lane becomes 0
            lanes = [t for t, r in enumerate(ref) if r == r and r != 0.0]
            if lanes:
                ref[min(lanes, key=lambda t: abs(ref[t]))] = 0.0
        if all(r == 0.0 or r != r for r in ref) and a.corrupt_ref == "scale":
            ref[0] = 1.0
    emit_check(lines, a.name, out_val, result_shape, dtype, ref, tol, a.verbose)
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------
# Cases.
# ----------------------------------------------------------------------------


def parse_shape(text):
    return [int(t) for t in text.lower().split("x")]


def parse_range(text):
    lo, hi = (float(t) for t in text.split(","))
    return lo, hi


def case_softmax(a, rng):
    shape = parse_shape(a.shape)
    rank = len(shape)
    dim = a.dim + rank if a.dim < 0 else a.dim
    if not 0 <= dim < rank:
        sys.exit("--dim out of range")
    lo, hi = parse_range(a.range)
    x = draw(rng, prod(shape), lo, hi, a.dtype)
    n = shape[dim]
    inner = prod(shape[dim + 1:])
    nrows = prod(shape) // n

    def row_idx(r):
        o, i = divmod(r, inner)
        return [o * n * inner + j * inner + i for j in range(n)]

    for spec in a.row:
        kind, _, r = spec.partition(":")
        r = int(r)
        if not 0 <= r < nrows:
            sys.exit("--row %s: row out of range (%d rows)" % (spec, nrows))
        idx = row_idx(r)
        if kind == "huge":  # one logit of 1e4 in the middle of the row
            x[idx[n // 2]] = round_to(1e4, a.dtype)
        elif kind == "neginf":  # every third lane -inf (lane 0 stays finite)
            for j in range(1, n, 3):
                x[idx[j]] = NEG_INF
        elif kind == "allneginf":  # NaN in every lane
            for t in idx:
                x[t] = NEG_INF
        elif kind == "zeros":  # uniform 1/n
            for t in idx:
                x[t] = 0.0
        elif kind == "hugeneg":  # every lane very negative but finite
            for j, t in enumerate(idx):
                x[t] = round_to(-1e4 + j % 7, a.dtype)
        else:
            sys.exit("unknown --row kind %r" % kind)
    ref = softmax_ref(x, shape, dim)
    dd = [True] * rank if a.dynamic else None
    xt = ttype(shape, a.dtype, dd)
    op = "tx.softmax %%x dim = %d : %s" % (a.dim, xt)
    return emit_module(a, [("x", shape, a.dtype, dd)], op, shape, a.dtype,
                       [dense_float(x, a.dtype, shape)], ref, dd)


def draw_attention(a, rng):
    """Draws the inputs of an attention case (Q, K, V, the mask; NaN/Inf
    padding with --garbage-padding); returns (q, k, v, mask, mshape, scale)."""
    if a.Hkv is None:
        a.Hkv = a.H
    if a.Dv is None:
        a.Dv = a.D
    B, H, Hkv, Sq, Sk, D, Dv = a.B, a.H, a.Hkv, a.Sq, a.Sk, a.D, a.Dv
    if Hkv <= 0 or H % Hkv:
        sys.exit("H must be a multiple of Hkv > 0")
    lo, hi = parse_range(a.range)
    q = draw(rng, B * H * Sq * D, lo, hi, a.dtype)
    k = draw(rng, B * Hkv * Sk * D, lo, hi, a.dtype)
    v = draw(rng, B * Hkv * Sk * Dv, lo, hi, a.dtype)
    if a.scale is not None:
        scale = round_f32(a.scale)
    else:
        scale = 1.0 / math.sqrt(D)
    mask, mshape = None, None
    if a.mask != "none":
        mb, mh = a.mask_bcast.split(",")
        mshape = [1 if mb == "1" else B, 1 if mh == "1" else H, Sq, Sk]
        n = prod(mshape)
        if a.mask == "keep":
            mask = [rng.random() < a.keep_prob for _ in range(n)]
        else:
            mlo, mhi = parse_range(a.mask_range)
            mask = [round_to(rng.uniform(mlo, mhi), a.dtype) for _ in range(n)]
            if a.mask_neginf > 0:
                for t in range(n):
                    if rng.random() < a.mask_neginf:
                        mask[t] = NEG_INF
        for i in a.masked_row:  # query row i sees no key (every batch/head)
            for bh in range(mshape[0] * mshape[1]):
                for j in range(Sk):
                    mask[(bh * Sq + i) * Sk + j] = False if a.mask == "keep" else NEG_INF
        for i in a.first_keys_masked:  # row i: keys 0-1 masked, others kept
            for bh in range(mshape[0] * mshape[1]):
                for j in range(Sk):
                    keep = j >= 2
                    if a.mask == "keep":
                        mask[(bh * Sq + i) * Sk + j] = keep
                    elif not keep:
                        mask[(bh * Sq + i) * Sk + j] = NEG_INF
    for name in ("kv_lengths", "q_lengths"):
        lens = getattr(a, name)
        if lens is not None and len(lens) != B:
            sys.exit("--%s needs B = %d lengths" % (name.replace("_", "-"), B))
    if a.garbage_padding:
        # NaN / Inf in the K/V rows past kv_lengths and the Q rows past
        # q_lengths (a KV cache's unused slots): hidden, never read into
        # a visible result. Dropped from the reference (x - x).
        for b in range(B):
            Lk = a.kv_lengths[b] if a.kv_lengths else Sk
            Lq = a.q_lengths[b] if a.q_lengths else Sq
            for kh in range(Hkv):
                for j in range(Lk, Sk):
                    for d in range(D):
                        k[((b * Hkv + kh) * Sk + j) * D + d] = NAN if d % 2 else float("inf")
                    for e in range(Dv):
                        v[((b * Hkv + kh) * Sk + j) * Dv + e] = NAN if e % 2 == 0 else float("-inf")
            for h in range(H):
                for i in range(Lq, Sq):
                    for d in range(D):
                        q[((b * H + h) * Sq + i) * D + d] = NAN
    return q, k, v, mask, mshape, scale


def attention_operands(a, q, k, v, mask, mshape):
    """The tx.attention operands as (args, consts, clauses): the @tx_case
    arguments (name, shape, elt, dynamic dims) and their dense constants for
    Q, K, V, the mask and the lengths, and the clause text after V."""
    dt = a.dtype
    B, H, Hkv, Sq, Sk, D, Dv = a.B, a.H, a.Hkv, a.Sq, a.Sk, a.D, a.Dv
    qs, ks, vs, os_ = [B, H, Sq, D], [B, Hkv, Sk, D], [B, Hkv, Sk, Dv], [B, H, Sq, Dv]
    # --dynamic: every dim dynamic; with --static-heads the head dims (H, Hkv)
    # stay static.
    alld = [True, not a.static_heads, True, True] if a.dynamic else None
    args = [("q", qs, dt, alld), ("k", ks, dt, alld), ("v", vs, dt, alld)]
    consts = [dense_float(q, dt, qs), dense_float(k, dt, ks), dense_float(v, dt, vs)]
    mask_text = pt_text = ""
    if getattr(a, "page_size", None):  # K/V as page pools read through a page table
        ks, vs = pool_shapes(a)
        args[1:3] = [("k", ks, dt, alld), ("v", vs, dt, alld)]
        consts[1:3] = [dense_float(a.pools[0], dt, ks), dense_float(a.pools[1], dt, vs)]
        pts = [B, Sk // a.page_size]
        ptd = [True, True] if a.dynamic else None
        args.append(("pt", pts, "i32", ptd))
        consts.append("dense<[%s]> : %s" % (", ".join(
            "[%s]" % ", ".join(str(x) for x in row) for row in a.table), ttype(pts, "i32")))
        pt_text = " page_table(%%pt : %s)" % ttype(pts, "i32", ptd)
    if mask is not None:
        melt = "i1" if a.mask == "keep" else dt
        # Dynamic: every dim dynamic except a broadcast 1 (only a static 1
        # broadcasts).
        mdd = None
        if a.dynamic:
            mdd = [mshape[0] != 1, mshape[1] != 1 and not a.static_heads, True, True]
        args.append(("m", mshape, melt, mdd))
        consts.append(dense_bool(mask, mshape) if a.mask == "keep"
                      else dense_float(mask, dt, mshape))
        mask_text = " mask(%%m : %s)" % ttype(mshape, melt, mdd)
    for name, arg in (("kv_lengths", "kl"), ("q_lengths", "ql")):
        lens = getattr(a, name)
        if lens is None:
            continue
        ldd = [True] if a.dynamic else None
        args.append((arg, [B], "i32", ldd))
        consts.append("dense<[%s]> : tensor<%dxi32>" % (", ".join(str(x) for x in lens), B))
        mask_text += " %s(%%%s : %s)" % (name, arg, ttype([B], "i32", ldd))
    scale_text = " scale = %s" % fmt_f32_attr(a.scale) if a.scale is not None else ""
    if a.softcap is not None:
        scale_text += " softcap = %s" % fmt_f32_attr(a.softcap)
    causal_text = " causal" if a.causal else ""
    if a.window is not None:
        causal_text = " window = [%d, %d]%s" % (a.window[0], a.window[1], causal_text)
    return args, consts, mask_text + pt_text + scale_text + causal_text


def pool_shapes(a):
    """The K and V page pools' shapes [num_pages, page_size, Hkv, D|Dv]."""
    return ([a.num_pages, a.page_size, a.Hkv, a.D],
            [a.num_pages, a.page_size, a.Hkv, a.Dv])


def case_attention(a, rng):
    q, k, v, mask, mshape, scale = draw_attention(a, rng)
    B, H, Sq, Sk, D, Dv = a.B, a.H, a.Sq, a.Sk, a.D, a.Dv
    if a.page_size:
        paged_kv.share_prefix(a, k, v)
        kp, vp, a.table, a.num_pages = paged_kv.build_pools(a, rng, k, v)
        a.pools = (kp, vp)
    attention_mods.prepare(a, rng, round_f32, round_to)
    lse = [] if a.lse else None
    ref = attention_ref(attention_mods.reference_args(a), q, k, v, mask, mshape, scale, lse)
    args, consts, clauses = attention_operands(a, q, k, v, mask, mshape)
    margs, mconsts, mtext = attention_mods.operands(a, ttype, dense_float)
    args, consts, clauses = args + margs, consts + mconsts, clauses + mtext
    dt = a.dtype
    qs, ks, vs, os_ = [B, H, Sq, D], [B, a.Hkv, Sk, D], [B, a.Hkv, Sk, Dv], [B, H, Sq, Dv]
    if a.page_size:
        ks, vs = pool_shapes(a)
    alld = [True, not a.static_heads, True, True] if a.dynamic else None
    if a.lse:
        # The log-sum-exp result [B, H, Sq] (f32) is the one checked.
        ls = [B, H, Sq]
        ld = alld[:3] if alld else None
        op = ("tx.attention %%q, %%k, %%v%s : %s, %s, %s -> %s, %s\n"
              "  %%r = tensor.cast %%rr#1 : %s to %s" % (
                  clauses, ttype(qs, dt, alld),
                  ttype(ks, dt, alld), ttype(vs, dt, alld), ttype(os_, dt, alld),
                  ttype(ls, "f32", ld), ttype(ls, "f32", ld), ttype(ls, "f32", ld)))
        op = op.replace("tx.attention", "tx.attention", 1)
        return emit_module(a, args, op, ls, "f32", consts, lse, ld, multi=True)
    op = "tx.attention %%q, %%k, %%v%s : %s, %s, %s -> %s" % (
        clauses, ttype(qs, dt, alld), ttype(ks, dt, alld),
        ttype(vs, dt, alld), ttype(os_, dt, alld))
    return emit_module(a, args, op, os_, dt, consts, ref, alld)




def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="op", required=True)

    def common(sp):
        sp.add_argument("--dtype", choices=["f32", "f16", "bf16"], default="f32")
        sp.add_argument("--seed", type=int, default=1)
        sp.add_argument("--range", default="-3,3", help="lo,hi of the uniform inputs")
        sp.add_argument("--tol", type=float, default=None,
                        help="relative L2 tolerance (default f32 1e-5, f16 2e-3, bf16 1e-2)")
        sp.add_argument("--dynamic", action="store_true",
                        help="the tx function takes dynamically shaped operands")
        sp.add_argument("--name", default=None)
        sp.add_argument("--verbose", action="store_true",
                        help="also print the NaN / exact-zero mismatch counts")
        sp.add_argument("--corrupt-ref", choices=["scale", "nan", "unnan", "zero"],
                        default=None,
                        help="(self-test of the check) scale the reference by "
                             "1.05, or turn its first non-NaN lane into NaN, or "
                             "its first NaN lane into 0.5, or its smallest "
                             "nonzero lane into 0")

    s = sub.add_parser("softmax")
    common(s)
    s.add_argument("--shape", required=True, help="e.g. 3x77")
    s.add_argument("--dim", type=int, default=-1)
    s.add_argument("--row", action="append", default=[],
                   help="KIND:R special row R (rows are the 1-D slices along dim, "
                        "numbered row-major over the other dims); KIND is huge, "
                        "neginf, allneginf, zeros or hugeneg")

    t = sub.add_parser("attention")
    common(t)
    for dim_name in ["B", "H", "Sq", "Sk", "D"]:
        t.add_argument("--" + dim_name, type=int, required=True)
    t.add_argument("--Hkv", type=int, default=None, help="default H")
    t.add_argument("--Dv", type=int, default=None, help="default D")
    t.add_argument("--static-heads", action="store_true",
                   help="with --dynamic: keep the head dims H and Hkv static")
    t.add_argument("--causal", action="store_true")
    t.add_argument("--window", type=lambda x: tuple(int(v) for v in x.split(",")),
                   default=None, metavar="LEFT,RIGHT",
                   help="sliding window [left, right] (-1 = unbounded)")
    t.add_argument("--lse", action="store_true",
                   help="check the log-sum-exp result (f32 [B, H, Sq]) instead of O")
    t.add_argument("--scale", type=float, default=None, help="default 1/sqrt(D)")
    t.add_argument("--softcap", type=float, default=None,
                   help="logit soft-capping c: scores c * tanh(s / c) after the scale")
    t.add_argument("--mask", choices=["none", "keep", "add"], default="none")
    t.add_argument("--mask-bcast", default="1,1",
                   help="mask dims 0,1: '1,1', 'B,1', '1,H' or 'B,H'")
    t.add_argument("--keep-prob", type=float, default=0.7)
    t.add_argument("--mask-range", default="-2,2")
    t.add_argument("--mask-neginf", type=float, default=0.0,
                   help="additive mask: fraction of -inf entries")
    t.add_argument("--masked-row", type=int, action="append", default=[],
                   help="query row that sees no key at all (output exactly 0)")
    ints = lambda x: [int(v) for v in x.split(",")]
    t.add_argument("--kv-lengths", type=ints, default=None,
                   help="per-sequence key counts (B of them, i32 operand)")
    t.add_argument("--q-lengths", type=ints, default=None,
                   help="per-sequence query counts (B of them, i32 operand)")
    t.add_argument("--garbage-padding", action="store_true",
                   help="NaN/Inf in K/V rows past kv_lengths, NaN in Q rows "
                        "past q_lengths")
    t.add_argument("--first-keys-masked", type=int, action="append", default=[],
                   help="query row whose keys 0-1 are masked, the rest kept")
    paged_kv.add_arguments(t)
    attention_mods.add_arguments(t)

    a = p.parse_args()
    rng = random.Random(a.seed)
    if a.name is None:
        a.name = "%s_%s_seed%d" % (a.op, a.dtype, a.seed)
    if a.op == "softmax":
        text = case_softmax(a, rng)
    else:
        text = case_attention(a, rng)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
