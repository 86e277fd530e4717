"""Host time of warm GPU calls: per call until return (unsynced), and a cProfile of 30 calls
with the synchronisation outside the profile (cumulative order)."""
import time, cProfile, pstats, io, sys
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
xf = rng.standard_normal(1 << 24).astype(np.float32)
a = ra.asarray(xf, device="cuda:0"); dev = a.device
y = ra.asarray(xf[::-1].copy(), device="cuda:0")
rows = a.reshape(-1, 1024)
rid = ra.asarray(rng.integers(0, 1024, (1 << 14, 1024)), device="cuda:0")
tk = ra.asarray(rng.integers(0, 1 << 24, 1 << 22), device="cuda:0")
xi = ra.asarray(rng.integers(-2**40, 2**40, 1 << 24), device="cuda:0")
q = ra.asarray(np.sort(rng.standard_normal(1 << 20).astype(np.float32)), device="cuda:0")
sa = ra.sort(a)
lab = ra.asarray(rng.integers(0, 5000, 200000), device="cuda:0")
cases = {"concat": lambda: ra.concat([a, y]), "take": lambda: ra.take(a, tk),
         "take_along_axis": lambda: ra.take_along_axis(rows, rid, axis=1),
         "sort f32": lambda: ra.sort(a), "sort i64": lambda: ra.sort(xi), "argsort f32": lambda: ra.argsort(a, stable=True),
         "unique_counts f32": lambda: ra.unique_counts(a), "cumsum f32": lambda: ra.cumulative_sum(a),
         "mask f32": lambda: a[a > 0], "nonzero": lambda: ra.nonzero(a), "searchsorted": lambda: ra.searchsorted(sa, q),
         "sort rows": lambda: ra.sort(rows, axis=1), "unique_counts labels": lambda: ra.unique_counts(lab),
         "unique_values f32": lambda: ra.unique_values(a)}
quiet = "-q" in sys.argv
only = [a for a in sys.argv[1:] if a != "-q"]
for name, f in cases.items():
    if only and name not in only: continue
    for _ in range(3): f()
    drain_background(); dev.synchronize()
    hosts, walls = [], []
    for _ in range(30):
        s = time.perf_counter(); r = f(); h = time.perf_counter(); dev.synchronize(); e = time.perf_counter()
        hosts.append(h - s); walls.append(e - s); del r
    hosts.sort(); walls.sort()
    print(f"== {name}: host until return min {hosts[0]*1e6:.1f} med {hosts[15]*1e6:.1f} us; wall min {walls[0]*1e6:.1f} med {walls[15]*1e6:.1f}", flush=True)
    if quiet: continue
    pr = cProfile.Profile()
    for _ in range(30):
        pr.enable(); r = f(); pr.disable(); dev.synchronize(); del r
    out = io.StringIO(); pstats.Stats(pr, stream=out).sort_stats("cumulative").print_stats(28)
    print("\n".join(l for l in out.getvalue().splitlines()[6:] if l.strip()))
