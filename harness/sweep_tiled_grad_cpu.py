#!/usr/bin/env python3
"""Random sweep of the tiled backward on the CPU (issue #40).

    python3 harness/sweep_tiled_grad_cpu.py [--cases N] [--seed S] [--build build]

Draws N random tx.attention_grad problems (B, H/Hkv in {1/1, 4/2, 8/1,
6/3}, odd and even Sq/Sk including 1, D/Dv, f32/f16/bf16, causal, windows,
softcap, i1/additive masks with -inf entries and broadcasts (and the
additive mask's gradient), fully masked
rows, per-sequence lengths including 0, dynamic shapes) and random tile
sizes, generates each with test/Execution/Inputs/grad_case.py (dQ, dK, dV
in float64), compiles it with tx-cpu-pipeline="attention=tiled ..." (the
tx-tile-attention-grad path), runs it with mlir-runner and requires every
gradient's "ok 1" (numeric_case.py's tolerances). A case over the
tolerance is run again through the reference lowering: if that misses it by
the same error, the problem is ill-conditioned for f32 and is counted apart
("BOTH"); otherwise it is a failure of the tiled path. Prints each such
case and a summary; exit status 1 on any failure.
"""
import os
import random
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def draw(rng):
    H, Hkv = rng.choice([(1, 1), (4, 2), (8, 1), (6, 3), (2, 2)])
    B = rng.randint(1, 3)
    Sq, Sk = rng.randint(1, 19), rng.randint(1, 19)
    D = rng.choice([2, 4, 8, 16])
    args = ["--B", B, "--H", H, "--Hkv", Hkv, "--Sq", Sq, "--Sk", Sk, "--D", D,
            "--dtype", rng.choice(["f32", "f32", "f16", "bf16"])]
    if rng.random() < 0.3:
        args += ["--Dv", rng.choice([2, 3, 8])]
    if rng.random() < 0.5:
        args += ["--causal"]
    if rng.random() < 0.3:
        args += ["--window=%d,%d" % (rng.choice([-1, 0, 1, 3]), rng.choice([-1, 0, 2, 5]))]
    if rng.random() < 0.3:
        args += ["--softcap", rng.choice([2.5, 5.0, 30.0])]
    m = rng.choice(["none", "none", "keep", "add"])
    if m != "none":
        args += ["--mask", m, "--mask-bcast", rng.choice(["1,1", "B,H", "1,H", "B,1"])]
        if m == "add" and rng.random() < 0.5:
            args += ["--mask-neginf", "0.2"]
        if m == "add" and rng.random() < 0.5:
            args += ["--grad-mask"]
        if rng.random() < 0.3:
            args += ["--masked-row", rng.randrange(Sq)]
    if rng.random() < 0.3:
        args += ["--kv-lengths", ",".join(str(rng.randint(0, Sk)) for _ in range(B))]
    if rng.random() < 0.3:
        args += ["--q-lengths", ",".join(str(rng.randint(0, Sq)) for _ in range(B))]
    if rng.random() < 0.2:
        args += ["--dynamic"]
    if rng.random() < 0.3:
        args += ["--scale", rng.choice([0.3, 1.0])]
    tiles = (rng.choice([1, 2, 3, 4, 5, 8, 64]), rng.choice([1, 2, 3, 4, 7, 16, 64]))
    return [str(x) for x in args], tiles


def main():
    argv = sys.argv[1:]
    n = int(argv[argv.index("--cases") + 1]) if "--cases" in argv else 60
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 2026
    build = argv[argv.index("--build") + 1] if "--build" in argv else os.path.join(ROOT, "build")
    tx_opt = os.path.join(build, "bin", "tx-opt")
    lib = "/usr/lib/llvm-22/lib"
    runner = ["/usr/lib/llvm-22/bin/mlir-runner", "-e", "main", "-entry-point-result=void",
              "-shared-libs=%s/libmlir_runner_utils.so,%s/libmlir_c_runner_utils.so" % (lib, lib)]
    gen = os.path.join(ROOT, "test", "Execution", "Inputs", "grad_case.py")
    rng = random.Random(seed)
    bad = both = 0
    for i in range(n):
        args, (qt, kt) = draw(rng)
        cmd = [sys.executable, gen, "attention_grad"] + args + ["--seed", str(seed + i), "--name", "s%d" % i]
        src = subprocess.run(cmd, capture_output=True, text=True)
        if src.returncode:
            print("SKIP %d (generator: %s): %s" % (i, src.stderr.strip()[-120:], " ".join(args)))
            continue
        def run(pipe):
            low = subprocess.run([tx_opt, pipe], input=src.stdout, capture_output=True, text=True)
            out = subprocess.run(runner, input=low.stdout, capture_output=True, text=True) \
                if low.returncode == 0 else low
            oks = [l for l in out.stdout.splitlines() if l.startswith("case ")]
            good = not out.returncode and len(oks) >= 3 and all(l.endswith("ok 1") for l in oks)
            return good, oks or [out.stderr.strip()[-400:]]
        good, oks = run("--tx-cpu-pipeline=attention=tiled attention-q-tile=%d "
                        "attention-kv-tile=%d" % (qt, kt))
        if good:
            continue
        # Over the tolerance: is the problem ill-conditioned for f32 (the
        # reference lowering misses it by the same error) or is it the tiling?
        ref_good, ref = run("--tx-cpu-pipeline")
        errs = [l.split("relerr ")[1].split()[0] for l in oks if "relerr" in l]
        ref_errs = [l.split("relerr ")[1].split()[0] for l in ref if "relerr" in l]
        same = not ref_good and len(errs) == len(ref_errs) and all(
            abs(float(a) - float(b)) <= 0.1 * float(b) + 1e-7 for a, b in zip(errs, ref_errs))
        if same:
            both += 1
            print("BOTH %d (the reference lowering misses it alike): %s\n  %s" % (
                i, " ".join(args), "\n  ".join(oks)))
            continue
        bad += 1
        print("FAIL %d tiles %d/%d: %s\n  tiled: %s\n  reference: %s" % (
            i, qt, kt, " ".join(args), "\n  ".join(oks), "\n  ".join(ref)))
    print("sweep: %d cases, %d failed, %d over the tolerance on both paths" % (n, bad, both))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
