import os, sys, time, tempfile
os.environ["ROCARRAY_CACHE_DIR"] = tempfile.mkdtemp()
import numpy as np, rocarray as ra
from rocarray.compiler import cache as C
held = []
if sys.argv[1] == "hold":
    orig = C.compile_in_background
    def hold(job, quiet=True): held.append((job, quiet))
    C.compile_in_background = hold
    import rocarray._launch as L, rocarray._tiers as T
    L._cache.compile_in_background = hold if hasattr(L, "_cache") and hasattr(L._cache, "compile_in_background") else None
rng = np.random.default_rng(0)
scores = rng.standard_normal((1000, 256)).astype(np.float32)
labels = rng.integers(0, 5000, 200_000).astype(np.int64)
thr = np.sort(rng.standard_normal(1000).astype(np.float32))
t0 = time.perf_counter()
ins = tuple(ra.asarray(h) for h in (scores, labels, thr))
steps = []
def st(f):
    s = time.perf_counter(); r = f(); steps.append(round((time.perf_counter() - s) * 1e3)); return r
order = st(lambda: ra.argsort(ins[0], axis=1, descending=True, stable=True))
top = st(lambda: ra.take_along_axis(ins[0], order[:, :10], axis=1))
rows = st(lambda: ra.sort(ins[0], axis=1))
flat = st(lambda: ra.sort(ra.reshape(ins[0], (-1,))))
where = st(lambda: ra.searchsorted(flat, ins[2]))
vc = st(lambda: ra.unique_counts(ins[1]))
ids = st(lambda: ra.searchsorted(vc[0], ins[1]))
tk = st(lambda: ra.take(vc[1], ids))
print(sys.argv[1], f"first run {(time.perf_counter() - t0) * 1e3:.0f} ms, held {len(held)} steps {steps}")
from rocarray.compiler import compile_process as CP
from rocarray.compiler.cache import drain_background
drain_background()
print(CP.stats())
