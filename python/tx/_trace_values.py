"""Traced scalar values for tx.flex's tracer (_trace.py): the IR body under
construction, PyTorch's type promotion as casts, and the arithmetic,
comparison, logic and math operations of a traced value (``_Value``), also
reached through PyTorch's ``__torch_function__`` protocol."""

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
            value = int(value)
            bits = _INTS[ty]
            if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
                self.fail("the constant %d does not fit %s (the type of the other operand)"
                          % (value, ty))
            text = str(value)
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
    if getattr(type(x), "is_captured_tensor", False):
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
    body = x.body if isinstance(x, _Value) else y.body
    if all(isinstance(a, bool) or getattr(a, "ty", None) == "i1" for a in (x, y)):
        # bool with bool, as PyTorch: + is or, * is and, - is an error
        if iop == "arith.subi":
            body.fail("subtracting booleans: use ^ or ~ (as PyTorch asks)")
        return _logic(x, y, "ori" if iop == "arith.addi" else "andi")
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


def _fmod(x, y):
    """``torch.fmod``: C's fmod (the sign of x; arith.remf on floats, the
    truncating arith.remsi on integers)."""
    x, y, ty = _operands(x, y)
    if not _is_float(ty):
        _nonzero(y)
        return x.body.emit("arith.remsi %s, %s : %s" % (x.name, y.name, ty), ty)
    return x.body.emit("arith.remf %s, %s : %s" % (x.name, y.name, ty), ty)


def _classify(op):
    """``torch.isinf`` / ``isnan`` / ``isfinite``: math.<op> on a float, a
    constant on an integer (never inf or NaN)."""
    def f(v):
        if not _is_float(v.ty):
            return _lift(v.body, op == "isfinite", "i1")
        return v.body.emit("math.%s %s : %s" % (op, v.name, v.ty), "i1")
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
    if min is None and max is None:
        v.body.fail("torch.clamp needs min or max")
    if min is not None:
        v = _minmax(v, min, "max")
    if max is not None:
        v = _minmax(v, max, "min")
    return v


_UNARY = {name: _float_unary(name) for name in
          ("exp", "exp2", "log", "log2", "log1p", "expm1", "sqrt", "rsqrt", "tanh", "sin",
           "cos", "floor", "ceil", "trunc", "erf")}
def _round(v, decimals=0):
    if decimals:
        v.body.fail("torch.round with decimals=%r: only decimals=0 is traced" % (decimals,))
    return _float_unary("roundeven")(v)


def _cast_to(v, dtype):
    """``x.to(dtype)`` / ``x.long()``...: PyTorch's conversion (float to
    integer truncates toward zero)."""
    name = str(dtype).split(".")[-1]
    ty = {"float16": "f32", "bfloat16": "f32", "float32": "f32", "float": "f32",
          "float64": "f64", "double": "f64", "int8": "i8", "int16": "i16", "int32": "i32",
          "int": "i32", "int64": "i64", "long": "i64", "bool": "i1"}.get(name)
    if ty is None:
        v.body.fail("cannot convert a traced value to %s" % name)
    if ty == "i1":
        return _to_bool(v)
    if _is_float(v.ty) and not _is_float(ty):
        f = _cast(v, "f64" if v.ty == "f64" else "f32")
        return v.body.emit("arith.fptosi %s : %s to %s" % (f.name, f.ty, ty), ty)
    return _cast(v, ty)


def _div(x, y, rounding_mode=None):
    if rounding_mode is None:
        return x / y
    if rounding_mode == "floor":
        return x // y
    if rounding_mode != "trunc":
        _find_body([x, y]).fail("torch.div: rounding_mode must be None, 'trunc' or 'floor'")
    x, y, ty = _operands(x, y)
    if _is_float(ty):
        return _float_unary("trunc")(x / y)
    _nonzero(y)
    return x.body.emit("arith.divsi %s, %s : %s" % (x.name, y.name, ty), ty)


def _nonzero(y):
    """Refuses an integer division by the constant 0 (ZeroDivisionError in
    Python, undefined on the GPU)."""
    if y.name in [c.name for (t, _), c in y.body.consts.items() if t == "0"]:
        y.body.fail("integer division or modulo by the constant 0")


_UNARY.update(isinf=_classify("isinf"), isnan=_classify("isnan"),
              isfinite=_classify("isfinite"))
_UNARY.update(sigmoid=_sigmoid, abs=_abs, round=_round,
              neg=lambda v: -v, negative=lambda v: -v, square=lambda v: v * v)
