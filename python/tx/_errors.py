"""The exceptions of the tx package.

Every exception the package raises on purpose is a :class:`TxError`. The
argument errors are also ``ValueError`` / ``TypeError``, so code that catches
those keeps working.
"""


class TxError(Exception):
    """Base class of every error raised by the tx package."""


class ArgumentError(TxError, ValueError):
    """A call's argument (or ``out=`` buffer) is unusable: wrong device,
    layout, or a shape that breaks the op's rules. The message starts with
    ``<function>: argument '<name>' (<role>)``. Raised before the library is
    called: the library never sees bad arguments."""

    def __init__(self, message, function=None, argument=None):
        super().__init__(message)
        self.function = function
        self.argument = argument


class ArgumentTypeError(ArgumentError, TypeError):
    """An argument is not a ``torch.Tensor`` or has the wrong dtype."""


class ShapeError(ArgumentError):
    """An argument's rank or sizes do not fit the function's signature or
    the op's shape rules (GQA heads, head dims, mask broadcast, ...)."""


class UnsupportedError(TxError, NotImplementedError):
    """A call asks for something tx does not support yet; today: gradients.
    tx functions have no backward, so a call on tensors that require grad
    (while ``torch.is_grad_enabled()``) raises this instead of returning a
    result that silently carries no gradient. ``.function`` and
    ``.argument`` name the call and the tensor; the message says how to
    proceed (``torch.no_grad()``, ``torch.inference_mode()`` or
    ``.detach()``). Also a ``NotImplementedError`` (so a ``RuntimeError``)."""

    def __init__(self, message, function=None, argument=None):
        super().__init__(message)
        self.function = function
        self.argument = argument


class TxRuntimeError(TxError, RuntimeError):
    """The library reported a failure (a CUDA error, or a run-time check of
    the compiled code); the message is the runtime's
    (``txRuntimeGetLastError()``)."""


class ManifestError(TxError):
    """The manifest next to a library is missing, unreadable, or of an
    unknown format version."""


class CompileError(TxError):
    """``tx.compile`` failed: tx-opt, the LLVM tools or the linker reported
    an error (the message carries their output)."""


class TraceError(TxError, TypeError):
    """A score or mask function that ``tx.flex`` cannot trace into IR (the
    message says which operation and what to write instead)."""
