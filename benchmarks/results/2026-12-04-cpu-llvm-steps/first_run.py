"""The ranking program's first run in a new process with an empty compile cache, on the
CPU: each step's first call (ms) and the wait for the background tier-ups left after it.
Run once per tree, alternating: ``PYTHONPATH=<tree> python first_run.py``."""

import os, sys, time, tempfile
os.environ["ROCARRAY_CACHE_DIR"] = tempfile.mkdtemp()
t00 = time.perf_counter()
import numpy as np, rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
scores = rng.standard_normal((1000, 256)).astype(np.float32)
labels = rng.integers(0, 5000, 200_000).astype(np.int64)
thr = np.sort(rng.standard_normal(1000).astype(np.float32))
t0 = time.perf_counter()
ins = tuple(ra.asarray(h) for h in (scores, labels, thr))
steps = []
def stamp(name, f):
    s = time.perf_counter(); r = f(); steps.append(round((time.perf_counter()-s)*1e3)); return r
order = stamp("argsort", lambda: ra.argsort(ins[0], axis=1, descending=True, stable=True))
top = stamp("take_along", lambda: ra.take_along_axis(ins[0], order[:, :10], axis=1))
rows = stamp("sort rows", lambda: ra.sort(ins[0], axis=1))
flat = stamp("sort flat", lambda: ra.sort(ra.reshape(ins[0], (-1,))))
where = stamp("searchsorted", lambda: ra.searchsorted(flat, ins[2]))
vc = stamp("unique_counts", lambda: ra.unique_counts(ins[1]))
ids = stamp("searchsorted2", lambda: ra.searchsorted(vc[0], ins[1]))
tk = stamp("take", lambda: ra.take(vc[1], ids))
first = (time.perf_counter()-t0)*1e3
s = time.perf_counter(); drain_background(); dr = (time.perf_counter()-s)*1e3
print(f"first run {first:.0f} ms {steps}, then drain {dr:.0f} ms, process so far {(time.perf_counter()-t00)*1e3:.0f} ms")
