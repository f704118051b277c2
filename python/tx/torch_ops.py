"""Entry points as ``torch.library`` custom ops, so that ``torch.compile``
graphs can hold them (as opaque calls: Dynamo does not trace into ctypes).

    lib = tx.load("out/libattn.so")
    ops = lib.register_custom_ops("mylib")      # torch.ops.mylib.attn
    f = torch.compile(lambda q, k, v: torch.ops.mylib.attn(q, k, v) * 2)

Each op is functional (returns new tensors; no ``out=``), and has a fake
implementation that checks dtypes, ranks, static sizes and the op's shape
rules and returns empty tensors of the result shapes, which the manifest's
``shape_from`` gives. Functions whose result sizes do not follow from their
arguments cannot be registered. Needs torch >= 2.4
(``torch.library.custom_op``).

Gradients: a differentiable function ``f`` (``FunctionInfo.gradient_entries``)
is registered as three ops: ``f__tx_fwd`` (a custom op returning the results
and the LSEs, with ``torch.library.register_autograd``: its backward is the
custom op ``f__tx_bwd``; the LSE outputs are not differentiable) and ``f``
itself, a ``CompositeImplicitAutograd`` op that returns ``f__tx_fwd``'s
results, so that autograd and ``torch.compile(fullgraph=True)`` see the
forward and backward custom ops without a graph break. Other ops (and the
backward ops themselves: no double backward) raise
:class:`tx.UnsupportedError` on tensors that require grad (in grad mode), as a
direct call does.
"""
from ._errors import TxError, UnsupportedError

MIN_TORCH = (2, 4)


