#!/usr/bin/env python3
"""The training check of issue #40: a small GPT (4 layers, width 512, 8 heads
of 64, sequence 1024, causal, batch 8) trained on synthetic data twice from
the same seed, once with tx attention (python/tx autograd over
bench/train_attention.mlir, built by scripts/tx-compile.sh) and once with
PyTorch SDPA, in one process; prints both loss curves (every 25 steps),
their largest gap, and tokens/s of each (steps after warm-up, timed with
CUDA events).

    python3 bench/train_gpt.py LIBDIR [--steps 300]

The data: sequences of a fixed random Markov chain over 512 tokens (each
token has 4 likely successors), so the loss falls from ln 512 toward ln 4.
Parameters in f32, matmuls under bf16 autocast; the attention's Q, K, V are
bf16 [8, 8, 1024, 64] (contiguous) for both.
"""
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tx  # noqa: E402

V, W, L, H, S, B = 512, 512, 4, 8, 1024, 8


class Block(nn.Module):
    def __init__(self, attend):
        super().__init__()
        self.attend = attend
        self.ln1, self.ln2 = nn.LayerNorm(W), nn.LayerNorm(W)
        self.qkv, self.proj = nn.Linear(W, 3 * W), nn.Linear(W, W)
        self.mlp = nn.Sequential(nn.Linear(W, 4 * W), nn.GELU(), nn.Linear(4 * W, W))

    def forward(self, x):
        q, k, v = self.qkv(self.ln1(x)).view(B, S, 3, H, W // H).permute(2, 0, 3, 1, 4)
        q, k, v = (t.to(torch.bfloat16).contiguous() for t in (q, k, v))
        o = self.attend(q, k, v).transpose(1, 2).reshape(B, S, W)
        x = x + self.proj(o)
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, attend):
        super().__init__()
        self.emb, self.pos = nn.Embedding(V, W), nn.Parameter(torch.zeros(1, S, W))
        self.blocks = nn.ModuleList(Block(attend) for _ in range(L))
        self.ln, self.head = nn.LayerNorm(W), nn.Linear(W, V)

    def forward(self, idx):
        x = self.emb(idx) + self.pos
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x))


def batches(steps, seed):
    """[(inputs, targets)] per step, all drawn at once."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    succ = torch.randint(0, V, (V, 4), generator=g, device="cuda")
    seq = torch.empty(steps * B, S + 1, dtype=torch.long, device="cuda")
    seq[:, 0] = torch.randint(0, V, (steps * B,), generator=g, device="cuda")
    choice = torch.randint(0, 4, (steps * B, S), generator=g, device="cuda")
    for t in range(S):
        seq[:, t + 1] = succ[seq[:, t], choice[:, t]]
    return [(s[:, :-1], s[:, 1:]) for s in seq.view(steps, B, S + 1)]


def train(attend, data, steps, seed=0):
    torch.manual_seed(seed)
    model = GPT(attend).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.0)
    losses, start, warm = [], None, min(20, steps // 2)
    t0 = time.perf_counter()
    for step, (x, y) in enumerate(data):
        if step == warm:
            torch.cuda.synchronize()
            start = time.perf_counter()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x).float().view(-1, V), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if step % 50 == 0:
            print("  %s step %d loss %.4f (%.1f s)" % (getattr(attend, "__name__", "?"), step,
                  losses[-1], time.perf_counter() - t0), flush=True)
    torch.cuda.synchronize()
    tok_s = B * S * (steps - warm) / (time.perf_counter() - start)
    return losses, tok_s


def main():
    argv = sys.argv[1:]
    steps = int(argv[argv.index("--steps") + 1]) if "--steps" in argv else 300
    lib = tx.load(os.path.join(argv[0], "libtrain_attention.so"))
    data = batches(steps, seed=1)
    sdpa = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)
    ref, ref_tok = train(sdpa, data, steps)
    ours, our_tok = train(lib.gpt_attention, data, steps)
    print("step  loss(tx)  loss(sdpa)")
    for i in list(range(0, steps, 25)) + [steps - 1]:
        print("%4d  %8.4f  %8.4f" % (i, ours[i], ref[i]))
    gap = max(abs(a - b) for a, b in zip(ours, ref))
    tail = sum(abs(a - b) for a, b in zip(ours[-50:], ref[-50:])) / min(50, steps)
    print("largest loss gap %.4f, mean gap over the last 50 steps %.4f (ln 512 = %.3f)"
          % (gap, tail, math.log(V)))
    print("tokens/s: tx %.0f, sdpa %.0f (ratio %.3f)" % (our_tok, ref_tok, our_tok / ref_tok))


if __name__ == "__main__":
    main()
