"""x[m] = v on float32 (m = x > 0.3 on normal data), best of five rounds:
python assign_ab.py LABEL (PYTHONPATH picks the tree)."""
import sys, time, numpy as np, rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(1)
res = []
for n in (256, 65536, 1 << 20, 1 << 22):
    a = rng.standard_normal(n).astype(np.float32)
    x = ra.asarray(a); m = x > 0.3
    v = ra.asarray(rng.standard_normal(int(ra.sum(m))).astype(np.float32))
    def f(): x[m] = v
    for _ in range(3): f()
    drain_background()
    reps = max(5, min(2000, int(2e6 // n)))
    best = []
    for r in range(5):
        t = time.perf_counter()
        for _ in range(reps): f()
        best.append((time.perf_counter() - t) / reps * 1e6)
    res.append(f"x[m]=v {n}: {min(best):.1f} us")
print(sys.argv[1], " | ".join(res))
