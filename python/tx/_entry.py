"""One Python callable per entry point, generated at load time.

The per-call path is what ``torch.softmax`` competes with (a few µs), so the
callable is generated Python source specialized to its function: one boolean
expression checks every argument (dtype, device, contiguity, rank, static
sizes, the op's shape rules, see ``_checks.py``); only when it fails does the
slow :meth:`Checker.diagnose` find and raise the first failing check by name.
Then: the results are allocated (or ``out=`` is validated), the descriptors
of all tensors are packed into one per-thread buffer by one
``struct.pack_into``, and the C function is called with their addresses and
the current stream.
"""
import threading

from ._abi import ThreadBuffers
from ._checks import MISSING, Checker
from ._errors import ArgumentError, TxRuntimeError, UnsupportedError
from ._manifest import ELEMENT_BYTES


#: Serializes calls of synchronous (pre-_on_stream) entry points.
_SYNC_LOCK = threading.Lock()


def _strides(svar, shape, rank):
    """Row-major strides of a tensor of shape ``svar`` (a variable) as
    Python expressions; constants where the static ``shape`` is known."""
    if shape is not None and all(s is not None for s in shape):
        st, acc = [], 1
        for s in reversed(shape):
            st.append(str(acc))
            acc *= s
        return list(reversed(st))
    st = ["1"] * rank
    for d in range(rank - 2, -1, -1):
        st[d] = "%s[%d]" % (svar, d + 1) if d == rank - 2 else "%s[%d]*%s" % (svar, d + 1, st[d + 1])
    return st


def _nbytes(svar, info):
    """The byte size of a tensor of shape ``svar`` with ``info``'s element type."""
    return "*".join(["%s[%d]" % (svar, d) for d in range(info.rank)]
                    + [str(ELEMENT_BYTES[info.element_type])])


def _same_shape_argument(fn, r, rdtype, arg_dtypes):
    """The argument whose shape and dtype result ``r`` has (softmax), or None."""
    if not r.derivable:
        return None
    for i, a in enumerate(fn.arguments):
        if arg_dtypes[i] is not rdtype or a.rank != r.rank:
            continue
        if all(src == (i, d) or (isinstance(src, int) and a.shape[d] == src)
               for d, src in enumerate(r.shape_from)):
            return i
    return None


def _need_out(fn):
    """Raises the error of a call without ``out=`` whose result sizes cannot
    be derived from the arguments."""
    bad = [r.name for r in fn.results if not r.derivable]
    raise ArgumentError("%s: the size of result %s cannot be derived from the arguments "
                        "(the function is not a single tx op returning it, and its type "
                        "has dynamic sizes); pass out=" % (fn.name, ", ".join(bad)),
                        fn.name, "out")


def _length_checker(fn, torch):
    """The per-sequence length checks of ``fn``'s ``tx.attention`` ops:
    returns ``(checks, check)``, ``check(args)`` raising an ArgumentError for
    a ``kv_lengths`` / ``q_lengths`` entry outside ``[0, Sk]`` / ``[0, Sq]``
    (paged K/V: ``Sk = max_pages * page_size``) and for a page table entry of
    a live key outside ``[0, num_pages)``.

    The compiled GPU code clamps such lengths (it never reads outside the
    tensors) but cannot report them, so they are checked here, on the
    device, before the call: one reduction and one synchronization, skipped
    while a CUDA graph is captured (no synchronization is allowed then) and
    for meta tensors (no values)."""
    names = [a.pyname for a in fn.arguments]
    checks, pages = [], []
    for op in fn.ops:
        if op.op not in ("tx.attention", "tx.attention_grad"):
            continue
        pt = op.operands.get("page_table")
        for key, src, bound in (("kv_lengths", "key", "Sk"), ("q_lengths", "query", "Sq")):
            i, j = op.operands.get(key), op.operands.get(src)
            if i is not None and j is not None:
                # A paged K is [num_pages, page_size, Hkv, D]: Sk = max_pages * page_size.
                size = ((lambda a, j=j, pt=pt: a[pt].shape[1] * a[j].shape[1])
                        if key == "kv_lengths" and pt is not None
                        else (lambda a, j=j: a[j].shape[2]))
                checks.append((i, size, key, bound))
        if pt is not None and op.operands.get("key") is not None:
            pages.append((pt, op.operands["key"], op.operands.get("kv_lengths")))

    def check(args):
        cuda = getattr(torch, "cuda", None)
        if cuda is not None and cuda.is_available() and cuda.is_current_stream_capturing():
            return
        for i, size, key, bound in checks:
            lens, n = args[i], size(args)
            if lens.numel() == 0 or lens.is_meta:
                continue
            bad = (lens < 0) | (lens > n)
            if bool(bad.any()):
                b = int(bad.nonzero()[0, 0])
                raise ArgumentError(
                    "%s: argument '%s' (%s): entry %d is %d, outside [0, %s = %d]"
                    % (fn.name, names[i], key, b, int(lens[b]), bound, n),
                    fn.name, names[i])
        for pt, k, kl in pages:
            _check_page_ids(fn, names, torch, args, pt, k, kl)

    return checks + pages, check


