#!/usr/bin/env python3
"""Small calls of every tx kernel family, for compute-sanitizer.

scripts/sanitize.sh runs this script once under each compute-sanitizer tool
(memcheck, racecheck, synccheck, initcheck). It loads the libraries that
scripts/main.sh builds (cases: softmax kernels and the reference lowering;
flash_cases: chip sm_90, i.e. the CUDA-core and mma.sync attention kernels;
flash_cases_sm90a: the wgmma kernel; flash_cases_ws: the wgmma kernel with
its producer warpgroup; all: the split-KV decode kernel, the log-sum-exp
result and
softcap, sliding windows) and calls each entry point below once on
small inputs made on the CPU and copied to the device (no PyTorch kernel runs
besides the copies, so every report is about tx's kernels), with outputs from
uninitialized memory (the kernels must write, never read, them). The calls
go through the python/tx package (stream-ordered, on PyTorch's current
stream; each call waited for); --dry-run makes them on CPU tensors with the
libraries' manifests only (harness/check.py --dry-run), no GPU.

    python3 harness/sanitize_calls.py --lib-dir build/examples [--list | --dry-run]
"""
import argparse
import gc
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check  # noqa: E402  (calls through python/tx)
import tx  # noqa: E402

F16, BF16, F32, I1 = torch.float16, torch.bfloat16, torch.float32, torch.bool


def softmax(fn, shape, dt):
    return ("cases", fn, "softmax %s %s" % ("x".join(map(str, shape)), fn), [(shape, dt)], shape, dt)


def attn(lib, fn, b, h, hkv, sq, sk, d, dt, mask=None, dv=None, what="", lengths=(), lse=False):
    """lengths: per-sequence length lists (kv_lengths, then q_lengths), i32;
    lse: the function also returns the log-sum-exp (f32 [B, H, Sq])."""
    dv = dv or d
    args = [((b, h, sq, d), dt), ((b, hkv, sk, d), dt), ((b, hkv, sk, dv), dt)]
    if mask is not None:
        args.append(((b, h, sq, sk) if mask[1] is None else mask[1], mask[0]))
    for ls in lengths:
        args.append((tuple(ls), torch.int32))
    name = "%s %s B%d H%d/%d Sq%d Sk%d D%d%s" % (lib, fn, b, h, hkv, sq, sk, d, (" " + what) if what else "")
    out = (b, h, sq, dv)
    if lse:
        out = [((b, h, sq, dv), dt), ((b, h, sq), F32)]
    return (lib, fn, name, args, out, dt)


