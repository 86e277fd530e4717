import time, numpy as np, rocarray as ra
from rocarray import _set_functions as SF
rng = np.random.default_rng(0)
n = 1 << 22
def t(f, k=5):
    f(); f(); ts=[]
    for _ in range(k):
        t0=time.perf_counter(); f(); ts.append(time.perf_counter()-t0)
    return np.median(ts)*1e3
h = rng.standard_normal(n).astype("float32"); a = ra.asarray(h)
for K in (1, 3, 8, 16, 32, 64, 128):
    v = rng.choice(h, K); V = ra.asarray(v); s = ra.sort(V)
    print(K, "numpy", round(t(lambda: np.isin(h, v)),2), "rocarray", round(t(lambda: ra.isin(a, V)),2), "searchsorted", round(t(lambda: ra.searchsorted(s, a)),2))
