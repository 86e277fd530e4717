import time, numpy as np, rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
for n, m in ((1 << 22, 1 << 20), (1 << 16, 1000)):
    x = ra.asarray(rng.standard_normal(n).astype(np.float32)); a = x.get()
    idx = ra.asarray(rng.integers(0, n, m)); v = ra.asarray(rng.standard_normal(m).astype(np.float32))
    ia, va = idx.get(), v.get()
    for _ in range(6): ra.put(x, idx, v)
    drain_background()
    def best(f):
        b = 1e9
        for _ in range(30):
            t0 = time.perf_counter(); f(); b = min(b, time.perf_counter() - t0)
        return b * 1e6
    print(n, m, "ra.put us", round(best(lambda: ra.put(x, idx, v)), 1), "np.put us", round(best(lambda: np.put(a, ia, va)), 1))
