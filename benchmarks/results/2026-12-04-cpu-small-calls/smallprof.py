import cProfile, pstats, io, time, sys
import numpy as np, rocarray as ra
rng = np.random.default_rng(0)
h = rng.standard_normal(int(__import__("os").environ.get("N", "256"))).astype(np.float32)
a = ra.asarray(h); idx = ra.asarray(rng.integers(0, h.size, h.size)); srt = ra.sort(a)
ops = {"sort": lambda: ra.sort(a), "take": lambda: ra.take(a, idx), "mask": lambda: a[a > 0],
       "nonzero": lambda: ra.nonzero(a > 0), "unique_counts": lambda: ra.unique_counts(a),
       "searchsorted": lambda: ra.searchsorted(srt, a), "argsort": lambda: ra.argsort(a)}
from rocarray.compiler.cache import drain_background
for f in ops.values():
    for _ in range(300): f()
drain_background()
for f in ops.values():
    for _ in range(50): f()
which = sys.argv[1:] or list(ops)
for name in which:
    f = ops[name]
    t0 = time.perf_counter()
    for _ in range(2000): f()
    us = (time.perf_counter() - t0) / 2000 * 1e6
    print(f"== {name}: {us:.1f} us")
    if len(which) == 1:
        pr = cProfile.Profile(); pr.enable()
        for _ in range(2000): f()
        pr.disable()
        s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(25); print(s.getvalue()[:6000])
