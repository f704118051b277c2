#!/usr/bin/env python3
"""Sliding-window attention (issue #19): tx's window [4096, 0] on
Sq = Sk = 32768, H = 32, D = 128 against tx's full causal attention of the
same size and PyTorch FlexAttention (torch.compile'd flex_attention with a
sliding-window block mask), same process, same timing: back-to-back calls
between two CUDA events (--iters per measurement), median of --reps after
warm-up. Each output is first checked against FlexAttention's (relative
Frobenius error).

  scripts/tx-compile.sh bench/window_shapes.mlir build/bench-window chip=sm_90a
  PYTHONPATH=python python3 bench/window_bench.py --lib build/bench-window/libwindow_shapes.so"""
import argparse
import statistics

import torch
import tx

S, H, D, W = 32768, 32, 128, 4096


def timed(fn, iters, reps, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(iters):
            fn()
        b.record()
        torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) / iters)
    return statistics.median(ts)


def rel(a, b):
    a, b = a.float(), b.float()
    return ((a - b).norm() / b.norm()).item()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args()
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    lib = tx.load(args.lib)
    print("device:", torch.cuda.get_device_name(), "torch", torch.__version__)
    print("timing: %d back-to-back calls between CUDA events, median of %d (ms per call)" % (
        args.iters, args.reps))

    def window(b, h, q_idx, kv_idx):
        return (q_idx >= kv_idx) & (q_idx - kv_idx <= W)

    def causal(b, h, q_idx, kv_idx):
        return q_idx >= kv_idx

    flex = torch.compile(flex_attention, dynamic=False)
    bm_w = create_block_mask(window, B=None, H=None, Q_LEN=S, KV_LEN=S)
    bm_c = create_block_mask(causal, B=None, H=None, Q_LEN=S, KV_LEN=S)
    pairs_w = sum(min(i, W) + 1 for i in range(S))
    pairs_c = S * (S + 1) // 2
    print("| dtype | what | tx ms | FlexAttention ms | tx / Flex speed | rel err vs Flex | tx TFLOP/s |")
    print("|---|---|---|---|---|---|---|")
    g = torch.Generator(device="cuda").manual_seed(0)
    res = {}
    for dt, dname in ((torch.float16, "f16"), (torch.bfloat16, "bf16")):
        q, k, v = (torch.randn(1, H, S, D, device="cuda", dtype=dt, generator=g) for _ in range(3))
        rows = [("window [4096, 0]", "window4096_" + dname, bm_w, pairs_w)]
        if dname == "f16":
            rows.append(("causal", "causal_f16", bm_c, pairs_c))
        for what, fn, bm, pairs in rows:
            f = lib[fn]
            o = f(q, k, v)
            ref = flex(q, k, v, block_mask=bm)
            e = rel(o, ref)
            t_tx = timed(lambda: f(q, k, v), args.iters, args.reps)
            t_fx = timed(lambda: flex(q, k, v, block_mask=bm), args.iters, args.reps)
            res[(dname, what)] = t_tx
            print("| %s | %s | %.3f | %.3f | %.2f | %.2e | %.0f |" % (
                dname, what, t_tx, t_fx, t_fx / t_tx, e, 4 * H * pairs * D / t_tx / 1e9), flush=True)
    print("window / causal time (f16): %.3f (pairs ratio %.3f)" % (
        res[("f16", "window [4096, 0]")] / res[("f16", "causal")], pairs_w / pairs_c))


if __name__ == "__main__":
    main()
