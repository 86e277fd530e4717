"""Warm per-call time on the CPU of elementwise calls on precomputed views and broadcasts (python cpu_views.py)."""
import time, numpy as np, rocarray as ra
from rocarray.compiler.cache import drain_background
a = np.random.default_rng(0).random(1000, dtype=np.float32)
x2 = ra.asarray(a.reshape(25, 40)); x = ra.asarray(a); x40 = ra.asarray(a[:40].copy())
xt = x2.T; xs = x[::2]; c1 = x40[:, None]; r1 = x40[None, :25]
def t(f, n=3000):
    for _ in range(300): f()
    drain_background()
    for _ in range(300): f()
    best = 1e9
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(n): f()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e6
for name, f in [("xt*2", lambda: xt * 2), ("xs*2", lambda: xs * 2), ("c1+r1", lambda: c1 + r1), ("x2.T", lambda: x2.T), ("x[::2]", lambda: x[::2]), ("x40[:, None]", lambda: x40[:, None]), ("x+x", lambda: x + x)]:
    print(name, round(t(f), 2))
