#!/usr/bin/env python3
"""Per-call time of tx's split-KV decode kernel and SDPA's cuDNN backend in
one CUDA graph of 20 calls each (f16, H 32, Hkv 8, D 128, Sq 1; B 1, Sk 2048
and 8192), for the short-cache rows of issue #17 (bench/RESULTS.md session
16). Usage: PYTHONPATH=python python3 bench/graph_decode.py LIBDECODE_SHAPES.so"""
import sys, torch, tx
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
lib = tx.load(sys.argv[1])
for (b, hkv, sk) in [(1, 8, 2048), (1, 8, 8192)]:
    q = torch.randn(b, 32, 1, 128, device="cuda", dtype=torch.float16)
    k = torch.randn(b, hkv, sk, 128, device="cuda", dtype=torch.float16)
    v = torch.randn(b, hkv, sk, 128, device="cuda", dtype=torch.float16)
    out = torch.empty_like(q)
    f = lib.dec_gqa_f16
    s = torch.cuda.Stream()
    for name, call in [("tx", lambda: f(q, k, v, out=out)),
                       ("cudnn", lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True))]:
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            with torch.cuda.stream(s):
                for _ in range(3):
                    call()
            torch.cuda.synchronize()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g, stream=s):
                for _ in range(20):
                    call()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("%s_%d_%d" % (name, hkv, sk))
        st, en = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        st.record()
        for _ in range(10):
            g.replay()
        en.record()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        print(name, hkv, sk, "us per call %.2f" % (st.elapsed_time(en) * 1000 / 200))
