"""First calls on the GPU (int16, empty disk cache) of take, searchsorted, x[x > 0] and
nonzero through the hand-built modules (``module``) or the device-generic paths the host
uses (``generic``), each variant in a fresh process: python firstgen.py module|generic."""
import sys, time, numpy as np, rocarray as ra
from rocarray import _advanced_indexing as ai, _indexing_functions as fi
from rocarray._array_object import Array
from rocarray.compiler.cache import drain_background
variant = sys.argv[1]
dev = ra.Device("cuda:0")
if variant == "generic":
    ai.gather_axis = lambda *a: None
    fi.on_gpu = lambda d: False

    def compact(mask, x):
        if x is None:
            return ai._flat_true_host(mask)
        m, pos, count = ai._positions(mask)
        out = Array._empty((count + 1,), x.dtype, x.device)
        ai._select_host(x, m, pos, count, out)
        return out[:count]
    ai._gpu_compact = compact
# the toolchain warmed on float32 first (as a program's earlier ops would)
w = ra.asarray(np.linspace(-1, 1, 1000, dtype=np.float32), device=dev)
(w + w).get(); ra.cumulative_sum(w).get(); w[w > 0].get()
drain_background()
host = np.arange(-500, 500, dtype=np.int16)
x = ra.asarray(host, device=dev)
idx = ra.asarray(np.arange(0, 1000, 3), device=dev)
s = ra.asarray(np.sort(host), device=dev)
rng = np.random.default_rng(0)
big = ra.asarray(rng.integers(-30000, 30000, 1 << 22).astype(np.int16), device=dev)
bidx = ra.asarray(rng.integers(0, 1 << 22, 1 << 22), device=dev)
bs = ra.sort(big)
dev.synchronize(); drain_background()
ops = [("take", lambda: ra.take(x, idx), lambda: ra.take(big, bidx)),
       ("searchsorted", lambda: ra.searchsorted(s, x), lambda: ra.searchsorted(bs, big)),
       ("x[x > 0]", lambda: x[x > 0], lambda: big[big > 0]),
       ("nonzero", lambda: ra.nonzero(x), lambda: ra.nonzero(big))]
for name, small, large in ops:
    drain_background()
    t0 = time.perf_counter(); small(); dev.synchronize(); t1 = time.perf_counter()
    large(); dev.synchronize(); t2 = time.perf_counter()
    best = 1e9
    for _ in range(5):
        t3 = time.perf_counter(); large(); dev.synchronize(); best = min(best, time.perf_counter() - t3)
    print(f"{variant:8s} {name:13s} first call {1e3*(t1-t0):7.1f} ms; then 2^22: {1e3*(t2-t1):7.2f} ms, best of 5 after {1e3*best:7.3f} ms", flush=True)
