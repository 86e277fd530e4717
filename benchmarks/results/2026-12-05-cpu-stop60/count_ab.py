import numpy as np, time, sys
import rocarray as ra
from rocarray import _radix, _count_sort, _set_functions
rng = np.random.default_rng(0)
n = 1 << 22
def t(f, r=7):
    f(); b = 1e9
    for _ in range(r):
        t0 = time.perf_counter(); f(); b = min(b, time.perf_counter() - t0)
    return b * 1e3
calls = []
real = _count_sort.counts
def spy(x):
    r = real(x); calls.append(r is not None); return r
_count_sort.counts = spy
for dt in sys.argv[1].split(","):
    a = rng.integers(-1000, 1001, n)
    if dt[0] == "u": a = np.maximum(a, 0)
    if dt == "bool": a = rng.random(n) < 0.5
    if len(sys.argv) > 2: a = rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, n, endpoint=True)
    a = a.astype(dt); x = ra.asarray(a)
    calls.clear()
    s_new = t(lambda: ra.sort(x)); u_new = t(lambda: ra.unique_counts(x))
    used = any(calls)
    _radix.count_sort = lambda *a: None; _set_functions.count_runs = lambda *a: None
    s_old = t(lambda: ra.sort(x)); u_old = t(lambda: ra.unique_counts(x))
    _radix.count_sort = _count_sort.count_sort; _set_functions.count_runs = _count_sort.count_runs
    ns = t(lambda: np.sort(a)); nu = t(lambda: np.unique(a, return_counts=True))
    print(f"{dt:7s} counted={used} sort: numpy {ns:6.2f} before {s_old:6.2f} now {s_new:6.2f} ({ns/s_new:5.2f}x)  "
          f"unique_counts: numpy {nu:6.2f} before {u_old:6.2f} now {u_new:6.2f} ({nu/u_new:5.2f}x)", flush=True)