def _torch_version(torch):
    parts = []
    for p in torch.__version__.split("+")[0].split(".")[:2]:
        digits = "".join(c for c in p if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def supported(torch=None):
    """True when this torch can register custom ops (>= 2.4)."""
    if torch is None:
        import torch
    return _torch_version(torch) >= MIN_TORCH and hasattr(torch.library, "custom_op")


def schema(fn):
    """The op schema of manifest function ``fn``:
    ``(Tensor q, Tensor k, Tensor v) -> Tensor``."""
    args = ", ".join("Tensor %s" % a.pyname for a in fn.arguments)
    n = len(fn.results)
    res = "Tensor" if n == 1 else "(%s)" % ", ".join(["Tensor"] * n)
    return "(%s) -> %s" % (args, res)


def register(lib, namespace="tx", names=None, prefix=""):
    """Registers the entry points ``names`` (default: every function whose
    result sizes follow from its arguments) of ``lib`` as custom ops
    ``<namespace>::<prefix><name>``. Returns a dict name -> op. Raises
    :class:`TxError` on torch < 2.4, for a function that cannot be
    registered, or when the op name is taken (pass another ``namespace`` or
    ``prefix``)."""
    import torch
    if not supported(torch):
        raise TxError("tx: registering custom ops needs torch >= %d.%d "
                      "(torch.library.custom_op); this is torch %s"
                      % (MIN_TORCH + (torch.__version__,)))
    explicit = names is not None
    if names is None:
        names = list(lib.functions)
    ops = {}
    qual = lambda n: "%s::%s%s" % (namespace, prefix, n)
    for name in names:
        if name not in lib.functions:
            raise TxError("tx: %s has no callable function %s%s" % (
                lib.path, name, ": " + lib.unsupported[name] if name in lib.unsupported else ""))
        entry = lib.functions[name]
        fn = entry.info
        if not all(r.derivable for r in fn.results) or not fn.results:
            if explicit:
                raise TxError("tx: %s cannot be a custom op: the sizes of its results do not "
                              "follow from its arguments (call it with out= instead)" % name)
            continue
        grad = fn.gradient_entries
        if grad is not None and all(n in lib.functions for n in grad[:2]):
            # The derived entry points first (registered once).
            for n in grad[:2]:
                if n not in ops:
                    ops[n] = _register_one(torch, lib.functions[n], qual(n),
                                           no_backward=n != grad[0])
            ops[name] = _register_differentiable(torch, fn, ops[grad[0]], ops[grad[1]],
                                                 namespace, prefix + name)
        elif name not in ops:
            ops[name] = _register_one(torch, entry, qual(name))
    return ops


#: torch.library.Library fragments holding the differentiable ops (kept
#: alive: a fragment's definitions go away with it).
_FRAGMENTS = []


def _register_differentiable(torch, fn, fwd, bwd, namespace, name):
    """Registers ``<namespace>::<name>``, the op of differentiable function
    ``fn``: a ``CompositeImplicitAutograd`` op over the forward custom op
    ``fwd``, whose autograd (``register_autograd``) runs ``bwd``."""
    qualname = "%s::%s" % (namespace, name)
    if qualname in _REGISTERED:
        raise TxError("tx: cannot register %s: already registered for %s (pass another "
                      "namespace= or prefix=)" % (qualname, _REGISTERED[qualname]))
    nargs, nres = len(fn.arguments), len(fn.results)
    grad_args = fn.gradient_entries[2]

    def setup_context(ctx, inputs, output):
        outs = output if isinstance(output, (tuple, list)) else (output,)
        ctx.save_for_backward(*inputs, *outs)
        ctx.mark_non_differentiable(*outs[nres:])

    def backward(ctx, *grads):
        saved = ctx.saved_tensors
        results = saved[nargs:nargs + nres]
        gs = [torch.zeros_like(r) if g is None else g.contiguous()
              for g, r in zip(grads[:nres], results)]
        d = bwd(*saved, *gs)
        d = d if isinstance(d, (tuple, list)) else (d,)
        out = [None] * nargs
        for i, x in zip(grad_args, d):
            if ctx.needs_input_grad[i]:
                out[i] = x
        return tuple(out)

    fwd.register_autograd(backward, setup_context=setup_context)
    try:
        frag = torch.library.Library(namespace, "FRAGMENT")
        frag.define(name + schema(fn))
    except (RuntimeError, ValueError) as e:
        raise TxError("tx: cannot register %s: %s (pass another namespace= or prefix=)"
                      % (qualname, e))

    def composite(*args):
        outs = fwd(*args)
        return outs[0] if nres == 1 else tuple(outs[:nres])

    frag.impl(name, composite, "CompositeImplicitAutograd")
    _FRAGMENTS.append(frag)
    _REGISTERED[qualname] = fn.name
    return getattr(getattr(torch.ops, namespace), name)


#: qualname -> the entry point registered under it by this process.
_REGISTERED = {}


def _register_one(torch, entry, qualname, no_backward=True):
    fn = entry.info
    chk = entry.checker
    if qualname in _REGISTERED:
        # Newer torch would silently replace the op: refuse instead.
        raise TxError("tx: cannot register %s: already registered for %s (pass another "
                      "namespace= or prefix=)" % (qualname, _REGISTERED[qualname]))

    def run(*args):
        return entry(*args)

    try:
        op = torch.library.custom_op(qualname, run, mutates_args=(), schema=schema(fn))
    except (RuntimeError, ValueError) as e:
        raise TxError("tx: cannot register %s: %s (pass another namespace= or prefix=)"
                      % (qualname, e))
    _REGISTERED[qualname] = fn.name

    def fake(*args):
        err = chk.argument_error(args, device=False, layout=False)
        if err is not None:
            raise err
        shapes = chk.result_shapes([tuple(t.shape) for t in args])
        outs = [torch.empty(s, dtype=dt, device=args[0].device if args else "cuda")
                for s, dt in zip(shapes, chk.result_dtypes)]
        return outs[0] if len(outs) == 1 else tuple(outs)

    op.register_fake(fake)
    if no_backward:
        _register_no_backward(torch, op, chk)
    return op


def _register_no_backward(torch, op, chk):
    """An op without backward: its autograd kernel raises
    :class:`UnsupportedError` when it is called on tensors that require
    grad in grad mode (torch runs ``setup_context`` only then), like a
    direct call, instead of returning a result that drops the gradient (or
    failing later, in backward)."""
    fn = chk.fn

    def setup_context(ctx, inputs, output):
        e = chk.grad_error(inputs)
        raise e if e is not None else UnsupportedError(
            "%s has no backward (%s); call it under torch.no_grad() or pass detached "
            "tensors" % (fn.name, fn.no_gradient), fn.name)

    def backward(ctx, *grads):
        raise UnsupportedError("%s has no backward (%s)" % (fn.name, fn.no_gradient), fn.name)

    op.register_autograd(backward, setup_context=setup_context)
