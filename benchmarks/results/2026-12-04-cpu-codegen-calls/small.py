import time, sys
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
def best(fn, k=200):
    for _ in range(5): fn()
    drain_background()
    for _ in range(5): fn()
    t = []
    for _ in range(k):
        t0 = time.perf_counter(); fn(); t.append(time.perf_counter() - t0)
    return min(t) * 1e6, np.median(t) * 1e6
for n in [256, 10000, 100000]:
    h = rng.standard_normal(n).astype(np.float32)
    hi = rng.integers(0, n, n // 4)
    hs = np.sort(h)
    x, idx, xs = ra.asarray(h), ra.asarray(hi), ra.asarray(hs)
    m2 = h.reshape(-1, 16) if n % 16 == 0 else h[:n - n % 16].reshape(-1, 16)
    x2 = ra.asarray(m2)
    ops = [
        ("x*2", lambda: x * 2, lambda: h * 2),
        ("sum", lambda: ra.sum(x), lambda: np.sum(h)),
        ("x[x>0]", lambda: x[x > 0], lambda: h[h > 0]),
        ("mask(x>0)", lambda: x > 0, lambda: h > 0),
        ("nonzero", lambda: ra.nonzero(x), lambda: np.nonzero(h)),
        ("cumsum", lambda: ra.cumulative_sum(x), lambda: np.cumsum(h)),
        ("sort", lambda: ra.sort(x), lambda: np.sort(h)),
        ("argsort", lambda: ra.argsort(x), lambda: np.argsort(h, kind="stable")),
        ("unique_counts", lambda: ra.unique_counts(x), lambda: np.unique(h, return_counts=True)),
        ("take", lambda: ra.take(x, idx), lambda: np.take(h, hi)),
        ("x[idx]", lambda: x[idx], lambda: h[hi]),
        ("searchsorted", lambda: ra.searchsorted(xs, x), lambda: np.searchsorted(hs, h)),
        ("concat", lambda: ra.concat([x, x]), lambda: np.concatenate([h, h])),
        ("T.copy", lambda: ra.asarray(x2.T, copy=True), lambda: m2.T.copy()),
        ("where", lambda: ra.where(x > 0, x, 0.0), lambda: np.where(h > 0, h, 0.0)),
    ]
    for name, f, g in ops:
        if len(sys.argv) > 1 and name not in sys.argv[1:]: continue
        r, q = best(f), best(g)
        print(f"n={n:7d} {name:14s} ra {r[0]:8.1f} us  np {q[0]:8.1f} us  ratio {r[0]/q[0]:6.1f}", flush=True)
