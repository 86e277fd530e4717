import numpy as np, time, sys
import rocarray as ra
from rocarray import _radix
rng = np.random.default_rng(0)
n = 1 << 22
def t(f, r=5):
    f(); b = 1e9
    for _ in range(r):
        t0 = time.perf_counter(); f(); b = min(b, time.perf_counter() - t0)
    return b * 1e3
dists = [("uniform wide", rng.integers(-2**31, 2**31, n)),
         ("half0 0..1000", np.maximum(rng.integers(-1000, 1001, n), 0)),
         ("-1000..1000", rng.integers(-1000, 1001, n)),
         ("half0 wide", np.where(rng.random(n) < 0.5, 0, rng.integers(0, 2**31, n))),
         ("10% zeros wide", np.where(rng.random(n) < 0.1, 0, rng.integers(-2**31, 2**31, n))),
         ("30% 7 mid", np.where(rng.random(n) < 0.3, 7, rng.integers(-2**31, 2**31, n)))]
orig = _radix.split_sorts
for name, a in dists:
    for dt in sys.argv[1].split(","):
        b = a.astype(dt); x = ra.asarray(b)
        _radix.split_sorts = orig
        s1 = t(lambda: ra.sort(x))
        _radix.split_sorts = lambda *a: False
        s2 = t(lambda: ra.sort(x))
        print(f"{name:16s} {dt:8s} numpy {t(lambda: np.sort(b)):6.1f} split {s1:6.1f} radix {s2:6.1f}", flush=True)
