#!/usr/bin/env python3
"""Emits one self-checking MLIR execution case for tx.softmax_grad /
tx.attention_grad, like numeric_case.py (whose inputs, options and in-MLIR
check it reuses): random inputs rounded to the element type, the float64
reference of the gradients computed here in pure Python, and an @main that
prints one line per gradient,

    case <name>/<dq|dk|dv|dmask|dx>: relerr <value> ok <1|0>

The attention case gives the op the forward's O (rounded to the element
type) and LSE (rounded to f32), computed in float64, and a random dO; the
reference gradients use those very O and LSE (the op's definition,
TxGradOps.td).

--fd-check (attention_grad) prints no MLIR: it checks the gradient formulas
themselves against central finite differences of the float64 forward
(L = sum(O * dO)) at every Q/K/V entry and every finite additive-mask entry,
and prints "fd-check <name>: maxerr <e> ok <1|0>", so that the reference
does not rest on the derivation alone.

Usage: grad_case.py softmax_grad --shape 3x77 --dim -1 --dtype f32 ...
       grad_case.py attention_grad --B 2 --H 4 --Hkv 1 --Sq 6 --Sk 9 --D 8 ...
"""
import math
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numeric_case as nc  # noqa: E402

NEG_INF, NAN = nc.NEG_INF, nc.NAN


# ----------------------------------------------------------------------------
# Float64 references.
# ----------------------------------------------------------------------------


def softmax_grad_ref(y, dy, shape, dim):
    inner = nc.prod(shape[dim + 1:])
    n = shape[dim]
    out = [0.0] * len(y)
    for o in range(nc.prod(shape[:dim])):
        for i in range(inner):
            idx = [o * n * inner + j * inner + i for j in range(n)]
            r = math.fsum(y[t] * dy[t] for t in idx)
            for t in idx:
                out[t] = y[t] * (dy[t] - r)
    return out


def scores(a, q, k, mask, mshape, scale, b, h, i):
    """(s, s0): the scored row (-inf where hidden) and the raw scaled
    products before the soft cap, for query (b, h, i)."""
    B, H, Hkv, Sq, Sk, D = a.B, a.H, a.Hkv, a.Sq, a.Sk, a.D
    kh = h // (H // Hkv)
    Lk = a.kv_lengths[b] if a.kv_lengths else Sk
    Lq = a.q_lengths[b] if a.q_lengths else Sq
    off = Lk - Lq
    qrow = q[((b * H + h) * Sq + i) * D:((b * H + h) * Sq + i + 1) * D]
    s, s0 = [], []
    for j in range(Sk):
        if j >= Lk or i >= Lq:  # never read (may be NaN padding)
            s.append(NEG_INF)
            s0.append(0.0)
            continue
        kb = ((b * Hkv + kh) * Sk + j) * D
        x0 = scale * sum(qd * kd for qd, kd in zip(qrow, k[kb:kb + D]))
        x = x0
        if a.softcap is not None:
            c = nc.round_f32(a.softcap)
            x = c * math.tanh(x0 / c)
        if mask is not None:
            mb = b if mshape[0] != 1 else 0
            mh = h if mshape[1] != 1 else 0
            mv = mask[((mb * mshape[1] + mh) * Sq + i) * Sk + j]
            if a.mask == "keep":
                x = x if mv else NEG_INF
            else:
                x = NEG_INF if mv == NEG_INF else x + mv
        if a.causal and not j <= i + off:
            x = NEG_INF
        if a.window is not None:
            wl, wr = a.window
            if (wl >= 0 and j < i + off - wl) or (wr >= 0 and j > i + off + wr):
                x = NEG_INF
        s.append(x)
        s0.append(x0)
    return s, s0


def forward(a, q, k, v, mask, mshape, scale):
    """O and LSE in float64 (LSE -inf and O 0 for a row that sees no key)."""
    B, H, Hkv, Sq, Sk, Dv = a.B, a.H, a.Hkv, a.Sq, a.Sk, a.Dv
    o = [0.0] * (B * H * Sq * Dv)
    lse = [NEG_INF] * (B * H * Sq)
    for b in range(B):
        for h in range(H):
            kh = h // (H // Hkv)
            for i in range(Sq):
                s, _ = scores(a, q, k, mask, mshape, scale, b, h, i)
                m = max(s) if s else NEG_INF
                if m == NEG_INF:
                    continue
                p = [math.exp(x - m) for x in s]
                l = math.fsum(p)
                r = (b * H + h) * Sq + i
                lse[r] = m + math.log(l)
                for e in range(Dv):
                    o[r * Dv + e] = math.fsum(
                        pj * v[((b * Hkv + kh) * Sk + j) * Dv + e]
                        for j, pj in enumerate(p) if pj != 0.0) / l
    return o, lse


