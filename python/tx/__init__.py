"""tx for PyTorch users: call tx-compiled GPU kernels on torch CUDA tensors.

    import torch, tx
    lib = tx.load("out/libattn.so")          # built by scripts/tx-compile.sh
    o = lib.attn(q, k, v)                     # a new tensor, on the current stream
    lib.attn(q, k, v, out=o)                  # or into a buffer of yours

``tx.load`` reads the manifest that ``scripts/tx-compile.sh`` writes next to
the library (``lib<stem>.json``) and gives one callable per public function.
A call checks dtype, device, rank, sizes, contiguity and the op's shape
rules first and raises a :class:`TxError` naming the argument; the library
never sees bad arguments. ``tx.compile`` builds a library from tx source
where LLVM is installed. ``Library.register_custom_ops`` makes the entry
points ``torch.library`` custom ops (torch >= 2.4) usable inside
``torch.compile``. The package imports without torch (manifests can be read
anywhere); loading a library needs torch with CUDA, except
``tx.load(path, device="meta")``, which runs the argument checks on any
machine and returns meta tensors. A function whose results are
``tx.attention`` / ``tx.softmax`` of its arguments is differentiable: on
tensors that require grad it returns results with a ``grad_fn`` (the
library holds its forward-with-LSE and backward entry points,
``<name>__tx_fwd`` / ``<name>__tx_bwd``); other functions raise
:class:`UnsupportedError` on such tensors. ``tx.flex.flex_attention``
takes FlexAttention-style Python score and mask functions, traces them
into ``tx.attention``'s regions and compiles them (``tx.flex``). See
docs/Python.md.
"""
import os

from ._errors import (ArgumentError, ArgumentTypeError, CompileError, ManifestError,
                      ShapeError, TraceError, TxError, TxRuntimeError, UnsupportedError)
from ._manifest import FunctionInfo, Manifest, manifest_path, read_manifest
from ._compile import compile, compile_library
from .states import merge_states

__all__ = ["load", "compile", "compile_library", "read_manifest", "Library", "Manifest",
           "FunctionInfo", "TxError", "ArgumentError", "ArgumentTypeError", "ShapeError",
           "TxRuntimeError", "ManifestError", "CompileError", "UnsupportedError", "TraceError",
           "merge_states"]


