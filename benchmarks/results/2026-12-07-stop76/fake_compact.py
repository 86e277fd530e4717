import os, sys, time, statistics
sys.path.insert(0, os.path.join(os.getcwd(), "tests"))
import numpy as np
import rocarray as ra
from rocarray import _device
from rocarray.runtime.gpu import GPURuntime
from runtime._fake_hooks import HostBackedHooks
import rocarray._masks as M
class H(HostBackedHooks):
    def arch(self, index): return "sm_90"
    def _record(self, *a):
        r = super()._record(*a); self.launches.clear(); return r
api = H(); rt = GPURuntime(api); rt.kind = "cuda"
dev = ra.Device("cuda:0"); _device._runtimes["cuda"] = rt; dev._runtime = rt
TOTAL = [0]
def fake_counted(kernel, device, scan, then=None):
    scan(0)
    return (None if then is None else then()), TOTAL[0]
M._counted = fake_counted
pool = rt.memory_pool(0)
rng = np.random.default_rng(0)
n = 1 << 20
for first in (True, False):
    M.WRITE_FIRST_BYTES = (1 << 30) if first else 0
    for dt in (np.float32, np.int64):
        x = ra.asarray(rng.standard_normal(n).astype(dt), device=dev)
        m = ra.asarray(rng.random(n) < 0.5, device=dev)
        for total in (0, 3, 1000, n // 2, n):
            TOTAL[0] = total
            r = x[m]
            assert r.shape == (total,) and r._buf.nbytes == total * r.dtype.itemsize, (r.shape, r._buf.nbytes)
            nz = ra.nonzero(m)[0]
            assert nz.shape == (total,)
        print(first, dt.__name__, pool, flush=True)
        del r, nz
    print(pool)
TOTAL[0] = n // 2
M.WRITE_FIRST_BYTES = 1 << 30
x = ra.asarray(rng.standard_normal(1 << 22).astype(np.float32), device=dev)
m = ra.asarray(rng.random(1 << 22) < 0.5, device=dev)
TOTAL[0] = 1 << 21
def t(fn, k=300):
    for _ in range(30): fn()
    ts = []
    for _ in range(k):
        t0 = time.perf_counter(); fn(); ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e6
for first in (True, False, True, False):
    M.WRITE_FIRST_BYTES = (1 << 30) if first else 0
    da = pool.driver_allocations()
    print("first" if first else "sized", f"x[m] host {t(lambda: x[m]):.1f} us", "new driver allocations", pool.driver_allocations() - da)
print(pool)
