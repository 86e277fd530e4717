"""Host rows the masks sweep read under NumPy's speed, again with 200 timed calls each (median), beside NumPy."""
import time, numpy as np, rocarray as ra
n = 1 << 22
rng = np.random.default_rng(4)
def t(f, k=200):
    for _ in range(20): f()
    ts=[]
    for _ in range(k):
        t0=time.perf_counter(); f(); ts.append(time.perf_counter()-t0)
    return np.median(ts)*1e3
for dt in ("float32", "int64"):
    h = rng.standard_normal(n).astype(dt) if dt[0] == "f" else rng.integers(-1000, 1000, n).astype(dt)
    a = ra.asarray(h)
    m = np.zeros(n, bool); M = ra.asarray(m)
    idx = np.sort(rng.integers(0, n, n)); I = ra.asarray(idx)
    for name, fn, fr in ((f"{dt} x[m], 0% true", lambda: h[m], lambda: a[M]),
                         (f"{dt} nonzero, 0% true", lambda: np.nonzero(m), lambda: ra.nonzero(M)),
                         (f"{dt} take sorted indices", lambda: np.take(h, idx), lambda: ra.take(a, I))):
        tn, tr = t(fn), t(fr)
        print(f"{name:30s} numpy {tn:7.3f} rocarray {tr:7.3f} ratio {tn/tr:5.2f}", flush=True)
for dt in ("float32", "int32", "int64"):
    h = np.full(n, rng.standard_normal(1).astype(dt)[0] if dt[0] == "f" else 7, dt); a = ra.asarray(h)
    tn, tr = t(lambda: np.sort(h), 40), t(lambda: ra.sort(a), 40)
    print(f"{dt + ' sort of one value':30s} numpy {tn:7.3f} rocarray {tr:7.3f} ratio {tn/tr:5.2f}", flush=True)
r = np.sort(rng.integers(np.iinfo("int32").min, np.iinfo("int32").max, n, dtype="int32"))[::-1].copy(); R = ra.asarray(r)
tn, tr = t(lambda: np.argsort(r, kind="stable"), 15), t(lambda: ra.argsort(R), 15)
print(f"{'int32 argsort reversed, ties':30s} numpy {tn:7.3f} rocarray {tr:7.3f} ratio {tn/tr:5.2f}  ({r.size - np.unique(r).size} ties)", flush=True)
