#!/usr/bin/env python3
"""GPU check of score and mask functions (tx.attention's score_mod /
mask_mod regions, issue #42) for the library of harness/mods_cases.mlir.

    scripts/tx-compile.sh harness/mods_cases.mlir OUT/mods_cases chip=sm_90a
    python3 harness/check_mods.py --lib-dir OUT [--only TEXT] [--seed N]

The reference is check.py's PyTorch float64 attention with each function
written as the mask it stands for: ALiBi as an additive float64 bias
slopes[h] * (j - i), a document mask as a boolean keep-mask, soft-capping
by the softcap argument, a relative-position bias table as the additive
bias it gathers, a prefix-LM mask as a boolean keep-mask. The flash kernels
inline the functions in their score step. Exits 1 when a case fails.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check as H  # noqa: E402  (harness/check.py: references, compare, call)


class ModsRunner(H.Runner):
    def __init__(self, lib_dir, only, seed):
        super().__init__(lib_dir, only)
        self.gen = torch.Generator(device=H.DEVICE).manual_seed(seed)

    def alibi(self, b, h, hkv, sq, sk):
        name = "alibi f16 GQA %d/%d causal Sq %d Sk %d" % (h, hkv, sq, sk)
        q, k, v = H.rand_qkv(self.gen, b, h, hkv, sq, sk, 64, 64, torch.float16)
        slopes = torch.tensor([2.0 ** (-8.0 * (i + 1) / h) for i in range(h)],
                              dtype=torch.float32, device=H.DEVICE)
        i = torch.arange(sq, device=H.DEVICE, dtype=torch.float64)[:, None]
        j = torch.arange(sk, device=H.DEVICE, dtype=torch.float64)[None, :]
        bias = slopes.double()[None, :, None, None] * (j - i)[None, None]
        self.run(self.stem, "mods_alibi_f16", name, [q, k, v, slopes], (b, h, sq, 64),
                 torch.float16, lambda: H.ref_attention(q, k, v, mask=bias, causal=True),
                 False)

    def document(self, b, s, sizes):
        name = "document bf16 MHA 4 S %d documents %s" % (s, sizes)
        q, k, v = H.rand_qkv(self.gen, b, 4, 4, s, s, 64, 64, torch.bfloat16)
        doc = torch.cat([torch.full((n,), d, dtype=torch.int32) for d, n in enumerate(sizes)])
        doc = doc.to(H.DEVICE)
        keep = (doc[:, None] == doc[None, :])[None, None]
        self.run(self.stem, "mods_document_bf16", name, [q, k, v, doc], (b, 4, s, 64),
                 torch.bfloat16, lambda: H.ref_attention(q, k, v, mask=keep), False)

    def softcap(self, b, sq, sk):
        name = "softcap 20 as a region f32 Sq %d Sk %d" % (sq, sk)
        q, k, v = H.rand_qkv(self.gen, b, 2, 2, sq, sk, 32, 32, torch.float32, -6, 6)
        self.run(self.stem, "mods_softcap_f32", name, [q, k, v], (b, 2, sq, 32),
                 torch.float32, lambda: H.ref_attention(q, k, v, softcap=20.0), False)

    def alibi_decode(self, b, sk, lengths):
        """ALiBi on the decode kernel with kv_lengths; the K/V rows past
        each length hold NaN/Inf (never read)."""
        name = "alibi decode f16 GQA 32/8 D 128 Sk %d kv_lengths %s" % (sk, lengths)
        q, k, v = H.rand_qkv(self.gen, b, 32, 8, 1, sk, 128, 128, torch.float16)
        kl = torch.tensor(lengths, dtype=torch.int32, device=H.DEVICE)
        slopes = torch.tensor([2.0 ** (-8.0 * (i + 1) / 32) for i in range(32)],
                              dtype=torch.float32, device=H.DEVICE)
        j = torch.arange(sk, device=H.DEVICE, dtype=torch.float64)
        bias = -(slopes.double()[:, None, None] * j[None, None, :])[None]
        vis = H.visible_lengths(1, sk, kl, torch.ones_like(kl))
        bias = bias.masked_fill(~vis, float("-inf"))
        exp = None if H.DRY_RUN else H.ref_attention(q, k, v, mask=bias)
        for bi, n in enumerate(lengths):
            k[bi, :, n:] = float("nan")
            v[bi, :, n:] = float("inf")
        self.run(self.stem, "mods_alibi_decode_f16", name, [q, k, v, kl, slopes],
                 (b, 32, 1, 128), torch.float16, lambda: exp, False)

    def relbias_prefix(self, b, sq, sk):
        name = "relbias + prefix bf16 MHA 4 D 128 Sq %d Sk %d" % (sq, sk)
        q, k, v = H.rand_qkv(self.gen, b, 4, 4, sq, sk, 128, 128, torch.bfloat16)
        table = (torch.rand(511, generator=self.gen, device=H.DEVICE) * 4 - 2).to(torch.bfloat16)
        i = torch.arange(sq, device=H.DEVICE)[:, None]
        j = torch.arange(sk, device=H.DEVICE)[None, :]
        idx = (j - i + 255).clamp(0, 510)
        bias = table.double()[idx][None, None]
        keep = ((j < 7) | (j <= i))[None, None]
        bias = torch.where(keep, bias, torch.tensor(float("-inf"), dtype=torch.float64,
                                                    device=H.DEVICE))
        self.run(self.stem, "mods_relbias_prefix_bf16", name, [q, k, v, table],
                 (b, 4, sq, 128), torch.bfloat16,
                 lambda: H.ref_attention(q, k, v, mask=bias), False)

    def window(self, b, sq, sk):
        name = "window 16 by mask f32 Sq %d Sk %d" % (sq, sk)
        q, k, v = H.rand_qkv(self.gen, b, 2, 2, sq, sk, 32, 32, torch.float32)
        i = torch.arange(sq, device=H.DEVICE)[:, None]
        j = torch.arange(sk, device=H.DEVICE)[None, :]
        keep = ((j + 16 >= i) & (j <= i))[None, None]
        self.run(self.stem, "mods_window_f32", name, [q, k, v], (b, 2, sq, 32),
                 torch.float32, lambda: H.ref_attention(q, k, v, mask=keep), False)

    def late(self, b, sq, sk):
        name = "late rows (>= 100) keys >= 64 bf16 D 64 Sq %d Sk %d" % (sq, sk)
        q, k, v = H.rand_qkv(self.gen, b, 4, 4, sq, sk, 64, 64, torch.bfloat16)
        i = torch.arange(sq, device=H.DEVICE)[:, None]
        j = torch.arange(sk, device=H.DEVICE)[None, :]
        keep = ((i >= 100) & (j >= 64) & (j <= i))[None, None]
        self.run(self.stem, "mods_late_bf16", name, [q, k, v], (b, 4, sq, 64),
                 torch.bfloat16, lambda: H.ref_attention(q, k, v, mask=keep), False)

    def mathops(self, b, sq, sk):
        """clampf, remf, erf, cbrt, ipowi and isinf in a score function
        (mods_cases.mlir): the reference adds f(s) - s to the scaled scores
        s (float64; torch.fmod is C's fmod, as arith.remf)."""
        name = "mathops (clampf remf erf cbrt ipowi isinf) f16 Sq %d Sk %d" % (sq, sk)
        q, k, v = H.rand_qkv(self.gen, b, 2, 2, sq, sk, 64, 64, torch.float16, -2, 2)

        def ref():
            s = torch.matmul(q.double(), k.double().transpose(-1, -2)) / 8.0
            j = torch.arange(sk, device=H.DEVICE, dtype=torch.float64)[None, :]
            r = (s.clamp(-2.5, 2.5) + torch.fmod(s, 7.0) + torch.erf(s) / 4
                 + torch.sign(s) * s.abs() ** (1 / 3) / 10 + torch.fmod(j, 4) ** 2 / 100)
            return H.ref_attention(q, k, v, mask=r - s)
        self.run(self.stem, "mods_mathops_f16", name, [q, k, v], (b, 2, sq, 64),
                 torch.float16, ref, False)

    def all(self, stem):
        self.stem = stem
        self.alibi(2, 8, 2, 100, 300)
        self.alibi(1, 8, 2, 257, 257)
        self.document(2, 200, [1, 63, 17, 100, 19])
        self.document(1, 96, [96])
        self.softcap(2, 33, 77)
        self.alibi_decode(3, 1000, [1000, 0, 517])
        self.relbias_prefix(2, 300, 300)
        self.relbias_prefix(1, 65, 250)
        self.window(2, 300, 300)
        self.window(1, 77, 1000)
        self.late(2, 333, 400)
        # Long documents: most visible key tiles are full (no mask
        # evaluation there); short ones and the boundaries are partial.
        self.document(1, 1000, [300, 1, 450, 249])
        self.mathops(2, 130, 200)


if __name__ == "__main__":
    sys.exit(H.main_of_cases(ModsRunner, "mods_cases", __doc__))
