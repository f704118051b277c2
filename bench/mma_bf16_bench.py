#!/usr/bin/env python3
"""bf16 prefill attention on the mma.sync kernel (chip=sm_90 libraries),
beside other tx libraries of the same shapes and PyTorch SDPA, one process.

    bash scripts/tx-compile.sh bench/mma_bf16_shapes.mlir OUT chip=sm_90
    python3 bench/mma_bf16_bench.py --lib new=OUT/libmma_bf16_shapes.so \\
        [--lib old=...] [--lib wgmma=<chip=sm_90a library>]

Shapes: bench/mma_bf16_shapes.mlir (B 4, H 16, S 4096, D 64/128, causal and
not; Sq == Sk, so SDPA's top-left causal mask equals tx's). Each library's
output is checked against SDPA's math backend in float32 on the first
head (max abs error printed). Timing: bench/decode_bench.py's
graph_time_us (--iters launches per CUDA graph, median of --reps replays).
TFLOP/s = 4 B H S^2 D / time, halved for causal."""
import argparse
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decode_bench import graph_time_us  # noqa: E402
import tx  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", action="append", required=True, metavar="NAME=LIB")
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--reps", type=int, default=11)
    args = ap.parse_args()
    libs = [(x.split("=", 1)[0], tx.load(x.split("=", 1)[1])) for x in args.lib]
    print("device:", torch.cuda.get_device_name(), "torch", torch.__version__)
    print("| shape | " + " | ".join("%s TFLOP/s (err)" % n for n, _ in libs) + " | SDPA flash | SDPA cuDNN |")
    print("|---" * (len(libs) + 3) + "|")
    g = torch.Generator(device="cuda").manual_seed(0)
    for d in (64, 128):
        for causal in (False, True):
            b, h, s = 4, 16, 4096
            name = "bf16_b4_h16_s4096_d%d%s" % (d, "_causal" if causal else "")
            q, k, v = (torch.randn((b, h, s, d), device="cuda", dtype=torch.bfloat16, generator=g)
                       for _ in range(3))
            out = torch.empty_like(q)
            with sdpa_kernel(SDPBackend.MATH):
                ref = F.scaled_dot_product_attention(q[:1, :1].float(), k[:1, :1].float(), v[:1, :1].float(),
                                                     is_causal=causal)
            flop = 4 * b * h * s * s * d / (2 if causal else 1)
            cells = []
            for _, lib in libs:
                f = getattr(lib, name)
                f(q, k, v, out=out)
                torch.cuda.synchronize()
                err = (out[:1, :1].float() - ref).abs().max().item()
                t = graph_time_us(lambda: f(q, k, v, out=out), args.iters, args.reps)
                cells.append("%.0f (%.2g)" % (flop / t / 1e6, err))
            for be in (SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION):
                try:
                    with sdpa_kernel(be):
                        call = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                        call()
                        t = graph_time_us(call, args.iters, args.reps)
                    cells.append("%.0f" % (flop / t / 1e6))
                except Exception:
                    cells.append("n/a")
            print("| %s | %s |" % (name, " | ".join(cells)))


if __name__ == "__main__":
    main()
