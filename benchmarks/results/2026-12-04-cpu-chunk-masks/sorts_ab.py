"""sort, stable argsort and unique_counts (values in [0, n/8)) at 2**18, 2**20, 2**22, ms,
best of three rounds: python sorts_ab.py LABEL (PYTHONPATH picks the tree)."""
import sys, time, numpy as np, rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(1)
res = []
for n in (1 << 18, 1 << 20, 1 << 22):
    for dt in (np.float32, np.int64):
        a = (rng.standard_normal(n) * 1e6).astype(dt)
        x = ra.asarray(a)
        u = ra.asarray(rng.integers(0, n // 8, n).astype(dt))
        for f, name in ((lambda: ra.sort(x), "sort"), (lambda: ra.argsort(x, stable=True), "argsort"), (lambda: ra.unique_counts(u), "uc")):
            for _ in range(5): f()
            drain_background()
            reps = max(3, int(3e6 // n))
            best = []
            for r in range(3):
                t = time.perf_counter()
                for _ in range(reps): f()
                best.append((time.perf_counter() - t) / reps * 1e3)
            res.append(f"{name} {np.dtype(dt).name} {n}: {min(best):.3f}")
print(sys.argv[1], " | ".join(res))
