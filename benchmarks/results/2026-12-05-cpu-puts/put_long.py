import numpy as np, rocarray as ra, time, sys
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
n = 1 << 22
for dt in (np.float32, np.int64):
    s = ra.asarray(np.zeros(n, dt)); idx = ra.asarray(rng.integers(0, n, n)); w = ra.asarray(rng.standard_normal(n).astype(dt))
    for _ in range(5): s[idx] = w
    drain_background()
    ts = []
    for _ in range(15):
        t0 = time.perf_counter(); s[idx] = w; ts.append(time.perf_counter() - t0)
    ts.sort()
    print(sys.argv[1], np.dtype(dt).name, "best %.2f ms, median %.2f" % (ts[0]*1e3, ts[7]*1e3))
