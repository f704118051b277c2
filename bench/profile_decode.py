#!/usr/bin/env python3
"""One decode call of tx and of SDPA's cuDNN backend per shape, for Nsight
Compute (issue #17): f16, H = 32, D = 128, Sq = 1, the shapes given as
B:Hkv:Sk (default the best and worst rows of bench/RESULTS.md, session 8).

  ncu --clock-control none --set full -o prof python3 bench/profile_decode.py \\
      --lib build/bench-decode/libdecode_shapes.so"""
import argparse

import torch
import torch.nn.functional as F
import tx


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--shape", action="append", default=[], help="B:Hkv:Sk")
    args = ap.parse_args()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    lib = tx.load(args.lib)
    for s in args.shape or ["1:8:2048", "8:8:131072", "8:32:8192"]:
        b, hkv, sk = (int(x) for x in s.split(":"))
        q = torch.randn(b, 32, 1, 128, device="cuda", dtype=torch.float16)
        k = torch.randn(b, hkv, sk, 128, device="cuda", dtype=torch.float16)
        v = torch.randn(b, hkv, sk, 128, device="cuda", dtype=torch.float16)
        f = lib.dec_gqa_f16 if hkv == 8 else lib.dec_mha_f16
        for _ in range(2):
            f(q, k, v)
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                F.scaled_dot_product_attention(q, k, v, enable_gqa=hkv != 32)
        torch.cuda.synchronize()


if __name__ == "__main__":
    main()
