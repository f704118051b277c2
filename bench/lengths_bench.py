#!/usr/bin/env python3
"""Per-sequence lengths (issue #19): a batch of 16 sequences with random
lengths in [1, 8192] (H = 32, Hkv = 8, D = 128, f16, causal), prefill
(kv_lengths = q_lengths = L) and decode (one query, kv_lengths = L), timed
three ways in one process with the same method (--iters calls captured in
one CUDA graph, median of --reps replays after warm-up):
  - tx's varlen call (one launch over the padded batch),
  - the same work as 16 separate dense tx calls (each sequence alone,
    dynamic S), all 16 in one graph,
  - PyTorch FlexAttention (torch.compile'd flex_attention, GQA, with a
    create_block_mask length/causal block mask) on the padded batch.
Each result is first checked against the dense calls (valid rows) and
against FlexAttention (relative Frobenius error).

  scripts/tx-compile.sh bench/lengths_shapes.mlir build/bench-lengths chip=sm_90a
  PYTHONPATH=python python3 bench/lengths_bench.py --lib build/bench-lengths/liblengths_shapes.so"""
import argparse
import statistics

import torch
import tx

B, H, HKV, S, D = 16, 32, 8, 8192, 128


def graph_ms(fn, iters, reps, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(iters):
            fn()
    for _ in range(3):
        g.replay()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) / iters)
    del g
    return statistics.median(ts)