def _check_page_ids(fn, names, torch, args, pt, k, kl):
    """Raises an ArgumentError naming the page table when the id of a live
    key's page (pages [0, ceil(kv_lengths[b] / page_size)) of batch b, all
    of them without kv_lengths) lies outside [0, num_pages). Entries past a
    sequence's length are never read and may hold anything."""
    table, pool = args[pt], args[k]
    if table.numel() == 0 or table.is_meta or (kl is not None and args[kl].is_meta):
        return
    num_pages, page_size = pool.shape[0], pool.shape[1]
    live = torch.ones_like(table, dtype=torch.bool)
    if kl is not None and page_size > 0:
        n = (args[kl].to(torch.int64).clamp(min=0) + page_size - 1) // page_size
        cols = torch.arange(table.shape[1], device=table.device)
        live = cols.unsqueeze(0) < n.to(table.device).unsqueeze(1)
    bad = live & ((table < 0) | (table >= num_pages))
    if bool(bad.any()):
        b, p = (int(x) for x in bad.nonzero()[0])
        raise ArgumentError(
            "%s: argument '%s' (page_table): entry [%d, %d] is %d, outside [0, num_pages = %d) "
            "for a live key (sequence %d's page %d)"
            % (fn.name, names[pt], b, p, int(table[b, p]), num_pages, b, p),
            fn.name, names[pt])


def _define(fn, env, body):
    """Compiles ``def <fn.name>(<arguments>, *, out=None)`` with the lines
    ``body`` in ``env``; returns the function and its source."""
    # Each parameter defaults to MISSING, which the checks report as a
    # missing argument (an ArgumentTypeError naming it).
    params = ", ".join(a.pyname + "=_MISSING" for a in fn.arguments)
    env["_MISSING"] = MISSING
    # Defined as _entry (a function name may be a Python keyword) and renamed.
    src = "def _entry(%s%sout=None):\n" % (params, ", *, " if params else "*, ")
    src += "\n".join(body) + "\n"
    exec(compile(src, "<tx entry point %s>" % fn.name, "exec"), env)
    f = env["_entry"]
    f.__name__ = f.__qualname__ = fn.name
    return f, src


def build_check_entry(fn, *, torch, device, autograd=None):
    """The callable of manifest function ``fn`` in a check-only library
    (``tx.load(path, device="meta")``): every check of :func:`build_entry`
    but the device (tensors on any device are accepted; per-sequence
    lengths are checked by value unless they are meta tensors), then new
    empty tensors of the result shapes and dtypes on ``device`` (meta) are
    returned, or ``out=`` (checked, left untouched). Nothing is computed and
    no library is called."""
    chk = Checker(fn, torch, None, str(device))
    _, check_lengths = _length_checker(fn, torch)
    nres = len(fn.results)

    def run(args, out):
        e = chk.argument_error(args)
        if (e is None and autograd is not None and torch.is_grad_enabled()
                and any(t.requires_grad for t in args)):
            check_lengths(args)
            for a, t in zip(fn.arguments, args):
                if t.requires_grad and not t.is_meta:
                    raise UnsupportedError(
                        "%s: argument '%s' requires grad and is on %s, but a check-only "
                        "library (device=\"meta\") differentiates meta tensors only: pass "
                        "meta tensors, or call it under torch.no_grad()"
                        % (fn.name, a.pyname, t.device), fn.name, a.pyname)
            return autograd(args, out)
        if e is None and torch.is_grad_enabled():
            e = chk.grad_error(args, out)
        if e is not None:
            raise e
        check_lengths(args)
        if out is not None:
            res = chk.check_out(out, args)
        elif not all(r.derivable for r in fn.results):
            _need_out(fn)
        else:
            shapes = chk.result_shapes([tuple(t.shape) for t in args])
            res = [torch.empty(s, dtype=dt, device=device)
                   for s, dt in zip(shapes, chk.result_dtypes)]
        if nres:
            return res[0] if nres == 1 else tuple(res)
        return None

    args = "(%s)" % "".join(a.pyname + ", " for a in fn.arguments)
    f, src = _define(fn, {"_run": run}, ["    return _run(%s, out)" % args])
    f.__doc__ = docstring(fn, "check", str(device), autograd is not None)
    f.info, f.mode, f.checker, f.source = fn, "check", chk, src
    return f


