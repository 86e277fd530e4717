"""Host sorts beside NumPy's, best of 30 after warm-up with the background compiles drained
(microseconds): ``python sorts.py SET`` with SET one of the shape lists below (``argsort``:
the argsort cases, ascending and descending, beside NumPy's stable argsort)."""
import sys
import time

import numpy as np

import rocarray as ra
from rocarray.compiler.cache import drain_background

SETS = {
    "mid": [(1024,), (1025,), (2000,), (5000,), (8192,), (10000,), (16384,), (100, 2000), (20, 5000), (1000, 256),
            (1000, 1024)],
    "rows": [(1000, 1024), (1000, 256), (300, 4096)],
    "long": [(16385,), (20000,), (32768,), (40000,), (65536,), (10, 20000), (10, 65536)],
    "rowsb": [(10, 16384), (20, 10000), (10, 32768), (4, 30000), (16385,), (32768,)],
    "argsort": [(256,), (1024,), (2000,), (10000,), (16384,), (1000, 256), (100, 2000), (20, 5000), (4096, 1024)],
    "long32": [(32769,), (40000,), (65536,), (4, 40000), (10, 65536), (3, 50000)],
}
rng = np.random.default_rng(0)


def best(f, n=30):
    for _ in range(20):
        f()
    drain_background()
    for _ in range(5):
        f()
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return min(ts) * 1e6


name = sys.argv[1]
for shape in SETS[name]:
    for dt in ((np.float32, np.int32) if name == "argsort" else (np.float32, np.int64)):
        X = rng.standard_normal(shape).astype(dt) if dt == np.float32 else rng.integers(-10**9, 10**9, shape).astype(dt)
        x = ra.asarray(X)
        if name == "argsort":
            r = best(lambda: ra.argsort(x, axis=-1))
            n = best(lambda: np.argsort(X, axis=-1, kind="stable"))
            rd = best(lambda: ra.argsort(x, axis=-1, descending=True))
            print(f"{str(shape):14s} {np.dtype(dt).name:8s} argsort ra {r:9.1f} (descending {rd:9.1f}) "
                  f"np stable {n:9.1f} ({n / r:5.2f})", flush=True)
            continue
        r = best(lambda: ra.sort(x, axis=-1))
        n = best(lambda: np.sort(X, axis=-1))
        ra_ = best(lambda: ra.argsort(x, axis=-1))
        na = best(lambda: np.argsort(X, axis=-1, kind="stable"))
        print(f"{str(shape):14s} {np.dtype(dt).name:8s} sort ra {r:9.1f} np {n:9.1f} ({n / r:5.2f})   "
              f"argsort ra {ra_:9.1f} np {na:9.1f} ({na / ra_:5.2f})", flush=True)