def _raw_stream_getter(torch):
    """device index -> the raw CUstream of torch's current stream there."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw
    return lambda d: torch.cuda.current_stream(d).cuda_stream


class Library:
    """A loaded tx library: one callable attribute per public function of its
    source (``lib.attn(q, k, v)``), also reachable as ``lib["attn"]``.

    ``path``, ``manifest`` (:class:`Manifest`), ``functions`` (name -> the
    callables), ``unsupported`` (name -> why a function cannot be called
    from Python), ``runtime`` (the tx runtime, ctypes; None when opened with
    ``device="meta"``), ``device`` (the ``torch.device`` its results are
    allocated on: ``cuda:N``, or ``meta`` for a check-only library)."""

    def __init__(self, path, manifest, functions, unsupported, runtime, cdll, device=None):
        self.path = path
        self.device = device
        self.manifest = manifest
        self.functions = functions
        self.unsupported = unsupported
        self.runtime = runtime
        self._cdll = cdll
        for name, f in functions.items():
            # A function named like a Library attribute stays reachable
            # as lib["name"].
            if name.isidentifier() and not hasattr(Library, name) and name not in self.__dict__:
                setattr(self, name, f)

    def __getitem__(self, name):
        try:
            return self.functions[name]
        except KeyError:
            why = self.unsupported.get(name)
            raise KeyError("%s: %s" % (name, why) if why else
                           "%s has no function %s (it has: %s)" % (
                               self.path, name, ", ".join(self.functions)))

    def __getattr__(self, name):
        # Only reached for names that are not entry points.
        why = self.__dict__.get("unsupported", {}).get(name)
        if why:
            raise AttributeError("%s cannot be called from Python: %s" % (name, why))
        raise AttributeError("%s has no function %r (it has: %s)" % (
            self.__dict__.get("path"), name, ", ".join(self.__dict__.get("functions", {}))))

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self.functions))

    def __iter__(self):
        return iter(self.functions.values())

    def __repr__(self):
        return "<tx.Library %s: %s>" % (self.path, ", ".join(self.functions))

    def register_custom_ops(self, namespace="tx", names=None, prefix=""):
        """Registers entry points as ``torch.library`` custom ops
        ``<namespace>::<prefix><name>`` with a fake (meta) implementation, so
        that ``torch.compile`` graphs can contain them (``torch.ops.<namespace>
        .<prefix><name>(...)``, or the returned objects). ``names``: which
        functions (default all whose result sizes follow from the arguments).
        Needs torch >= 2.4 (``torch.library.custom_op``) and a library
        loaded on a GPU (not ``device="meta"``). Returns a dict name -> custom
        op. The ops have no backward: called on tensors that require grad
        (in grad mode), they raise :class:`UnsupportedError`."""
        if _is_meta(self.device):
            raise TxError("register_custom_ops: %s was opened with device=\"meta\" (argument "
                          "checks only; it runs nothing): load it on a CUDA device to register "
                          "its entry points as custom ops" % self.path)
        from .torch_ops import register
        return register(self, namespace=namespace, names=names, prefix=prefix)


def _bind_library(path, manifest, cdll, runtime, torch, device_index, device,
                  stream, bind, device_label=None):
    """Builds the Library from a manifest and a symbol binder (shared by
    ``load`` and the CPU tests, which bind fake C functions)."""
    from ._entry import build_entry
    from ._autograd import gradients
    functions, unsupported = {}, {}
    grads = gradients(manifest, functions, torch)
    for name, fn in manifest.functions.items():
        why = fn.unsupported
        if why is None:
            cfunc, mode = bind(fn)
            if cfunc is None:
                why = mode
        if why is not None:
            unsupported[name] = why
            continue
        functions[name] = build_entry(fn, cfunc, mode, torch=torch, device_index=device_index,
                                      device=device, stream=stream, runtime=runtime,
                                      device_label=device_label, autograd=grads.get(name))
    return Library(path, manifest, functions, unsupported, runtime, cdll, device=device)


# The CUDA device this process's tx libraries run on (set by the first
# tx.load): the runtime keeps one default device per process.
_process_device = None


def _import_torch(what):
    try:
        import torch
    except ImportError as e:
        raise TxError("%s needs PyTorch (%s)" % (what, e))
    return torch


def _is_meta(device):
    """True for ``"meta"`` / ``torch.device("meta")`` (a check-only load)."""
    return str(device) == "meta" or getattr(device, "type", None) == "meta"


def _cuda_device(torch, device, what, hint=""):
    """The index of the CUDA device ``device`` names (None: torch's current
    one) that this process's tx libraries can run on, CUDA initialized;
    raises :class:`TxError` naming ``what`` when there is none (``hint``
    ends the message of a missing CUDA device)."""
    if not torch.cuda.is_available():
        raise TxError("%s: PyTorch sees no CUDA device (tx libraries run on NVIDIA GPUs)%s; "
                      "device=\"meta\" opens a library for argument checks only"
                      % (what, hint))
    torch.cuda.init()
    try:
        dev = torch.device("cuda", torch.cuda.current_device()) if device is None else (
            torch.device("cuda", device) if isinstance(device, int) else torch.device(device))
    except (RuntimeError, TypeError, ValueError) as e:
        raise TxError("%s: bad device %r (%s)" % (what, device, e))
    if dev.type != "cuda":
        raise TxError("%s: device %s is not a CUDA device (device=\"meta\" opens a library "
                      "for argument checks only)" % (what, dev))
    index = torch.cuda.current_device() if dev.index is None else dev.index
    if not 0 <= index < torch.cuda.device_count():
        raise TxError("%s: device cuda:%d does not exist (PyTorch sees %d)" % (
            what, index, torch.cuda.device_count()))
    if _process_device is not None and _process_device != index:
        raise TxError("%s: this process already runs tx libraries on cuda:%d; the "
                      "tx runtime runs all of a process's libraries on one device (start one "
                      "process per GPU, as torchrun does)" % (what, _process_device))
    return index


def _check_only_library(path, manifest, torch):
    """The Library of ``tx.load(path, device="meta")``: entry points that
    check their arguments and return meta tensors (nothing is loaded)."""
    from ._entry import build_check_entry
    from ._autograd import gradients
    meta = torch.device("meta")
    functions = {}
    grads = gradients(manifest, functions, torch)
    for name, fn in manifest.functions.items():
        if fn.unsupported is None:
            functions[name] = build_check_entry(fn, torch=torch, device=meta,
                                                autograd=grads.get(name))
    unsupported = {name: fn.unsupported for name, fn in manifest.functions.items()
                   if fn.unsupported is not None}
    return Library(path, manifest, functions, unsupported, None, None, device=meta)


def load(path, manifest=None, device=None):
    """Loads a library built by ``scripts/tx-compile.sh`` (``out/lib<stem>.so``)
    with its manifest (``out/lib<stem>.json``, or ``manifest=``: a path or a
    :class:`Manifest`) and returns a :class:`Library`.

    Needs torch with a CUDA device: CUDA is initialized first, then the
    library's kernels are loaded into the primary context of ``device`` (an
    int, ``"cuda:1"`` or a ``torch.device``; default: torch's current device,
    so ``torch.cuda.set_device(local_rank)`` before ``tx.load`` is all a
    ``torchrun`` worker needs). Tensors passed to the library must be on that
    device. All tx libraries of one process run on one device (the runtime's
    default device is process-wide): loading on a second device raises
    :class:`TxError`.

    ``device="meta"`` (or ``torch.device("meta")``) needs no GPU and loads
    nothing: the callables run every argument check of a real call except
    the device and the overlap of ``out=`` with the arguments (meta tensors
    are the usual arguments; on CPU tensors the per-sequence lengths are
    also checked by value) and return new empty meta tensors of the result
    shapes and dtypes, or ``out=`` untouched; autograd on meta tensors
    gives meta gradients.

    Raises :class:`ManifestError` (no or bad manifest) or :class:`TxError`
    (no such library, no CUDA, a bad device, the library cannot be opened)."""
    global _process_device
    torch = _import_torch("tx.load")
    if not os.path.exists(path):
        raise TxError("%s: no such library" % path)
    if isinstance(manifest, Manifest):
        m = manifest
    else:
        m = read_manifest(manifest or manifest_path(path))
    if _is_meta(device):
        return _check_only_library(path, m, torch)
    index = _cuda_device(torch, device, "tx.load(%s)" % path)
    from ._abi import bind_symbol, open_library
    cdll, runtime = open_library(path, device=index)
    _process_device = index
    label = "cuda:%d" % index
    return _bind_library(path, m, cdll, runtime, torch, index, torch.device("cuda", index),
                         _raw_stream_getter(torch), lambda fn: bind_symbol(cdll, fn, runtime),
                         device_label=label)
