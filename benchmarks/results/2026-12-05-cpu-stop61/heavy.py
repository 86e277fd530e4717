import sys, time
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
n = 1 << 22
def t(f, r=7):
    f(); drain_background(); f(); b = 1e9
    for _ in range(r):
        t0 = time.perf_counter(); f(); b = min(b, time.perf_counter() - t0)
    return b * 1e3
for dt in sys.argv[1].split(","):
    for case in sys.argv[2].split(","):
        a = (rng.standard_normal(n) * (1e15 if dt == "int64w" else 1000)).astype(dt.rstrip("w"))
        if case == "halfmin": a[rng.random(n) < 0.5] = a.min()
        elif case == "halfzero": a[rng.random(n) < 0.5] = 0
        elif case == "mid30": a[rng.random(n) < 0.3] = np.median(a)
        elif case == "max20": a[rng.random(n) < 0.2] = a.max()
        elif case == "two": a[rng.random(n) < 0.2] = a.min(); a[rng.random(n) < 0.2] = np.median(a)
        elif case == "nan30" and a.dtype.kind == "f": a[rng.random(n) < 0.3] = np.nan
        x = ra.asarray(a)
        r = t(lambda: ra.sort(x)); p = t(lambda: np.sort(a))
        got = ra.sort(x).get(); exp = np.sort(a, kind="stable")
        assert np.array_equal(got.view(f"u{a.itemsize}"), exp.view(f"u{a.itemsize}")), (dt, case)
        got = ra.sort(x, descending=True).get(); assert np.array_equal(got[::-1][: n - np.isnan(a).sum()], exp[: n - np.isnan(a).sum()])
        print(f"{dt:8s} {sys.argv[3] if len(sys.argv) > 3 else ''} {case:9s}: numpy {p:7.2f} rocarray {r:7.2f} ms ({p / r:5.2f}x)", flush=True)
