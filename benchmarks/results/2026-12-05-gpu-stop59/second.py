"""Calls after a first long sort, in a fresh process: each call's time, and cProfile of the second."""
import sys, time, cProfile, pstats, io, threading
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
dt = sys.argv[1]
xn = np.random.default_rng(0).standard_normal(1 << 24).astype(dt) if dt.startswith("float") else \
    np.random.default_rng(0).integers(-2**31, 2**31 - 1, 1 << 24).astype(dt)
x = ra.asarray(xn, device="cuda:0"); dev = x.device; dev.synchronize()
times = []
for k in range(6):
    if k == 1:
        pr = cProfile.Profile(); pr.enable()
    t0 = time.perf_counter(); s = ra.sort(x); dev.synchronize(); times.append(1e3 * (time.perf_counter() - t0))
    if k == 1:
        pr.disable()
        names = [t.name for t in threading.enumerate()]
print(dt, "sort calls ms:", " ".join(f"{t:.1f}" for t in times), "| threads at call 2:", names)
st = io.StringIO(); pstats.Stats(pr, stream=st).sort_stats("tottime").print_stats(14); print(st.getvalue()[-3500:])
t0 = time.perf_counter(); drain_background(); print(f"drain after: {1e3*(time.perf_counter()-t0):.1f} ms")
