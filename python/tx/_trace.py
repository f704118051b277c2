"""Tracing FlexAttention-style Python functions into the body of a
``tx.attention`` score or mask function (``score_mod`` / ``mask_mod``
regions, docs/TxOps.md "Score and mask functions"; issue #42).

The function runs once on proxies: the score is an ``f32`` value, the
indices ``b, h, q_idx, kv_idx`` are ``index`` values, and every torch
tensor it reads from its closure or its module's globals is replaced by a
:class:`_Captured` proxy that turns ``t[i]`` into ``tensor.extract``. Each
operation on a proxy appends one ``arith`` / ``math`` op to the body, so
the result is straight-line IR of exactly what the function computes.
``torch.where``, ``torch.tanh``, ``torch.exp``... reach the proxies through
PyTorch's ``__torch_function__`` protocol; Python control flow on a traced
value (``if score > 0``, ``min(a, b)``, ``math.tanh(score)``) cannot be
traced and raises :class:`TraceError` naming the way out.

Types follow PyTorch's promotion where IR allows it: integers and indices
mix as ``index``; any float makes the operation float (``f32``, or ``f64``
when an ``f64`` takes part; ``f16`` / ``bf16`` are computed in ``f32``);
``/`` is true division (float), ``//`` and ``%`` are Python's floor
division and modulo.
"""

import inspect
import types

from ._errors import TraceError
from ._trace_values import _DTYPES, _Body, _Value, _cast, _is_float, _lift, _to_bool

__all__ = ["trace", "Traced", "TraceError"]


class _Captured:
    """A captured torch tensor inside a traced function: ``t[i]``,
    ``t[i, j]`` become ``tensor.extract``; ``shape`` / ``size()`` /
    ``numel()`` / ``ndim`` are its (static) sizes."""

    is_captured_tensor = True

    def __init__(self, tracer, tensor, label):
        self.tracer, self.tensor, self.label = tracer, tensor, label
        self.shape = tuple(tensor.shape)
        self.ndim = len(self.shape)
        self.dtype = tensor.dtype

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def dim(self):
        return self.ndim

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, idx):
        body = self.tracer.body
        arg = self.tracer.use(self)
        idx = idx if isinstance(idx, tuple) else (idx,)
        if len(idx) != self.ndim or any(i is Ellipsis or isinstance(i, slice) or i is None
                                        for i in idx):
            body.fail("%s[...] of shape %s needs %d scalar index(es), one per dimension (no "
                      "slices)" % (self.label, list(self.shape), self.ndim))
        names = []
        for d, i in enumerate(idx):
            if isinstance(i, _Value):
                if i.ty == "i1" or _is_float(i.ty):
                    body.fail("%s is indexed by a %s value: indices must be integers"
                              % (self.label, i.ty))
                heads = self.tracer.heads
                if i.name == "%h" and heads is not None and self.shape[d] < heads:
                    body.fail("%s is indexed by h along dimension %d of size %d, but the "
                              "query has %d heads" % (self.label, d, self.shape[d], heads))
                names.append(_cast(i, "index").name)
            elif isinstance(i, int) and not isinstance(i, bool):
                if not -self.shape[d] <= i < self.shape[d]:
                    body.fail("index %d is out of bounds for dimension %d of %s (size %d)"
                              % (i, d, self.label, self.shape[d]))
                names.append(body.const(i % self.shape[d], "index").name)
            else:
                body.fail("%s is indexed by a %s: indices must be integers or traced indices"
                          % (self.label, type(i).__name__))
        elt = self.tracer.elt(self)
        return body.emit("tensor.extract %s[%s] : %s" % (arg, ", ".join(names),
                                                         self.tracer.ttype(self)), elt)

    def __getattr__(self, name):
        self.tracer.body.fail("the captured tensor %s is used as a tensor (.%s): tx traces "
                              "scalar code; index it (t[h]) first" % (self.label, name))

    @classmethod
    def __torch_function__(cls, func, types_, args=(), kwargs=None):
        cap = next(a for a in list(args) + list((kwargs or {}).values()) if isinstance(a, cls))
        cap.tracer.body.fail("torch.%s on the captured tensor %s: index it (t[h]) first"
                             % (getattr(func, "__name__", func), cap.label))


class _Tracer:
    """One traced function: its body and the tensors it captured, in the
    order of their region arguments."""

    def __init__(self, what, heads=None):
        self.heads = heads  # H when known: t[h] is then checked against it
        self.body = _Body(what)
        self.captured = []
        self.proxies = {}

    def use(self, cap):
        if cap not in self.captured:
            self.captured.append(cap)
        return "%%c%d" % self.captured.index(cap)

    def elt(self, cap):
        name = str(cap.dtype).split(".")[-1]
        if name not in _DTYPES:
            self.body.fail("the captured tensor %s has dtype %s: tx captures float16, "
                           "bfloat16, float32, float64, int8-int64 and bool" % (cap.label, name))
        return _DTYPES[name]

    def ttype(self, cap):
        dims = "".join("%dx" % s for s in cap.shape)
        return "tensor<%s%s>" % (dims, self.elt(cap))

    def proxy(self, tensor, label):
        if id(tensor) in self.proxies:  # one tensor under two names
            return self.proxies[id(tensor)]
        cap = _Captured(self, tensor, label)
        self.elt(cap)
        # A 0-d tensor is a scalar: read it once, up front.
        self.proxies[id(tensor)] = cap[()] if cap.ndim == 0 else cap
        return self.proxies[id(tensor)]


