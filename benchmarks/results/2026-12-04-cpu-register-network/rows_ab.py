"""Sorts and argsorts of rows and of short lines by the host's network, beside NumPy in
one process: 8 calls, the background compiles drained, 3 more, then the best of 25, in
ms.  Run once per tree, alternating: ``PYTHONPATH=<tree> python rows_ab.py``."""

import time

import numpy as np

import rocarray as ra
from rocarray.compiler.cache import drain_background


def best(f, r=25):
    for _ in range(3):
        f()
    t = []
    for _ in range(r):
        s = time.perf_counter()
        f()
        t.append(time.perf_counter() - s)
    return min(t) * 1e3


rng = np.random.default_rng(0)
for shape in [(4000, 64), (1000, 256), (200, 2048), (20, 16384), (2000,), (10000,), (65536,)]:
    for dt in ["int32", "float32", "int64", "float64"]:
        a = (rng.standard_normal(shape) * 1e6).astype(dt)
        x = ra.asarray(a)
        for _ in range(8):
            ra.sort(x), ra.argsort(x)
        drain_background()
        for _ in range(3):
            ra.sort(x), ra.argsort(x)
        ts, ta = best(lambda: ra.sort(x)), best(lambda: ra.argsort(x))
        ns, na = best(lambda: np.sort(a, axis=-1)), best(lambda: np.argsort(a, axis=-1, kind="stable"))
        print(f"{dt:8} {'x'.join(map(str, shape)):10} sort {ts:7.3f} (NumPy {ns:7.3f})  "
              f"argsort {ta:7.3f} (NumPy stable {na:7.3f})", flush=True)
