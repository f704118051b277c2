"""Argument checks of an entry point: per argument (type, dtype, device,
rank, static sizes, contiguity) and the shape rules of the tx ops it
computes (include/Transformer/TxOps.td), with messages that name the
argument.

Each rule is written once, as a Python expression over the argument shapes
``S[i]``: the entry point's generated fast path (``_entry.py``) inlines the
expressions; when one fails, :meth:`Checker.diagnose` evaluates the same
rules in order and raises the first failure's message.
"""
from ._errors import ArgumentError, ArgumentTypeError, ShapeError, TxError, UnsupportedError
from ._manifest import TORCH_DTYPES


class Rule:
    """A shape rule: ``expr`` (over ``S[i]``, the shape of argument i) must
    hold; otherwise argument ``blame`` gets ``message`` (a str.format
    template over ``S`` and ``A``, the argument names)."""

    __slots__ = ("blame", "expr", "message", "check")

    def __init__(self, blame, expr, message):
        self.blame = blame
        self.expr = expr
        self.message = message
        self.check = eval("lambda S: bool(%s)" % expr)

    def __repr__(self):
        return "<rule %s on argument %d>" % (self.expr, self.blame)


def op_rules(fn):
    """The shape rules of the tx ops of ``fn`` whose operands are function
    arguments, in the order the library's run-time checks use
    (lib/Transformer/Transforms/AttentionShapes.cpp), plus the default-scale rule."""
    rules = []
    for op in fn.ops:
        o = op.operands
        q, k, v, m = o.get("query"), o.get("key"), o.get("value"), o.get("mask")
        keys = (("$q", q), ("$k", k), ("$v", v), ("$m", m), ("$o", o.get("output")),
                ("$g", o.get("grad_output")), ("$l", o.get("lse")),
                ("$p", o.get("page_table")))

        def add(blame, needs, expr, message):
            # $q/$k/$v/$m/$o/$g/$l: the operands' argument indices (blame and
            # needs may name them too); the message is a str.format template
            # over S (shapes) and A (argument names).
            idx = dict(keys)
            blame = idx.get(blame, blame)
            needs = tuple(idx.get(i, i) for i in needs)
            if blame is None or any(i is None for i in needs):
                return
            for key, i in keys:
                expr = expr.replace(key, str(i))
                message = message.replace(key, str(i))
            rules.append(Rule(blame, expr, message))

        if op.op == "tx.merge_attention_states":
            _merge_rules(fn, op, rules)
            continue
        if op.op in ("tx.softmax_grad", "tx.attention_grad"):
            _grad_rules(op, add)
        if op.op not in ("tx.attention", "tx.attention_grad"):
            continue  # tx.softmax: any shape of its type.
        paged = o.get("page_table") is not None
        if paged:
            _paged_rules(add)
        else:
            _contiguous_rules(add)
        if m is not None:
            mshape = fn.arguments[m].shape or (None,) * 4
            # A mask dim broadcasts only where its type has a static 1
            # (docs/Design.md); a dynamic one must be the full size.
            if mshape[0] != 1:
                add(m, (q,), "S[$m][0] == S[$q][0]",
                    "batch dimension is {S[$m][0]}, expected B = {S[$q][0]} ({A[$q]}'s; the "
                    "mask broadcasts over B only where the function's mask type has a static 1)")
            if mshape[1] != 1:
                add(m, (q,), "S[$m][1] == S[$q][1]",
                    "head dimension is {S[$m][1]}, expected H = {S[$q][1]} ({A[$q]}'s; the "
                    "mask broadcasts over H only where the function's mask type has a static 1)")
            add(m, (q,), "S[$m][2] == S[$q][2]",
                "query length is {S[$m][2]}, expected Sq = {S[$q][2]} ({A[$q]}'s)")
            if paged:
                add(m, ("$p", k), "S[$m][3] == S[$p][1] * S[$k][1]",
                    "key length is {S[$m][3]}, expected Sk = max_pages * page_size = "
                    "{S[$p][1]} * {S[$k][1]} ({A[$p]}'s and {A[$k]}'s)")
            else:
                add(m, (k,), "S[$m][3] == S[$k][2]",
                    "key length is {S[$m][3]}, expected Sk = {S[$k][2]} ({A[$k]}'s)")
        for key in ("kv_lengths", "q_lengths"):
            li = o.get(key)
            if li is not None and q is not None:
                rules.append(Rule(li, "S[%d][0] == S[%d][0]" % (li, q),
                                  "has {S[%d][0]} entries, expected one per batch, B = "
                                  "{S[%d][0]} ({A[%d]}'s)" % (li, q, q)))
        if op.scale is None:
            add(q, (), "S[$q][3] > 0",
                "head dim D is 0, but the default scale 1/sqrt(D) needs D > 0 "
                "(the function has no explicit scale)")
    return rules


