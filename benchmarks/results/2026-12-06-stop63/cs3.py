import time, numpy as np, rocarray as ra, sys
from rocarray.compiler.cache import drain_background
dt, values, n = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(values)
def t(f, r=15):
    f(); drain_background(); f(); b = []
    for _ in range(r):
        t0 = time.perf_counter(); f(); b.append(time.perf_counter() - t0)
    return np.median(b) * 1e3
a = (rng.random(n) < 0.5) if dt == "bool" else rng.integers(0, values, n).astype(dt) - (values // 2 if dt[0] == "i" else 0)
a = a.astype(dt)
x = ra.asarray(a)
r = t(lambda: ra.sort(x)); p = t(lambda: np.sort(a))
print(f"{sys.argv[1]:6s} {dt:6s} values={values:3d} n={n:8d}: sort {r:.3f} numpy {p:.3f} ratio {p/r:.2f}", flush=True)
