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
for shape in [(16385,), (20000,), (32768,), (40000,), (65536,), (10, 20000), (10, 65536)]:
    for dt in (np.float32, np.int64):
        X = rng.standard_normal(shape).astype(dt) if dt == np.float32 else rng.integers(-10**9, 10**9, shape)
        x = ra.asarray(X)
        r = best(lambda: ra.sort(x, axis=-1)); n = best(lambda: np.sort(X, axis=-1))
        ra_ = best(lambda: ra.argsort(x, axis=-1)); na = best(lambda: np.argsort(X, axis=-1, kind="stable"))
        print(f"{str(shape):14s} {np.dtype(dt).name:8s} sort ra {r:9.1f} np {n:9.1f} ({n/r:5.2f})   argsort ra {ra_:9.1f} np {na:9.1f} ({na/ra_:5.2f})", flush=True)