def _check_lines(fn, chk, has_lengths, autograd=False):
    """The generated code's argument checks: one boolean expression (the
    readable :meth:`Checker.diagnose` only when it fails), tensors that
    require grad (``autograd``: the call then goes through ``_autograd``,
    else it is refused), per-sequence lengths."""
    names = [a.pyname for a in fn.arguments]
    nargs = len(names)
    t = lambda i: names[i]
    s = lambda i: "_s%d" % i
    L = []
    w = L.append
    args_tuple = "(%s)" % "".join(n + ", " for n in names)
    w("    try:")
    for i in range(nargs):
        w("        _s%d = %s.shape" % (i, t(i)))
    conds = chk.fast_conditions(t, s, lambda i: "_D%d" % i)
    w("        _ok = (%s)" % ("\n               and ".join(conds) if conds else "True"))
    w("    except _Exception:")
    w("        _ok = False")
    w("    if not _ok:")
    w("        _diagnose(%s)" % args_tuple)
    # A tensor that requires grad (in grad mode): autograd, or refused
    # rather than given a result without grad_fn (UnsupportedError).
    if nargs:
        w("    if (%s) and _grad_on():" % " or ".join("%s.requires_grad" % t(i)
                                                     for i in range(nargs)))
        if autograd:
            # The lengths first: their errors name this function.
            if has_lengths:
                w("        _check_lengths(%s)" % args_tuple)
            w("        return _autograd(%s, out)" % args_tuple)
        else:
            w("        _no_grad(%s)" % args_tuple)
    if has_lengths:
        w("    _check_lengths(%s)" % args_tuple)
    return L


def _result_lines(fn, chk):
    """The generated code's results: allocated (like an argument when a
    result has its shape and dtype: ``torch.empty_like`` is the cheapest
    allocation), or ``out=`` checked (inline for a single result, the
    generic :meth:`Checker.check_out` as the fallback that names the
    problem)."""
    names = [a.pyname for a in fn.arguments]
    nargs, nres = len(names), len(fn.results)
    t = lambda i: names[i]
    s = lambda i: "_s%d" % i
    L = []
    w = L.append
    args_tuple = "(%s)" % "".join(n + ", " for n in names)
    for i in range(nargs):
        w("    _p%d = %s.data_ptr()" % (i, t(i)))
    w("    if out is None:")
    if all(r.derivable or (r.shape is not None and None not in r.shape) for r in fn.results):
        for j, r in enumerate(fn.results):
            like = _same_shape_argument(fn, r, chk.result_dtypes[j], chk.arg_dtypes)
            if like is not None:
                w("        _r%d = _empty_like(%s)" % (j, t(like)))
                w("        _rs%d = _s%d" % (j, like))
                continue
            dims = []
            for d in range(r.rank):
                src = r.shape_from[d] if r.derivable else r.shape[d]
                dims.append("%s[%d]" % (s(src[0]), src[1]) if isinstance(src, tuple) else str(src))
            w("        _rs%d = (%s)" % (j, "".join(x + ", " for x in dims)))
            w("        _r%d = _empty(_rs%d, dtype=_RD%d, device=_DEVICE)" % (j, j, j))
    else:
        w("        _need_out()")
    w("    else:")
    if nres == 1:
        r = fn.results[0]
        conds = ["_r0.dtype is _RD0", "_r0.get_device() == _DEV", "_r0.is_contiguous()"]
        if r.derivable:
            dims = ["%s[%d]" % (s(x[0]), x[1]) if isinstance(x, tuple) else str(x)
                    for x in r.shape_from]
            conds.append("_rs0 == (%s)" % "".join(x + ", " for x in dims))
        else:
            conds.append("_len(_rs0) == %d" % r.rank)
            conds += ["_rs0[%d] == %d" % (d, x) for d, x in enumerate(r.shape) if x is not None]
        w("        _r0 = out")
        w("        try:")
        w("            _rs0 = _r0.shape")
        w("            _ok = (%s)" % "\n                   and ".join(conds))
        w("            if _ok:")
        w("                _q0 = _r0.data_ptr(); _e0 = _q0 + %s" % _nbytes("_rs0", r))
        for i, a in enumerate(fn.arguments):
            w("                _ok = _ok and not (_p%d < _e0 and _q0 < _p%d + %s)"
              % (i, i, _nbytes(s(i), a)))
        w("        except _Exception:")
        w("            _ok = False")
        w("        if not _ok:")
        w("            _r0, = _check_out(out, %s)" % args_tuple)
        w("            _rs0 = _r0.shape")
    elif nres:
        w("        %s = _check_out(out, %s)" % ("".join("_r%d, " % j for j in range(nres)), args_tuple))
        for j in range(nres):
            w("        _rs%d = _r%d.shape" % (j, j))
    else:
        w("        _check_out(out, %s)" % args_tuple)
    if nres:
        w("    if out is not None and (%s) and _grad_on():"
          % " or ".join("_r%d.requires_grad" % j for j in range(nres)))
        w("        _no_grad((), out)")
    return L