def calls():
    c = []
    # Softmax: row-group kernels (short rows, vector and scalar paths),
    # CTA-per-row kernels (long rows), dynamic shapes, the reference (dim 0).
    for fn, shape, dt in (("softmax_dyn_f32", (3, 77), F32), ("softmax_dyn_f16", (5, 128), F16),
                          ("softmax_dyn_bf16", (4, 1000), BF16), ("softmax_3x31_f32", (3, 31), F32),
                          ("softmax_3x33_f16", (3, 33), F16), ("softmax_3x1025_f16", (3, 1025), F16),
                          ("softmax_3x4096_f32", (3, 4096), F32), ("softmax_7x50257_f32", (7, 50257), F32),
                          ("softmax_7x50257_f16", (7, 50257), F16),
                          ("softmax_140x49157_f32", (140, 49157), F32),
                          ("softmax_300x50257_bf16", (300, 50257), BF16), ("softmax_dim0_dyn_f32", (37, 5), F32),
                          # a user's row tiling (8 and 2 rows per CTA)
                          ("softmax_user_rows8_dyn_f32", (37, 1000), F32),
                          ("softmax_user_rows2_f16", (37, 50257), F16)):
        c.append(softmax(fn, shape, dt))
    # Attention through the reference lowering (dynamic head dims).
    c.append(attn("cases", "attn_dyn_f16", 1, 2, 1, 17, 33, 24, F16))
    c.append(attn("cases", "attn_mask_causal_dyn_f32", 1, 2, 2, 9, 13, 8, F32, mask=(I1, None)))
    for lib in ("flash_cases", "flash_cases_sm90a", "flash_cases_ws"):
        for dt in (F16, BF16):
            for d in (64, 128):
                n = "f16" if dt == F16 else "bf16"
                # No mask; i1 and additive masks; tails of Sq and Sk.
                c.append(attn(lib, "hk_d%d_%s" % (d, n), 2, 2, 2, 77, 130, d, dt))
                c.append(attn(lib, "hk_keep_d%d_%s" % (d, n), 1, 2, 2, 70, 257, d, dt, mask=(I1, None)))
                c.append(attn(lib, "hk_add_d%d_%s" % (d, n), 1, 2, 2, 33, 200, d, dt, mask=(dt, None)))
        # Causal + GQA (CASES.md H4 on sm_90a), Sq = 1, mask + causal.
        c.append(attn(lib, "hk_causal_d128_f16", 1, 2, 1, 77, 130, 128, F16, what="H4"))
        c.append(attn(lib, "hk_causal_d128_f16", 1, 4, 2, 1, 300, 128, F16, what="Sq=1"))
        c.append(attn(lib, "hk_causal_d64_bf16", 2, 4, 1, 130, 77, 64, BF16, what="Sq>Sk"))
        c.append(attn(lib, "hk_keep_causal_d128_f16", 1, 2, 2, 77, 130, 128, F16, mask=(I1, None)))
        c.append(attn(lib, "hk_add_causal_d64_bf16", 1, 2, 2, 65, 129, 64, BF16, mask=(BF16, None)))
        # CUDA-core kernels: f32, odd and large head dims.
        c.append(attn(lib, "hk_d64_f32", 1, 2, 2, 40, 90, 64, F32))
        c.append(attn(lib, "hk_keep_d64_f32", 1, 2, 2, 33, 65, 64, F32, mask=(I1, None)))
        c.append(attn(lib, "hk_add_d64_f32", 1, 2, 2, 33, 65, 64, F32, mask=(F32, None)))
        c.append(("%s" % lib, "flash_d18_dv40_f16", lib + " flash_d18_dv40_f16",
                  [((1, 2, 45, 18), F16), ((1, 2, 77, 18), F16), ((1, 2, 77, 40), F16)], (1, 2, 45, 40), F16))
        c.append((lib, "flash_d256_f32", lib + " flash_d256_f32",
                  [((1, 2, 40, 256), F32), ((1, 1, 90, 256), F32), ((1, 1, 90, 256), F32)], (1, 2, 40, 256), F32))
        c.append((lib, "flash_d80_f16", lib + " flash_d80_f16",
                  [((2, 3, 100, 80), F16), ((2, 1, 100, 80), F16), ((2, 1, 100, 80), F16)], (2, 3, 100, 80), F16))
        # Split-KV prefill (#38): grids of few CTAs over many keys, the
        # count at compile time (split_*) or at run time (the rest): masks,
        # causal with rows that see no key, lengths, the LSE.
        c.append(attn(lib, "split_add_mask_f16", 1, 2, 2, 33, 1200, 64, F16, mask=(F16, None)))
        c.append(attn(lib, "split_keep_d128_dv64_f16", 1, 2, 2, 130, 1500, 128, F16, dv=64,
                      mask=(I1, (1, 1, 130, 1500))))
        c.append(attn(lib, "split_causal_d128_bf16", 1, 4, 2, 64, 1777, 128, BF16))
        c.append(attn(lib, "split_d64_dv128_f16", 1, 2, 2, 150, 2333, 64, F16, dv=128))
        c.append(attn(lib, "flash_dyn_f16", 1, 2, 2, 700, 600, 64, F16, what="split, Sq > Sk"))
        c.append(attn(lib, "len_prefill_gqa_f16", 2, 8, 2, 200, 3000, 128, F16,
                      lengths=[(3000, 1300), (200, 7)], what="split"))
        c.append(attn(lib, "lse_causal_d128_f16", 1, 2, 2, 100, 2500, 128, F16, lse=True,
                      what="split"))
        # Split-KV decode kernel (#17): one split and several (the last CTA
        # merges), i1 and additive masks, Sq > 1 causal, MQA, f32.
        c.append(attn(lib, "dec_gqa_f16", 1, 32, 8, 1, 31, 128, F16, what="one split"))
        c.append(attn(lib, "dec_gqa_f16", 2, 32, 8, 1, 4097, 128, F16, what="splits"))
        c.append(attn(lib, "dec_gqa_f16", 1, 32, 8, 1, 20000, 128, F16, what="33 splits"))
        # The cluster merge (sm_90+, short calls: B * Hkv * 8 <= 66, Sk <=
        # 2048): 8 splits, a mask hiding whole splits, the log-sum-exp.
        c.append(attn(lib, "dec_gqa_f16", 1, 32, 8, 1, 2000, 128, F16, what="cluster of 8 splits"))
        c.append(attn(lib, "dec_keep_f16", 1, 32, 8, 1, 2000, 128, F16, mask=(I1, None), what="cluster"))
        c.append(attn(lib, "dec_lse_f16", 1, 32, 8, 1, 1500, 128, F16, lse=True, what="cluster"))
        c.append(attn(lib, "dec_gqa_bf16", 2, 32, 8, 1, 4097, 128, BF16, what="splits"))
        c.append(attn(lib, "dec_sq4_causal_bf16", 2, 8, 2, 4, 3001, 64, BF16))
        c.append(attn(lib, "dec_d256_f16", 1, 8, 2, 1, 20000, 256, F16))
        c.append(attn(lib, "dec_d256_sq2_causal_f32", 2, 4, 2, 2, 3000, 256, F32))
        c.append(attn(lib, "dec_keep_f16", 2, 32, 8, 1, 3000, 128, F16, mask=(I1, None)))
        c.append(attn(lib, "dec_add_sq2_causal_bf16", 3, 8, 2, 2, 2500, 64, BF16, mask=(BF16, (1, 8, 2, 2500))))
        c.append(attn(lib, "dec_sq4_causal_f16", 2, 32, 8, 4, 5000, 128, F16))
        c.append(attn(lib, "dec_mqa_d64_f16", 2, 8, 1, 1, 9000, 64, F16))
        c.append(attn(lib, "dec_causal_f32", 2, 4, 2, 3, 700, 64, F32, dv=32))
        # Logit soft-capping (#19): the tensor-core or CUDA-core kernel and the decode kernel.
        c.append(attn(lib, "softcap_gqa_causal_f16", 2, 8, 2, 77, 130, 64, F16))
        c.append(attn(lib, "softcap_dec_causal_f16", 2, 8, 2, 3, 3001, 64, F16))
        c.append(attn(lib, "softcap_huge_f32", 1, 2, 2, 9, 33, 16, F32))
        c.append(attn(lib, "softcap_dec_add_bf16", 3, 8, 2, 1, 700, 128, BF16, mask=(BF16, None)))
        # ... and the tensor-core kernels' cap (tanh.approx; the additive
        # mask takes the form that scales scores before the row max).
        c.append(attn(lib, "softcap50_d128_f16", 1, 4, 2, 200, 333, 128, F16))
        c.append(attn(lib, "softcap30_d64_causal_bf16", 2, 4, 4, 150, 150, 64, BF16))
        c.append(attn(lib, "softcap40_static_causal_d128_f16", 1, 4, 2, 333, 333, 128, F16))
        c.append(attn(lib, "softcap_add_d128_bf16", 1, 4, 2, 200, 333, 128, BF16, mask=(BF16, None)))
        # Sliding windows (#19): tiles skipped at both ends, keys below the
        # window zero-filled, with masks (the key flags), every family.
        c.append(attn(lib, "window_left_gqa_f16", 1, 8, 2, 300, 300, 64, F16))
        c.append(attn(lib, "window_two_d128_bf16", 1, 4, 2, 100, 333, 128, BF16))
        c.append(attn(lib, "window_nan_d128_f16", 1, 4, 1, 64, 2000, 128, F16))
        c.append(attn(lib, "window_keep_causal_f16", 1, 4, 2, 200, 260, 64, F16, mask=(I1, None)))
        c.append(attn(lib, "window_add_d128_f16", 1, 4, 4, 150, 450, 128, F16, mask=(F16, None)))
        # Per-sequence lengths (#19): 0, 1, partial tiles and full, rows past
        # q_lengths, every family (decode, tensor cores, CUDA cores).
        c.append(attn(lib, "len_dec_gqa_f16", 3, 32, 8, 1, 700, 128, F16, lengths=[(700, 0, 33)]))
        c.append(attn(lib, "len_dec_sq4_bf16", 2, 32, 8, 4, 300, 128, BF16,
                      lengths=[(300, 5), (4, 1)]))
        c.append(attn(lib, "len_prefill_gqa_f16", 3, 8, 2, 200, 200, 128, F16,
                      lengths=[(200, 1, 77), (200, 0, 77)]))
        c.append(attn(lib, "len_prefill_d64_bf16", 2, 4, 4, 90, 150, 64, BF16,
                      lengths=[(129, 150), (90, 33)]))
        c.append(attn(lib, "len_window_add_f32", 2, 2, 2, 40, 70, 64, F32, mask=(F32, None),
                      lengths=[(70, 13), (40, 9)]))
        c.append(attn(lib, "len_keep_f16", 2, 4, 2, 77, 130, 64, F16, mask=(I1, None),
                      lengths=[(130, 64)]))
        # The log-sum-exp result (#17): every family that writes it.
        c.append(attn(lib, "lse_causal_d128_f16", 1, 4, 2, 130, 200, 128, F16, lse=True))
        c.append(attn(lib, "lse_add_d64_bf16", 1, 2, 2, 70, 90, 64, BF16, mask=(BF16, None), lse=True))
        c.append(attn(lib, "lse_keep_causal_d64_f16", 1, 2, 2, 77, 130, 64, F16, mask=(I1, None),
                      lse=True))
        c.append(attn(lib, "lse_causal_d64_f32", 1, 2, 2, 40, 70, 64, F32, lse=True))
        c.append(attn(lib, "lse_d80_f16", 1, 2, 1, 45, 77, 80, F16, lse=True))
        c.append(attn(lib, "dec_lse_f16", 2, 32, 8, 1, 4097, 128, F16, lse=True))
        c.append(attn(lib, "lse_softcap_causal_d128_f16", 1, 4, 2, 130, 200, 128, F16, lse=True))
        c.append(attn(lib, "lse_softcap_add_d64_bf16", 1, 4, 4, 70, 90, 64, BF16, mask=(BF16, None),
                      lse=True))
        c.append(attn(lib, "len_lse_f16", 2, 4, 4, 77, 130, 128, F16, lengths=[(130, 64), (77, 5)],
                      lse=True))
    return c


