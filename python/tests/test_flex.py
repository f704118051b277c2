#!/usr/bin/env python3
"""tx.flex on the CPU: FlexAttention-style Python score and mask functions
traced into tx.attention's regions (python/tx/_trace.py), run through
tx-opt --tx-cpu-pipeline (the reference lowering and the tiled path) and
mlir-runner, and compared in the program with a float64 reference that
PyTorch computes by calling the same Python functions on index tensors
(the user's own code, not the traced IR, is the reference).

    test_flex.py --tx-opt build/bin/tx-opt [--mlir-lib-dir DIR] [--only NAME] [--keep DIR]

Prints one line per case and pipeline, "case <name> <pipeline>: relerr <x>
ok <1|0>", and "FAILED" lines for cases whose ok differs from the expected
one (one case drops score_mod from its reference and must fail).
"""
import argparse
import math
import os
import subprocess
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "test", "Execution", "Inputs"))
import numeric_case as N  # noqa: E402  (the in-MLIR comparison, dense constants)
import tx.flex as F  # noqa: E402
from tx._trace import _DTYPES  # noqa: E402

ELT = {torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32"}
PIPELINES = [("ref", "--tx-cpu-pipeline"),
             ("tiled", "--tx-cpu-pipeline=attention=tiled attention-q-tile=4 attention-kv-tile=8")]


def dense(t):
    """`dense<...> : tensor<...>` of a CPU tensor of any captured dtype."""
    shape = "x".join(str(s) for s in t.shape)
    elt = _DTYPES[str(t.dtype).split(".")[-1]]
    ty = "tensor<%s%s>" % (shape + "x" if shape else "", elt)
    if elt == "i1":
        return "dense<[%s]> : %s" % (", ".join("true" if x else "false" for x in
                                               t.flatten().tolist()), ty) if t.dim() else \
            "dense<%s> : %s" % ("true" if t.item() else "false", ty)
    raw = t.contiguous().view(torch.int16 if elt in ("f16", "bf16") else t.dtype)
    data = raw.numpy().tobytes()
    if not t.dim():
        return "dense<%s> : %s" % (repr(t.item()) if elt[0] == "f" else int(t.item()), ty)
    return 'dense<"0x%s"> : %s' % (data.hex().upper(), ty)


def reference(q, k, v, score_mod, mask_mod, scale, causal):
    """float64 attention with the user's functions applied to the whole
    score matrix (index tensors broadcast like FlexAttention's vmap)."""
    B, H, Sq, D = q.shape
    Hkv, Sk = k.shape[1], k.shape[2]
    kf = k.double().repeat_interleave(H // Hkv, dim=1)
    vf = v.double().repeat_interleave(H // Hkv, dim=1)
    s = q.double() @ kf.transpose(-1, -2) * (scale if scale is not None else 1 / math.sqrt(D))
    b = torch.arange(B).view(B, 1, 1, 1)
    h = torch.arange(H).view(1, H, 1, 1)
    i = torch.arange(Sq).view(1, 1, Sq, 1)
    j = torch.arange(Sk).view(1, 1, 1, Sk)
    if score_mod is not None:
        s = (score_mod(s, b, h, i, j) + torch.zeros_like(s)).double()
    visible = torch.ones(B, H, Sq, Sk, dtype=torch.bool)
    if mask_mod is not None:
        visible = visible & mask_mod(b, h, i, j)
    if causal:
        visible = visible & (j <= i + Sk - Sq)
    s = s.masked_fill(~visible, float("-inf"))
    m = s.amax(-1, keepdim=True).clamp(min=-1e300)
    p = torch.exp(s - m)
    l = p.sum(-1, keepdim=True)
    return torch.where(l > 0, (p @ vf) / l.clamp(min=1e-300), torch.zeros(()).double())


def program(src, q, k, v, ref, name, tol):
    """The traced function and a @main that calls it on constants and
    compares with ref in the program (numeric_case.emit_check)."""
    lines = [src.text, "func.func @main() {"]
    args, types_ = [], []
    for n, t in (("q", q), ("k", k), ("v", v)):
        st = "tensor<%sx%s>" % ("x".join(map(str, t.shape)), ELT[t.dtype])
        dt = "tensor<?x%dx?x%dx%s>" % (t.shape[1], t.shape[3], ELT[t.dtype])
        lines.append("  %%in_%s_s = arith.constant %s" % (n, dense(t)))
        lines.append("  %%in_%s = tensor.cast %%in_%s_s : %s to %s" % (n, n, st, dt))
        args.append("%in_" + n)
        types_.append(dt)
    for c, t in enumerate(src.captures):
        text = dense(t)
        lines.append("  %%in_cap%d = arith.constant %s" % (c, text))
        args.append("%%in_cap%d" % c)
        types_.append(text.split(" : ")[-1])
    shape = list(q.shape[:3]) + [v.shape[3]]
    elt = ELT[q.dtype]
    dt = "tensor<?x%dx?x%dx%s>" % (shape[1], shape[3], elt)
    lines.append("  %%out_d = call @%s(%s) : (%s) -> %s" % (src.name, ", ".join(args),
                                                         ", ".join(types_), dt))
    lines.append("  %%os = tensor.cast %%out_d : %s to %s" % (dt, N.ttype(shape, elt)))
    N.emit_check(lines, name, "%os", shape, elt, ref.flatten().tolist(), tol, False)
    return "\n".join(lines) + "\n"


def grad_program(src, q, k, v, do, refs, name, tol):
    """The traced forward (@attention), declarations of the functions
    tx-derive-gradients adds (@attention__tx_fwd: O and the LSE;
    @attention__tx_bwd: dQ, dK, dV), and a @main that runs both on
    constants and checks each gradient against refs (grad_case's checks)."""
    import grad_case as G
    elt = ELT[q.dtype]
    dyn = lambda t: "tensor<?x%dx?x%dx%s>" % (t.shape[1], t.shape[3], elt)
    caps = [dense(t) for t in src.captures]
    types = [dyn(q), dyn(k), dyn(v)] + [c.split(" : ")[-1] for c in caps]
    otype, ltype = dyn(do), "tensor<?x%dx?xf32>" % q.shape[1]
    lines = [src.text,
             "func.func private @attention__tx_fwd(%s) -> (%s, %s)" % (
                 ", ".join(types), otype, ltype),
             "func.func private @attention__tx_bwd(%s, %s, %s, %s) -> (%s)" % (
                 ", ".join(types), otype, ltype, otype, ", ".join(types[:3])),
             "func.func @main() {"]
    args = []
    for n, t in (("q", q), ("k", k), ("v", v), ("do", do)):
        st = "tensor<%sx%s>" % ("x".join(map(str, t.shape)), elt)
        lines.append("  %%in_%s_s = arith.constant %s" % (n, dense(t)))
        lines.append("  %%in_%s = tensor.cast %%in_%s_s : %s to %s" % (n, n, st, dyn(t)))
        args.append("%in_" + n)
    for c, text in enumerate(caps):
        lines.append("  %%in_cap%d = arith.constant %s" % (c, text))
    fwd_args = args[:3] + ["%%in_cap%d" % c for c in range(len(caps))]
    lines.append("  %%o, %%lse = call @attention__tx_fwd(%s) : (%s) -> (%s, %s)" % (
        ", ".join(fwd_args), ", ".join(types), otype, ltype))
    lines.append("  %%g:3 = call @attention__tx_bwd(%s, %%o, %%lse, %%in_do) : "
                 "(%s, %s, %s, %s) -> (%s)" % (", ".join(fwd_args), ", ".join(types),
                                               otype, ltype, otype, ", ".join(types[:3])))
    a = argparse.Namespace(tol=tol, verbose=False, dtype=elt)
    for i, (suffix, t, ref) in enumerate(zip(("dq", "dk", "dv"), (q, k, v), refs)):
        st = "tensor<%sx%s>" % ("x".join(map(str, t.shape)), elt)
        lines.append("  %%gs%d = tensor.cast %%g#%d : %s to %s" % (i, i, dyn(t), st))
        lines += G.check_lines(a, "%s/%s" % (name, suffix), "%%gs%d" % i, list(t.shape),
                               elt, ref.flatten().tolist(), suffix)
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def reference_grads(q, k, v, do, score_mod, mask_mod, scale, causal):
    """dQ, dK, dV of sum(O * dO) by PyTorch's float64 autograd through
    reference() (the user's functions included)."""
    q64, k64, v64 = (t.double().requires_grad_() for t in (q, k, v))
    o = reference(q64, k64, v64, score_mod, mask_mod, scale, causal)
    (o * do.double()).sum().backward()
    return q64.grad, k64.grad, v64.grad


def run(text, pipeline, tx_opt, libdir, keep, tag, then=None):
    if keep:
        with open(os.path.join(keep, tag + ".mlir"), "w") as f:
            f.write(text)
    low = subprocess.run([tx_opt, pipeline] + ([then] if then else []), input=text,
                         capture_output=True, text=True)
    if low.returncode:
        return "tx-opt failed: " + low.stderr[-2000:]
    r = subprocess.run(["mlir-runner", "-e", "main", "-entry-point-result=void",
                        "-shared-libs=%s/libmlir_runner_utils.so,%s/libmlir_c_runner_utils.so"
                        % (libdir, libdir)], input=low.stdout, capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else "mlir-runner failed: " + r.stderr[-2000:]


GEN = torch.Generator().manual_seed(4242)


def rand(*shape, dtype=torch.float32, lo=-1.0, hi=1.0):
    return (torch.rand(*shape, generator=GEN) * (hi - lo) + lo).to(dtype)


def qkv(B, H, Hkv, Sq, Sk, D, dtype, Dv=None):
    return (rand(B, H, Sq, D, dtype=dtype), rand(B, Hkv, Sk, D, dtype=dtype),
            rand(B, Hkv, Sk, Dv or D, dtype=dtype))


# Module-level captures (read as globals by the functions below).
SLOPES = torch.exp2(-8.0 * torch.arange(1, 9, dtype=torch.float32) / 8)
DOC = torch.tensor([0] * 5 + [1] * 1 + [2] * 11 + [3] * 7 + [4] * 7, dtype=torch.int32)


def alibi(score, b, h, q_idx, kv_idx):
    return score + SLOPES[h] * (kv_idx - q_idx)


def document_causal(b, h, q_idx, kv_idx):
    return (DOC[q_idx] == DOC[kv_idx]) & (kv_idx <= q_idx)


def make_relbias(H, R):
    table = rand(H, 2 * R + 1, dtype=torch.float16, lo=-2, hi=2)  # a closure capture, 2-D

    def relbias(score, b, h, q_idx, kv_idx):
        return score + table[h, torch.clamp(kv_idx - q_idx, -R, R) + R]
    return relbias


def softcap(score, b, h, q_idx, kv_idx):
    return 30.0 * torch.tanh(score / 30.0)


def prefix_lm(b, h, q_idx, kv_idx):
    return (kv_idx < 5) | (kv_idx <= q_idx)


def window_abs(b, h, q_idx, kv_idx):
    return torch.abs(q_idx - kv_idx) <= 3


def floor_mod(score, b, h, q_idx, kv_idx):
    # Python's // and % on negative values (kv_idx - q_idx < 0).
    w = torch.where((kv_idx - q_idx) % 5 == 2, score * 0.5, score - 1.0)
    return w + ((kv_idx - 7 * q_idx) // 3) * 0.01 + (score % 0.75) * 0.1


def late_rows(b, h, q_idx, kv_idx):
    # Rows 0..4 see no key: zeros.
    return (q_idx >= 5) & (kv_idx <= q_idx) & (b + h >= 0)


TEMP = torch.tensor(0.75, dtype=torch.float64)  # a 0-d capture: a scalar


def gated(score, b, h, q_idx, kv_idx):
    g = torch.sigmoid(SLOPES[h] * 4.0 - 1.0)
    return torch.maximum(score * TEMP + torch.log(g), score.exp() - 3.0) ** 2 - score.abs()


T5 = rand(8, 16, lo=-1, hi=1)  # a T5-style bucketed bias [H, buckets]


def t5_bucket(score, b, h, q_idx, kv_idx):
    # log-spaced buckets of |kv - q| (float -> integer by .long(), truncation)
    rel = (kv_idx - q_idx).abs()
    bucket = torch.clamp((torch.log(rel.float() + 1.0) * 4.0).long(), max=15)
    return score + T5[h, bucket]


def math_fns(score, b, h, q_idx, kv_idx):
    # torch.erf, torch.fmod (C's: float and integer), isinf / isnan /
    # isfinite (arith.remf, math.erf, math.isinf: tx-expand-math and the
    # pipelines' math lowerings).
    d = kv_idx - q_idx
    diag = torch.isinf(torch.log(torch.abs(d).float()))  # log 0 = -inf
    neg = torch.isnan(torch.sqrt(score))
    return (score + 0.5 * torch.erf(score) + 0.1 * torch.fmod(score * 3.0, 0.7)
            + torch.where(diag, 0.3, 0.0) + torch.where(neg, -0.2, 0.1)
            + 0.05 * torch.fmod(d, 3) + torch.where(torch.isfinite(score), 0.0, 9.0))


def batch_head(b, h, q_idx, kv_idx):
    return ((b * 3 + h) % 4 != 1) | (kv_idx == 0)


def cases():
    """(name, q, k, v, score_mod, mask_mod, scale, causal, expect_ok, ref_score_mod)."""
    c = []
    q, k, v = qkv(2, 8, 2, 9, 21, 16, torch.float32)
    c.append(("alibi_gqa_causal_f32", q, k, v, alibi, None, None, True))
    q, k, v = qkv(1, 3, 3, 31, 31, 16, torch.float16)
    c.append(("document_f16", q, k, v, None, document_causal, None, False))
    q, k, v = qkv(2, 4, 4, 7, 17, 8, torch.bfloat16)
    c.append(("relbias_table_bf16", q, k, v, make_relbias(4, 5), None, 0.3, False))
    q, k, v = qkv(1, 2, 1, 13, 19, 32, torch.float32)
    q = q * 8  # large scores: the cap matters
    c.append(("softcap_gqa_f32", q, k, v, softcap, None, None, False))
    q, k, v = qkv(2, 2, 2, 16, 16, 8, torch.float16, Dv=24)
    c.append(("prefix_lm_f16_dv24", q, k, v, None, prefix_lm, None, False))
    q, k, v = qkv(1, 2, 2, 20, 20, 8, torch.float32)
    c.append(("window_abs_f32", q, k, v, None, window_abs, None, False))
    q, k, v = qkv(1, 2, 2, 11, 23, 8, torch.float32)
    c.append(("floor_mod_f32", q, k, v, floor_mod, None, None, False))
    q, k, v = qkv(2, 3, 1, 12, 12, 8, torch.bfloat16)
    c.append(("late_rows_both_bf16", q, k, v, alibi_h3, late_rows, None, False))
    q, k, v = qkv(2, 8, 4, 6, 10, 8, torch.float32)
    c.append(("gated_batch_head_f32", q, k, v, gated, batch_head, 0.5, False))
    q, k, v = qkv(1, 8, 2, 9, 40, 8, torch.float32)
    c.append(("t5_bucket_f32", q, k, v, t5_bucket, None, None, True))
    q, k, v = qkv(2, 2, 2, 11, 17, 8, torch.float32)
    c.append(("math_fns_f32", q, k, v, math_fns, None, None, False))
    return c


SLOPES3 = torch.tensor([0.5, -0.25, 1.0])


def alibi_h3(score, b, h, q_idx, kv_idx):
    return score - SLOPES3[h] * (q_idx - kv_idx)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tx-opt", required=True)
    ap.add_argument("--mlir-lib-dir", default="/usr/lib/llvm-22/lib",
                    help="where libmlir_runner_utils.so lies (mlir-runner comes from PATH)")
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--keep", default=None, help="write each program here")
    a = ap.parse_args()
    failed = 0
    todo = [x + (1, x[4]) for x in cases()]
    # The self-test: ALiBi checked against a reference without it must fail.
    first = cases()[0]
    todo.append(("alibi_dropped_from_ref",) + first[1:] + (0, None))
    for name, q, k, v, sm, mm, scale, causal, expect, ref_sm in todo:
        if a.only and not any(o in name for o in a.only):
            continue
        src = F.attention_source(q, k, v, sm, mm, scale=scale, causal=causal, name="attention")
        ref = reference(q, k, v, ref_sm, mm, scale, causal)
        tol = N.DEFAULT_TOL[ELT[q.dtype]]
        for pname, pipeline in PIPELINES:
            tag = "%s %s" % (name, pname)
            out = run(program(src, q, k, v, ref, tag, tol), pipeline, a.tx_opt, a.mlir_lib_dir, a.keep,
                      tag.replace(" ", "_"))
            print(out)
            ok = out.endswith(" ok 1")
            if ok != bool(expect) or "relerr" not in out:
                failed += 1
                print("FAILED: %s (expected ok %d)" % (tag, expect))
    failed += grad_cases(a)
    print("%d failed" % failed)
    return 1 if failed else 0


def grad_cases(a):
    """Gradients through the score and mask functions: tx-derive-gradients
    builds the backward (the score function's derivative generated by tx)
    and tx-cpu-pipeline runs it; PyTorch's float64 autograd of the same
    Python functions is the reference."""
    failed = 0
    todo = [x for x in cases() if x[0] in GRAD_CASES]
    first = todo[0]
    todo = [x + (1, x[4]) for x in todo]
    todo.append(("alibi_grad_dropped_from_ref",) + first[1:] + (0, None))
    for name, q, k, v, sm, mm, scale, causal, expect, ref_sm in todo:
        if a.only and not any(o in name for o in a.only):
            continue
        do = rand(*q.shape[:3], v.shape[3], dtype=q.dtype)
        src = F.attention_source(q, k, v, sm, mm, scale=scale, causal=causal, name="attention")
        refs = reference_grads(q, k, v, do, ref_sm, mm, scale, causal)
        tol = GRAD_TOL[ELT[q.dtype]]
        text = grad_program(src, q, k, v, do, refs, "grad_" + name, tol)
        out = run(text, "--tx-derive-gradients", a.tx_opt, a.mlir_lib_dir, a.keep,
                  "grad_" + name, then="--tx-cpu-pipeline")
        print(out)
        lines = [ln for ln in out.splitlines() if " ok " in ln]
        ok = len(lines) == 3 and all(ln.endswith(" ok 1") for ln in lines)
        bad = len(lines) == 3 and all(ln.endswith(" ok 0") for ln in lines[:2])
        if (expect and not ok) or (not expect and not bad):
            failed += 1
            print("FAILED: grad %s (expected ok %d)" % (name, expect))
    return failed


# Functions whose gradients the CPU path checks (the score function's
# derivative: 1 for ALiBi and the bias table, 1 - tanh² for softcap,
# through where/maximum/exp/log/sigmoid/**/abs for gated; masks hide keys).
GRAD_CASES = ("alibi_gqa_causal_f32", "softcap_gqa_f32", "gated_batch_head_f32",
              "floor_mod_f32", "document_f16", "relbias_table_bf16", "t5_bucket_f32")
GRAD_TOL = {"f32": 1e-5, "f16": 3e-3, "bf16": 2e-2}


if __name__ == "__main__":
    sys.exit(main())
