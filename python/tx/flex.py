"""FlexAttention-style attention for PyTorch users: score and mask functions
written in Python, traced into ``tx.attention``'s ``score_mod`` /
``mask_mod`` regions and compiled into tx's kernels (issue #42).

    import torch, tx.flex
    slopes = torch.exp2(-8.0 * torch.arange(1, 17, device="cuda") / 16)

    def alibi(score, b, h, q_idx, kv_idx):
        return score + slopes[h] * (kv_idx - q_idx)

    def document(b, h, q_idx, kv_idx):
        return doc_ids[q_idx] == doc_ids[kv_idx]

    o = tx.flex.flex_attention(q, k, v, score_mod=alibi, mask_mod=document)

The functions take what FlexAttention's take: ``score_mod(score, b, h,
q_idx, kv_idx) -> new score`` (the score is ``f32``, after the scale) and
``mask_mod(b, h, q_idx, kv_idx) -> bool`` (True = the key is visible); the
indices are integers, ``h`` the query head. They are traced once (tx/_trace.py):
arithmetic, comparisons, ``&``, ``|``, ``~``, ``torch.where``,
``torch.minimum`` / ``maximum`` / ``clamp`` and the elementwise math
functions (``exp``, ``log``, ``tanh``, ``sigmoid``, ``sqrt``, ``abs``,
``floor``...) become IR; a torch tensor the function reads by a name of its
closure or module (``slopes``, ``doc_ids``) becomes a captured operand,
indexed by ``t[i]`` / ``t[i, j]``, passed to the kernel at every call.
Python control flow on traced values raises :class:`TraceError`.

Unlike FlexAttention there is no ``create_block_mask``: tx derives the
block sparsity from ``mask_mod`` itself (docs/Design.md).
"""
import hashlib
import os
import re

from ._errors import ArgumentError, ArgumentTypeError, ShapeError
from ._trace import Traced, TraceError, trace

__all__ = ["flex_attention", "attention_source", "FlexSource", "trace", "Traced", "TraceError"]

_ELEMENT = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}
_LIBS = {}  # (library path, device) -> the loaded Library


class FlexSource:
    """The tx source of one traced call: ``text`` (a module with one
    ``func.func @<name>(q, k, v, captures...)``), ``name`` and the torch
    tensors to pass after Q, K, V (``captures``, in argument order)."""

    def __init__(self, text, name, captures):
        self.text, self.name, self.captures = text, name, captures

    def __str__(self):
        return self.text

    def __repr__(self):
        return "FlexSource(%r, %d captured tensors):\n%s" % (self.name, len(self.captures),
                                                              self.text)


def _element(x, what):
    if not hasattr(x, "shape") or not hasattr(x, "dtype"):
        raise ArgumentTypeError("flex_attention: %s must be a torch tensor, got %s"
                                % (what, type(x).__name__))
    dt = str(x.dtype).split(".")[-1]
    if dt not in _ELEMENT:
        raise ArgumentTypeError("flex_attention: %s has dtype %s; tx attention takes float16, "
                                "bfloat16 or float32" % (what, dt))
    if len(x.shape) != 4:
        raise ShapeError("flex_attention: %s must be 4-D [B, H, S, D], got shape %s"
                         % (what, list(x.shape)))
    return _ELEMENT[dt]


def _operand_names(traced):
    """One function argument per captured tensor (by identity), named after
    the Python name it was read by (so that a call's errors name it), else
    ``cap<N>``."""
    names, tensors = {}, []
    # (the function's own names, and the regions' %score, %b, %h, %q_idx,
    # %kv_idx, %c<N>, %v<N>: MLIR names in one scope must differ)
    taken = {"q", "k", "v", "o", "score", "b", "h", "q_idx", "kv_idx"}
    for t in traced:
        if t is None:
            continue
        for tensor, label in zip(t.captures, t.labels):
            if id(tensor) in names:
                continue
            ok = (label.isidentifier() and label.isascii() and label not in taken
                  and not re.fullmatch(r"[cv]\d+", label))
            n = label if ok else "cap%d" % len(tensors)
            while n in taken:
                n += "_"
            taken.add(n)
            names[id(tensor)] = "%" + n
            tensors.append(tensor)
    return names, tensors