class _Missing:
    """The default of every entry-point parameter: an argument not passed."""

    def __repr__(self):
        return "<required>"


MISSING = _Missing()


def _contiguous_rules(add):
    """The shape rules of K [B, Hkv, Sk, D] and V [B, Hkv, Sk, Dv] against
    Q [B, H, Sq, D]."""
    add("$k", ("$q",), "S[$k][0] == S[$q][0]",
        "batch size B = {S[$k][0]} differs from {A[$q]}'s {S[$q][0]}")
    add("$v", ("$q",), "S[$v][0] == S[$q][0]",
        "batch size B = {S[$v][0]} differs from {A[$q]}'s {S[$q][0]}")
    add("$k", ("$q",), "S[$k][3] == S[$q][3]",
        "head dim D = {S[$k][3]} differs from {A[$q]}'s {S[$q][3]}")
    add("$v", ("$k",), "S[$v][1] == S[$k][1]",
        "K/V head count Hkv = {S[$v][1]} differs from {A[$k]}'s {S[$k][1]}")
    add("$v", ("$k",), "S[$v][2] == S[$k][2]",
        "key length Sk = {S[$v][2]} differs from {A[$k]}'s {S[$k][2]}")
    add("$k", ("$q",), "S[$k][1] > 0 or S[$q][1] == 0",
        "K/V head count Hkv is 0 but {A[$q]} has H = {S[$q][1]} heads")
    add("$k", ("$q",), "S[$k][1] == 0 or S[$q][1] % S[$k][1] == 0",
        "K/V head count Hkv = {S[$k][1]} does not divide {A[$q]}'s H = {S[$q][1]} "
        "query heads (grouped-query attention needs H % Hkv == 0)")


def _paged_rules(add):
    """The shape rules of a tx.attention on page pools K [num_pages,
    page_size, Hkv, D], V [num_pages, page_size, Hkv, Dv] and a page table
    [B, max_pages] (TxOps.td, "Paged KV cache"); Sk = max_pages * page_size."""
    add("$p", ("$q",), "S[$p][0] == S[$q][0]",
        "has {S[$p][0]} rows, expected one per batch, B = {S[$q][0]} ({A[$q]}'s)")
    add("$k", ("$q",), "S[$k][3] == S[$q][3]",
        "head dim D = {S[$k][3]} differs from {A[$q]}'s {S[$q][3]}")
    for d, what in enumerate(("page count num_pages", "page size", "K/V head count Hkv")):
        add("$v", ("$k",), "S[$v][%d] == S[$k][%d]" % (d, d),
            "%s = {S[$v][%d]} differs from {A[$k]}'s {S[$k][%d]}" % (what, d, d))
    add("$k", (), "S[$k][1] in (1, 2, 4, 8, 16, 32, 64, 128, 256)",
        "page size {S[$k][1]} (dimension 1 of the page pool) is not a power of two "
        "from 1 to 256")
    add("$k", ("$q",), "S[$k][2] > 0 or S[$q][1] == 0",
        "K/V head count Hkv is 0 but {A[$q]} has H = {S[$q][1]} heads")
    add("$k", ("$q",), "S[$k][2] == 0 or S[$q][1] % S[$k][2] == 0",
        "K/V head count Hkv = {S[$k][2]} does not divide {A[$q]}'s H = {S[$q][1]} "
        "query heads (grouped-query attention needs H % Hkv == 0)")


