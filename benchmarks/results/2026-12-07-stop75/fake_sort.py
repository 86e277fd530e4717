import os, sys, time, statistics
sys.path.insert(0, os.path.join(os.getcwd(), "tests"))
import numpy as np
import rocarray as ra
from rocarray import _device
from rocarray.runtime.gpu import GPURuntime
from runtime._fake_hooks import HostBackedHooks
import rocarray._radix_gpu as RG
class H(HostBackedHooks):
    def arch(self, index): return "sm_90"
    def _record(self, *a):
        r = super()._record(*a); self.launches.clear(); return r
api = H(); rt = GPURuntime(api); rt.kind = "cuda"
dev = ra.Device("cuda:0"); _device._runtimes["cuda"] = rt; dev._runtime = rt
rng = np.random.default_rng(0)
L = ra.asarray(rng.integers(0, 5000, 200_000), device=dev)
RG.key_extremes = lambda keys: (1 << 63, (1 << 63) + 4999)  # (the fake's mapped words are never written)
def t(fn, n=400):
    for _ in range(30): fn()
    ts = []
    for _ in range(n):
        t0 = time.perf_counter(); fn(); ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e6
for r in range(3):
    print(f"sort(L) int64 200k on the fake: {t(lambda: RG.gpu_radix_sort(L, 1, L.size, None, False, '')[0]):6.1f} us host", flush=True)
import numpy as np
k0 = ra.empty((200_000,), dtype=ra.uint32, device=dev)
kern = RG._int_key_kernel(np.dtype(np.int64), np.dtype(np.uint32))
plans = RG._int_plans(np.dtype(np.int64), np.dtype(np.uint32), dev)
print("key call", t(lambda: kern(L, 123, False, k0)))
print("key launch_flat", t(lambda: plans[0].launch_flat(L.size, (L, 123, False), (k0.data_ptr,))))
print("plans lookup", t(lambda: RG._int_plans(np.dtype(np.int64), np.dtype(np.uint32), dev)))
import cProfile, pstats
pr = cProfile.Profile(); pr.enable()
for _ in range(3000): RG.gpu_radix_sort(L, 1, L.size, None, False, '')
pr.disable(); pstats.Stats(pr).sort_stats("tottime").print_stats(22)
