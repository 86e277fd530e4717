"""Short host masks and runs (256 elements), best of five rounds of 2,000 calls, us: the
review's one walk helper against the tree before it.  ``PYTHONPATH=<tree> python walk_ab.py``."""
import time, numpy as np, rocarray as ra
a = np.random.default_rng(0).standard_normal(256).astype(np.float32); x = ra.asarray(a); m = x > 0.3
v = ra.asarray(np.ones(int((a > 0.3).sum()), np.float32)); s = ra.sort(ra.asarray(np.repeat(np.arange(64), 4)))
def best(f):
    for _ in range(2000): f()
    r = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(2000): f()
        r.append((time.perf_counter() - t) / 2000 * 1e6)
    return min(r)
def assign(): x[m] = v
print(" ".join(f"{k} {best(f):.2f}" for k, f in [("x[m]", lambda: x[m]), ("nonzero", lambda: ra.nonzero(m)), ("x[m]=v", assign), ("unique_counts", lambda: ra.unique_counts(s))]))
