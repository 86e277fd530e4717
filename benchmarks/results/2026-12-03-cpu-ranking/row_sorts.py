import time, numpy as np, rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
for shape in ((100, 2000), (1000, 256), (400, 512), (1, 10000), (20, 4000)):
    S = rng.standard_normal(shape).astype(np.float32); s = ra.asarray(S)
    Si = rng.integers(-10**6, 10**6, shape); si = ra.asarray(Si)
    cases = [("sort f32", lambda: ra.sort(s, axis=1), lambda: np.sort(S, axis=1)),
             ("argsort f32", lambda: ra.argsort(s, axis=1), lambda: np.argsort(S, axis=1, kind="stable")),
             ("sort i64", lambda: ra.sort(si, axis=1), lambda: np.sort(Si, axis=1))]
    for name, f, g in cases:
        for _ in range(3): f()
        drain_background()
        def best(h):
            ts = []
            for _ in range(7):
                t0 = time.perf_counter(); h(); ts.append(time.perf_counter() - t0)
            return min(ts) * 1e3
        print(f"{str(shape):12s} {name:12s} ra {best(f):7.3f} np {best(g):7.3f} ms", flush=True)
