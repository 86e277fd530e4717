"""Sort and argsort of one short host line beside NumPy (stable argsort): best of 7 loops, us a call."""
import time, numpy as np, rocarray as ra
rng = np.random.default_rng(0)
def t(f, k=2000):
    for _ in range(20): f()
    ts=[]
    for _ in range(7):
        s=time.perf_counter()
        for _ in range(k): f()
        ts.append((time.perf_counter()-s)/k)
    return min(ts)*1e6
for dt, n in [("float32", 256), ("float32", 1024), ("float64", 100), ("int64", 100), ("int32", 2000), ("float32", 8192)]:
    h = rng.standard_normal(n).astype(dt) if dt[0]=="f" else rng.integers(-2**30, 2**30, n).astype(dt)
    a = ra.asarray(h)
    assert np.array_equal(ra.asnumpy(ra.argsort(a)), np.argsort(h, kind="stable"))
    k = max(20, 2000 * 1024 // n)
    tn = t(lambda: np.argsort(h, kind="stable"), k); tr = t(lambda: ra.argsort(a), k)
    tn2 = t(lambda: np.sort(h), k); tr2 = t(lambda: ra.sort(a), k)
    print(f"{dt} {n}: argsort numpy {tn:.1f} us rocarray {tr:.1f} ({tn/tr:.2f}); sort numpy {tn2:.1f} rocarray {tr2:.1f} ({tn2/tr2:.2f})")