def attention_grad_ref(a, q, k, v, mask, mshape, scale, o, lse, do):
    """dQ, dK, dV and (additive mask) dMask, by TxGradOps.td's formulas."""
    B, H, Hkv, Sq, Sk, D, Dv = a.B, a.H, a.Hkv, a.Sq, a.Sk, a.D, a.Dv
    dq = [0.0] * len(q)
    dk = [0.0] * len(k)
    dv = [0.0] * len(v)
    dm = [0.0] * (nc.prod(mshape) if mshape else 0)
    for b in range(B):
        for h in range(H):
            kh = h // (H // Hkv)
            for i in range(Sq):
                r = (b * H + h) * Sq + i
                if lse[r] == NEG_INF:
                    continue
                s, s0 = scores(a, q, k, mask, mshape, scale, b, h, i)
                dorow = do[r * Dv:(r + 1) * Dv]
                delta = math.fsum(x * y for x, y in zip(dorow, o[r * Dv:(r + 1) * Dv]))
                for j in range(Sk):
                    if s[j] == NEG_INF:
                        continue
                    p = math.exp(s[j] - lse[r])
                    kb = ((b * Hkv + kh) * Sk + j)
                    dp = math.fsum(x * y for x, y in zip(dorow, v[kb * Dv:(kb + 1) * Dv]))
                    ds = p * (dp - delta)
                    dt = ds
                    if a.softcap is not None:
                        c = nc.round_f32(a.softcap)
                        dt = ds * (1.0 - math.tanh(s0[j] / c) ** 2)
                    for d in range(D):
                        dq[r * D + d] += scale * dt * k[kb * D + d]
                        dk[kb * D + d] += scale * dt * q[r * D + d]
                    for e in range(Dv):
                        dv[kb * Dv + e] += p * dorow[e]
                    if mask is not None and a.mask == "add":
                        mb = b if mshape[0] != 1 else 0
                        mh = h if mshape[1] != 1 else 0
                        dm[((mb * mshape[1] + mh) * Sq + i) * Sk + j] += ds
    return dq, dk, dv, dm


# ----------------------------------------------------------------------------
# MLIR emission.
# ----------------------------------------------------------------------------


def check_lines(a, name, value, shape, dtype, ref, suffix):
    """numeric_case's in-MLIR check of `value`, its SSA names suffixed."""
    lines = []
    nc.emit_check(lines, name, value, shape, dtype, ref,
                  a.tol if a.tol is not None else nc.DEFAULT_TOL[a.dtype],
                  a.verbose)
    lines = lines[:-2]  # return, }
    keep = value
    return [re.sub(r"%([A-Za-z_][\w]*)",
                   lambda m: m.group(0) if m.group(0) == keep
                   else m.group(0) + "_" + suffix, ln) for ln in lines]


