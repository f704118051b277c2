"""Reading the JSON manifest that ``scripts/tx-compile.sh`` writes next to a
library (``lib<stem>.json``, produced by ``tx-opt --tx-emit-manifest``).

This module needs no torch: it only describes the entry points. The format
is documented in docs/Python.md.
"""
import json
import keyword
import os

from ._errors import ManifestError

FORMAT = "tx-manifest"
VERSION = 1

#: MLIR element type -> the name of the torch dtype (``torch.<name>``).
TORCH_DTYPES = {
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
}

#: Bytes per element in the C ABI (docs/ABI.md: i1 is one byte).
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i1": 1, "i8": 1,
                 "i16": 2, "i32": 4, "i64": 8}


class TensorInfo:
    """One argument or result of an entry point.

    Attributes: ``index``; ``name`` (from the source, or q/k/v/mask/x from the
    tx operand it feeds, or ``arg<i>``; results: ``result`` / ``result<i>``);
    ``pyname`` (the Python parameter name: ``name`` when it is a usable
    identifier, else ``arg<i>``); ``role`` (query, key, value, mask, input or
    None); ``type`` (the MLIR type); ``element_type`` (f16, bf16, f32, i1...);
    ``rank``; ``shape`` (a tuple, None for a dynamic size); for results
    ``shape_from`` (per dimension: an int, ``(arg, dim)``, or None).
    """

    __slots__ = ("index", "name", "pyname", "role", "type", "element_type",
                 "rank", "shape", "shape_from")

    def __init__(self, d, where, is_result=False):
        try:
            self.index = int(d["index"])
            self.name = str(d["name"])
            self.role = d.get("role")
            self.type = str(d["type"])
            self.element_type = d["element_type"]
            self.rank = d["rank"]
            shape = d["shape"]
            self.shape = None if shape is None else tuple(shape)
            self.shape_from = None
            if is_result:
                self.shape_from = tuple(
                    (int(s["arg"]), int(s["dim"])) if isinstance(s, dict) else s
                    for s in d.get("shape_from") or ())
        except (KeyError, TypeError, ValueError) as e:
            raise ManifestError("%s: malformed entry (%s: %s)" % (where, type(e).__name__, e))
        self.pyname = self.name
        if (not self.name.isidentifier() or keyword.iskeyword(self.name)
                or self.name.startswith("_") or self.name == "out"):
            self.pyname = ("result%d" if is_result else "arg%d") % self.index

    @property
    def supported(self):
        """True when the C ABI passes it as a memref descriptor the package
        can build: a ranked tensor of a known element type."""
        return self.rank is not None and self.element_type in ELEMENT_BYTES

    @property
    def derivable(self):
        """Results: True when every size follows from the arguments."""
        return self.shape_from is not None and len(self.shape_from) == self.rank \
            and all(s is not None for s in self.shape_from)

    def describe(self):
        """``f16[1, 32, ?, 128]``"""
        if self.shape is None:
            return self.type
        return "%s[%s]" % (self.element_type,
                           ", ".join("?" if s is None else str(s) for s in self.shape))

    def __repr__(self):
        return "<%s %s: %s>" % ("result" if self.shape_from is not None else "argument",
                                self.name, self.describe())


class OpInfo:
    """One tx op of a function: ``op`` (``tx.softmax`` / ``tx.attention``),
    ``operands`` (operand name -> argument index or None), ``results``
    (function results returning it), ``loc``; softmax: ``dim``; attention:
    ``causal``, ``scale`` (None = 1/sqrt(D)), ``mask`` (none, i1, additive)."""

    def __init__(self, d, where):
        try:
            self.op = str(d["op"])
            self.loc = d.get("loc", "")
            self.operands = dict(d.get("operands") or {})
            self.results = tuple(d.get("results") or ())
        except (KeyError, TypeError, ValueError) as e:
            raise ManifestError("%s: malformed op (%s: %s)" % (where, type(e).__name__, e))
        self.attrs = {k: v for k, v in d.items()
                      if k not in ("op", "loc", "operands", "results")}
        self.dim = d.get("dim")
        self.causal = bool(d.get("causal", False))
        self.scale = d.get("scale")
        self.mask = d.get("mask", "none")

    def __repr__(self):
        attrs = " ".join("%s=%s" % kv for kv in sorted(self.attrs.items()))
        return "<%s %s>" % (self.op, attrs)


def _gradient(g, where, nargs):
    """The manifest's ``gradient`` entry of a function, checked: None (not
    derived), ``{"none": why}``, ``{"derived": "forward" | "backward"}`` or
    ``{"forward": name, "backward": name, "arguments": [i, ...]}``."""
    if g is None:
        return None
    if not isinstance(g, dict):
        raise ManifestError("%s: malformed gradient entry %r" % (where, g))
    if "none" in g or "derived" in g:
        return dict(g)
    args = g.get("arguments")
    if (not isinstance(g.get("forward"), str) or not isinstance(g.get("backward"), str)
            or not isinstance(args, list)
            or not all(isinstance(i, int) and 0 <= i < nargs for i in args)):
        raise ManifestError("%s: malformed gradient entry %r" % (where, g))
    return dict(g)


