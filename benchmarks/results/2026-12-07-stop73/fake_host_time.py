"""Host time of GPU paths on a fake cuda:0 (launches recorded, not run)."""
import os, sys, time, statistics, cProfile, pstats
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests"))
import numpy as np
import rocarray as ra
from rocarray import _device, _launch, _gather_gpu
from rocarray.runtime.gpu import GPURuntime
from runtime._fake_hooks import HostBackedHooks

class H(HostBackedHooks):
    def arch(self, index): return "sm_90"
    def _record(self, *a):
        r = super()._record(*a); self.launches.clear(); return r
api = H(); rt = GPURuntime(api); rt.kind = "cuda"
dev = ra.Device("cuda:0"); _device._runtimes["cuda"] = rt; dev._runtime = rt
rng = np.random.default_rng(0)
S = ra.asarray(rng.standard_normal((1000, 256)).astype(np.float32), device=dev)
flat = ra.reshape(S, (-1,))
n0 = [0]
orig = api._record
def count(*a):
    n0[0] += 1; return orig(*a)
api._record = count
def t(name, fn, n=300):
    for _ in range(20): fn()
    ts = []; c0 = n0[0]
    for _ in range(n):
        t0 = time.perf_counter(); fn(); ts.append(time.perf_counter() - t0)
    print(f"{name:28s} {statistics.median(ts)*1e6:7.1f} us host, {(n0[0]-c0)/n:.1f} launches", flush=True)
t("sort flat f32 256000", lambda: ra.sort(flat))
t("sort rows f32", lambda: ra.sort(S, axis=1))
t("argsort rows desc", lambda: ra.argsort(S, axis=1, descending=True, stable=True))
t("x + 1", lambda: S + 1)
pr = cProfile.Profile(); pr.enable()
for _ in range(300): ra.sort(flat)
pr.disable(); pstats.Stats(pr).sort_stats("tottime").print_stats(25)