def make(shape, dt, gen):
    if dt == torch.int32:  # per-sequence lengths: `shape` holds the values
        return torch.tensor(shape, dtype=torch.int32).to(check.DEVICE)
    if dt == I1:
        x = torch.rand(shape, generator=gen) > 0.3
    else:
        x = (torch.rand(shape, generator=gen) * 4 - 2).to(dt)
    return x.contiguous().to(check.DEVICE)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib-dir", required=True)
    ap.add_argument("--list", action="store_true", help="print the calls and exit")
    ap.add_argument("--only", action="append", default=[],
                    help="make only the calls whose name contains this (repeatable: any)")
    ap.add_argument("--dry-run", action="store_true",
                    help="no GPU: the calls on CPU tensors, the libraries' manifests only")
    args = ap.parse_args()
    cs = [c for c in calls() if not args.only or any(o in c[2] for o in args.only)]
    if args.list:
        for c in cs:
            print(c[2])
        return
    if args.dry_run:
        check.set_dry_run()
    else:
        torch.cuda.init()
    gen = torch.Generator().manual_seed(13)
    libs = {}
    failed = 0
    for lib, fn, name, specs, out_shape, dt in cs:
        path = os.path.join(args.lib_dir, lib, "lib%s.so" % lib)
        if not os.path.exists(path):
            print("skip (no %s): %s" % (path, name))
            continue
        if lib not in libs:
            libs[lib] = check.load(path)
        ins = [make(s, t, gen) for s, t in specs]
        if isinstance(out_shape, list):  # (O, lse)
            out = [torch.empty(sh, dtype=t, device=check.DEVICE) for sh, t in out_shape]
        else:
            out = torch.empty(out_shape, dtype=dt, device=check.DEVICE)
        try:
            check.call(libs[lib], fn, ins, out)
            print("ok   %s" % name, flush=True)
        except (tx.TxError, RuntimeError) as e:
            failed += 1
            print("FAIL %s: %s" % (name, e), flush=True)
    if not check.DRY_RUN:
        torch.cuda.synchronize()
        # Free every device buffer before exit, so that memcheck's leak
        # check reports only what tx itself leaks.
        ins = out = None
        libs.clear()
        gc.collect()
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    print("sanitize_calls: %d calls, %d failed" % (len(cs), failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