def _is_tensor(x):
    return type(x).__module__.startswith("torch") and type(x).__name__ in ("Tensor", "Parameter")


def _names(code):
    """Every global name a code object and the code nested in it reads."""
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _names(c)
    return out


def _rebind(fn, tracer):
    """fn with the torch tensors of its closure and of the globals it reads
    replaced by proxies of ``tracer`` (a bound method: its function
    rebound, with the same self)."""
    if inspect.ismethod(fn):
        return types.MethodType(_rebind(fn.__func__, tracer), fn.__self__)
    code = fn.__code__
    glob = fn.__globals__
    swapped = None
    for name in sorted(_names(code)):
        if name in glob and _is_tensor(glob[name]):
            swapped = swapped if swapped is not None else dict(glob)
            swapped[name] = tracer.proxy(glob[name], name)
    cells = fn.__closure__
    if cells:
        new = []
        for name, cell in zip(code.co_freevars, cells):
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                new.append(cell)
                continue
            new.append(types.CellType(tracer.proxy(value, name)) if _is_tensor(value) else cell)
        cells = tuple(new)
    g = swapped if swapped is not None else glob
    f = types.FunctionType(code, g, fn.__name__, fn.__defaults__, cells)
    f.__kwdefaults__ = fn.__kwdefaults__
    return f


class Traced:
    """A traced score or mask function: ``kind`` (``"score_mod"`` or
    ``"mask_mod"``), the body's ``lines`` (ending in ``tx.yield``), the
    torch tensors it ``captures`` (region arguments ``%c0``, ``%c1``...),
    their ``capture_types`` and ``labels`` (the Python names read)."""

    def __init__(self, kind, lines, captures, types_, labels):
        self.kind, self.lines, self.captures, self.capture_types = kind, lines, captures, types_
        self.labels = labels  # the Python names the function read them by

    def region(self, operands, indent="      "):
        """The clause ``score_mod(%a : T, ...) { ^bb0(...): ... }`` with
        ``operands`` (the SSA names of the captured tensors in the
        enclosing function, one per entry of ``captures``)."""
        head = self.kind
        if self.captures:
            head += "(%s)" % ", ".join("%s : %s" % (o, t) for o, t in
                                       zip(operands, self.capture_types))
        args = ["%b: index", "%h: index", "%q_idx: index", "%kv_idx: index"]
        if self.kind == "score_mod":
            args.insert(0, "%score: f32")
        args += ["%%c%d: %s" % (i, t) for i, t in enumerate(self.capture_types)]
        out = [head + " {", "^bb0(%s):" % ", ".join(args)]
        out += ["  " + line for line in self.lines]
        out.append("}")
        return "\n".join(indent + line for line in out)


def trace(fn, kind, heads=None):
    """Traces ``fn`` as a FlexAttention ``score_mod`` (``kind="score_mod"``:
    ``fn(score, b, h, q_idx, kv_idx) -> new score``) or ``mask_mod``
    (``kind="mask_mod"``: ``fn(b, h, q_idx, kv_idx) -> visible``) and
    returns a :class:`Traced`. ``heads``: the query's H, when known (a
    captured tensor indexed by ``h`` must then have at least H entries
    there). Raises :class:`TraceError` for what cannot be traced."""
    if kind not in ("score_mod", "mask_mod"):
        raise ValueError("kind must be 'score_mod' or 'mask_mod'")
    if not callable(fn) or not (hasattr(fn, "__code__") or inspect.ismethod(fn)):
        raise TraceError("%s: expected a Python function (def or lambda), got %s"
                         % (kind, type(fn).__name__))
    t = _Tracer(kind, heads)
    args = [_Value(t.body, n, "index") for n in ("%b", "%h", "%q_idx", "%kv_idx")]
    if kind == "score_mod":
        args.insert(0, _Value(t.body, "%score", "f32"))
    try:
        r = _rebind(fn, t)(*args)
    except TraceError:
        raise
    except TypeError as e:
        if "positional argument" in str(e):
            raise TraceError("%s: the function must take %s, got: %s" % (
                kind, "(score, b, h, q_idx, kv_idx)" if kind == "score_mod"
                else "(b, h, q_idx, kv_idx)", e))
        raise
    if r is None or isinstance(r, (_Captured, tuple, list)) or _is_tensor(r):
        t.body.fail("the function must return one scalar (%s), got %s" % (
            "the new score" if kind == "score_mod" else "a boolean: true = visible",
            "None" if r is None else type(r).__name__))
    if kind == "score_mod":
        r = _cast(_lift(t.body, r, "f32"), "f32")
        t.body.lines.append("tx.yield %s : f32" % r.name)
    else:
        r = _lift(t.body, r, "i1")
        r = _to_bool(r)
        t.body.lines.append("tx.yield %s : i1" % r.name)
    return Traced(kind, t.body.lines, [c.tensor for c in t.captured],
                  [t.ttype(c) for c in t.captured], [c.label for c in t.captured])
