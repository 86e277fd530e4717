"""Host argsort and sort of rows that are each sorted already (4096 x 1024 and 41943 x 100 of 2^22 elements), beside NumPy: median ms of 9."""
import time, numpy as np, rocarray as ra
rng = np.random.default_rng(0)
def t(f, k=9):
    for _ in range(3): f()
    ts=[]
    for _ in range(k):
        t0=time.perf_counter(); f(); ts.append(time.perf_counter()-t0)
    return np.median(ts)*1e3
for dt in ("float32", "int64"):
    for L in (1024, 100):
        r = np.sort((rng.standard_normal(((1 << 22) // L, L)) * (1000 if dt[0] == "i" else 1)).astype(dt), axis=1)
        R = ra.asarray(r)
        print(dt, L, "argsort sorted rows numpy", round(t(lambda: np.argsort(r, axis=1, kind="stable")), 2), "rocarray", round(t(lambda: ra.argsort(R, axis=1)), 2),
              "| sort sorted rows numpy", round(t(lambda: np.sort(r, axis=1)), 2), "rocarray", round(t(lambda: ra.sort(R, axis=1)), 2))
