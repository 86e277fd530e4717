import time, sys, numpy as np, rocarray as ra
from rocarray import _advanced_indexing as A
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
def best(f, r):
    for _ in range(20): f()
    drain_background()
    for _ in range(20): f()
    b = 1e9
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(r): f()
        b = min(b, (time.perf_counter() - t0) / r)
    return b * 1e6
for n in (4096, 16384, 65536, 262144):
    h = rng.standard_normal(n).astype(np.float32); a = ra.asarray(h)
    idx = ra.asarray(rng.integers(0, n, n))
    r = max(20, 200000 // n)
    A.CHECKED_TAKE_MOST = 0
    sep = best(lambda: ra.take(a, idx), r)
    A.CHECKED_TAKE_MOST = 1 << 30
    fused = best(lambda: ra.take(a, idx), r)
    print(n, "separate check %.1f us, fused %.1f us" % (sep, fused))
