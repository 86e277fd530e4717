import sys, time
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
n = 1 << 22
def t(f, r=5):
    f(); drain_background(); f(); b = 1e9
    for _ in range(r):
        t0 = time.perf_counter(); f(); b = min(b, time.perf_counter() - t0)
    return b * 1e3
for dt in sys.argv[1].split(","):
    for L in [int(v) for v in sys.argv[2].split(",")]:
        a = rng.integers(-1000, 1001, (n // L, L)); a = (np.maximum(a, 0) if dt[0] == "u" else a).astype(dt)
        x = ra.asarray(a)
        r = t(lambda: ra.argsort(x, axis=1)); p = t(lambda: np.argsort(a, axis=1, kind="stable"))
        assert np.array_equal(ra.argsort(x, axis=1).get(), np.argsort(a, axis=1, kind="stable"))
        print(f"argsort {dt:7s} rows of {L:5d}: numpy {p:7.2f} rocarray {r:7.2f} ms ({p / r:5.2f}x)", flush=True)