def _call_lines(fn, mode):
    """The generated code's descriptors (one ``struct.pack_into``), the C
    call on the current stream (``mode``: stream or sync) and the return."""
    nres = len(fn.results)
    L = []
    w = L.append
    vals = []
    for i, a in enumerate(fn.arguments):
        vals += ["_p%d" % i, "_p%d" % i, "0"]
        if a.rank:
            vals.append("*_s%d" % i)
            vals += _strides("_s%d" % i, a.shape, a.rank)
    for j, r in enumerate(fn.results):
        w("    _q%d = _r%d.data_ptr()" % (j, j))
        vals += ["_q%d" % j, "_q%d" % j, "0"]
        if r.rank:
            vals.append("*_rs%d" % j)
            vals += _strides("_rs%d" % j, r.shape if r.shape and None not in r.shape else None,
                             r.rank)
    w("    if _ident() == _OWNER:")
    w("        _B = _MB; _A = _MA")
    w("    else:")
    w("        _b = _TB.get(); _B = _b.buffer; _A = _b.addresses")
    w("    _pack(_B, 0, %s)" % ", ".join(vals))
    # torch's default stream is the NULL stream, the legacy default stream:
    # _on_stream takes NULL as that (txRuntimeBeginCall), but
    # txRuntimeSetStream(NULL) means "the runtime's own streams", so the
    # synchronous form gets CU_STREAM_LEGACY (1) instead.
    if mode == "stream":
        w("    _rc = _fn(*_A, _stream(_DEV))")
        w("    if _rc:")
        w("        _fail(_rc)")
    else:
        # txRuntimeSetStream and the error count are process-wide: one
        # synchronous call at a time (each waits for its kernels anyway).
        w("    with _LOCK:")
        w("        _set_stream(_stream(_DEV) or 1, 0)")
        w("        _n = _errcount()")
        w("        _fn(*_A)")
        w("        _failed = _errcount() != _n")
        w("    if _failed:")
        w("        _fail_sync()")
    if nres == 1:
        w("    return _r0")
    elif nres:
        w("    return (%s)" % "".join("_r%d, " % j for j in range(nres)))
    return L


def build_entry(fn, cfunc, mode, *, torch, device_index, device, stream, runtime,
                device_label=None, autograd=None):
    """The callable of manifest function ``fn``.

    ``cfunc``: the C function (ctypes; ``mode`` ``"stream"``: returns int32 and
    takes a CUstream last; ``"sync"``: the synchronous form, run on the
    current stream through ``txRuntimeSetStream``); ``device_index``: what
    ``Tensor.get_device()`` must return; ``device``: the torch device results
    are allocated on; ``stream(device_index)``: the raw current stream;
    ``runtime``: the tx Runtime (error messages); ``autograd``: the
    function's :class:`tx._autograd.Gradient` (None: no backward, a call on
    tensors that require grad raises :class:`UnsupportedError`)."""
    label = device_label or str(device)
    chk = Checker(fn, torch, device_index, label)
    nargs, nres = len(fn.arguments), len(fn.results)
    tb = ThreadBuffers([a.rank for a in fn.arguments] + [r.rank for r in fn.results])

    def fail(rc):
        msg = runtime.last_error() if runtime is not None else None
        raise TxRuntimeError("%s: the library failed (%s)" % (
            fn.name, msg or "status %d, no message from the runtime" % rc))

    def fail_sync():
        raise TxRuntimeError("%s: the library reported an error: %s" % (
            fn.name, runtime.last_error() or "(no message)"))

    need_out = lambda: _need_out(fn)
    length_checks, check_lengths = _length_checker(fn, torch)

    env = {
        "_check_lengths": check_lengths,
        "_DEV": device_index, "_DEVICE": device, "_empty": torch.empty,
        "_empty_like": torch.empty_like,
        "_chk": chk, "_diagnose": chk.diagnose, "_check_out": chk.check_out,
        "_TB": tb, "_OWNER": tb.owner, "_MB": tb.main.buffer, "_MA": tb.main.addresses,
        "_pack": tb.main.layout.pack_into, "_ident": threading.get_ident,
        "_fn": cfunc, "_stream": stream, "_fail": fail, "_fail_sync": fail_sync,
        "_need_out": need_out, "_len": len, "_Exception": Exception,
        "_grad_on": torch.is_grad_enabled, "_no_grad": chk.no_grad,
        "_autograd": autograd,
    }
    if mode == "sync":
        env["_LOCK"] = _SYNC_LOCK
        env["_set_stream"] = runtime.set_stream
        env["_errcount"] = runtime.call_error_count
    for i in range(nargs):
        env["_D%d" % i] = chk.arg_dtypes[i]
    for j in range(nres):
        env["_RD%d" % j] = chk.result_dtypes[j]

    L = (_check_lines(fn, chk, bool(length_checks), autograd is not None)
         + _result_lines(fn, chk)
         + _call_lines(fn, mode))
    f, src = _define(fn, env, L)
    f.__doc__ = docstring(fn, mode, label, autograd is not None)
    f.info = fn
    f.mode = mode
    f.checker = chk
    f.source = src
    return f


