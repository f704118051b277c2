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
import types

from ._errors import TraceError


_INTS = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "index": 64}
_FLOATS = {"f16": 1, "bf16": 1, "f32": 2, "f64": 3}
# torch dtype name -> element type of the captured tensor
_DTYPES = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
           "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "bool": "i1"}


def _is_float(t):
    return t in _FLOATS


class _Body:
    """The body under construction: lines of IR and a counter of names."""

    def __init__(self, what):
        self.what = what  # "score_mod" or "mask_mod", for messages
        self.lines = []
        self.n = 0
        self.consts = {}

    def emit(self, rhs, ty):
        name = "%%v%d" % self.n
        self.n += 1
        self.lines.append("%s = %s" % (name, rhs))
        return _Value(self, name, ty)

    def const(self, value, ty):
        if ty == "i1":
            text = "true" if value else "false"
        elif _is_float(ty):
            value = float(value)
            if value != value or value in (float("inf"), float("-inf")):
                bits = {"f32": ("0x7FC00000", "0x7F800000", "0xFF800000"),
                        "f64": ("0x7FF8000000000000", "0x7FF0000000000000",
                                "0xFFF0000000000000")}[ty]
                text = bits[0] if value != value else bits[1] if value > 0 else bits[2]
            else:
                text = "%.17e" % value  # (MLIR's float literals need the dot)
        else:
            text = str(int(value))
        key = (text, ty)
        if key not in self.consts:  # (a bool constant takes no type)
            self.consts[key] = self.emit("arith.constant %s%s" % (
                text, "" if ty == "i1" else " : " + ty), ty)
        return self.consts[key]

    def fail(self, message):
        raise TraceError("%s: %s" % (self.what, message))


def _lift(body, x, like):
    """A traced value for ``x``: proxies pass; Python numbers become
    constants of the type ``like`` suggests."""
    if isinstance(x, _Value):
        return x
    if isinstance(x, bool):
        return body.const(x, "i1")
    if isinstance(x, int):
        return body.const(x, like if like in _INTS and like != "i1" else
                          "f32" if _is_float(like) else "i64")
    if isinstance(x, float):
        return body.const(x, "f64" if like == "f64" else "f32")
    if isinstance(x, _Captured):
        body.fail("the captured tensor %s is used as a value: index it (t[h], t[q_idx, kv_idx])"
                  % x.label)
    body.fail("cannot use a %s in a traced function (only the arguments, Python numbers and "
              "elements of captured tensors)" % type(x).__name__)


def _cast(v, ty):
    """v converted to type ty (the casts of PyTorch's promotion)."""
    b, s = v.body, v.ty
    if s == ty:
        return v
    if _is_float(ty):
        if _is_float(s):
            op = "arith.extf" if _FLOATS[s] < _FLOATS[ty] or s in ("f16", "bf16") else "arith.truncf"
            return b.emit("%s %s : %s to %s" % (op, v.name, s, ty), ty)
        if s == "i1":
            return b.emit("arith.uitofp %s : i1 to %s" % (v.name, ty), ty)
        if s == "index":
            v = _cast(v, "i64")
            s = "i64"
        return b.emit("arith.sitofp %s : %s to %s" % (v.name, s, ty), ty)
    if _is_float(s):
        b.fail("a float value is used where an integer is needed (%s to %s): convert it "
               "explicitly, or keep the computation in floats" % (s, ty))
    if ty == "index" or s == "index":
        if s == "i1":
            v = _cast(v, "i64")
            s = "i64"
        return b.emit("arith.index_cast %s : %s to %s" % (v.name, s, ty), ty)
    if _INTS[s] < _INTS[ty]:
        op = "arith.extui" if s == "i1" else "arith.extsi"
        return b.emit("%s %s : %s to %s" % (op, v.name, s, ty), ty)
    return b.emit("arith.trunci %s : %s to %s" % (v.name, s, ty), ty)


def _common(a, b):
    """The type two operands of an arithmetic op are brought to."""
    if _is_float(a) or _is_float(b):
        return "f64" if "f64" in (a, b) else "f32"
    if a == b:
        return "i64" if a == "i1" else a
    if "index" in (a, b):
        return "index"
    return a if _INTS[a] >= _INTS[b] else b


