import time, sys, os, tempfile
os.environ["ROCARRAY_CACHE_DIR"] = tempfile.mkdtemp()
import numpy as np, rocarray as ra
from rocarray.compiler import cache as C
dev = sys.argv[1] if len(sys.argv) > 1 else "cpu"
rng = np.random.default_rng(0)
S = rng.standard_normal((1000, 256)).astype(np.float32); L = rng.integers(0, 5000, 200000)
T = np.sort(rng.standard_normal(1000).astype(np.float32))
s, l, t = (ra.asarray(a, device=dev) for a in (S, L, T))
d = s.device
cache = C.kernel_cache() if hasattr(C, "kernel_cache") else None
def stats():
    for name in dir(C):
        obj = getattr(C, name)
        if hasattr(obj, "stats") and callable(getattr(obj, "stats")) and not isinstance(obj, type):
            try:
                return obj.stats()
            except TypeError:
                pass
    return {}
steps = [("argsort rows", lambda: ra.argsort(s, axis=1, descending=True)),
         ("take_along", lambda: ra.take_along_axis(s, ra.argsort(s, axis=1)[:, :10], axis=1)),
         ("sort rows", lambda: ra.sort(s, axis=1)),
         ("sort flat", lambda: ra.sort(ra.reshape(s, (-1,)))),
         ("searchsorted", lambda: ra.searchsorted(ra.sort(ra.reshape(s, (-1,))), t)),
         ("unique_counts", lambda: ra.unique_counts(l)),
         ("searchsorted i64", lambda: ra.searchsorted(ra.unique_values(l), l)),
         ("take i64", lambda: ra.take(l, ra.searchsorted(ra.unique_values(l), l)))]
import collections
from rocarray.targets import nvptx as NV
from rocarray.runtime import gpu as G
acc = collections.Counter()
def timed(cls, name, tag):
    f = getattr(cls, name)
    def w(*a, **k):
        t0 = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            acc[tag] += (time.perf_counter() - t0) * 1e3
    setattr(cls, name, w)
timed(NV.NVPTXTarget, "emit_ptx", "llvm_ptx")
timed(NV.NVPTXTarget, "assemble", "assemble")
timed(G.GPURuntime, "load_module", "load")
T0 = time.perf_counter()
for name, f in steps:
    b = stats()
    t0 = time.perf_counter(); f(); d.synchronize(); dt = time.perf_counter() - t0
    a = stats()
    print(f"{name:18s} {dt*1e3:8.1f} ms  " + " ".join(f"{k}+{a[k]-b.get(k,0):.0f}" for k in ("compiled", "ir_ms", "compile_ms", "disk_ms") if k in a) + "  " + " ".join(f"{k}={v:.0f}" for k, v in acc.items()), flush=True); acc.clear(); print(end="", flush=True)
print(f"total {(time.perf_counter()-T0)*1e3:.0f} ms")
