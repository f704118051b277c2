import statistics, sys, torch, tx
B, H, HKV, S, D = 16, 32, 8, 8192, 128
def graph_us(fn, iters=20, reps=15):
    for _ in range(3): fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(iters): fn()
    for _ in range(3): g.replay()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); g.replay(); b.record(); torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) * 1e3 / iters)
    return statistics.median(ts)
gen = torch.Generator().manual_seed(0)
L = torch.randint(1, S + 1, (B,), generator=gen, dtype=torch.int32)
Ld = L.cuda()
q = torch.randn(B, H, 1, D, device="cuda", dtype=torch.float16)
k = torch.randn(B, HKV, S, D, device="cuda", dtype=torch.float16)
v = torch.randn(B, HKV, S, D, device="cuda", dtype=torch.float16)
out = torch.empty(B, H, 1, D, device="cuda", dtype=torch.float16)
ref = None
for path in sys.argv[1:]:
    lib = tx.load(path)
    lib.varlen_decode(q, k, v, Ld, out=out); torch.cuda.synchronize()
    if ref is None: ref = out.clone()
    err = (out.float() - ref.float()).abs().max().item()
    t = graph_us(lambda: lib.varlen_decode(q, k, v, Ld, out=out))
    print("%-50s varlen_decode %.1f us  %.2f TB/s  maxdiff %.2e" % (path, t, 2 * HKV * D * 2 * int(L.sum()) / t / 1e6, err))
