"""Where a first GPU sort's time goes: each compile (key, IR ms, compile ms) and a cProfile
of the call, in a fresh process (empty cache).  python .devrun/profsort.py"""
import cProfile, pstats, time, sys, io
import numpy as np
import rocarray as ra
from rocarray.compiler import cache as C
log = []
orig = C.CompileCache._produce
def produce(self, key, build, target, counter="compiled"):
    t0 = time.perf_counter()
    r = orig(self, key, build, target, counter)
    log.append((str(key)[:90], getattr(target, "name", "?"), (time.perf_counter() - t0) * 1e3))
    return r
C.CompileCache._produce = produce
dev = ra.Device("cuda:0")
warm = ra.asarray(np.arange(10, dtype=np.float32), device=dev)
(warm + 1).get()  # the interpreter and a first elementwise kernel
C.drain_background()
for name, h in (("sort int16 1000", np.arange(-500, 500, dtype=np.int16)[::-1].copy()),
                ("sort float32 1000", np.random.default_rng(0).standard_normal(1000).astype(np.float32)),
                ("sort int64 1000", np.random.default_rng(0).integers(-10**6, 10**6, 1000))):
    x = ra.asarray(h, device=dev); dev.synchronize()
    C.drain_background(); log.clear()
    pr = cProfile.Profile()
    t0 = time.perf_counter(); pr.enable(); r = ra.sort(x); dev.synchronize(); pr.disable(); t = (time.perf_counter() - t0) * 1e3
    print(f"== {name}: {t:.1f} ms (profiled)")
    for k, tg, ms in log:
        print(f"   compile {ms:7.1f} ms  {tg:10s} {k}")
    s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(22); print(s.getvalue()[-5000:])