def finish_main(a, lines, results, rtypes):
    """@main's end: each result %out<i> (cast to its static type) checked,
    then the return; the whole text."""
    for i, (suffix, shape, elt, dd, ref) in enumerate(results):
        val = "%%out%d" % i
        if dd and any(dd):
            lines.append("  %%outs%d = tensor.cast %s : %s to %s" % (
                i, val, rtypes[i], nc.ttype(shape, elt)))
            val = "%%outs%d" % i
        lines += check_lines(a, "%s/%s" % (a.name, suffix), val, shape, elt,
                             ref, suffix)
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def emit(a, args, consts, op_text, results):
    """@tx_case(args) -> the op's results; @main checks each result.
    results: (suffix, shape, elt, dynamic dims, reference)."""
    sig = ", ".join("%%%s: %s" % (n, nc.ttype(s, e, dd)) for n, s, e, dd in args)
    rtypes = [nc.ttype(s, e, dd) for _, s, e, dd, _ in results]
    names = ", ".join("%%r%d" % i for i in range(len(results)))
    lines = ["func.func @tx_case(%s) -> (%s) {" % (sig, ", ".join(rtypes)),
             "  %s = %s" % (names, op_text),
             "  return %s : %s" % (names, ", ".join(rtypes)), "}", "",
             "func.func @main() {"]
    call = []
    for (n, s, e, dd), c in zip(args, consts):
        lines.append("  %%%s_s = arith.constant %s" % (n, c))
        if dd and any(dd):
            lines.append("  %%%s_d = tensor.cast %%%s_s : %s to %s" %
                         (n, n, nc.ttype(s, e), nc.ttype(s, e, dd)))
            call.append(("%%%s_d" % n, nc.ttype(s, e, dd)))
        else:
            call.append(("%%%s_s" % n, nc.ttype(s, e)))
    outs = ", ".join("%%out%d" % i for i in range(len(results)))
    lines.append("  %s = call @tx_case(%s) : (%s) -> (%s)" % (
        outs, ", ".join(c for c, _ in call), ", ".join(t for _, t in call),
        ", ".join(rtypes)))
    return finish_main(a, lines, results, rtypes)


def emit_derived(a, args, consts, clauses, do_arg, do_const, results):
    """--derived: @tx_case is the forward tx.attention; tx-derive-gradients
    (run by the test) adds @tx_case__tx_fwd and @tx_case__tx_bwd, and @main
    runs the first (O and the LSE as tx computes them), feeds its results
    and dO to the second, and checks the gradients it returns."""
    dt = a.dtype
    t = lambda x: nc.ttype(x[1], x[2], x[3])
    B, H, Sq, Dv = a.B, a.H, a.Sq, a.Dv
    otype = t(do_arg)
    ltype = nc.ttype([B, H, Sq], "f32", do_arg[3][:3] if do_arg[3] else None)
    sig = ", ".join("%%%s: %s" % (x[0], t(x)) for x in args)
    op = "tx.attention %%q, %%k%s : %s -> %s" % (
        ", %v" + clauses, ", ".join(t(x) for x in args[:3]), otype)
    types = ", ".join(t(x) for x in args)
    rtypes = [nc.ttype(s, e, dd) for _, s, e, dd, _ in results]
    # Declared so that @main verifies; the pass replaces the declarations.
    lines = ["func.func @tx_case(%s) -> %s {" % (sig, otype), "  %o = " + op,
             "  return %%o : %s" % otype, "}", "",
             "func.func private @tx_case__tx_fwd(%s) -> (%s, %s)" % (types, otype, ltype),
             "func.func private @tx_case__tx_bwd(%s, %s, %s, %s) -> (%s)" % (
                 types, otype, ltype, otype, ", ".join(rtypes)),
             "", "func.func @main() {"]
    call = []
    for x, c in zip(args + [do_arg], consts + [do_const]):
        n, dd = x[0], x[3]
        lines.append("  %%%s_s = arith.constant %s" % (n, c))
        if dd and any(dd):
            lines.append("  %%%s_d = tensor.cast %%%s_s : %s to %s" %
                         (n, n, nc.ttype(x[1], x[2]), t(x)))
            call.append("%%%s_d" % n)
        else:
            call.append("%%%s_s" % n)
    lines.append("  %%o, %%lse = call @tx_case__tx_fwd(%s) : (%s) -> (%s, %s)" % (
        ", ".join(call[:-1]), types, otype, ltype))
    outs = ", ".join("%%out%d" % i for i in range(len(results)))
    lines.append("  %s = call @tx_case__tx_bwd(%s, %%o, %%lse, %s) : (%s, %s, %s, %s) -> (%s)" % (
        outs, ", ".join(call[:-1]), call[-1], types, otype, ltype, otype, ", ".join(rtypes)))
    return finish_main(a, lines, results, rtypes)


