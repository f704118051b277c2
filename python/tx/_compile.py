"""``tx.compile``: tx source -> a loaded library, through scripts/tx-compile.sh
(needs a built tx: tx-opt and the runtime, LLVM 22 and the CUDA toolkit;
none of it is needed to *load* a library)."""
import hashlib
import os
import shutil
import subprocess

from ._errors import CompileError

_HERE = os.path.dirname(os.path.abspath(__file__))


def _tx_root():
    """The tx checkout: $TX_ROOT, else the one this package lies in."""
    return os.environ.get("TX_ROOT") or os.path.dirname(os.path.dirname(_HERE))


def _option_words(chip, options):
    words = ["chip=%s" % chip] if chip else []
    for key, value in sorted(options.items()):
        if isinstance(value, bool):
            value = "true" if value else "false"
        value = str(value)
        if not value or any(c.isspace() for c in value) or "'" in value or '"' in value:
            raise CompileError("tx.compile: option %s=%r: values must be non-empty words "
                               "without spaces or quotes" % (key, value))
        words.append("%s=%s" % (key.replace("_", "-"), value))
    return words


def _stamp(path):
    try:
        st = os.stat(path)
        return "%s:%d:%d" % (path, st.st_mtime_ns, st.st_size)
    except OSError:
        return path + ":missing"


def compile_library(source_or_path, chip="sm_90a", *, name=None, out_dir=None,
                    build_dir=None, force=False, verbose=False, **pipeline_options):
    """Compiles tx source (a string holding MLIR, or the path of a .mlir
    file) with ``scripts/tx-compile.sh`` and returns the path of the library
    (``<dir>/lib<name>.so``, its manifest ``<dir>/lib<name>.json`` beside it).

    ``chip``: the target (``sm_90a`` = H100/H200 with the wgmma attention
    kernel; ``sm_90``, ``sm_80``...). ``pipeline_options``: further
    ``tx-gpu-pipeline`` options, with ``_`` for ``-`` (``attention_q_tile=64``,
    ``softmax="simple"``; booleans as True/False). ``name``: the library stem
    (default: the file's stem, or ``module``). ``out_dir``: where to build
    (default: a cache directory under ``$TX_CACHE_DIR`` or ``~/.cache/tx``,
    keyed by the source, the options, ``TX_GRADIENTS`` and the compiler; a
    cached library is
    reused unless ``force``). ``build_dir``: the tx build (default
    ``$TX_BUILD_DIR`` or ``<checkout>/build``). Raises :class:`CompileError`
    with the tools' messages."""
    root = _tx_root()
    script = os.path.join(root, "scripts", "tx-compile.sh")
    build = build_dir or os.environ.get("TX_BUILD_DIR") or os.path.join(root, "build")
    tx_opt = os.path.join(build, "bin", "tx-opt")
    if not os.path.exists(script):
        raise CompileError("tx.compile: %s not found (set TX_ROOT to a tx checkout)" % script)
    if not os.path.exists(tx_opt):
        raise CompileError("tx.compile: %s not found: build tx first (scripts/test.sh) or set "
                           "TX_BUILD_DIR / build_dir=" % tx_opt)

    text = path = None
    if isinstance(source_or_path, os.PathLike):
        path = os.fspath(source_or_path)
    elif isinstance(source_or_path, str) and ("\n" in source_or_path
                                              or "func.func" in source_or_path):
        text = source_or_path
    elif isinstance(source_or_path, str):
        path = source_or_path
    else:
        raise CompileError("tx.compile: expected MLIR source text or a path, got %s"
                           % type(source_or_path).__name__)
    if path is not None:
        try:
            with open(path) as f:
                text = f.read()
        except OSError as e:
            raise CompileError("tx.compile: cannot read %s: %s" % (path, e))
        name = name or os.path.splitext(os.path.basename(path))[0]
    name = name or "module"
    if not name.replace("_", "a").replace("-", "a").replace(".", "a").isalnum():
        raise CompileError("tx.compile: name %r: use letters, digits, _ - ." % name)
    words = _option_words(chip, pipeline_options)

    if out_dir is None:
        key = hashlib.sha256("\0".join(
            # TX_GRADIENTS changes what tx-compile.sh builds.
            [text, name, "grad=" + os.environ.get("TX_GRADIENTS", "1")] + words
            + [_stamp(tx_opt), _stamp(script),
                                    _stamp(os.path.join(build, "lib", "libtx_cuda_runtime.so"))]
        ).encode()).hexdigest()[:16]
        cache = os.environ.get("TX_CACHE_DIR") or os.path.join(
            os.path.expanduser("~"), ".cache", "tx")
        out_dir = os.path.join(cache, "%s-%s" % (name, key))
        lib = os.path.join(out_dir, "lib%s.so" % name)
        if not force and os.path.exists(lib) and os.path.exists(lib[:-3] + ".json"):
            return lib
        work = "%s.tmp%d" % (out_dir, os.getpid())
    else:
        work = out_dir
    os.makedirs(work, exist_ok=True)
    src = os.path.join(work, "%s.mlir" % name)
    if path is None or os.path.abspath(path) != os.path.abspath(src):
        with open(src, "w") as f:
            f.write(text)
    env = dict(os.environ, TX_BUILD_DIR=build)
    p = subprocess.run(["bash", script, src, work] + words, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if verbose or p.returncode != 0:
        out = p.stdout
    if p.returncode != 0:
        tail = "\n".join(out.splitlines()[-60:])
        err = CompileError("tx.compile: tx-compile.sh %s failed (exit %d):\n%s"
                           % (" ".join(words), p.returncode, tail))
        err.output = out
        if work != out_dir:  # a failed build leaves nothing in the cache
            shutil.rmtree(work, ignore_errors=True)
        raise err
    if verbose:
        print(out, end="")
    if work != out_dir:
        try:
            os.replace(work, out_dir)
        except OSError:
            # Another process built the same library meanwhile: use theirs.
            shutil.rmtree(work, ignore_errors=True)
    return os.path.join(out_dir, "lib%s.so" % name)


def compile(source_or_path, chip="sm_90a", *, device=None, **options):
    """Compiles tx source (MLIR text or a .mlir path) for ``chip`` with
    ``tx-gpu-pipeline`` options (``attention_q_tile=64`` for
    ``attention-q-tile=64``) and returns the loaded :class:`tx.Library`.
    See :func:`compile_library` for the keywords (``name``, ``out_dir``,
    ``build_dir``, ``force``, ``verbose``); ``device`` is :func:`tx.load`'s.

    The CUDA device is checked first: without one (PyTorch sees none, or
    ``device`` names none) it raises :class:`TxError` at once, before
    compiling (use :func:`compile_library` to build without loading, or
    ``device="meta"`` to build and open the library for argument checks
    only). Raises :class:`CompileError` when compiling fails."""
    from . import _cuda_device, _import_torch, _is_meta, load
    if not _is_meta(device):
        _cuda_device(_import_torch("tx.compile"), device, "tx.compile",
                     ", so the library could not be loaded: nothing was compiled "
                     "(tx.compile_library builds it without loading)")
    return load(compile_library(source_or_path, chip, **options), device=device)
