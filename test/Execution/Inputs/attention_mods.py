"""Score and mask functions for numeric_case.py's attention cases
(tx.attention's `score_mod` / `mask_mod` regions, TxOps.td "Score and mask
functions"; issue #42).

--mod NAME adds one region to the op, with the captured operands it reads,
and gives the float64 reference the same function:

  alibi      score + slopes[h] * (kv_idx - q_idx)           (slopes f32 [H])
  relbias    score + bias[clamp(kv_idx - q_idx, -R, R) + R] (bias f16 [2R+1])
  softcap    c * tanh(score / c), c = --mod-arg            (= softcap = c)
  document   doc[q_idx] == doc[kv_idx]                      (doc i32 [Sq], Sq == Sk)
  prefix     kv_idx < P or kv_idx <= q_idx + Sk - Sq, P = --mod-arg (prefix-LM)
  causal     kv_idx <= q_idx + Sk - Sq                      (= causal)
  window     |band| as window = [L, R] from --mod-window    (= window)
  mathops    the math ops upstream does not lower everywhere (tx-expand-math,
             tx-gpu-libdevice-calls): r = clampf(score, -2.5, 2.5)
             + remf(score, 1.5) + erf(score) / 4 + cbrt(score) / 10
             + ipowi(kv_idx % 4, 2) / 100, then select(isinf(r * 1e30 * 1e30),
             r, score) + select(isinf(score), 100, 0)

`causal`, `window` and `softcap` are the attributes written as regions:
their reference is the attribute's own code in attention_ref, so a passing
case shows the region and the attribute agree. prefix, causal and window
need static Sq and Sk (the offset Sk - Sq is a constant in the body).
"""
import argparse
import math
import sys


def add_arguments(t):
    t.add_argument("--mod", choices=["alibi", "relbias", "softcap", "document", "prefix",
                                     "causal", "window", "mathops"], default=None,
                   help="a score_mod / mask_mod region (attention_mods.py)")
    t.add_argument("--mod-arg", type=float, default=None,
                   help="softcap's c, prefix's P")
    t.add_argument("--mod-window", type=lambda x: tuple(int(v) for v in x.split(",")),
                   default=None, help="window's L,R (>= 0 each)")
    t.add_argument("--mod-drop-from-ref", action="store_true",
                   help="a self-test: the reference without the region (the case must fail)")


