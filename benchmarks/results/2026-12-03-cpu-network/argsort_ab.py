import time, numpy as np, rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
def best(f, n=30):
    for _ in range(20): f()
    drain_background()
    for _ in range(5): f()
    ts = []
    for _ in range(n):
        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
    return min(ts) * 1e6
for shape in [(256,), (1024,), (2000,), (10000,), (16384,), (1000, 256), (100, 2000), (20, 5000), (4096, 1024)]:
    for dt in (np.float32, np.int32):
        X = rng.standard_normal(shape).astype(dt) if dt == np.float32 else rng.integers(-10**9, 10**9, shape).astype(dt)
        x = ra.asarray(X)
        r = best(lambda: ra.argsort(x, axis=-1)); n = best(lambda: np.argsort(X, axis=-1, kind="stable"))
        rd = best(lambda: ra.argsort(x, axis=-1, descending=True))
        print(f"{str(shape):14s} {np.dtype(dt).name:8s} argsort ra {r:9.1f} (descending {rd:9.1f}) np stable {n:9.1f} ({n/r:5.2f})", flush=True)
