"""bench_primitives' first-call sequence, the sort profiled (how its first sort differs from a bare process's)."""
import cProfile, io, pstats, sys, time
import numpy as np
import os
if os.environ.get("PEERS"):
    import cupy, torch; cupy.ones(3).sum(); torch.ones(3, device="cuda").sum()
import rocarray as ra
from rocarray.compiler.cache import drain_background
dev = ra.Device("cuda:0") if hasattr(ra, "Device") else None
host = np.arange(-500, 500, dtype=np.int16)
x = ra.asarray(host, device="cuda:0"); idx = ra.asarray(np.arange(0, 1000, 3), device="cuda:0")
sq = ra.reshape(x, (20, 50)); warm = ra.asarray(np.ones(1000), device="cuda:0")
skip = set(sys.argv[1].split(",")) if len(sys.argv) > 1 else set()
ops = [("first", lambda: warm + warm), ("cumsum", lambda: ra.cumulative_sum(x)), ("mask", lambda: x[x > 0]),
       ("nonzero", lambda: ra.nonzero(x)), ("take", lambda: ra.take(x, idx)), ("put", lambda: x.__setitem__(idx, 7)),
       ("concat", lambda: ra.concat([x, x])), ("T", lambda: sq.T.copy())]
for name, fn in ops:
    if name in skip: continue
    drain_background(); t = time.perf_counter(); fn(); x.device.synchronize(); print(name, f"{1e3*(time.perf_counter()-t):.1f} ms")
drain_background()
pr = cProfile.Profile(); t = time.perf_counter(); pr.enable(); ra.sort(x); x.device.synchronize(); pr.disable()
print(f"sort first {1e3*(time.perf_counter()-t):.1f} ms")
s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(30); print(s.getvalue()[-6000:])
s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(10); print(s.getvalue()[-3000:])
