"""searchsorted of float32 queries into sorted float32 arrays (n, m pairs below), us, best of
five rounds: python searchsorted_ab.py LABEL (PYTHONPATH picks the tree)."""
import sys, time, numpy as np, rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
res = []
for n, m in ((256, 256), (1 << 20, 1 << 14), (1 << 20, 1 << 16), (1 << 22, 1 << 20)):
    s = ra.asarray(np.sort(rng.standard_normal(n).astype(np.float32))); q = ra.asarray(rng.standard_normal(m).astype(np.float32))
    f = lambda: ra.searchsorted(s, q)
    for _ in range(5): f()
    drain_background()
    reps = max(5, min(5000, int(2e6 // (m * 4))))
    best = []
    for r in range(5):
        t = time.perf_counter()
        for _ in range(reps): f()
        best.append((time.perf_counter() - t) / reps * 1e6)
    res.append(f"searchsorted n={n} m={m}: {min(best):.1f} us")
print(sys.argv[1], " | ".join(res))
