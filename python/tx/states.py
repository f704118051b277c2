"""Merging partial attention results by their log-sum-exp.

``merge_states(out_a, lse_a, out_b, lse_b)`` is the PyTorch form of the
``tx.merge_attention_states`` op (include/Transformer/TxOps.td): two
attention results of the same query rows over disjoint key sets (a shared
prefix and each sequence's own suffix, two halves of a split-KV call), each
with its log-sum-exp (the LSE result of ``tx.attention``, natural log,
-inf for a row that saw no key), merged into the result and LSE of
attention over the union of the keys (FlashInfer's ``merge_state``; Ye et
al., 2025, "FlashInfer: Efficient and Customizable Attention Engine for LLM
Inference Serving")::

    m = max(lse_a, lse_b);  w_x = exp(lse_x - m)
    out = (w_a out_a + w_b out_b) / (w_a + w_b);  lse = m + log(w_a + w_b)

Runs on torch's device of the arguments with torch ops (no compiled
library needed); computed in f32 (f64 for f64 outputs) and rounded once.
"""
from ._errors import ArgumentError, ArgumentTypeError

__all__ = ["merge_states"]


def _check(torch, out_a, lse_a, out_b, lse_b):
    names = ("out_a", "lse_a", "out_b", "lse_b")
    for name, x in zip(names, (out_a, lse_a, out_b, lse_b)):
        if not isinstance(x, torch.Tensor):
            raise ArgumentTypeError("merge_states: argument '%s' must be a torch.Tensor, got %s"
                                    % (name, type(x).__name__), "merge_states", name)
    if out_a.dim() < 1:
        raise ArgumentError("merge_states: argument 'out_a' must have rank >= 1 [..., Dv], "
                            "got a scalar", "merge_states", "out_a")
    floats = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
    if out_a.dtype not in floats:
        raise ArgumentTypeError("merge_states: argument 'out_a' has dtype %s, expected a "
                                "float dtype" % out_a.dtype, "merge_states", "out_a")
    if out_b.shape != out_a.shape or out_b.dtype != out_a.dtype:
        raise ArgumentError("merge_states: argument 'out_b' is %s %s, expected out_a's %s %s"
                            % (out_b.dtype, list(out_b.shape), out_a.dtype,
                               list(out_a.shape)), "merge_states", "out_b")
    rows = out_a.shape[:-1]
    for name, lse in (("lse_a", lse_a), ("lse_b", lse_b)):
        if lse.shape != rows:
            raise ArgumentError("merge_states: argument '%s' has shape %s, expected out_a's "
                                "leading dimensions %s" % (name, list(lse.shape), list(rows)),
                                "merge_states", name)
        if lse.dtype not in (torch.float32, torch.float64):
            raise ArgumentTypeError("merge_states: argument '%s' has dtype %s, expected "
                                    "torch.float32" % (name, lse.dtype), "merge_states", name)
    for name, x in zip(names[1:], (lse_a, out_b, lse_b)):
        if x.device != out_a.device:
            raise ArgumentError("merge_states: argument '%s' is on %s, out_a on %s"
                                % (name, x.device, out_a.device), "merge_states", name)


def merge_states(out_a, lse_a, out_b, lse_b):
    """Returns ``(out, lse)``: the attention result and LSE over the keys of
    both parts.

    ``out_a``, ``out_b``: ``[..., Dv]`` (``[B, H, Sq, Dv]`` as tx.attention
    returns it), one float dtype; ``lse_a``, ``lse_b``: ``[...]`` (their
    leading dimensions), float32. ``out`` has ``out_a``'s dtype, ``lse`` is
    float32. A row whose two LSEs are -inf gives 0 and -inf (never NaN); a
    part with LSE -inf contributes nothing, whatever its row holds. Bad
    arguments raise :class:`tx.ArgumentError` (``ArgumentTypeError`` for a
    wrong type or dtype) naming the argument."""
    import torch
    _check(torch, out_a, lse_a, out_b, lse_b)
    acc = torch.float64 if out_a.dtype == torch.float64 else torch.float32
    la, lb = lse_a.to(acc), lse_b.to(acc)
    m = torch.maximum(la, lb)
    empty = torch.isneginf(m)
    m_safe = torch.where(empty, torch.zeros_like(m), m)
    wa, wb = torch.exp(la - m_safe), torch.exp(lb - m_safe)  # exp(-inf) = 0
    s = wa + wb
    s_safe = torch.where(empty, torch.ones_like(s), s)
    zero = torch.zeros((), dtype=acc, device=out_a.device)
    ta = torch.where(torch.isneginf(la).unsqueeze(-1), zero, (wa / s_safe).unsqueeze(-1) * out_a.to(acc))
    tb = torch.where(torch.isneginf(lb).unsqueeze(-1), zero, (wb / s_safe).unsqueeze(-1) * out_b.to(acc))
    out = torch.where(empty.unsqueeze(-1), zero, ta + tb).to(out_a.dtype)
    lse = torch.where(empty, m, m_safe + torch.log(s_safe)).to(torch.float32)
    return out, lse