def _merge_rules(fn, op, rules):
    """tx.merge_attention_states: out_b has out_a's shape; lse_a and lse_b
    are out_a's leading dimensions."""
    o = op.operands
    oa, la, ob, lb = (o.get(r) for r in ("out_a", "lse_a", "out_b", "lse_b"))
    if oa is None:
        return
    if ob is not None:
        rules.append(Rule(ob, "S[%d] == S[%d]" % (ob, oa),
                          "shape {S[%d]} differs from {A[%d]}'s {S[%d]} (both parts have "
                          "one shape)" % (ob, oa, oa)))
    for li in (la, lb):
        if li is not None:
            rules.append(Rule(li, "tuple(S[%d]) == tuple(S[%d][:-1])" % (li, oa),
                              "shape {S[%d]} is not {A[%d]}'s leading dimensions (its "
                              "shape {S[%d]} without the last: an LSE per output row)"
                              % (li, oa, oa)))


def _grad_rules(op, add):
    """The shape rules tying a backward op's forward operands (O, the LSE)
    and gradient (dO) to its other operands: O is [B, H, Sq, Dv] (Q's B, H,
    Sq; V's Dv), dO has O's shape, the LSE is [B, H, Sq]; a softmax's dY has
    Y's shape."""
    if op.op == "tx.softmax_grad":
        add("$g", ("$o",), "S[$g] == S[$o]",
            "shape {S[$g]} differs from {A[$o]}'s {S[$o]} (the gradient of a result has "
            "the result's shape)")
        return
    for d, what in enumerate(("batch size B", "head count H", "query length Sq")):
        add("$o", ("$q",), "S[$o][%d] == S[$q][%d]" % (d, d),
            "%s = {S[$o][%d]} differs from {A[$q]}'s {S[$q][%d]} (O is the forward's "
            "output, [B, H, Sq, Dv])" % (what, d, d))
        add("$l", ("$q",), "S[$l][%d] == S[$q][%d]" % (d, d),
            "%s = {S[$l][%d]} differs from {A[$q]}'s {S[$q][%d]} (the LSE is the "
            "forward's, [B, H, Sq])" % (what, d, d))
    add("$o", ("$v",), "S[$o][3] == S[$v][3]",
        "value head dim Dv = {S[$o][3]} differs from {A[$v]}'s {S[$v][3]}")
    add("$g", ("$o",), "S[$g] == S[$o]",
        "shape {S[$g]} differs from {A[$o]}'s {S[$o]} (the gradient of O has O's shape)")


def _shape_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


