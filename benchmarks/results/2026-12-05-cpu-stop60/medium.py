import sys, time
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
def t(f, r=15):
    f(); drain_background(); f(); b = 1e9
    for _ in range(r):
        t0 = time.perf_counter(); f(); b = min(b, time.perf_counter() - t0)
    return b * 1e3
for dt in sys.argv[1].split(","):
    for e in range(10, 20):
        L = 1 << e
        a = (rng.standard_normal(L) * 1000).astype(dt) if dt[0] == "f" else rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, L, endpoint=True).astype(dt)
        x = ra.asarray(a)
        n_ = t(lambda: np.sort(a)); r_ = t(lambda: ra.sort(x))
        print(f"{dt:8s} line of 2^{e}: numpy {n_:7.3f} rocarray {r_:7.3f} ms ({n_ / r_:5.2f}x)", flush=True)
