"""Host time of warm GPU joins and searches (the tree on PYTHONPATH): per call until
return (unsynced) and wall (synced), best and median of 40."""
import time, sys
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
print("tree", ra.__file__)
rng = np.random.default_rng(0)
xf = rng.standard_normal(1 << 24).astype(np.float32)
a = ra.asarray(xf, device="cuda:0"); dev = a.device
y = ra.asarray(xf[::-1].copy(), device="cuda:0")
xi = ra.asarray(rng.integers(-2**40, 2**40, 1 << 24), device="cuda:0")
yi = ra.asarray(rng.integers(-2**40, 2**40, 1 << 24), device="cuda:0")
sa = ra.sort(a)
q = ra.asarray(np.sort(rng.standard_normal(1 << 20).astype(np.float32)), device="cuda:0")
small = [ra.asarray(xf[i << 14:(i + 1) << 14], device="cuda:0") for i in range(100)]
cases = {"concat f32": lambda: ra.concat([a, y]), "stack f32": lambda: ra.stack([a, y]),
         "concat i64": lambda: ra.concat([xi, yi]), "stack 100x2^14": lambda: ra.stack(small),
         "searchsorted": lambda: ra.searchsorted(sa, q)}
for name, f in cases.items():
    for _ in range(5): f()
    drain_background(); dev.synchronize()
    hosts, walls = [], []
    for _ in range(40):
        s = time.perf_counter(); r = f(); h = time.perf_counter(); dev.synchronize(); e = time.perf_counter()
        hosts.append(h - s); walls.append(e - s); del r
    hosts.sort(); walls.sort()
    print(f"{name}: host until return min {hosts[0]*1e6:.1f} med {hosts[20]*1e6:.1f} us; wall min {walls[0]*1e6:.1f} med {walls[20]*1e6:.1f}", flush=True)
