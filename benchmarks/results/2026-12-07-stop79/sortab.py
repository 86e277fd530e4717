"""Host sort of 2^22-element lines (random, half one value, 3 and 40 values) beside NumPy: median ms of 9; run once per tree (PYTHONPATH) to compare two trees.
"""
import sys, time, numpy as np, rocarray as ra
rng = np.random.default_rng(1)
n = 1 << 22
def t(f, k=9):
    f(); f(); ts=[]
    for _ in range(k):
        t0=time.perf_counter(); f(); ts.append(time.perf_counter()-t0)
    return np.median(ts)*1e3
cases = {}
for dt in ("float32", "float64", "int64", "int32"):
    if dt[0] == "f":
        cases[f"{dt} random"] = rng.standard_normal(n).astype(dt)
    else:
        cases[f"{dt} random"] = rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, n, dtype=dt)
    x = cases[f"{dt} random"].copy(); x[rng.random(n) < 0.5] = x[0]; cases[f"{dt} half one value"] = x
    v = cases[f"{dt} random"][:3]; cases[f"{dt} 3 values"] = rng.choice(v, n)
    v = cases[f"{dt} random"][:40]; cases[f"{dt} 40 values"] = rng.choice(v, n)
for name, h in cases.items():
    a = ra.asarray(h)
    r = ra.asnumpy(ra.sort(a)); assert np.array_equal(r, np.sort(h)), name
    tn = t(lambda: np.sort(h)); tr = t(lambda: ra.sort(a))
    print(f"{name:22s} numpy {tn:7.2f} rocarray {tr:7.2f} ratio {tn/tr:5.2f}", flush=True)
