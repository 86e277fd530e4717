"""Single host lines of 2^13..2^18 beside NumPy (ratio NumPy's time / rocarray's)."""
import sys, time
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
def t(f, r=41):
    f(); drain_background(); f(); b = []
    for _ in range(r):
        t0 = time.perf_counter(); f(); b.append(time.perf_counter() - t0)
    return np.median(b) * 1e3
for dt in sys.argv[1].split(","):
    out = []
    for L in (1 << 13, 1 << 14, 1 << 15, 1 << 16, 1 << 17, 1 << 18):
        a = (rng.standard_normal(L) * (1e15 if dt == "int64" else 1)).astype(dt)
        x = ra.asarray(a)
        r = t(lambda: ra.sort(x)); p = t(lambda: np.sort(a))
        assert np.array_equal(ra.sort(x).get(), np.sort(a))
        out.append(f"{L}: {r:.3f}/{p:.3f} ({p / r:.2f}x)")
    print(f"{sys.argv[2]} {dt:8s} " + "  ".join(out), flush=True)