def _operands(x, y, want=None):
    """Both operands lifted and cast to one type (``want`` forces it)."""
    body = x.body if isinstance(x, _Value) else y.body
    hint = x.ty if isinstance(x, _Value) else y.ty
    x, y = _lift(body, x, hint), _lift(body, y, hint)
    ty = want or _common(x.ty, y.ty)
    return _cast(x, ty), _cast(y, ty), ty


def _binary(x, y, fop, iop):
    x, y, ty = _operands(x, y)
    op = fop if _is_float(ty) else iop
    return x.body.emit("%s %s, %s : %s" % (op, x.name, y.name, ty), ty)


_CMP = {"lt": ("olt", "slt"), "le": ("ole", "sle"), "gt": ("ogt", "sgt"),
        "ge": ("oge", "sge"), "eq": ("oeq", "eq"), "ne": ("une", "ne")}


def _compare(x, y, how):
    x, y, ty = _operands(x, y)
    if _is_float(ty):
        return x.body.emit("arith.cmpf %s, %s, %s : %s" % (_CMP[how][0], x.name, y.name, ty), "i1")
    return x.body.emit("arith.cmpi %s, %s, %s : %s" % (_CMP[how][1], x.name, y.name, ty), "i1")


def _floor_fix(r, d):
    """Python's modulo from C's remainder r of a divided by d: add d where
    r is nonzero and has the other sign."""
    zero = _lift(r.body, 0, r.ty)
    wrong = _compare(r, zero, "ne") & (_compare(r, zero, "lt") ^ _compare(d, zero, "lt"))
    return where(wrong, r + d, r)


def _logic(x, y, op):
    body = x.body if isinstance(x, _Value) else y.body
    both = [_lift(body, a, getattr(x, "ty", None) or y.ty) for a in (x, y)]
    x, y, ty = _operands(*both, want="i1" if all(a.ty == "i1" for a in both) else None)
    if _is_float(ty):
        x.body.fail("%s on float values: compare them first (a > 0) to get booleans"
                    % {"andi": "&", "ori": "|", "xori": "^"}[op])
    return x.body.emit("arith.%s %s, %s : %s" % (op, x.name, y.name, ty), ty)


def _to_bool(v):
    v = _lift(v.body, v, "i1") if not isinstance(v, _Value) else v
    if v.ty == "i1":
        return v
    return _compare(v, 0, "ne")


def where(cond, x, y):
    """``torch.where(cond, x, y)`` on traced values: ``arith.select``."""
    body = next(a.body for a in (cond, x, y) if isinstance(a, _Value))
    c = _to_bool(_lift(body, cond, "i1"))
    x, y, ty = _operands(_lift(body, x, getattr(y, "ty", "f32")), y)
    return body.emit("arith.select %s, %s, %s : %s" % (c.name, x.name, y.name, ty), ty)


def _float_unary(op):
    def f(v):
        v = _cast(v, "f64" if v.ty == "f64" else "f32")
        return v.body.emit("math.%s %s : %s" % (op, v.name, v.ty), v.ty)
    return f


def _sigmoid(v):
    v = _cast(v, "f64" if v.ty == "f64" else "f32")
    return 1.0 / (1.0 + _float_unary("exp")(-v))


def _abs(v):
    if _is_float(v.ty):
        return _float_unary("absf")(v)
    return v.body.emit("math.absi %s : %s" % (v.name, v.ty), v.ty)


def _minmax(x, y, which):
    x, y, ty = _operands(x, y)
    op = ("arith.%simumf" if _is_float(ty) else "arith.%ssi") % which
    return x.body.emit("%s %s, %s : %s" % (op, x.name, y.name, ty), ty)


def _clamp(v, min=None, max=None):
    if min is not None:
        v = _minmax(v, min, "max")
    if max is not None:
        v = _minmax(v, max, "min")
    return v


_UNARY = {name: _float_unary(name) for name in
          ("exp", "exp2", "log", "log2", "log1p", "expm1", "sqrt", "rsqrt", "tanh", "sin",
           "cos", "floor", "ceil", "trunc", "erf")}
_UNARY.update(sigmoid=_sigmoid, abs=_abs, round=_float_unary("roundeven"),
              neg=lambda v: -v, negative=lambda v: -v, square=lambda v: v * v)
