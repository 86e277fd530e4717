"""First sort of one 2^24 line in a fresh process: total, and (argv[1] == 'profile') cProfile's top."""
import sys, time
t0 = time.perf_counter()
import numpy as np
import rocarray as ra
dt = sys.argv[2] if len(sys.argv) > 2 else "int32"
xn = np.random.default_rng(0).standard_normal(1 << 24).astype(dt) if dt.startswith("float") else \
    np.random.default_rng(0).integers(-2**31, 2**31 - 1, 1 << 24).astype(dt)
x = ra.asarray(xn, device="cuda:0"); dev = x.device; dev.synchronize()
t1 = time.perf_counter()
if sys.argv[1] == "profile":
    import cProfile, pstats, io
    pr = cProfile.Profile(); pr.enable()
s = ra.sort(x); dev.synchronize()
t2 = time.perf_counter()
if sys.argv[1] == "profile":
    pr.disable(); st = io.StringIO(); pstats.Stats(pr, stream=st).sort_stats("cumulative").print_stats(45); print(st.getvalue()[:9000])
assert np.array_equal(s.get(), np.sort(xn))
s = ra.sort(x); dev.synchronize(); t3 = time.perf_counter()
a = ra.argsort(x); dev.synchronize(); t4 = time.perf_counter()
print(f"{dt}: setup {1e3*(t1-t0):.0f} ms; first sort {1e3*(t2-t1):.1f} ms; second {1e3*(t3-t2):.2f} ms; first argsort {1e3*(t4-t3):.1f} ms")
