#!/usr/bin/env python3
"""GPU check of score and mask functions (tx.attention's score_mod /
mask_mod regions, issue #42) for the library of harness/mods_cases.mlir.

    scripts/tx-compile.sh harness/mods_cases.mlir OUT/mods_cases chip=sm_90a
    python3 harness/check_mods.py --lib-dir OUT [--only TEXT] [--seed N]

The reference is check.py's PyTorch float64 attention with each function
written as the mask it stands for: ALiBi as an additive float64 bias
slopes[h] * (j - i), a document mask as a boolean keep-mask, soft-capping
by the softcap argument. Today these ops take the reference lowering on the
GPU (the flash kernels do not take regions yet). Exits 1 when a case fails.
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

    def all(self, stem):
        self.stem = stem
        self.alibi(2, 8, 2, 100, 300)
        self.alibi(1, 8, 2, 257, 257)
        self.document(2, 200, [1, 63, 17, 100, 19])
        self.document(1, 96, [96])
        self.softcap(2, 33, 77)


if __name__ == "__main__":
    sys.exit(H.main_of_cases(ModsRunner, "mods_cases", __doc__))
