#!/usr/bin/env python3
"""Context-parallel (ring) attention with tx kernels on the GPUs of one host
(issue #20): a correctness check against single-GPU tx attention and a
benchmark against single-GPU tx and PyTorch's own context-parallel SDPA.
Start it with torchrun, one process per GPU:

  scripts/tx-compile.sh bench/ring_attention.mlir build/ring chip=sm_90a   # where LLVM is
  torchrun --standalone --nproc-per-node=2 bench/ring_attention.py --lib build/ring/libring_attention.so

bench/ring_attention.mlir is tx.distributed.kernel_source() plus plain
(LSE-free) attention for the single-GPU baseline (`--emit-source` writes
it). Checks (--check, default S=32768): each rank builds the same full
inputs, runs tx.distributed.ring_attention on its shards, all-gathers the
output and compares it with single-GPU tx attention of the whole sequence
on the same inputs (relative Frobenius error, max abs error), causal and
not, f16 and bf16. Benchmark (--bench, default S=131072, H=32, Hkv=8,
D=128, causal, f16): wall-clock time of one whole call (kernels, merges,
NCCL transfers; cuda.synchronize + barrier before, synchronize after; the
slowest rank), median of --reps after warm-up; the single-GPU time of the
same problem on rank 0 timed the same way; PyTorch's context parallel SDPA
(torch.distributed.tensor.experimental.context_parallel) where this torch
runs it. NVLink multicast stays off: NCCL_NVLS_ENABLE=0 unless set."""
import argparse
import math
import os
import statistics
import sys
import time

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import tx  # noqa: E402
from tx import distributed as txd  # noqa: E402

PLAIN = ("func.func @attn_%(c)s%(dt)s_d%(d)d(%%q: %(t)s, %%k: %(t)s, %%v: %(t)s) -> %(t)s {\n"
         "  %%o = tx.attention %%q, %%k, %%v%(causal)s : %(t)s, %(t)s, %(t)s -> %(t)s\n"
         "  return %%o : %(t)s\n}\n")


def source():
    s = txd.kernel_source()
    s += "// Plain attention (no LSE): the single-GPU baseline of bench/ring_attention.py.\n"
    for dt in txd.DTYPES:
        for causal in (False, True):
            s += PLAIN % dict(c="causal_" if causal else "", dt=dt, d=128,
                              t="tensor<?x?x?x128x%s>" % dt, causal=" causal" if causal else "")
    # The benchmark's problem with static sizes (a baseline in case static
    # sizes make a faster kernel).
    tq, tk = "tensor<1x32x131072x128xf16>", "tensor<1x8x131072x128xf16>"
    s += ("func.func @attn_static_causal_f16(%%q: %s, %%k: %s, %%v: %s) -> %s {\n"
          "  %%o = tx.attention %%q, %%k, %%v causal : %s, %s, %s -> %s\n"
          "  return %%o : %s\n}\n" % (tq, tk, tk, tq, tq, tk, tk, tq, tq))
    return s


def log(rank, *a):
    if rank == 0:
        print(*a, flush=True)


