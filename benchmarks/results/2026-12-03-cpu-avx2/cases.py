"""Host sorts, argsorts and unique counts beside NumPy in one process, best of N after
warm-up with the background compiles drained (milliseconds): run from the repository root
of the tree measured, ``python cases.py [SET]`` (SET: rows, argsort, unique, small)."""
import sys
import time

import numpy as np

import rocarray as ra
from rocarray.compiler.cache import drain_background

rng = np.random.default_rng(0)


def best(f, n=11):
    for _ in range(8):
        f()
    drain_background()
    for _ in range(3):
        f()
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return min(ts) * 1e3


def data(shape, dt):
    dt = np.dtype(dt)
    if dt.kind == "f":
        return rng.standard_normal(shape).astype(dt)
    return rng.integers(-10**9, 10**9, shape).astype(dt)


SETS = {
    "rows": [("sort", (4096, 1024), dt) for dt in ("float32", "int32", "int64", "float64")]
    + [("sort", (1000, 256), dt) for dt in ("float32", "int64", "float64")],
    "argsort": [("argsort", (1000, 256), dt) for dt in ("float32", "float64", "int64")]
    + [("argsort", (n,), "float64") for n in (100, 1000, 5000)] + [("argsort", (100, 5000), "float64")],
    "unique": [("unique_counts", (n,), dt) for n in (100, 1000, 1 << 22) for dt in ("float32", "int64")],
    "small": [(op, (100,), "float64") for op in ("sort", "argsort", "unique_values", "unique_counts")],
}
OPS = {
    "sort": (lambda x: ra.sort(x, axis=-1), lambda a: np.sort(a, axis=-1)),
    "argsort": (lambda x: ra.argsort(x, axis=-1), lambda a: np.argsort(a, axis=-1, kind="stable")),
    "unique_values": (lambda x: ra.unique_values(x), lambda a: np.unique(a)),
    "unique_counts": (lambda x: ra.unique_counts(x), lambda a: np.unique(a, return_counts=True)),
}
for name in sys.argv[1:] or SETS:
    for op, shape, dt in SETS[name]:
        a = data(shape, dt)
        x = ra.asarray(a)
        r, n = OPS[op]
        tr, tn = best(lambda: r(x)), best(lambda: n(a))
        print(f"{op:14s} {str(shape):12s} {dt:8s} rocarray {tr:9.3f} ms  numpy {tn:9.3f}  ratio {tn / tr:5.2f}",
              flush=True)