def rel(a, b):
    a, b = a.float(), b.float()
    n = b.norm()
    return ((a - b).norm() / n).item() if n > 0 else (a - b).norm().item()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    lib = tx.load(args.lib)
    print("device:", torch.cuda.get_device_name(), "torch", torch.__version__)
    print("timing: %d calls in one CUDA graph, median of %d replays (ms per call)" % (
        args.iters, args.reps))
    g = torch.Generator().manual_seed(args.seed)
    L = torch.randint(1, S + 1, (B,), generator=g, dtype=torch.int32)
    print("lengths:", L.tolist(), "sum", int(L.sum()))
    Ld = L.cuda()
    dev = "cuda"
    gen = torch.Generator(device=dev).manual_seed(args.seed)
    k = torch.randn(B, HKV, S, D, device=dev, dtype=torch.float16, generator=gen)
    v = torch.randn(B, HKV, S, D, device=dev, dtype=torch.float16, generator=gen)
    # Padding holds garbage: it must never be read into a result.
    for b in range(B):
        k[b, :, int(L[b]):] = float("nan")
        v[b, :, int(L[b]):] = float("nan")
    ks = [k[b:b + 1, :, :int(L[b])].contiguous() for b in range(B)]
    vs = [v[b:b + 1, :, :int(L[b])].contiguous() for b in range(B)]
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    flex = torch.compile(flex_attention, dynamic=False)
    rows = []

    # ---- prefill: Sq = Sk = L per sequence ----
    q = torch.randn(B, H, S, D, device=dev, dtype=torch.float16, generator=gen)
    for b in range(B):
        q[b, :, int(L[b]):] = float("nan")
    qs = [q[b:b + 1, :, :int(L[b])].contiguous() for b in range(B)]
    out = torch.empty(B, H, S, D, device=dev, dtype=torch.float16)
    outs = [torch.empty_like(x) for x in qs]
    f_var, f_dense = lib.varlen_prefill, lib.dense_prefill
    f_var(q, k, v, Ld, Ld, out=out)
    for b in range(B):
        f_dense(qs[b], ks[b], vs[b], out=outs[b])
    torch.cuda.synchronize()
    err = max(rel(out[b:b + 1, :, :int(L[b])], outs[b]) for b in range(B))
    pad_ok = bool((out[L.shape[0] - 1, :, int(L[-1]):] == 0).all()) if int(L[-1]) < S else True

    def mask_prefill(b, h, qi, ki):
        n = Ld[b]
        return (qi < n) & (ki < n) & (ki <= qi)

    bm = create_block_mask(mask_prefill, B=B, H=None, Q_LEN=S, KV_LEN=S)
    qz = torch.where(torch.isnan(q), torch.zeros_like(q), q)
    kz = torch.where(torch.isnan(k), torch.zeros_like(k), k)
    vz = torch.where(torch.isnan(v), torch.zeros_like(v), v)
    fo = flex(qz, kz, vz, block_mask=bm, enable_gqa=True)
    torch.cuda.synchronize()
    ferr = max(rel(out[b:b + 1, :, :int(L[b])], fo[b:b + 1, :, :int(L[b])]) for b in range(B))
    t_var = graph_ms(lambda: f_var(q, k, v, Ld, Ld, out=out), args.iters, args.reps)

    def dense_all():
        for b in range(B):
            f_dense(qs[b], ks[b], vs[b], out=outs[b])
    t_dense = graph_ms(dense_all, args.iters, args.reps)
    t_flex = graph_ms(lambda: flex(qz, kz, vz, block_mask=bm, enable_gqa=True),
                      args.iters, args.reps)
    pairs = sum(int(n) * (int(n) + 1) // 2 for n in L)
    rows.append(("prefill", t_var, t_dense, t_flex, err, ferr, pad_ok, 4 * H * pairs * D))
    del q, qs, out, outs, qz, fo

    # ---- decode: one query, kv_lengths = L ----
    q = torch.randn(B, H, 1, D, device=dev, dtype=torch.float16, generator=gen)
    qs = [q[b:b + 1].contiguous() for b in range(B)]
    out = torch.empty(B, H, 1, D, device=dev, dtype=torch.float16)
    outs = [torch.empty_like(x) for x in qs]
    f_var, f_dense = lib.varlen_decode, lib.dense_decode
    f_var(q, k, v, Ld, out=out)
    for b in range(B):
        f_dense(qs[b], ks[b], vs[b], out=outs[b])
    torch.cuda.synchronize()
    err = max(rel(out[b:b + 1], outs[b]) for b in range(B))

    def mask_decode(b, h, qi, ki):
        return ki < Ld[b]

    t_flex, ferr = float("nan"), float("nan")
    try:
        bm = create_block_mask(mask_decode, B=B, H=None, Q_LEN=1, KV_LEN=S)
        fo = flex(q, kz, vz, block_mask=bm, enable_gqa=True)
        torch.cuda.synchronize()
        ferr = rel(out, fo)
        t_flex = graph_ms(lambda: flex(q, kz, vz, block_mask=bm, enable_gqa=True),
                          args.iters, args.reps)
    except Exception as e:  # noqa: BLE001 (reported, not hidden)
        print("FlexAttention decode failed:", type(e).__name__, str(e).splitlines()[0])
    t_var = graph_ms(lambda: f_var(q, k, v, Ld, out=out), args.iters, args.reps)

    def dense_all_dec():
        for b in range(B):
            f_dense(qs[b], ks[b], vs[b], out=outs[b])
    t_dense = graph_ms(dense_all_dec, args.iters, args.reps)
    kv_bytes = 2 * HKV * D * 2 * int(L.sum())
    rows.append(("decode", t_var, t_dense, t_flex, err, ferr, True, kv_bytes))

    print("| phase | tx varlen ms | 16 dense tx calls ms | varlen / dense | FlexAttention ms | "
          "tx / Flex speed | rel err vs dense | rel err vs Flex | padding rows 0 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for ph, tv, td, tf, e, fe, pad, work in rows:
        print("| %s | %.3f | %.3f | %.3f | %.3f | %.2f | %.1e | %.1e | %s |" % (
            ph, tv, td, tv / td, tf, tf / tv, e, fe, pad))
    ph, tv = rows[0][0], rows[0][1]
    print("prefill tx varlen: %.0f TFLOP/s (visible pairs)" % (rows[0][7] / tv / 1e9))
    print("decode tx varlen: %.2f TB/s of KV read (valid keys)" % (rows[1][7] / rows[1][1] / 1e9))


if __name__ == "__main__":
    main()