def wall(fn, reps, warmup, dist, torch):
    """Median wall time (ms) of fn over reps, each call aligned across the
    ranks and ended by a synchronize; the slowest rank's time."""
    ts = []
    for i in range(warmup + reps):
        torch.cuda.synchronize()
        dist.barrier()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        t = torch.tensor([time.perf_counter() - t0], device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        if i >= warmup:
            ts.append(t.item() * 1e3)
    return statistics.median(ts), min(ts), max(ts)


def rel_err(a, b):
    a, b = a.float(), b.float()
    return ((a - b).norm() / b.norm()).item(), (a - b).abs().max().item()


def inputs(torch, b, h, hkv, s, d, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    q = torch.randn(b, h, s, d, device="cuda", dtype=dtype, generator=g)
    k = torch.randn(b, hkv, s, d, device="cuda", dtype=dtype, generator=g)
    v = torch.randn(b, hkv, s, d, device="cuda", dtype=dtype, generator=g)
    return q, k, v


def check(args, lib, torch, dist, rank, world):
    import torch.nn.functional as F
    fails = 0
    log(rank, "## check: ring vs single-GPU tx on the same inputs (world %d)" % world)
    log(rank, "| dtype | B | H/Hkv | S | D | causal | rel err vs 1-GPU tx | max abs | "
        "1-GPU tx rel err vs SDPA | ring rel err vs SDPA | bound | result |")
    log(rank, "|---|---|---|---|---|---|---|---|---|---|---|---|")
    cases = []
    for dt in ("f16", "bf16"):
        for causal in (True, False):
            cases.append((dt, 1, 32, 8, args.check_s, 128, causal))
    cases += [("f16", 2, 16, 16, 4096, 64, True), ("bf16", 1, 8, 1, 8192, 64, False)]
    for i, (dt, b, h, hkv, s, d, causal) in enumerate(cases):
        dtype = torch.float16 if dt == "f16" else torch.bfloat16
        q, k, v = inputs(torch, b, h, hkv, s, d, dtype, 100 + i)
        single = lib[txd.kernel_name(causal, dt, d)](q, k, v)[0]
        sh = lambda x: txd.shard(x, rank, world, causal=causal)  # noqa: E731
        out = txd.ring_attention(sh(q), sh(k), sh(v), causal=causal, lib=lib)
        full = txd.gather(out, causal=causal)
        e, m = rel_err(full, single)
        sdpa = F.scaled_dot_product_attention(q, k.repeat_interleave(h // hkv, 1),
                                              v.repeat_interleave(h // hkv, 1), is_causal=causal)
        e1, _ = rel_err(single, sdpa)
        e2, _ = rel_err(full, sdpa)
        bound = 2e-3 if dt == "f16" else 1.6e-2
        ok = e <= bound and not torch.isnan(full).any().item()
        fails += not ok
        log(rank, "| %s | %d | %d/%d | %d | %d | %s | %.2e | %.2e | %.2e | %.2e | %.0e | %s |" % (
            dt, b, h, hkv, s, d, causal, e, m, e1, e2, bound, "PASS" if ok else "FAIL"))
        del q, k, v, single, out, full, sdpa
    return fails


def torch_cp(args, torch, dist, world, q, k, v, log0):
    """PyTorch's context-parallel SDPA (its ring over the same GPUs); returns
    {backend: median ms} for the backends that run, and logs why others
    did not."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    try:
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.tensor.experimental import context_parallel
    except ImportError as e:
        log0("torch context parallel: not available (%s)" % e)
        return {}
    mesh = init_device_mesh("cuda", (world,))
    res = {}
    h, hkv = q.shape[1], k.shape[1]
    for name, be in (("cuDNN", SDPBackend.CUDNN_ATTENTION),
                     ("flash", SDPBackend.FLASH_ATTENTION),
                     ("efficient", SDPBackend.EFFICIENT_ATTENTION)):
        for gqa in ("enable_gqa", "repeated K/V"):
            qq = q.clone()
            if gqa == "enable_gqa":
                kk, vv, kw = k.clone(), v.clone(), dict(enable_gqa=True)
            else:
                kk, vv, kw = (k.repeat_interleave(h // hkv, 1),
                              v.repeat_interleave(h // hkv, 1), {})
            try:
                with sdpa_kernel(be), context_parallel(mesh, buffers=[qq, kk, vv],
                                                       buffer_seq_dims=[2, 2, 2]):
                    t = wall(lambda: F.scaled_dot_product_attention(qq, kk, vv, is_causal=True,
                                                                    **kw),
                             args.reps, args.warmup, dist, torch)
                res["%s (%s)" % (name, gqa)] = t
                log0("torch context parallel SDPA %s, %s: median %.2f ms (min %.2f, max %.2f)" % (
                    name, gqa, *t))
                break
            except Exception as e:  # noqa: BLE001 - report and go on
                msg = str(e).strip().splitlines()[0][:300] if str(e).strip() else type(e).__name__
                log0("torch context parallel SDPA %s, %s: does not run (%s: %s)" % (
                    name, gqa, type(e).__name__, msg))
            finally:
                del qq, kk, vv
                torch.cuda.empty_cache()
    return res


def bench(args, lib, torch, dist, rank, world):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    b, h, hkv, s, d = 1, args.heads, args.kv_heads, args.bench_s, 128
    dt, dtype = "f16", torch.float16
    causal = True
    flops = 4 * b * h * s * s * d / (2 if causal else 1)
    log(rank, "## bench: B=%d H=%d Hkv=%d S=%d D=%d causal f16, %d ranks (%.3g TFLOP in all)" % (
        b, h, hkv, s, d, world, flops / 1e12))
    q, k, v = inputs(torch, b, h, hkv, s, d, dtype, 7)
    qs, ks, vs = (txd.shard(x, rank, world, causal=causal) for x in (q, k, v))
    ring = wall(lambda: txd.ring_attention(qs, ks, vs, causal=causal, lib=lib),
                args.reps, args.warmup, dist, torch)
    log(rank, "tx ring attention, %d GPUs: median %.2f ms (min %.2f, max %.2f); %.0f TFLOP/s "
        "in all" % (world, ring[0], ring[1], ring[2], flops / ring[0] / 1e9))
    # The pieces of one ring step, for the scaling estimate of docs/Design.md:
    # the K/V shard's transfer alone, the kernels of a step, the merge.
    nxt = (torch.empty_like(ks), torch.empty_like(vs))
    to, frm = (rank + 1) % world, (rank - 1) % world

    def transfer():
        for r in dist.batch_isend_irecv([dist.P2POp(dist.isend, ks, to), dist.P2POp(dist.isend, vs, to),
                                         dist.P2POp(dist.irecv, nxt[0], frm),
                                         dist.P2POp(dist.irecv, nxt[1], frm)]):
            r.wait()
    t = wall(transfer, args.reps, args.warmup, dist, torch)
    nbytes = 2 * ks.numel() * ks.element_size()
    log(rank, "K/V shard transfer alone (send %.1f MB to the next rank while receiving as much): "
        "median %.3f ms, %.0f GB/s per direction" % (nbytes / 1e6, t[0], nbytes / t[0] / 1e6))
    half = qs.shape[2] // 2
    step_fns = [("step 0: causal, Sq = Sk = %d" % qs.shape[2],
                 lambda: lib[txd.kernel_name(True, dt, d)](qs, ks, vs)),
                ("later step: full, Sq = %d, Sk = %d" % (qs.shape[2], half),
                 lambda: lib[txd.kernel_name(False, dt, d)](qs, ks[:, :, :half].contiguous(),
                                                             vs[:, :, :half].contiguous()))]
    o0, l0 = lib[txd.kernel_name(True, dt, d)](qs, ks, vs)
    acc, lacc = o0.float(), l0.clone()
    step_fns.append(("merge of one step (all local rows)",
                     lambda: txd.merge_partial(acc, lacc, o0, l0)))
    for name, fn in step_fns:
        t = wall(fn, args.reps, args.warmup, dist, torch)
        log(rank, "%s: median %.3f ms" % (name, t[0]))
    # The same step kernels at the shard sizes of 8 and 64 GPUs (one GPU's
    # time per step there; the estimate's compute side).
    for n in (8, 64):
        sl = s // n
        qn = qs[:, :, :sl].contiguous()
        kn, vn = ks[:, :, :sl].contiguous(), vs[:, :, :sl].contiguous()
        kh, vh = kn[:, :, :sl // 2].contiguous(), vn[:, :, :sl // 2].contiguous()
        for name, fn in (("causal, Sq = Sk = %d" % sl,
                          lambda: lib[txd.kernel_name(True, dt, d)](qn, kn, vn)),
                         ("full, Sq = %d, Sk = %d" % (sl, sl // 2),
                          lambda: lib[txd.kernel_name(False, dt, d)](qn, kh, vh))):
            t = wall(fn, args.reps, args.warmup, dist, torch)
            log(rank, "shard of %d GPUs, %s: median %.3f ms" % (n, name, t[0]))
        kb = torch.empty_like(kn), torch.empty_like(vn)

        def transfer_n():
            for r in dist.batch_isend_irecv([dist.P2POp(dist.isend, kn, to),
                                             dist.P2POp(dist.isend, vn, to),
                                             dist.P2POp(dist.irecv, kb[0], frm),
                                             dist.P2POp(dist.irecv, kb[1], frm)]):
                r.wait()
        t = wall(transfer_n, args.reps, args.warmup, dist, torch)
        nb = 2 * kn.numel() * kn.element_size()
        log(rank, "shard of %d GPUs: K/V transfer %.1f MB: median %.3f ms, %.0f GB/s" % (
            n, nb / 1e6, t[0], nb / t[0] / 1e6))
    del nxt, o0, l0, acc, lacc
    torch.cuda.empty_cache()
    # Single GPU: rank 0 alone, the others wait at the barrier.
    single = {}

    def one(fn):
        if rank == 0:
            fn()

    fns = [("tx plain", lib["attn_causal_%s_d%d" % (dt, d)]),
           ("tx with LSE", lib[txd.kernel_name(True, dt, d)])]
    if (b, h, hkv, s) == (1, 32, 8, 131072):
        fns.append(("tx plain, static sizes", lib["attn_static_causal_f16"]))
    for name, fn in fns:
        single[name] = wall(lambda: one(lambda: fn(q, k, v)), args.reps, args.warmup, dist, torch)
        log(rank, "single GPU %s: median %.2f ms (min %.2f, max %.2f); %.0f TFLOP/s" % (
            name, *single[name], flops / single[name][0] / 1e9))
    best1 = min(t[0] for t in single.values())
    ke, ve = k.repeat_interleave(h // hkv, 1), v.repeat_interleave(h // hkv, 1)
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        t = wall(lambda: one(lambda: F.scaled_dot_product_attention(q, ke, ve, is_causal=True)),
                 args.reps, args.warmup, dist, torch)
    log(rank, "single GPU SDPA cuDNN: median %.2f ms" % t[0])
    del ke, ve
    torch.cuda.empty_cache()
    cp = {} if args.skip_torch_cp else torch_cp(args, torch, dist, world, q, k, v,
                                                lambda *a: log(rank, *a))
    log(rank, "")
    log(rank, "| what | median ms | TFLOP/s (all GPUs) | speed-up vs 1-GPU tx |")
    log(rank, "|---|---|---|---|")
    log(rank, "| 1-GPU tx (best of %s) | %.2f | %.0f | 1.00 |" % (
        " / ".join(single), best1, flops / best1 / 1e9))
    log(rank, "| tx ring, %d GPUs | %.2f | %.0f | %.2f |" % (
        world, ring[0], flops / ring[0] / 1e9, best1 / ring[0]))
    for name, t in cp.items():
        log(rank, "| torch context parallel SDPA %s, %d GPUs | %.2f | %.0f | %.2f (tx ring / it: "
            "%.2f) |" % (name, world, t[0], flops / t[0] / 1e9, best1 / t[0], t[0] / ring[0]))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", help="the library built from bench/ring_attention.mlir")
    ap.add_argument("--emit-source", metavar="PATH",
                    help="write the kernel source (bench/ring_attention.mlir) and exit")
    ap.add_argument("--check", action="store_true",
                    help="run the checks (with neither --check nor --bench: both)")
    ap.add_argument("--bench", action="store_true",
                    help="run the benchmark (with neither --check nor --bench: both)")
    ap.add_argument("--check-s", type=int, default=32768,
                    help="sequence length S of the f16/bf16 D=128 checks (default 32768)")
    ap.add_argument("--bench-s", type=int, default=131072,
                    help="sequence length S of the benchmark (default 131072)")
    ap.add_argument("--heads", type=int, default=32, help="benchmark query heads H (default 32)")
    ap.add_argument("--kv-heads", type=int, default=8,
                    help="benchmark K/V heads Hkv (default 8)")
    ap.add_argument("--reps", type=int, default=10,
                    help="timed calls per measurement, median reported (default 10)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed calls first (default 2)")
    ap.add_argument("--skip-torch-cp", action="store_true",
                    help="do not time PyTorch's context-parallel SDPA")
    args = ap.parse_args()
    if args.emit_source:
        with open(args.emit_source, "w") as f:
            f.write(source())
        return 0
    if not args.lib:
        ap.error("--lib is required")
    import torch
    import torch.distributed as dist
    if "LOCAL_RANK" not in os.environ:
        ap.error("start it with torchrun (one process per GPU): torchrun --standalone "
                 "--nproc-per-node=N %s --lib ..." % sys.argv[0])
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank, world = dist.get_rank(), dist.get_world_size()
    lib = tx.load(args.lib)  # on this rank's device
    log(rank, "devices: %d x %s, torch %s, NCCL %s, NCCL_NVLS_ENABLE=%s" % (
        world, torch.cuda.get_device_name(), torch.__version__,
        torch.cuda.nccl.version(), os.environ.get("NCCL_NVLS_ENABLE")))
    fails = 0
    both = not args.check and not args.bench
    if args.check or both:
        fails = check(args, lib, torch, dist, rank, world)
    if args.bench or both:
        bench(args, lib, torch, dist, rank, world)
    dist.barrier()
    dist.destroy_process_group()
    if fails:
        log(rank, "FAILED: %d check(s)" % fails)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
