#!/usr/bin/env python3
"""Two calls of each named prefill function of bench/attention_shapes.mlir
from each library given, for Nsight Compute (f16 random inputs), e.g. the
uncapped and the softcap build of session 16 (bench/RESULTS.md):

  ncu --clock-control none --kernel-name regex:attn_b4 --set full -o prof \\
      python3 bench/profile_attention.py A/libattention_shapes.so B/libattention_shapes.so"""
import argparse
import re

import torch
import tx


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("libs", nargs="+", help="libattention_shapes.so files")
    ap.add_argument("--fn", action="append", default=[],
                    help="attn_b<B>_h<H>_s<S>_d<D>[_causal] (default: the two 4x16x4096 non-causal)")
    args = ap.parse_args()
    libs = [tx.load(p) for p in args.libs]
    for fn in args.fn or ["attn_b4_h16_s4096_d64", "attn_b4_h16_s4096_d128"]:
        m = re.fullmatch(r"attn_b(\d+)_h(\d+)_s(\d+)_d(\d+)(_causal)?", fn)
        if not m:
            ap.error("--fn %s: expected attn_b<B>_h<H>_s<S>_d<D>[_causal]" % fn)
        shape = tuple(int(x) for x in m.groups()[:4])
        q, k, v = (torch.randn(*shape, device="cuda", dtype=torch.float16) for _ in range(3))
        for lib in libs:
            for _ in range(2):
                getattr(lib, fn)(q, k, v)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
