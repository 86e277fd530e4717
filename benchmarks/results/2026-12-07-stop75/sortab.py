"""Stop 75: sort and unique_counts of the ranking program's 200,000 int64 labels and the
256,000 float32 scores, wall and host time (medians of 60), in the tree on PYTHONPATH."""
import statistics, sys, time
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
dev = ra.Device("cuda:0")
rng = np.random.default_rng(0)
lh = rng.integers(0, 5000, 200_000)
L = ra.asarray(lh, device=dev)
F = ra.asarray(rng.standard_normal(256_000).astype(np.float32), device=dev)
v, c = ra.unique_counts(L); rv, rc = np.unique(lh, return_counts=True)
assert np.array_equal(v.get(), rv) and np.array_equal(c.get(), rc)
assert np.array_equal(ra.sort(L).get(), np.sort(lh))
ra.sort(F); drain_background()
def tw(fn, n=60):
    for _ in range(8): fn()
    dev.synchronize(); w = []; h = []
    for _ in range(n):
        t0 = time.perf_counter(); fn(); t1 = time.perf_counter(); dev.synchronize(); w.append(time.perf_counter() - t0); h.append(t1 - t0)
    return f"wall {statistics.median(w) * 1e6:6.1f} host {statistics.median(h) * 1e6:6.1f}"
tag = sys.argv[1]
for name, fn in (("sort(L) int64", lambda: ra.sort(L)), ("unique_counts(L)", lambda: ra.unique_counts(L)),
                 ("sort(F) float32", lambda: ra.sort(F))):
    print(f"{tag:4s} {name:18s} {tw(fn)}", flush=True)