class FunctionInfo:
    """One public function: ``name``, ``symbols`` (``sync``, ``on_stream``),
    ``arguments`` and ``results`` (TensorInfo), ``ops`` (OpInfo), ``loc``,
    ``gradient`` (what ``tx-derive-gradients`` recorded, or None: see
    :attr:`gradient_entries` and :attr:`no_gradient`)."""

    def __init__(self, d, where):
        try:
            self.name = str(d["name"])
            self.symbols = dict(d["symbols"])
            self.loc = d.get("loc", "")
            where = "%s: function %s" % (where, self.name)
            self.arguments = tuple(TensorInfo(a, "%s, argument %d" % (where, i))
                                   for i, a in enumerate(d["arguments"]))
            self.results = tuple(TensorInfo(r, "%s, result %d" % (where, i), True)
                                 for i, r in enumerate(d["results"]))
            self.ops = tuple(OpInfo(o, where) for o in d.get("ops") or ())
            self.gradient = _gradient(d.get("gradient"), where, len(self.arguments))
        except (KeyError, TypeError) as e:
            raise ManifestError("%s: malformed function (%s: %s)" % (where, type(e).__name__, e))
        seen = set()
        for a in self.arguments:
            if a.pyname in seen:
                a.pyname = "arg%d" % a.index
            seen.add(a.pyname)

    @property
    def unsupported(self):
        """Why the package cannot call this function, or None."""
        for t in self.arguments + self.results:
            if not t.supported:
                return "%s %s has type %s (only ranked tensors of %s are supported)" % (
                    "result" if t in self.results else "argument", t.name, t.type,
                    ", ".join(sorted(ELEMENT_BYTES)))
        return None

    @property
    def gradient_entries(self):
        """``(forward, backward, arguments)`` of a differentiable function:
        the names of its derived entry points (``<name>__tx_fwd``: the
        results and each attention's LSE; ``<name>__tx_bwd``: the gradients)
        and the indices of the arguments that get a gradient; None
        otherwise."""
        g = self.gradient
        if g is None or "forward" not in g:
            return None
        return g["forward"], g["backward"], tuple(g["arguments"])

    @property
    def no_gradient(self):
        """Why this function has no backward (a sentence), or None when it
        has one."""
        g = self.gradient
        if g is None:
            return ("the library was built without tx-derive-gradients (scripts/tx-compile.sh "
                    "runs it unless TX_GRADIENTS=0, and leaves the backward out, with a warning, "
                    "when it does not compile)")
        if "derived" in g:
            return ("it is the derived %s entry point of a differentiable function "
                    "(no double backward)" % g["derived"])
        if "none" in g:
            return str(g["none"])
        return None

    @property
    def op(self):
        """The tx op whose values are all the function's results (its value;
        for a ``tx.attention`` with a log-sum-exp, both), or None (the
        function is then not a single tx op)."""
        if (self.results and len(self.ops) == 1
                and sorted(self.ops[0].results) == list(range(len(self.results)))):
            return self.ops[0]
        return None

    def signature(self):
        """``attn(q: f16[1, 32, 4096, 128], ...) -> f16[...]``"""
        args = ", ".join("%s: %s" % (a.pyname, a.describe()) for a in self.arguments)
        res = ", ".join(r.describe() for r in self.results)
        if len(self.results) != 1:
            res = "(%s)" % res
        return "%s(%s) -> %s" % (self.name, args, res)

    def __repr__(self):
        return "<tx function %s>" % self.signature()


class Manifest:
    """A parsed manifest: ``source``, ``library``, ``pipeline`` (the
    tx-gpu-pipeline options), ``functions`` (name -> FunctionInfo, in source
    order), ``path`` (the JSON file, when read from one)."""

    def __init__(self, data, path=None):
        where = path or "manifest"
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ManifestError("%s: not a tx manifest (no \"format\": \"%s\")" % (where, FORMAT))
        if data.get("version") != VERSION:
            raise ManifestError("%s: manifest version %r, this package reads version %d; "
                                "rebuild the library or update python/tx"
                                % (where, data.get("version"), VERSION))
        self.path = path
        self.source = data.get("source", "")
        self.library = data.get("library", "")
        self.pipeline = data.get("pipeline", "")
        fns = data.get("functions")
        if not isinstance(fns, list):
            raise ManifestError("%s: \"functions\" is not a list" % where)
        self.functions = {}
        for f in fns:
            fi = FunctionInfo(f, where)
            self.functions[fi.name] = fi

    def __repr__(self):
        return "<tx manifest %s: %s>" % (self.library or self.path,
                                        ", ".join(self.functions))


def manifest_path(library_path):
    """The manifest of ``out/libattn.so``: ``out/libattn.json``."""
    root, ext = os.path.splitext(library_path)
    return root + ".json"


def _missing(path, asked):
    """The error of a manifest ``path`` that does not exist (``asked``: the
    path the caller gave, a .json or the .so beside it). Only a library
    that exists without its manifest is blamed on an old build."""
    library = os.path.splitext(path)[0] + ".so"
    if os.path.exists(library):
        return ManifestError(
            "%s: no such file: the library %s has no manifest beside it (it was built "
            "before tx-compile.sh wrote manifests, or the .json was not copied with it; "
            "rebuild it with scripts/tx-compile.sh)" % (path, library))
    if asked != path:
        return ManifestError("%s: no such file (nor its manifest %s)" % (asked, path))
    return ManifestError("%s: no such file" % path)


def read_manifest(path):
    """Reads a manifest (``lib<stem>.json``, or the library ``lib<stem>.so``
    whose manifest lies next to it) and returns its :class:`Manifest`.

    Raises :class:`ManifestError`: the file does not exist (saying so, and
    naming the library when a ``.so`` exists without its manifest), it is
    not readable JSON, not a tx manifest, or of another format version."""
    asked = os.fspath(path)
    path = manifest_path(asked) if asked.endswith(".so") else asked
    try:
        with open(path) as f:
            data = json.load(f)
    except FileNotFoundError:
        raise _missing(path, asked)
    except (OSError, ValueError) as e:
        raise ManifestError("%s: cannot read the manifest: %s" % (path, e))
    return Manifest(data, path)
