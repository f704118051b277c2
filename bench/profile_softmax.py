#!/usr/bin/env python3
"""Runs one softmax entry point of a bench library a few times (for ncu).

    ncu --clock-control none -k regex:softmax_32768x1024 \\
        python3 bench/profile_softmax.py build/bench/softmax_fast softmax_32768x1024_f32
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import check  # noqa: E402  (rand; puts python/ on sys.path)
import tx  # noqa: E402

lib_dir, fn = sys.argv[1], sys.argv[2]
shape = tuple(int(v) for v in fn.split("_")[1].split("x"))
dt = {"f32": torch.float32, "f16": torch.float16}[fn.split("_")[2]]
torch.cuda.init()
lib = tx.load(os.path.join(lib_dir, "libsoftmax_shapes.so"))
x = check.rand(shape, dt, torch.Generator(device="cuda"))
o = torch.empty_like(x)
for _ in range(3):
    lib[fn](x, out=o)
torch.softmax(x, dim=-1)
torch.cuda.synchronize()