class Checker:
    """The checks of one entry point.

    ``torch``: the torch module; ``device_index``: what ``Tensor.get_device()``
    must return (the runtime's CUDA device; -1 = CPU, for tests; None: no
    device check, for a check-only library, ``tx.load(..., device="meta")``);
    ``device_label``: how messages name it (``cuda:0``)."""

    def __init__(self, fn, torch, device_index, device_label):
        self.fn = fn
        self.torch = torch
        self.device_index = device_index
        self.check_device = device_index is not None
        self.device_label = device_label
        self.arg_dtypes = tuple(getattr(torch, TORCH_DTYPES[a.element_type])
                                for a in fn.arguments)
        self.result_dtypes = tuple(getattr(torch, TORCH_DTYPES[r.element_type])
                                   for r in fn.results)
        self.rules = op_rules(fn)
        self.names = tuple(a.pyname for a in fn.arguments)

    # -- the fast path's conditions (inlined by _entry.py) ------------------
    def fast_conditions(self, tvar, svar, dvar):
        """Python expressions that are all true exactly when the arguments
        pass every check: ``tvar(i)`` names argument i, ``svar(i)`` its
        shape, ``dvar(i)`` its expected dtype."""
        conds = []
        args = self.fn.arguments
        conds += ["%s.dtype is %s" % (tvar(i), dvar(i)) for i in range(len(args))]
        if self.check_device:
            conds += ["%s.get_device() == _DEV" % tvar(i) for i in range(len(args))]
        conds += ["%s.is_contiguous()" % tvar(i) for i in range(len(args))]
        for i, a in enumerate(args):
            if all(s is not None for s in a.shape):
                conds.append("%s == %r" % (svar(i), tuple(a.shape)))
            else:
                conds.append("_len(%s) == %d" % (svar(i), a.rank))
                conds += ["%s[%d] == %d" % (svar(i), d, s)
                          for d, s in enumerate(a.shape) if s is not None]
        for r in self.rules:
            e = r.expr
            for i in range(len(args)):
                e = e.replace("S[%d]" % i, svar(i))
            conds.append("(%s)" % e)
        return conds

    # -- diagnosis: the first failing check, as an exception ----------------
    def _prefix(self, i):
        a = self.fn.arguments[i]
        role = " (%s)" % a.role if a.role else ""
        return "%s: argument '%s'%s: " % (self.fn.name, a.pyname, role)

    def argument_error(self, args, device=True, layout=True):
        """The first failing check of ``args`` (a sequence, in order) as an
        exception, or None when they pass. ``device``/``layout``: also check
        the device and contiguity (off for fake tensors)."""
        torch = self.torch
        fn = self.fn
        for i, (a, t) in enumerate(zip(fn.arguments, args)):
            p = self._prefix(i)
            want = self.arg_dtypes[i]
            if t is MISSING:
                return ArgumentTypeError(p + "is missing (%s)" % a.describe(), fn.name,
                                         a.pyname)
            if not isinstance(t, torch.Tensor):
                return ArgumentTypeError(p + "expected a torch.Tensor (%s), got %s"
                                         % (a.describe(), type(t).__name__), fn.name, a.pyname)
            if t.dtype is not want:
                return ArgumentTypeError(p + "expected dtype %s (%s), got %s"
                                         % (want, a.element_type, t.dtype), fn.name, a.pyname)
            if device and self.check_device and t.get_device() != self.device_index:
                return ArgumentError(p + "is on %s; the library runs on %s"
                                     % (t.device, self.device_label), fn.name, a.pyname)
            shape = tuple(t.shape)
            if len(shape) != a.rank:
                return ShapeError(p + "expected rank %d (%s), got rank %d with shape %s"
                                  % (a.rank, a.describe(), len(shape), _shape_str(shape)),
                                  fn.name, a.pyname)
            for d, s in enumerate(a.shape):
                if s is not None and shape[d] != s:
                    return ShapeError(p + "dimension %d is %d, expected %d (%s); got shape %s"
                                      % (d, shape[d], s, a.describe(), _shape_str(shape)),
                                      fn.name, a.pyname)
            if layout and not t.is_contiguous():
                return ArgumentError(p + "is not contiguous (shape %s, strides %s); tx takes "
                                     "row-major tensors: pass .contiguous()"
                                     % (_shape_str(shape), tuple(t.stride())), fn.name, a.pyname)
        shapes = [tuple(t.shape) for t in args]
        for r in self.rules:
            if not r.check(shapes):
                return ShapeError(self._prefix(r.blame) + r.message.format(S=shapes, A=self.names),
                                  fn.name, self.names[r.blame])
        return None

    def grad_error(self, args, out=None):
        """The :class:`UnsupportedError` of the first argument (then ``out=``
        tensor) that requires grad, or None. The caller decides whether grad
        mode matters (``torch.is_grad_enabled()``; inside a custom op's
        autograd kernel it is off although the call needs gradients)."""
        torch = self.torch
        fn = self.fn
        for i, t in enumerate(args):
            if isinstance(t, torch.Tensor) and t.requires_grad:
                name = self.names[i]
                if (fn.gradient or {}).get("derived") == "backward":
                    return UnsupportedError(
                        self._prefix(i) + "requires grad, but %s computes gradients and has "
                        "none itself: no double backward (create_graph=True, higher-order "
                        "gradients)" % fn.name, fn.name, name)
                return UnsupportedError(
                    self._prefix(i) + "requires grad, but %s has no backward (%s): the "
                    "result would carry no gradient. Call %s under torch.no_grad() or "
                    "torch.inference_mode(), or pass %s.detach()"
                    % (fn.name, fn.no_gradient, fn.name, name), fn.name, name)
        n = len(fn.results)
        outs = [out] if isinstance(out, torch.Tensor) else (
            list(out) if isinstance(out, (list, tuple)) else [])
        for j, t in enumerate(outs):
            if isinstance(t, torch.Tensor) and t.requires_grad:
                name = "out" if n == 1 else "out[%d]" % j
                return UnsupportedError(
                    "%s: %s requires grad, but writing into it would bypass autograd. Pass "
                    "a tensor that does not require grad, or call %s under torch.no_grad()"
                    % (fn.name, name, fn.name), fn.name, name)
        return None

    def no_grad(self, args, out=None):
        """Raises :meth:`grad_error` (the generated entry point calls it when
        grad mode is on and a tensor requires grad)."""
        e = self.grad_error(args, out)
        if e is None:
            e = TxError("%s: internal error: a tensor requires grad but none is named "
                        "(please report)" % self.fn.name)
        raise e

    def diagnose(self, args):
        """Raises the first failing check of ``args``."""
        e = self.argument_error(args)
        if e is None:
            e = TxError("%s: internal error: the fast argument check failed but no rule "
                        "names the problem (please report)" % self.fn.name)
        raise e

    # -- results -------------------------------------------------------------
    def result_shapes(self, shapes):
        """The result shapes (tuples, None for a size that cannot be derived)
        for argument shapes ``shapes``."""
        out = []
        for r in self.fn.results:
            dims = []
            for d in range(r.rank):
                s = r.shape_from[d] if r.shape_from and d < len(r.shape_from) else r.shape[d]
                if isinstance(s, tuple):
                    s = shapes[s[0]][s[1]]
                dims.append(s)
            out.append(tuple(dims))
        return out

    def check_out(self, out, args):
        """Validates ``out=`` (a tensor, or a sequence of one per result)
        against the arguments; returns the list of result tensors."""
        torch = self.torch
        fn = self.fn
        n = len(fn.results)
        outs = [out] if (n == 1 and isinstance(out, torch.Tensor)) else out
        if not isinstance(outs, (list, tuple)) or len(outs) != n:
            raise ArgumentTypeError("%s: out= must be %s, got %s" % (
                fn.name, "a torch.Tensor" if n == 1 else "a sequence of %d tensors" % n,
                type(out).__name__), fn.name, "out")
        expected = self.result_shapes([tuple(t.shape) for t in args])
        spans = [(self.names[i], t) for i, t in enumerate(args)]
        for j, (r, t) in enumerate(zip(fn.results, outs)):
            name = "out" if n == 1 else "out[%d]" % j
            p = "%s: %s (%s): " % (fn.name, name, r.name)
            want = self.result_dtypes[j]
            if not isinstance(t, torch.Tensor):
                raise ArgumentTypeError(p + "expected a torch.Tensor, got %s" % type(t).__name__,
                                        fn.name, name)
            if t.dtype is not want:
                raise ArgumentTypeError(p + "expected dtype %s (%s), got %s"
                                        % (want, r.element_type, t.dtype), fn.name, name)
            if self.check_device and t.get_device() != self.device_index:
                raise ArgumentError(p + "is on %s; the library runs on %s"
                                    % (t.device, self.device_label), fn.name, name)
            shape = tuple(t.shape)
            exp = expected[j]
            if len(shape) != len(exp) or any(e is not None and e != s for e, s in zip(exp, shape)):
                raise ShapeError(p + "has shape %s, expected %s" % (
                    _shape_str(shape), _shape_str("?" if e is None else e for e in exp)),
                    fn.name, name)
            if not t.is_contiguous():
                raise ArgumentError(p + "is not contiguous (strides %s)" % (tuple(t.stride()),),
                                    fn.name, name)
            for other, u in spans:
                if _overlap(t, u):
                    raise ArgumentError(p + "overlaps %s; results must not alias the arguments "
                                        "or each other" % (
                                            "argument '%s'" % other if not other.startswith("out")
                                            else other), fn.name, name)
            spans.append((name, t))
        return list(outs)


def _overlap(a, b):
    if a.is_meta or b.is_meta:  # no storage (tx.load(..., device="meta"))
        return False
    if a.numel() == 0 or b.numel() == 0 or a.get_device() != b.get_device():
        return False
    a0, b0 = a.data_ptr(), b.data_ptr()
    return a0 < b0 + b.numel() * b.element_size() and b0 < a0 + a.numel() * a.element_size()