def case_softmax_grad(a, rng):
    shape = nc.parse_shape(a.shape)
    rank = len(shape)
    dim = a.dim + rank if a.dim < 0 else a.dim
    lo, hi = nc.parse_range(a.range)
    x = nc.draw(rng, nc.prod(shape), lo, hi, a.dtype)
    n, inner = shape[dim], nc.prod(shape[dim + 1:])
    for r in a.neginf_row:  # an all -inf row: Y is NaN there
        o, i = divmod(r, inner)
        for j in range(n):
            x[o * n * inner + j * inner + i] = NEG_INF
    y = [NAN if t != t else nc.round_to(t, a.dtype)
         for t in nc.softmax_ref(x, shape, dim)]
    dy = nc.draw(rng, nc.prod(shape), lo, hi, a.dtype)
    ref = softmax_grad_ref(y, dy, shape, dim)
    dd = [True] * rank if a.dynamic else None
    t = nc.ttype(shape, a.dtype, dd)
    args = [("y", shape, a.dtype, dd), ("dy", shape, a.dtype, dd)]
    consts = [nc.dense_float(y, a.dtype, shape), nc.dense_float(dy, a.dtype, shape)]
    op = "tx.softmax_grad %%y, %%dy dim = %d : %s" % (a.dim, t)
    return emit(a, args, consts, op, [("dx", shape, a.dtype, dd, ref)])


def case_attention_grad(a, rng):
    nc_defaults(a)
    q, k, v, mask, mshape, scale = nc.draw_attention(a, rng)
    if a.fd_check:
        return fd_check(a, rng, q, k, v, mask, mshape, scale)
    B, H, Hkv, Sq, Sk, D, Dv, dt = a.B, a.H, a.Hkv, a.Sq, a.Sk, a.D, a.Dv, a.dtype
    o64, lse64 = forward(a, q, k, v, mask, mshape, scale)
    o = [nc.round_to(x, dt) for x in o64]
    lse = [x if x == NEG_INF else nc.round_f32(x) for x in lse64]
    lo, hi = nc.parse_range(a.range)
    do = nc.draw(rng, len(o), lo, hi, dt)
    dq, dk, dv, dm = attention_grad_ref(a, q, k, v, mask, mshape, scale, o, lse, do)
    args, consts, clauses = nc.attention_operands(a, q, k, v, mask, mshape)
    alld = [True, not a.static_heads, True, True] if a.dynamic else None
    qs, ks, vs, os_ = [B, H, Sq, D], [B, Hkv, Sk, D], [B, Hkv, Sk, Dv], [B, H, Sq, Dv]
    if a.derived:
        results = [("dq", qs, dt, alld, dq), ("dk", ks, dt, alld, dk),
                   ("dv", vs, dt, alld, dv)]
        if a.mask == "add":
            results.insert(3, ("dmask", mshape, dt, args[3][3], dm))
        return emit_derived(a, args, consts, clauses, ("do", os_, dt, alld),
                            nc.dense_float(do, dt, os_), results)
    fwd = [("o", os_, dt, alld), ("do", os_, dt, alld),
           ("lse", [B, H, Sq], "f32", alld[:3] if alld else None)]
    args = args[:3] + fwd + args[3:]
    consts = consts[:3] + [nc.dense_float(o, dt, os_), nc.dense_float(do, dt, os_),
                           nc.dense_float(lse, "f32", [B, H, Sq])] + consts[3:]
    results = [("dq", qs, dt, alld, dq), ("dk", ks, dt, alld, dk),
               ("dv", vs, dt, alld, dv)]
    if a.grad_mask:
        mdd = args[6][3]
        results.append(("dmask", mshape, dt, mdd, dm))
    types = ", ".join(nc.ttype(s, e, dd) for _, s, e, dd in args[:6])
    rtypes = ", ".join(nc.ttype(s, e, dd) for _, s, e, dd, _ in results)
    op = "tx.attention_grad %%q, %%k, %%v, %%o, %%do, %%lse%s : %s -> %s" % (
        clauses, types, rtypes)
    return emit(a, args, consts, op, results)


def nc_defaults(a):
    if a.Hkv is None:
        a.Hkv = a.H
    if a.Dv is None:
        a.Dv = a.D
    if a.Hkv <= 0 or a.H % a.Hkv:
        sys.exit("H must be a multiple of Hkv > 0")
    if a.grad_mask and a.mask != "add":
        sys.exit("--grad-mask needs --mask add")


