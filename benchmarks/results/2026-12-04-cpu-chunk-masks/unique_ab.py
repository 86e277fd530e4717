"""unique_counts of float32 values in [0, n/8) at 256, 2**16, 2**20 elements, us, best of five
rounds: python unique_ab.py LABEL (PYTHONPATH picks the tree)."""
import sys, time, numpy as np, rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(1)
res = []
for n in (256, 65536, 1 << 20):
    x = ra.asarray(rng.integers(0, max(2, n // 8), n).astype(np.float32))
    f = lambda: ra.unique_counts(x)
    for _ in range(5): f()
    drain_background()
    reps = max(5, min(5000, int(2e6 // n)))
    best = []
    for r in range(5):
        t = time.perf_counter()
        for _ in range(reps): f()
        best.append((time.perf_counter() - t) / reps * 1e6)
    res.append(f"unique_counts {n}: {min(best):.1f} us")
print(sys.argv[1], " | ".join(res))
