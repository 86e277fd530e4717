import time, numpy as np, rocarray as ra
from rocarray import _split_sort as ss
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0); n = 1 << 22
a = rng.standard_normal(n).astype(np.float32); a.view(np.uint32)[rng.random(n) < 0.3] = 0xFFC00000
x = ra.asarray(a); s = ra.sort(x); o = ra.asarray(np.sort(a))
def t(f, r=9):
    f(); drain_background(); f(); b = 1e9
    for _ in range(r):
        t0 = time.perf_counter(); f(); b = min(b, time.perf_counter() - t0)
    return b * 1e3
print("runs kernels", t(lambda: ss._stable_runs(x, o, False, False, "all")))
print("rocarray x[isnan(x)] + copy", t(lambda: o._host().__setitem__(slice(n - int(np.isnan(a).sum()), None), x[ra.isnan(x)]._host())))