def fd_check(a, rng, q, k, v, mask, mshape, scale):
    """Central differences of L = sum(O * dO) (float64) against the formulas."""
    lo, hi = nc.parse_range(a.range)
    o, lse = forward(a, q, k, v, mask, mshape, scale)
    do = [rng.uniform(lo, hi) for _ in o]
    grads = attention_grad_ref(a, q, k, v, mask, mshape, scale, o, lse, do)
    tensors = [q, k, v] + ([mask] if mask is not None and a.mask == "add" else [])
    eps, worst = 1e-6, 0.0
    scale_of = max(1e-3, max(abs(g) for gs in grads for g in gs))

    def loss():
        out, _ = forward(a, q, k, v, mask, mshape, scale)
        return math.fsum(x * y for x, y in zip(out, do))

    for t, g in zip(tensors, grads):
        for n in range(len(t)):
            x = t[n]
            if x != x or abs(x) == float("inf"):
                continue  # padding or a hidden -inf entry: no derivative
            t[n] = x + eps
            up = loss()
            t[n] = x - eps
            down = loss()
            t[n] = x
            worst = max(worst, abs((up - down) / (2 * eps) - g[n]) / scale_of)
    ok = 1 if worst <= 1e-6 else 0
    return "fd-check %s: maxerr %.3e ok %d\n" % (a.name, worst, ok)


def main():
    p = nc.argparse.ArgumentParser(
        description=__doc__, formatter_class=nc.argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="op", required=True)

    def common(sp):
        sp.add_argument("--dtype", choices=["f32", "f16", "bf16"], default="f32")
        sp.add_argument("--seed", type=int, default=1)
        sp.add_argument("--range", default="-3,3", help="lo,hi of the uniform inputs")
        sp.add_argument("--tol", type=float, default=None)
        sp.add_argument("--dynamic", action="store_true")
        sp.add_argument("--name", default=None)
        sp.add_argument("--verbose", action="store_true")

    s = sub.add_parser("softmax_grad")
    common(s)
    s.add_argument("--shape", required=True)
    s.add_argument("--dim", type=int, default=-1)
    s.add_argument("--neginf-row", type=int, action="append", default=[],
                   help="row R of X all -inf (Y NaN there)")

    t = sub.add_parser("attention_grad")
    common(t)
    for dim_name in ["B", "H", "Sq", "Sk", "D"]:
        t.add_argument("--" + dim_name, type=int, required=True)
    t.add_argument("--Hkv", type=int, default=None)
    t.add_argument("--Dv", type=int, default=None)
    t.add_argument("--static-heads", action="store_true")
    t.add_argument("--causal", action="store_true")
    t.add_argument("--window", type=lambda x: tuple(int(v) for v in x.split(",")),
                   default=None)
    t.add_argument("--scale", type=float, default=None)
    t.add_argument("--softcap", type=float, default=None)
    t.add_argument("--mask", choices=["none", "keep", "add"], default="none")
    t.add_argument("--mask-bcast", default="1,1")
    t.add_argument("--keep-prob", type=float, default=0.7)
    t.add_argument("--mask-range", default="-2,2")
    t.add_argument("--mask-neginf", type=float, default=0.0)
    t.add_argument("--masked-row", type=int, action="append", default=[])
    t.add_argument("--first-keys-masked", type=int, action="append", default=[])
    ints = lambda x: [int(v) for v in x.split(",")]
    t.add_argument("--kv-lengths", type=ints, default=None)
    t.add_argument("--q-lengths", type=ints, default=None)
    t.add_argument("--garbage-padding", action="store_true")
    t.add_argument("--grad-mask", action="store_true",
                   help="also request and check the additive mask's gradient")
    t.add_argument("--fd-check", action="store_true",
                   help="check the float64 formulas against finite differences")
    t.add_argument("--derived", action="store_true",
                   help="emit the forward tx.attention and check the gradients of the "
                        "entry points tx-derive-gradients adds (run with it)")
    a = p.parse_args()
    a.lse, a.corrupt_ref = False, None
    rng = random.Random(a.seed)
    if a.name is None:
        a.name = "%s_%s_seed%d" % (a.op, a.dtype, a.seed)
    if a.op == "softmax_grad":
        sys.stdout.write(case_softmax_grad(a, rng))
    else:
        sys.stdout.write(case_attention_grad(a, rng))


if __name__ == "__main__":
    main()
