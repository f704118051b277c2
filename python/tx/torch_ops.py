"""Entry points as ``torch.library`` custom ops, so that ``torch.compile``
graphs can hold them (as opaque calls: Dynamo does not trace into ctypes).

    lib = tx.load("out/libattn.so")
    ops = lib.register_custom_ops("mylib")      # torch.ops.mylib.attn
    f = torch.compile(lambda q, k, v: torch.ops.mylib.attn(q, k, v) * 2)

Each op is functional (returns new tensors; no ``out=``), and has a fake
implementation that checks dtypes, ranks, static sizes and the op's shape
rules and returns empty tensors of the result shapes, which the manifest's
``shape_from`` gives. Functions whose result sizes do not follow from their
arguments cannot be registered. The ops have no backward: a call on
tensors that require grad (in grad mode) raises :class:`tx.UnsupportedError`,
as a direct call does. Needs torch >= 2.4 (``torch.library.custom_op``).
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
        ops[name] = _register_one(torch, entry, "%s::%s%s" % (namespace, prefix, name))
    return ops


#: qualname -> the entry point registered under it by this process.
_REGISTERED = {}


def _register_one(torch, entry, qualname):
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
    _register_no_backward(torch, op, chk)
    return op


def _register_no_backward(torch, op, chk):
    """tx ops have no backward yet: the op's autograd kernel raises
    :class:`UnsupportedError` when it is called on tensors that require
    grad in grad mode (torch runs ``setup_context`` only then), like a
    direct call, instead of returning a result that drops the gradient (or
    failing later, in backward)."""
    fn = chk.fn

    def setup_context(ctx, inputs, output):
        e = chk.grad_error(inputs)
        raise e if e is not None else UnsupportedError(
            "%s: tx functions have no backward (autograd) yet; call it under "
            "torch.no_grad() or pass detached tensors" % fn.name, fn.name)

    def backward(ctx, *grads):
        raise UnsupportedError("%s: tx functions have no backward (autograd) yet" % fn.name,
                               fn.name)

    op.register_autograd(backward, setup_context=setup_context)
