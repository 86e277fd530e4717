"""Host argsort of random rows (1024 and 16 long, 2^22 elements): median ms of 15, run once per tree (PYTHONPATH) to compare two trees."""
import time, numpy as np, rocarray as ra
rng = np.random.default_rng(0)
def t(f, k=15):
    for _ in range(3): f()
    ts=[]
    for _ in range(k):
        t0=time.perf_counter(); f(); ts.append(time.perf_counter()-t0)
    return np.median(ts)*1e3
for dt in ("float32", "int64"):
    for L in (1024, 16):
        r = (rng.standard_normal(((1 << 22) // L, L)) * (1000 if dt[0] == "i" else 1)).astype(dt); R = ra.asarray(r)
        print(dt, L, "argsort random rows", round(t(lambda: ra.argsort(R, axis=1)), 3), flush=True)
