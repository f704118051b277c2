"""Autograd for tx entry points.

``scripts/tx-compile.sh`` runs ``tx-derive-gradients``: each public function
whose results are ``tx.attention`` outputs or ``tx.softmax`` results of its
arguments gets two more entry points, ``<name>__tx_fwd`` (the results and
each attention's log-sum-exp) and ``<name>__tx_bwd`` (from the arguments,
the results, the LSEs and the results' gradients: the gradient of each
differentiable argument), and the manifest ties them to the function
(``FunctionInfo.gradient_entries``).

A call of such a function on tensors that require grad (grad mode on) goes
through :class:`Gradient`: one ``torch.autograd.Function`` that runs the
forward entry point, saves the arguments, results and LSEs, and in backward
runs the backward entry point (the FlashAttention-2 backward: P recomputed
from the LSE, D = rowsum(dO * O); docs/Python.md). Gradients that autograd
hands over non-contiguous are made contiguous first (as FlashAttention's
Python interface does); a missing one (an unused result) is zeros.
"""
from ._errors import UnsupportedError

_FUNCTION = {}


def _function(torch):
    """The ``torch.autograd.Function`` shared by every differentiable entry
    point (its first forward argument is the :class:`Gradient`)."""
    f = _FUNCTION.get(id(torch))
    if f is not None:
        return f

    class TxFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, g, *args):
            outs = g.forward_entry()(*args)
            outs = outs if isinstance(outs, tuple) else (outs,)
            ctx.g = g
            ctx.save_for_backward(*args, *outs)
            res = outs[:g.nres]
            return res[0] if g.nres == 1 else tuple(res)

        @staticmethod
        def backward(ctx, *grads):
            g = ctx.g
            saved = ctx.saved_tensors
            nargs = len(g.fn.arguments)
            results = saved[nargs:nargs + g.nres]
            grads = [torch.zeros_like(r) if d is None else d.contiguous()
                     for d, r in zip(grads, results)]
            dargs = g.backward_entry()(*saved, *grads)
            dargs = dargs if isinstance(dargs, tuple) else (dargs,)
            out = [None] * (1 + nargs)
            for i, d in zip(g.arguments, dargs):
                if ctx.needs_input_grad[1 + i]:
                    out[1 + i] = d
            return tuple(out)

    _FUNCTION[id(torch)] = TxFunction
    return TxFunction


class Gradient:
    """The backward of manifest function ``fn`` in a library whose entry
    points are (or will be) in ``functions`` (name -> callable). Called by
    the generated entry point as ``gradient(args, out)`` when a tensor
    argument requires grad in grad mode; returns the results with a
    ``grad_fn``."""

    def __init__(self, fn, functions, torch):
        self.fn = fn
        self.forward_name, self.backward_name, self.arguments = fn.gradient_entries
        self.functions = functions
        self.nres = len(fn.results)
        self.torch = torch

    def _entry(self, name):
        f = self.functions.get(name)
        if f is None:
            raise UnsupportedError(
                "%s: its derived entry point %s cannot be called from Python, so it has no "
                "backward here; call it under torch.no_grad() or pass detached tensors"
                % (self.fn.name, name), self.fn.name)
        return f

    def forward_entry(self):
        """The callable of ``<name>__tx_fwd``."""
        return self._entry(self.forward_name)

    def backward_entry(self):
        """The callable of ``<name>__tx_bwd``."""
        return self._entry(self.backward_name)

    def __call__(self, args, out=None):
        if out is not None:
            raise UnsupportedError(
                "%s: out= cannot be combined with autograd (an argument requires grad); "
                "drop out= to get a result with a grad_fn, or call %s under torch.no_grad()"
                % (self.fn.name, self.fn.name), self.fn.name, "out")
        self.forward_entry()  # a missing entry point fails before autograd starts
        self.backward_entry()
        return _function(self.torch).apply(self, *args)


def gradients(manifest, functions, torch):
    """name -> :class:`Gradient` for each differentiable function of
    ``manifest`` (``functions``: the library's entry points, filled by the
    caller)."""
    return {name: Gradient(fn, functions, torch)
            for name, fn in manifest.functions.items() if fn.gradient_entries is not None}
