import time, numpy as np, rocarray as ra
rng = np.random.default_rng(0)
for n in (256, 4096):
    x = ra.asarray(rng.standard_normal(n).astype(np.float32)); m = ra.asarray(rng.random(n) < 0.5)
    for f, name in ((lambda: x[m], "x[m]"), (lambda: ra.nonzero(m), "nonzero"), (lambda: ra.unique_values(x), "unique_values")):
        for _ in range(2000): f()
        best = []
        for r in range(5):
            t = time.perf_counter()
            for _ in range(10000): f()
            best.append((time.perf_counter() - t) / 10000 * 1e6)
        print(f"{name:14s} n={n:5d} {min(best):.2f} us")
