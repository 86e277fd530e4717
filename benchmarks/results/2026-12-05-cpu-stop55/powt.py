import time, numpy as np, rocarray as ra
from rocarray.compiler.cache import drain_background
h = np.random.default_rng(0).uniform(0.1, 3, 1 << 22); a = ra.asarray(h)
for lab, f, g in [("a**2", lambda: a ** 2, lambda: h ** 2), ("a**3", lambda: a ** 3, lambda: h ** 3), ("a**0.5", lambda: a ** 0.5, lambda: h ** 0.5), ("a**2.5", lambda: a ** 2.5, lambda: h ** 2.5), ("a**a", lambda: a ** a, lambda: h ** h)]:
    for _ in range(8): f()
    drain_background()
    tr = min((lambda t0: (f(), time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(7))
    tn = min((lambda t0: (g(), time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(7))
    print(f"{lab:7s} ra {tr*1e3:6.2f} np {tn*1e3:6.2f} np/ra {tn/tr:.2f}")
