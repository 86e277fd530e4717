"""Stop 75: the benchmark's first calls (int16, empty caches) in order, sort's and isin's
profiled (cProfile, cumulative), and the background compile each leaves."""
import cProfile, io, pstats, sys, time
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
dev = ra.Device("cuda:0")
host = np.arange(-500, 500, dtype=np.int16); host_idx = np.arange(0, 1000, 3)
x = ra.asarray(host, device=dev); idx = ra.asarray(host_idx, device=dev); sq = ra.reshape(x, (20, 50))
warm = ra.asarray(np.ones(1000), device=dev)
calls = [("add", lambda: warm + warm), ("cumulative_sum", lambda: ra.cumulative_sum(x)), ("x[x > 0]", lambda: x[x > 0]),
         ("nonzero", lambda: ra.nonzero(x)), ("take", lambda: ra.take(x, idx)), ("x[idx] = v", lambda: x.__setitem__(idx, 7)),
         ("concat", lambda: ra.concat([x, x])), ("transpose copy", lambda: sq.T.copy()),
         ("sort", lambda: ra.sort(x)), ("argsort", lambda: ra.argsort(x)),
         ("searchsorted", lambda: ra.searchsorted(ra.sort(x), idx)), ("isin", lambda: ra.isin(x, idx))]
for name, fn in calls:
    t0 = time.perf_counter(); drain_background(); t1 = time.perf_counter()
    prof = name in sys.argv[1:]
    if prof:
        pr = cProfile.Profile(); pr.enable()
    fn(); dev.synchronize(); t2 = time.perf_counter()
    if prof:
        pr.disable()
    print(f"{name:16s} first call {1e3 * (t2 - t1):7.1f} ms (background drained before it: {1e3 * (t1 - t0):7.1f} ms)", flush=True)
    if prof:
        s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(30); print(s.getvalue()[:6000])