_CONVERSIONS = {"long": "int64", "int": "int32", "float": "float32", "double": "float64",
                "half": "float32", "bfloat16": "float32", "bool": "bool"}
_NARY = {"where": where, "minimum": lambda x, y: _minmax(x, y, "min"),
         "maximum": lambda x, y: _minmax(x, y, "max"), "clamp": _clamp, "clip": _clamp,
         "add": lambda x, y, alpha=1: x + y * alpha if alpha != 1 else x + y,
         "sub": lambda x, y, alpha=1: x - y * alpha if alpha != 1 else x - y,
         "mul": lambda x, y: x * y,
         "div": _div, "true_divide": lambda x, y: x / y,
         "eq": lambda x, y: x == y, "ne": lambda x, y: x != y,
         "lt": lambda x, y: x < y, "le": lambda x, y: x <= y, "gt": lambda x, y: x > y,
         "ge": lambda x, y: x >= y, "logical_and": lambda x, y: _to_bool(x) & _to_bool(y),
         "logical_or": lambda x, y: _to_bool(x) | _to_bool(y),
         "logical_not": lambda x: ~_to_bool(x), "remainder": lambda x, y: x % y,
         "floor_divide": lambda x, y: x // y, "fmod": _fmod}
_NARY.update(min=lambda x, y=None: _minmax(x, y, "min") if y is not None else x,
             max=lambda x, y=None: _minmax(x, y, "max") if y is not None else x)


class _TraceAttributeError(TraceError, AttributeError):
    """A method a traced value lacks (an AttributeError too, so hasattr
    still answers)."""


def _call(body, name, f, args, kwargs):
    """f(*args, **kwargs), with arguments it does not take as a TraceError."""
    try:
        return f(*args, **kwargs)
    except TypeError as e:
        if isinstance(e, TraceError):
            raise
        body.fail("torch.%s with these arguments cannot be traced (%s)" % (name, e))


def _shift(x, o, op):
    x, y, ty = _operands(x, o)
    if _is_float(ty) or ty == "i1":
        x.body.fail("shifts take integers")
    return x.body.emit("%s %s, %s : %s" % (op, x.name, y.name, ty), ty)


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
        _nonzero(y)
        return self.body.emit("arith.floordivsi %s, %s : %s" % (x.name, y.name, ty), ty)

    def __rfloordiv__(self, o):
        return _Value.__floordiv__(_lift(self.body, o, self.ty), self)

    def __mod__(self, o):
        x, y, ty = _operands(self, o)
        if _is_float(ty):  # PyTorch's remainder: x - floor(x / y) * y
            return x - _float_unary("floor")(x / y) * y
        _nonzero(y)
        return _floor_fix(self.body.emit("arith.remsi %s, %s : %s" % (x.name, y.name, ty),
                                         ty), y)

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
        if self.ty == "i1":
            self.body.fail("negating a boolean: use ~ (as PyTorch asks)")
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
        # Tensor methods: score.tanh(), (kv_idx - q_idx).abs(), x.clamp(0, 5),
        # x.long(), x.to(torch.int32), x.item()...
        if name in _CONVERSIONS:
            return lambda: _cast_to(self, _CONVERSIONS[name])
        if name == "to":
            return lambda dtype, *a, **k: _cast_to(self, dtype)
        if name == "item":
            return lambda: self
        f = _UNARY.get(name) or _NARY.get(name)
        if f is None or name.startswith("_"):
            raise _TraceAttributeError(
                "%s: traced value has no method %r (tx traces the arithmetic, comparisons, "
                "torch.where, conversions (.long(), .to(dtype)) and the math functions of "
                "docs/Python.md)" % (self.body.what, name))
        return lambda *a, **k: _call(self.body, name, f, (self,) + a, k)

    def __getitem__(self, idx):
        if idx == ():  # a 0-d capture read as t[()]
            return self
        self.body.fail("a traced scalar cannot be indexed")

    def __rshift__(self, o):
        return _shift(self, o, "arith.shrsi")

    def __lshift__(self, o):
        return _shift(self, o, "arith.shli")

    def __divmod__(self, o):
        return self // o, self % o

    def __round__(self, ndigits=None):
        self.body.fail("round() of a traced value: use torch.round(x)")

    def __len__(self):
        self.body.fail("len() of a traced scalar")

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
        if f in _UNARY.values() and not kwargs:
            return f(*args)
        return _call(body, name, f, args, kwargs)