_NARY = {"where": where, "minimum": lambda x, y: _minmax(x, y, "min"),
         "maximum": lambda x, y: _minmax(x, y, "max"), "clamp": _clamp, "clip": _clamp,
         "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
         "div": lambda x, y: x / y, "eq": lambda x, y: x == y, "ne": lambda x, y: x != y,
         "lt": lambda x, y: x < y, "le": lambda x, y: x <= y, "gt": lambda x, y: x > y,
         "ge": lambda x, y: x >= y, "logical_and": lambda x, y: _to_bool(x) & _to_bool(y),
         "logical_or": lambda x, y: _to_bool(x) | _to_bool(y),
         "logical_not": lambda x: ~_to_bool(x), "remainder": lambda x, y: x % y,
         "floor_divide": lambda x, y: x // y}
_NARY.update(min=lambda x, y=None: _minmax(x, y, "min") if y is not None else x,
             max=lambda x, y=None: _minmax(x, y, "max") if y is not None else x)


def _find_body(items):
    """The body of the first traced value among items (nested in tuples
    and lists, as torch passes an index)."""
    for a in items:
        if isinstance(a, _Value):
            return a.body
        if isinstance(a, (tuple, list)):
            b = _find_body(a)
            if b is not None:
                return b
    return None


class _Value:
    """A traced scalar: the SSA name of its op and its type."""

    def __init__(self, body, name, ty):
        self.body, self.name, self.ty = body, name, ty

    def __repr__(self):
        return "<traced %s %s>" % (self.ty, self.name)

    __hash__ = object.__hash__

    def __add__(self, o):
        return _binary(self, o, "arith.addf", "arith.addi")

    def __radd__(self, o):
        return _binary(o, self, "arith.addf", "arith.addi")

    def __sub__(self, o):
        return _binary(self, o, "arith.subf", "arith.subi")

    def __rsub__(self, o):
        return _binary(o, self, "arith.subf", "arith.subi")

    def __mul__(self, o):
        return _binary(self, o, "arith.mulf", "arith.muli")

    def __rmul__(self, o):
        return _binary(o, self, "arith.mulf", "arith.muli")

    def __truediv__(self, o):
        x, y, ty = _operands(self, o, "f64" if "f64" in (self.ty, getattr(o, "ty", "")) else "f32")
        return self.body.emit("arith.divf %s, %s : %s" % (x.name, y.name, ty), ty)

    def __rtruediv__(self, o):
        return _Value.__truediv__(_lift(self.body, o, "f32"), self)

    def __floordiv__(self, o):
        x, y, ty = _operands(self, o)
        if _is_float(ty):
            return _float_unary("floor")(x / y)
        return self.body.emit("arith.floordivsi %s, %s : %s" % (x.name, y.name, ty), ty)

    def __rfloordiv__(self, o):
        return _Value.__floordiv__(_lift(self.body, o, self.ty), self)

    def __mod__(self, o):
        x, y, ty = _operands(self, o)
        op = "arith.remf" if _is_float(ty) else "arith.remsi"
        return _floor_fix(self.body.emit("%s %s, %s : %s" % (op, x.name, y.name, ty), ty), y)

    def __rmod__(self, o):
        return _Value.__mod__(_lift(self.body, o, self.ty), self)

    def __pow__(self, o):
        if isinstance(o, int) and not isinstance(o, bool) and 0 <= o <= 8:
            r = _lift(self.body, 1, self.ty)
            for _ in range(o):
                r = r * self
            return r
        x, y, ty = _operands(self, o, "f64" if self.ty == "f64" else "f32")
        return self.body.emit("math.powf %s, %s : %s" % (x.name, y.name, ty), ty)

    def __rpow__(self, o):
        return _Value.__pow__(_lift(self.body, o, "f32"), self)

    def __neg__(self):
        if _is_float(self.ty):
            v = _cast(self, "f64" if self.ty == "f64" else "f32")
            return self.body.emit("arith.negf %s : %s" % (v.name, v.ty), v.ty)
        return 0 - self

    def __pos__(self):
        return self

    def __abs__(self):
        return _abs(self)

    def __lt__(self, o):
        return _compare(self, o, "lt")

    def __le__(self, o):
        return _compare(self, o, "le")

    def __gt__(self, o):
        return _compare(self, o, "gt")

    def __ge__(self, o):
        return _compare(self, o, "ge")

    def __eq__(self, o):
        return _compare(self, o, "eq")

    def __ne__(self, o):
        return _compare(self, o, "ne")

    def __and__(self, o):
        return _logic(self, o, "andi")

    __rand__ = __and__

    def __or__(self, o):
        return _logic(self, o, "ori")

    __ror__ = __or__

    def __xor__(self, o):
        return _logic(self, o, "xori")

    __rxor__ = __xor__

    def __invert__(self):
        if _is_float(self.ty):
            self.body.fail("~ on a float value: compare it first to get a boolean")
        return _logic(self, True if self.ty == "i1" else -1, "xori")

    def __bool__(self):
        self.body.fail("Python control flow on a traced value (if, and/or/not, min()/max(), "
                       "a chained comparison) cannot be traced: write torch.where(cond, a, b), "
                       "&, |, ~, torch.minimum/torch.maximum instead")

    def _no_python_number(self, *_):
        self.body.fail("a traced value cannot become a Python number (math.* functions, "
                       "int(), float(), indexing a list): use torch.* functions (torch.tanh, "
                       "torch.exp...) and index captured tensors")

    __float__ = __int__ = __index__ = __complex__ = _no_python_number

    def __getattr__(self, name):
        # Tensor methods: score.tanh(), (kv_idx - q_idx).abs(), x.clamp(0, 5)...
        f = _UNARY.get(name) or _NARY.get(name)
        if f is None or name.startswith("_"):
            raise AttributeError("traced value has no method %r (tx traces the arithmetic, "
                                 "comparisons, torch.where and the math functions of "
                                 "docs/Python.md)" % name)
        return lambda *a, **k: f(self, *a, **k)

    @classmethod
    def __torch_function__(cls, func, types_, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", str(func)).rstrip("_")
        body = _find_body(list(args) + list(kwargs.values()))
        if any(type(a).__name__ in ("Tensor", "Parameter") for a in args):
            body.fail("the function reads a torch tensor that tx did not capture (one held in "
                      "a list, dict, attribute or default argument, or read by a helper "
                      "function): bind it to a name in the function's closure or its module")
        f = _UNARY.get(name) or _NARY.get(name)
        if f is None:
            body.fail("torch.%s cannot be traced (tx traces the arithmetic, comparisons, "
                      "torch.where and the math functions of docs/Python.md)" % name)
        if "condition" in kwargs:
            args = (kwargs.pop("condition"),) + tuple(args)
        if "input" in kwargs:
            args = tuple(args[:1]) + (kwargs.pop("input"),) + tuple(args[1:]) \
                if name == "where" else (kwargs.pop("input"),) + tuple(args)
        if "other" in kwargs:
            args = tuple(args) + (kwargs.pop("other"),)
        if f in _UNARY.values():
            return f(*args)
        return f(*args, **kwargs)


class _Captured:
    """A captured torch tensor inside a traced function: ``t[i]``,
    ``t[i, j]`` become ``tensor.extract``; ``shape`` / ``size()`` /
    ``numel()`` / ``ndim`` are its (static) sizes."""

    def __init__(self, tracer, tensor, index, label):
        self.tracer, self.tensor, self.index, self.label = tracer, tensor, index, label
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

    def __init__(self, what):
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
        cap = _Captured(self, tensor, len(self.captured), label)
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
    replaced by proxies of ``tracer``."""
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


def trace(fn, kind):
    """Traces ``fn`` as a FlexAttention ``score_mod`` (``kind="score_mod"``:
    ``fn(score, b, h, q_idx, kv_idx) -> new score``) or ``mask_mod``
    (``kind="mask_mod"``: ``fn(b, h, q_idx, kv_idx) -> visible``) and
    returns a :class:`Traced`. Raises :class:`TraceError` for what cannot
    be traced."""
    if kind not in ("score_mod", "mask_mod"):
        raise ValueError("kind must be 'score_mod' or 'mask_mod'")
    if not callable(fn) or not hasattr(fn, "__code__"):
        raise TraceError("%s: expected a Python function (def or lambda), got %s"
                         % (kind, type(fn).__name__))
    t = _Tracer(kind)
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