def docstring(fn, mode, device_label, autograd=False):
    """What ``help(lib.<fn>)`` shows: the signature with dtypes and static
    sizes, the op, how results are sized, gradients, and the errors."""
    lines = [fn.signature(), ""]
    op = fn.op
    if op is not None and op.op == "tx.attention":
        what = "scaled dot-product attention"
        if op.causal:
            what += ", causal (bottom-right aligned)"
        if op.mask != "none":
            what += ", %s mask" % ("keep (bool)" if op.mask == "i1" else "additive")
        what += ", scale %s" % ("1/sqrt(D)" if op.scale is None else op.scale)
        lines += ["Computes tx.attention: %s." % what,
                  "Shapes: q [B, H, Sq, D], k [B, Hkv, Sk, D], v [B, Hkv, Sk, Dv], "
                  "mask [B|1, H|1, Sq, Sk] -> [B, H, Sq, Dv]; H % Hkv == 0."]
        if len(fn.results) == 2:
            lines += ["Also returns the log-sum-exp of every query row's scores, f32 "
                      "[B, H, Sq] (natural log; -inf for a row that sees no key)."]
    elif op is not None and op.op == "tx.softmax":
        lines += ["Computes tx.softmax along dimension %d; the result has the input's shape."
                  % op.dim]
    elif fn.ops:
        lines += ["Computes: %s." % ", ".join(o.op for o in fn.ops)]
    if mode == "check":
        lines += ["",
                  "Check only (tx.load(..., device=%r)): nothing is computed. Arguments: "
                  "contiguous torch tensors (any device) with the dtypes and sizes above "
                  "('?' = any size)." % device_label,
                  "Returns new empty %s tensors of the result shapes, or out= (checked, "
                  "untouched)." % device_label]
    else:
        lines += ["",
                  "Arguments: contiguous torch tensors on %s with the dtypes and sizes above "
                  "('?' = any size)." % device_label,
                  "Returns new tensors, or writes into out= (a tensor per result) and "
                  "returns it.",
                  "Runs on torch.cuda.current_stream()%s." % (
                      "" if mode == "stream" else
                      " and waits for it (the library predates the stream-ordered ABI)")]
    if autograd:
        fwd, bwd, args = fn.gradient_entries
        lines += ["Differentiable: on tensors that require grad (grad mode on) it runs %s "
                  "and returns results with a grad_fn; backward runs %s, giving gradients "
                  "to %s." % (fwd, bwd, ", ".join(fn.arguments[i].pyname for i in args))]
        refused = "out= on tensors that require grad"
    else:
        refused = "tensors that require grad while grad mode is on (no backward: %s; use " \
                  "torch.no_grad() or .detach())" % fn.no_gradient
    lines += ["Raises tx.ArgumentTypeError / tx.ShapeError / tx.ArgumentError (naming the "
              "argument)%s, tx.UnsupportedError for %s%s." % (
                  " before calling the library" if mode != "check" else "", refused,
                  "" if mode == "check" else ", tx.TxRuntimeError when the library fails")]
    return "\n".join(lines)
