import os, sys, time, statistics, cProfile, pstats
sys.path.insert(0, os.path.join(os.getcwd(), "tests"))
import numpy as np
import rocarray as ra
from rocarray import _device
from rocarray.runtime.gpu import GPURuntime
from runtime._fake_hooks import HostBackedHooks
import rocarray._radix_gpu as RG, rocarray._radix as RX, rocarray._set_functions as SF
class H(HostBackedHooks):
    def arch(self, index): return "sm_90"
    def _record(self, *a):
        r = super()._record(*a); self.launches.clear(); return r
api = H(); rt = GPURuntime(api); rt.kind = "cuda"
dev = ra.Device("cuda:0"); _device._runtimes["cuda"] = rt; dev._runtime = rt
rng = np.random.default_rng(0)
L = ra.asarray(rng.integers(0, 5000, 200_000), device=dev)
S = ra.asarray(rng.standard_normal((1000, 256)).astype(np.float32), device=dev)
flat = ra.reshape(S, (-1,))
def t(name, fn, n=300):
    for _ in range(20): fn()
    ts = []
    for _ in range(n):
        t0 = time.perf_counter(); fn(); ts.append(time.perf_counter() - t0)
    print(f"{name:40s} {statistics.median(ts)*1e6:7.1f} us host", flush=True)
k0 = ra.empty((200_000,), dtype=ra.uint32, device=dev)
kern = RG._int_key_kernel(np.dtype(np.int64), np.dtype(np.uint32))
t("int key kernel call", lambda: kern(L, 123, False, k0))
vk = RG._int_value_kernel(np.dtype(np.int64), np.dtype(np.uint32))
t("int value kernel call", lambda: vk(k0, 123, False))
t("x + 1", lambda: L + 1)
t("sort flat f32", lambda: ra.sort(flat))

import timeit
def f(a, b=2): return a + b
print("python call loop 1e6:", round(min(timeit.repeat(lambda: [f(i) for i in range(10000)], number=100, repeat=5)) * 1e3, 1), "ms")
