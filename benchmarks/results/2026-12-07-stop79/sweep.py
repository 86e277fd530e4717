"""Host sort, argsort, unique_counts and unique_inverse of 2^22-element lines of several shapes (random, sorted, reversed, one value, 90% one value, sorted runs, NaNs) beside NumPy in one run: median ms of 5.

    ROCARRAY_CACHE_DIR=... python sweep.py [dtype ...]
"""
import time, sys, numpy as np, rocarray as ra
rng = np.random.default_rng(3)
n = 1 << 22
def t(f, k=5):
    f(); f(); ts=[]
    for _ in range(k):
        t0=time.perf_counter(); f(); ts.append(time.perf_counter()-t0)
    return np.median(ts)*1e3
def datasets(dt):
    d = {}
    if dt.kind == "f":
        r = rng.standard_normal(n).astype(dt)
    else:
        info = np.iinfo(dt); r = rng.integers(info.min, info.max, n, dtype=dt)
    d["random"] = r
    d["sorted"] = np.sort(r)
    d["reversed"] = np.sort(r)[::-1].copy()
    d["all equal"] = np.full(n, r[0])
    x = r.copy(); x[rng.random(n) < 0.9] = r[1]; d["90% one value"] = x
    d["sorted runs of 1000"] = np.sort(r.reshape(-1, 1024), axis=1).ravel()
    if dt.kind == "f":
        x = r.copy(); x[rng.random(n) < 0.3] = np.nan; d["30% nan"] = x
    return d
only = sys.argv[1:] or ["float32", "int64", "float64", "int32"]
for dts in only:
    dt = np.dtype(dts)
    for name, h in datasets(dt).items():
        a = ra.asarray(h)
        rows = {
          "sort": (lambda: np.sort(h), lambda: ra.sort(a)),
          "argsort": (lambda: np.argsort(h, kind="stable"), lambda: ra.argsort(a, stable=True)),
          "unique_counts": (lambda: np.unique(h, return_counts=True), lambda: ra.unique_counts(a)),
          "unique_inverse": (lambda: np.unique(h, return_inverse=True), lambda: ra.unique_inverse(a)),
        }
        for op, (fn, fr) in rows.items():
            tn, tr = t(fn), t(fr)
            flag = "  <==" if tn / tr < 1 else ""
            print(f"{dts:8s} {name:20s} {op:15s} numpy {tn:7.2f} rocarray {tr:7.2f} ratio {tn/tr:5.2f}{flag}", flush=True)
