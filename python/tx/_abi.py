"""The C ABI of tx-compile.sh libraries (docs/ABI.md) through ctypes:
memref descriptor layouts, the library and its runtime, and the binding of
one entry point (which symbol, which calling convention).

A descriptor of rank N is ``{T *allocated; T *aligned; int64_t offset;
int64_t sizes[N]; int64_t strides[N]}``: 3 + 2N 64-bit words. The package
packs the descriptors of one call into one buffer with a single
``struct.pack_into`` and passes their addresses.
"""
import ctypes
import os
import struct
import threading

from ._errors import TxError


def descriptor_words(rank):
    """64-bit words of a rank-``rank`` memref descriptor."""
    return 3 + 2 * rank


_STRUCTS = {}


def descriptor_struct(rank):
    """The ctypes structure of a rank-``rank`` descriptor (for readers and
    direct callers; the call path packs words directly)."""
    if rank not in _STRUCTS:
        fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                  ("offset", ctypes.c_int64)]
        if rank:
            fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
        _STRUCTS[rank] = type("MemRef%dD" % rank, (ctypes.Structure,), {"_fields_": fields})
    return _STRUCTS[rank]


def descriptor(tensor):
    """A filled descriptor (``descriptor_struct``) of a contiguous tensor:
    its ``data_ptr()`` as both pointers, offset 0, its sizes and row-major
    strides (what the package's calls pass). For code that calls an entry
    point through ctypes itself (harness/abi_check.py tests the C ABI that
    way); pass it with ``ctypes.byref``. No checks: the caller's tensor must
    be contiguous, on the runtime's device, of the entry point's type."""
    shape = tuple(tensor.shape)
    d = descriptor_struct(len(shape))()
    d.allocated = d.aligned = tensor.data_ptr()
    d.offset = 0
    acc = 1
    for i in range(len(shape) - 1, -1, -1):
        d.sizes[i] = shape[i]
        d.strides[i] = acc
        acc *= shape[i]
    return d


class DescriptorBuffer:
    """One buffer holding the descriptors of a call, in argument order then
    result order, and their addresses. ``pack`` is the bound
    ``struct.Struct.pack_into`` of the whole buffer's layout."""

    def __init__(self, ranks):
        words = [descriptor_words(r) for r in ranks]
        self.layout = struct.Struct("=" + "".join("QQq%dq" % (2 * r) for r in ranks))
        self.buffer = (ctypes.c_int64 * max(1, sum(words)))()
        base = ctypes.addressof(self.buffer)
        offs, o = [], 0
        for w in words:
            offs.append(base + 8 * o)
            o += w
        self.addresses = tuple(offs)


class ThreadBuffers:
    """Descriptor buffers per thread (a call in flight on one thread must
    not see another thread's descriptors: ctypes releases the GIL during
    the C call). ``owner``/``main``: the loading thread's id and buffer, the
    common case, checked with one ``get_ident()`` compare."""

    def __init__(self, ranks):
        self.ranks = ranks
        self.owner = threading.get_ident()
        self.main = DescriptorBuffer(ranks)
        self.local = threading.local()

    def get(self):
        b = getattr(self.local, "b", None)
        if b is None:
            b = self.local.b = DescriptorBuffer(self.ranks)
        return b


class Runtime:
    """The tx runtime (libtx_cuda_runtime.so) a library was linked to: its
    error API (``txRuntimeGetLastError``, per thread in the stream-ordered
    runtime) and, for synchronous entry points, ``txRuntimeSetStream`` and
    ``txRuntimeErrorCount``. A function the runtime lacks is None."""

    def __init__(self, cdll):
        self.cdll = cdll

        def bind(name, restype, argtypes):
            try:
                f = getattr(cdll, name)
            except AttributeError:
                return None
            f.restype = restype
            f.argtypes = argtypes
            return f

        self.get_last_error = bind("txRuntimeGetLastError", ctypes.c_char_p, [])
        self.error_count = bind("txRuntimeErrorCount", ctypes.c_int, [])
        self.set_stream = bind("txRuntimeSetStream", None, [ctypes.c_void_p, ctypes.c_int])
        self.synchronize = bind("txRuntimeSynchronize", ctypes.c_int, [])
        # Errors of this thread (stream-ordered runtime), else of the process.
        self.call_error_count = bind("txRuntimeThreadErrorCount", ctypes.c_int, []) \
            or self.error_count

    def last_error(self):
        m = self.get_last_error() if self.get_last_error is not None else None
        return m.decode(errors="replace") if m else None


def _runtime_beside(path):
    """The runtime already in the process (by SONAME), else the one next to
    the library (tx-compile.sh copies it there; the library's RUNPATH is
    $ORIGIN)."""
    try:
        return ctypes.CDLL("libtx_cuda_runtime.so", mode=getattr(os, "RTLD_NOLOAD", 4))
    except OSError:
        return ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(path)),
                                        "libtx_cuda_runtime.so"))


def open_library(path, device=None):
    """dlopens a tx library and the runtime it uses. Returns (CDLL, Runtime).

    ``device``: the CUDA device ordinal the library's kernels go to. LLVM
    loads a library's GPU modules from a global constructor, i.e. during
    dlopen, onto the runtime's default device, so that is set first
    (``mgpuSetDefaultDevice``; process-wide). None leaves it as it is."""
    rt = None
    if device is not None:
        try:
            rt = _runtime_beside(path)
        except OSError as e:
            raise TxError("cannot load the tx runtime for %s: %s" % (path, e))
        set_device = getattr(rt, "mgpuSetDefaultDevice", None)
        if set_device is None:
            if device != 0:
                raise TxError("%s: its runtime has no mgpuSetDefaultDevice; it can only run "
                              "on device 0" % path)
        else:
            set_device.restype = None
            set_device.argtypes = [ctypes.c_int32]
            set_device(int(device))
    try:
        lib = ctypes.CDLL(os.path.abspath(path))
    except OSError as e:
        raise TxError("cannot load %s: %s" % (path, e))
    # The runtime the library was linked to (found through its RUNPATH), by
    # SONAME so that every library of the process shares one runtime.
    if rt is None:
        rt = _runtime_beside(path)
    return lib, Runtime(rt)


def bind_symbol(cdll, fn, runtime=None):
    """The C function of manifest function ``fn`` in ``cdll``: returns
    (ctypes function, mode) with mode ``"stream"`` for
    ``int32_t _mlir_ciface_f_on_stream(desc*..., CUstream)`` or ``"sync"``
    for ``void _mlir_ciface_f(desc*...)`` (libraries built before the
    stream-ordered ABI), or (None, reason) when neither exists."""
    n = len(fn.arguments) + len(fn.results)
    name = fn.symbols.get("on_stream")
    if name:
        try:
            f = getattr(cdll, name)
        except AttributeError:
            f = None
        if f is not None:
            f.argtypes = [ctypes.c_void_p] * (n + 1)
            f.restype = ctypes.c_int32
            return f, "stream"
    name = fn.symbols.get("sync")
    try:
        f = getattr(cdll, name)
    except (AttributeError, TypeError):
        return None, "the library exports neither %s nor %s" % (
            fn.symbols.get("on_stream"), fn.symbols.get("sync"))
    if runtime is not None and (runtime.set_stream is None or runtime.error_count is None):
        return None, ("%s is synchronous and the runtime lacks txRuntimeSetStream or "
                      "txRuntimeErrorCount" % name)
    f.argtypes = [ctypes.c_void_p] * n
    f.restype = None
    return f, "sync"
