#!/usr/bin/env python3
"""Emits one self-checking MLIR case of tx.merge_attention_states (the
checks and the module of numeric_case.py).

Each row of [B, H, S] gets two disjoint random key sets (1-6 keys each, f64
scores and Dv-wide values); part x's output is softmax(s_x) . v_x rounded
to the element type, its log-sum-exp logsumexp(s_x) rounded to f32. The
reference is attention over the union of both key sets in float64 (the
output, or with --lse the log-sum-exp). --empty-a ROW: part a saw no key in
that row (LSE -inf, its output NaN garbage); --empty-both ROW: neither did
(reference 0 and -inf).

Usage: merge_case.py --B 2 --H 3 --S 4 --Dv 8 --dtype f16 [--lse] ...
"""
import argparse
import math
import random
import sys

import numeric_case as nc

NEG_INF = float("-inf")


def part(rng, n, dv):
    """(out, lse) in float64 of one random key set of n keys."""
    s = [rng.uniform(-4, 4) for _ in range(n)]
    v = [[rng.uniform(-3, 3) for _ in range(dv)] for _ in range(n)]
    m = max(s)
    w = [math.exp(x - m) for x in s]
    z = sum(w)
    out = [sum(w[j] * v[j][e] for j in range(n)) / z for e in range(dv)]
    return s, v, out, m + math.log(z)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    for d in ("B", "H", "S", "Dv"):
        p.add_argument("--" + d, type=int, required=True)
    p.add_argument("--dtype", choices=["f32", "f16", "bf16"], default="f32")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--lse", action="store_true", help="check the merged LSE")
    p.add_argument("--dynamic", action="store_true")
    p.add_argument("--empty-a", type=int, action="append", default=[])
    p.add_argument("--empty-both", type=int, action="append", default=[])
    p.add_argument("--tol", type=float, default=None)
    p.add_argument("--name", default="merge")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--corrupt-ref", default=None)
    a = p.parse_args()
    rng = random.Random(a.seed)
    rows, dv, dt = a.B * a.H * a.S, a.Dv, a.dtype
    oa, ob, la, lb, ref_o, ref_l = [], [], [], [], [], []
    for r in range(rows):
        sa, va, out_a, lse_a = part(rng, rng.randint(1, 6), dv)
        sb, vb, out_b, lse_b = part(rng, rng.randint(1, 6), dv)
        s, v = sa + sb, va + vb
        if r in a.empty_a or r in a.empty_both:
            out_a, lse_a, s, v = [float("nan")] * dv, NEG_INF, sb, vb
        if r in a.empty_both:
            out_b, lse_b = [float("nan")] * dv, NEG_INF
            ref_o += [0.0] * dv
            ref_l.append(NEG_INF)
        else:
            m = max(s)
            w = [math.exp(x - m) for x in s]
            z = sum(w)
            ref_o += [sum(w[j] * v[j][e] for j in range(len(s))) / z for e in range(dv)]
            ref_l.append(m + math.log(z))
        oa += [nc.round_to(x, dt) for x in out_a]
        ob += [nc.round_to(x, dt) for x in out_b]
        la.append(nc.round_f32(lse_a))
        lb.append(nc.round_f32(lse_b))
    os_, ls = [a.B, a.H, a.S, dv], [a.B, a.H, a.S]
    od = [True] * 4 if a.dynamic else None
    ld = [True] * 3 if a.dynamic else None
    args = [("oa", os_, dt, od), ("la", ls, "f32", ld), ("ob", os_, dt, od), ("lb", ls, "f32", ld)]
    consts = [nc.dense_float(oa, dt, os_), nc.dense_float(la, "f32", ls),
              nc.dense_float(ob, dt, os_), nc.dense_float(lb, "f32", ls)]
    ot, lt = nc.ttype(os_, dt, od), nc.ttype(ls, "f32", ld)
    pick, rt, rshape, rdt, rdyn, ref = ((1, lt, ls, "f32", ld, ref_l) if a.lse
                                        else (0, ot, os_, dt, od, ref_o))
    op = ("tx.merge_attention_states %%oa, %%la, %%ob, %%lb : %s, %s\n"
          "  %%r = tensor.cast %%rr#%d : %s to %s" % (ot, lt, pick, rt, rt))
    a.op = "merge"
    sys.stdout.write(nc.emit_module(a, args, op, rshape, rdt, consts, ref, rdyn, multi=True))


if __name__ == "__main__":
    main()