def prepare(a, rng, round_f32, round_to):
    """Draws the captured tensors; sets the reference's attributes for the
    region forms of causal / window / softcap."""
    a.mod_consts = []
    if a.mod is None:
        return
    if a.mod in ("prefix", "causal", "window") and a.dynamic:
        sys.exit("--mod %s needs static shapes" % a.mod)
    if a.mod == "alibi":
        a.slopes = [round_f32(2.0 ** (-8.0 * (h + 1) / a.H)) for h in range(a.H)]
    elif a.mod == "relbias":
        a.rel_r = 5
        a.bias = [round_to(rng.uniform(-2, 2), "f16") for _ in range(2 * a.rel_r + 1)]
    elif a.mod == "document":
        if a.Sq != a.Sk:
            sys.exit("--mod document needs Sq == Sk")
        docs, d = [], 0
        while len(docs) < a.Sq:  # documents of random lengths 1..Sq/2
            n = rng.randint(1, max(1, a.Sq // 2))
            docs += [d] * n
            d += 1
        a.docs = docs[:a.Sq]
    elif a.mod == "softcap":
        a.softcap_region = round_f32(a.mod_arg)
    elif a.mod == "window" and (not a.mod_window or min(a.mod_window) < 0):
        sys.exit("--mod window needs --mod-window L,R with L, R >= 0")


def reference_args(a):
    """The arguments the float64 reference runs with: for the region forms
    of causal, window and softcap, the attribute itself (so the case checks
    region == attribute), else `a`."""
    if a.mod not in ("causal", "window", "softcap") and not a.mod_drop_from_ref:
        return a
    r = argparse.Namespace(**vars(a))
    r.mod = None
    if a.mod_drop_from_ref:
        return r
    if a.mod == "causal":
        r.causal = True
    elif a.mod == "window":
        r.window = a.mod_window
    else:
        r.softcap = a.mod_arg
    return r


def score(a, x, b, h, i, j):
    """The reference's score function (float64), after the soft cap."""
    if a.mod == "alibi":
        return x + a.slopes[h] * (j - i)
    if a.mod == "relbias":
        return x + a.bias[max(-a.rel_r, min(a.rel_r, j - i)) + a.rel_r]
    if a.mod == "mathops":  # |r| * 1e60 overflows f32 unless r is ~0
        r = (max(-2.5, min(2.5, x)) + math.fmod(x, 1.5) + math.erf(x) / 4
             + math.copysign(abs(x) ** (1 / 3), x) / 10 + (j % 4) ** 2 / 100)
        return r if abs(r) > 1e-20 else x
    return x


def visible(a, b, h, i, j):
    """The reference's mask function."""
    if a.mod == "document":
        return a.docs[i] == a.docs[j]
    if a.mod == "prefix":
        return j < int(a.mod_arg) or j <= i + a.Sk - a.Sq
    return True


def operands(a, ttype, dense_float):
    """(args, consts, text) of the region: the @tx_case arguments and their
    constants for the captured tensors, and the op text after the clauses."""
    if a.mod is None:
        return [], [], ""
    idx = "^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index"
    midx = "^bb0(%b: index, %h: index, %i: index, %j: index"
    off = a.Sk - a.Sq
    if a.mod == "alibi":
        t = ttype([a.H], "f32")
        body = [
            "%sl = tensor.extract %c[%h] : " + t,
            "%ji = arith.index_cast %j : index to i64",
            "%ii = arith.index_cast %i : index to i64",
            "%d = arith.subi %ji, %ii : i64",
            "%df = arith.sitofp %d : i64 to f32",
            "%p = arith.mulf %sl, %df : f32",
            "%r = arith.addf %s, %p : f32",
            "tx.yield %r : f32"]
        return ([("slopes", [a.H], "f32", None)], [dense_float(a.slopes, "f32", [a.H])],
                region("score_mod(%%slopes : %s)" % t, idx + ", %c: " + t + "):", body))
    if a.mod == "relbias":
        n = 2 * a.rel_r + 1
        t = ttype([n], "f16")
        body = [
            f"%lo = arith.constant {-a.rel_r} : index",
            f"%hi = arith.constant {a.rel_r} : index",
            "%d = arith.subi %j, %i : index",
            "%d1 = arith.maxsi %d, %lo : index",
            "%d2 = arith.minsi %d1, %hi : index",
            "%t = arith.addi %d2, %hi : index",
            "%bh = tensor.extract %c[%t] : " + t,
            "%bf = arith.extf %bh : f16 to f32",
            "%r = arith.addf %s, %bf : f32",
            "tx.yield %r : f32"]
        return ([("bias", [n], "f16", None)], [dense_float(a.bias, "f16", [n])],
                region("score_mod(%%bias : %s)" % t, idx + ", %c: " + t + "):", body))
    if a.mod == "softcap":
        body = [
            f"%c = arith.constant {a.softcap_region!r} : f32",
            "%x = arith.divf %s, %c : f32",
            "%t = math.tanh %x : f32",
            "%r = arith.mulf %c, %t : f32",
            "tx.yield %r : f32"]
        return [], [], region("score_mod", idx + "):", body)
    if a.mod == "document":
        t = ttype([a.Sq], "i32")
        body = [
            "%di = tensor.extract %c[%i] : " + t,
            "%dj = tensor.extract %c[%j] : " + t,
            "%vis = arith.cmpi eq, %di, %dj : i32",
            "tx.yield %vis : i1"]
        docs = "dense<[%s]> : %s" % (", ".join(str(x) for x in a.docs), t)
        return ([("doc", [a.Sq], "i32", None)], [docs],
                region("mask_mod(%%doc : %s)" % t, midx + ", %c: " + t + "):", body))
    if a.mod == "mathops":
        body = [
            "%lo = arith.constant -2.5 : f32",
            "%hi = arith.constant 2.5 : f32",
            "%cl = math.clampf %s to [%lo, %hi] : f32",
            "%m = arith.constant 1.5 : f32",
            "%rm = arith.remf %s, %m : f32",
            "%e = math.erf %s : f32",
            "%four = arith.constant 4.0 : f32",
            "%e4 = arith.divf %e, %four : f32",
            "%cb = math.cbrt %s : f32",
            "%ten = arith.constant 10.0 : f32",
            "%cb10 = arith.divf %cb, %ten : f32",
            "%j32 = arith.index_cast %j : index to i32",
            "%c4 = arith.constant 4 : i32",
            "%jm = arith.remui %j32, %c4 : i32",
            "%c2 = arith.constant 2 : i32",
            "%p = math.ipowi %jm, %c2 : i32",
            "%pf = arith.sitofp %p : i32 to f32",
            "%hundred = arith.constant 100.0 : f32",
            "%pf100 = arith.divf %pf, %hundred : f32",
            "%r1 = arith.addf %cl, %rm : f32",
            "%r2 = arith.addf %r1, %e4 : f32",
            "%r3 = arith.addf %r2, %cb10 : f32",
            "%r = arith.addf %r3, %pf100 : f32",
            "%big = arith.constant 1.0e30 : f32",
            "%b1 = arith.mulf %r, %big : f32",
            "%b2 = arith.mulf %b1, %big : f32",
            "%over = math.isinf %b2 : f32",
            "%pick = arith.select %over, %r, %s : f32",
            "%sinf = math.isinf %s : f32",
            "%zero = arith.constant 0.0 : f32",
            "%add = arith.select %sinf, %hundred, %zero : f32",
            "%out = arith.addf %pick, %add : f32",
            "tx.yield %out : f32"]
        return [], [], region("score_mod", idx + "):", body)
    # Bands around the diagonal i + off.
    lo, hi = {"prefix": (None, 0), "causal": (None, 0)}.get(a.mod, (None, None))
    if a.mod == "window":
        lo, hi = a.mod_window
    body = [f"%off = arith.constant {off} : index",
            "%diag = arith.addi %i, %off : index",
            f"%hib = arith.constant {hi} : index",
            "%top = arith.addi %diag, %hib : index",
            "%vis = arith.cmpi sle, %j, %top : index"]
    if lo is not None:
        body += [f"%lob = arith.constant {lo} : index",
                 "%j2 = arith.addi %j, %lob : index",
                 "%vis2 = arith.cmpi sge, %j2, %diag : index",
                 "%vis3 = arith.andi %vis, %vis2 : i1"]
        body.append("tx.yield %vis3 : i1")
    elif a.mod == "prefix":
        body += [f"%pre = arith.constant {int(a.mod_arg)} : index",
                 "%inp = arith.cmpi slt, %j, %pre : index",
                 "%vis3 = arith.ori %vis, %inp : i1",
                 "tx.yield %vis3 : i1"]
    else:
        body.append("tx.yield %vis : i1")
    return [], [], region("mask_mod", midx + "):", body)


def region(head, block, body):
    return " %s {\n  %s\n%s\n  }" % (head, block, "\n".join("    " + l for l in body))