def attention_source(q, k, v, score_mod=None, mask_mod=None, *, scale=None, causal=False,
                     return_lse=False, name="attention"):
    """Traces ``score_mod`` / ``mask_mod`` and returns the
    :class:`FlexSource` of ``tx.attention`` on tensors shaped like ``q``
    ``[B, H, Sq, D]``, ``k`` ``[B, Hkv, Sk, D]``, ``v`` ``[B, Hkv, Sk, Dv]``
    (f16, bf16 or f32; B, Sq and Sk stay dynamic, H, Hkv, D, Dv and the
    captured tensors' shapes are static). ``scale``: the score scale
    (default ``1/sqrt(D)``); ``causal``: the causal attribute (bottom-right
    aligned); ``return_lse``: a second result, the log-sum-exp ``f32 [B, H,
    Sq]``. Raises :class:`TraceError`, :class:`ArgumentError`."""
    elt = _element(q, "q")
    for x, what in ((k, "k"), (v, "v")):
        if _element(x, what) != elt:
            raise ArgumentTypeError("flex_attention: q is %s but %s is %s: Q, K and V need one "
                                    "dtype" % (q.dtype, what, x.dtype))
    B, H, Sq, D = q.shape
    Hkv, Dv = k.shape[1], v.shape[3]
    shapes = "q %s, k %s, v %s" % (list(q.shape), list(k.shape), list(v.shape))
    if k.shape[3] != D:
        raise ShapeError("flex_attention: %s: k's head_dim %d is not q's %d"
                         % (shapes, k.shape[3], D))
    if v.shape[1] != Hkv:
        raise ShapeError("flex_attention: %s: v has %d heads, k %d" % (shapes, v.shape[1], Hkv))
    if Hkv == 0 or H % Hkv:
        raise ShapeError("flex_attention: %s: q's %d heads are not a multiple of k's %d"
                         % (shapes, H, Hkv))
    if scale is not None and not (float(scale) > 0 and float(scale) != float("inf")):
        raise ArgumentError("flex_attention: scale must be a positive finite number, got %r"
                            % (scale,))
    traced = [trace(score_mod, "score_mod", H) if score_mod is not None else None,
              trace(mask_mod, "mask_mod", H) if mask_mod is not None else None]
    names, tensors = _operand_names(traced)
    ts = ["tensor<?x%dx?x%dx%s>" % (h, d, elt) for h, d in ((H, D), (Hkv, D), (Hkv, Dv))]
    out = ["tensor<?x%dx?x%dx%s>" % (H, Dv, elt)] + (["tensor<?x%dx?xf32>" % H] if return_lse else [])
    cap_types = {id(t): c for tr in traced if tr for t, c in zip(tr.captures, tr.capture_types)}
    args = ["%%q: %s" % ts[0], "%%k: %s" % ts[1], "%%v: %s" % ts[2]]
    args += ["%s: %s" % (names[id(t)], cap_types[id(t)]) for t in tensors]
    clauses = []
    if scale is not None:
        clauses.append("scale = %.9e" % float(scale))
    if causal:
        clauses.append("causal")
    lines = ["func.func @%s(%s)" % (name, ", ".join(args)),
             "    -> (%s) {" % ", ".join(out),
             "  %%o%s = tx.attention %%q, %%k, %%v%s" % (
                 ":2" if return_lse else "", "".join(" " + c for c in clauses))]
    for tr in traced:
        if tr is not None:
            lines.append(tr.region([names[id(t)] for t in tr.captures], indent="    "))
    lines.append("    : %s -> %s" % (", ".join(ts), ", ".join(out)))
    results = "%o#0, %o#1" if return_lse else "%o"
    lines.append("  return %s : %s" % (results, ", ".join(out)))
    lines.append("}")
    return FlexSource("\n".join(lines) + "\n", name, tensors)


def _library(src, chip, library_dir, options):
    """The library of ``src``: built once per source, chip and options (in
    ``library_dir`` when given, else tx.compile's cache) and loaded once per
    process."""
    from . import compile_library
    words = [src.text, chip or ""] + ["%s=%s" % kv for kv in sorted(options.items())]
    words.append("grad=" + os.environ.get("TX_GRADIENTS", "1"))
    stem = "flex_" + hashlib.sha256("\0".join(words).encode()).hexdigest()[:16]
    if library_dir is not None:
        out = os.path.join(library_dir, stem)
        path = os.path.join(out, "lib%s.so" % stem)
        if not os.path.exists(path):
            path = compile_library(src.text, chip, name=stem, out_dir=out, **options)
        return path
    return compile_library(src.text, chip, name=stem, **options)


def flex_attention(query, key, value, score_mod=None, mask_mod=None, *, scale=None,
                   enable_gqa=False, return_lse=False, causal=False, chip="sm_90a",
                   library_dir=None, **options):
    """FlexAttention's ``flex_attention`` on tx's kernels: ``softmax(score_mod(
    Q K^T * scale) where mask_mod) V`` on CUDA tensors ``query [B, H, Sq,
    D]``, ``key [B, Hkv, Sk, D]``, ``value [B, Hkv, Sk, Dv]`` (f16, bf16 or
    f32), returning ``[B, H, Sq, Dv]`` in their dtype (and the log-sum-exp
    ``f32 [B, H, Sq]`` with ``return_lse``). ``H != Hkv`` (GQA) needs
    ``enable_gqa=True``, as in PyTorch. ``causal`` adds tx's causal
    attribute (cheaper than the same mask written as ``mask_mod``). A row
    that sees no key gives zeros.

    The first call for a source (shapes, dtypes, functions, chip and
    ``options``, tx-gpu-pipeline's) traces and compiles it with
    :func:`tx.compile_library` into ``library_dir`` (a directory of
    ``flex_<hash>/`` libraries, reused when present, so it can be built on
    one machine and carried to another) or tx.compile's cache; later calls
    reuse the loaded library. Raises :class:`TraceError`,
    :class:`ArgumentError` (from the call's checks, naming the argument:
    a captured tensor on the wrong device is one), :class:`CompileError`."""
    from . import load
    dev = getattr(getattr(query, "device", None), "type", None)
    if dev not in ("cuda", "meta"):
        raise ArgumentError("flex_attention: query is on %s: tx runs on CUDA tensors (meta "
                            "tensors run the argument checks only)" % dev)
    if query.shape[1:2] != key.shape[1:2] and not enable_gqa:
        raise ShapeError("flex_attention: query has %d heads and key %d: pass enable_gqa=True "
                         "for grouped-query attention" % (query.shape[1], key.shape[1]))
    src = attention_source(query, key, value, score_mod, mask_mod, scale=scale,
                           causal=causal, return_lse=return_lse, name="attention")
    path = _library(src, chip, library_dir, options)
    lib_key = (path, str(query.device))
    if lib_key not in _LIBS:
        _LIBS[lib_key] = load(path, device=query.device)
    return _LIBS[lib_key].attention(query, key, value, *src.captures)
