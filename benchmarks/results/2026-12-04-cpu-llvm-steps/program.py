"""The ranking program once, as a short script: its own time; the process's wall time,
exit included, is taken around it: three runs on one new cache folder a tree,
``ROCARRAY_CACHE_DIR=<new folder> PYTHONPATH=<tree> python program.py`` (``short_runs_ab.txt``)."""
import time
t00 = time.perf_counter()
import numpy as np, rocarray as ra
rng = np.random.default_rng(0)
scores = rng.standard_normal((1000, 256)).astype(np.float32)
labels = rng.integers(0, 5000, 200_000).astype(np.int64)
thr = np.sort(rng.standard_normal(1000).astype(np.float32))
t0 = time.perf_counter()
s, l, th = (ra.asarray(h) for h in (scores, labels, thr))
order = ra.argsort(s, axis=1, descending=True, stable=True)
top = ra.take_along_axis(s, order[:, :10], axis=1)
rows = ra.sort(s, axis=1)
flat = ra.sort(ra.reshape(s, (-1,)))
where = ra.searchsorted(flat, th)
v, c = ra.unique_counts(l)
ids = ra.searchsorted(v, l)
tk = ra.take(c, ids)
print(f"program {(time.perf_counter()-t0)*1e3:.0f} ms", end="; ")
