"""Paged K/V for numeric_case.py's attention cases (tx.attention's
`page_table`, TxOps.td "Paged KV cache").

From the contiguous K [B, Hkv, Sk, D] and V the reference sees, builds page
pools [num_pages, page_size, Hkv, D] in which every live page of every
sequence sits at a random (shuffled) pool page, and the page table
[B, Sk / page_size] that maps them. What the kernels must never read is
garbage: pool pages no sequence uses hold NaN/Inf, and the table entries of
pages past a sequence's length are -1, out of range or stale ids.
--shared-prefix N: every sequence's first N pages are one set of pool pages
(a shared prompt): their K/V contents are made equal across the batch before
the reference is computed.
"""
import math
import sys

NAN = float("nan")


def share_prefix(a, k, v):
    """Copies batch 0's keys [0, N * page_size) into every batch (before
    the reference): a shared prefix has one content."""
    n = a.shared_prefix * a.page_size
    if n > a.Sk:
        sys.exit("--shared-prefix pages exceed Sk / page-size")
    for x, width in ((k, a.D), (v, a.Dv)):
        for b in range(1, a.B):
            for kh in range(a.Hkv):
                for j in range(n):
                    src = ((0 * a.Hkv + kh) * a.Sk + j) * width
                    dst = ((b * a.Hkv + kh) * a.Sk + j) * width
                    x[dst:dst + width] = x[src:src + width]


def live_pages(a, b):
    """The pages of batch b that hold live keys (ceil(Lk / page_size))."""
    lk = a.kv_lengths[b] if a.kv_lengths else a.Sk
    return -(-lk // a.page_size)


def build_pools(a, rng, k, v):
    """(k_pool, v_pool, table, num_pages) from the contiguous k, v."""
    ps, Sk = a.page_size, a.Sk
    if ps <= 0 or Sk % ps:
        sys.exit("--page-size must divide Sk")
    max_pages = Sk // ps
    shared = a.shared_prefix
    own = sum(max(live_pages(a, b) - shared, 0) for b in range(a.B))
    num_pages = shared + own + a.spare_pages
    ids = list(range(num_pages))
    rng.shuffle(ids)
    prefix, rest = ids[:shared], ids[shared:]
    table = []
    for b in range(a.B):
        row = []
        for p in range(max_pages):
            if p < live_pages(a, b):
                row.append(prefix[p] if p < shared else rest.pop())
            else:  # never read: -1, out of range, or a stale live id
                row.append(rng.choice([-1, num_pages + 7, ids[0], 2**31 - 1]))
        table.append(row)
    Hkv = a.Hkv
    pools = []
    for x, width in ((k, a.D), (v, a.Dv)):
        pool = [NAN if t % 3 else float("inf")
                for t in range(num_pages * ps * Hkv * width)]
        for b in range(a.B):
            for p in range(live_pages(a, b)):
                page = table[b][p]
                for r in range(ps):
                    j = p * ps + r
                    for kh in range(Hkv):
                        src = ((b * Hkv + kh) * Sk + j) * width
                        dst = ((page * ps + r) * Hkv + kh) * width
                        pool[dst:dst + width] = x[src:src + width]
        pools.append(pool)
    if a.corrupt_table == "swap":  # batch 0's first and last live pages
        last = live_pages(a, 0) - 1  # (attention is blind to key order
        table[0][0], table[0][last] = table[0][last], table[0][0]  # unless causal)
    elif a.corrupt_table == "out-of-range":  # batch 0's first page id
        table[0][0] = num_pages
    return pools[0], pools[1], table, num_pages


def add_arguments(t):
    t.add_argument("--page-size", type=int, default=None,
                   help="K/V as page pools of this page size with a page "
                        "table (Sk must be a multiple)")
    t.add_argument("--shared-prefix", type=int, default=0,
                   help="pages every sequence shares at its start")
    t.add_argument("--spare-pages", type=int, default=2,
                   help="pool pages no sequence uses (NaN/Inf)")
    t.add_argument("--corrupt-table", choices=["swap", "out-of-range"],
                   default=None,
                   help="after the pools are built: swap batch 0's first and last "
                        "live page ids (the case must fail), or make its first id "
                        "num_pages (a run-time error)")
