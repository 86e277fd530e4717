"""First GPU sort / argsort calls of a process, timed and profiled (main thread)."""
import cProfile, io, pstats, sys, time
import numpy as np
import rocarray as ra
dt = sys.argv[1] if len(sys.argv) > 1 else "int16"
D = sys.argv[2] if len(sys.argv) > 2 else "cuda:0"
rng = np.random.default_rng(0)
N = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
x = ra.asarray(rng.integers(-1000, 1000, N).astype(dt), device=D)
y = ra.asarray(rng.standard_normal(1 << 10), device=D)
t = time.perf_counter(); z = y + y; ra.asnumpy(z); print(f"first op (float64 add) {1e3*(time.perf_counter()-t):.1f} ms")
for name, fn in [("sort", ra.sort), ("argsort", ra.argsort)]:
    pr = cProfile.Profile()
    t = time.perf_counter(); pr.enable(); r = fn(x); ra.asnumpy(r[:4]); pr.disable(); dt_ms = 1e3*(time.perf_counter()-t)
    ws = []
    for _ in range(8):
        t = time.perf_counter(); r = fn(x); ra.asnumpy(r[:4]); ws.append(1e3*(time.perf_counter()-t)); time.sleep(0.03)
    print(f"== {name} {dt} n={N}: first {dt_ms:.1f} ms, then " + " ".join(f"{w:.2f}" for w in ws) + " ms")
    s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(22); print(s.getvalue()[-4500:])
print(ra.cache.info())
# the per-line merge sort kernel (short lines' sort) on a dtype not used yet: its first
# (interpreted) calls and later ones, lines of 1000 and 2048
from rocarray import _sorting_functions as S
from rocarray._array_object import Array
for dtn, L, rows in (("uint16", 1000, 1), ("uint16", 2048, 1), ("uint16", 2048, 64), ("float32", 1000, 1), ("int64", 2048, 1)):
    h = rng.integers(0, 60000, rows * L).astype(dtn)
    w = ra.asarray(h, device=D)
    ts = []
    for rep in range(6):
        w = ra.asarray(h, device=D); ra.asnumpy(w[:1])
        scratch = Array._empty((w.size,), w.dtype, w.device)
        t = time.perf_counter(); S._kernel("float" if dtn.startswith("f") else "other", False)(scratch, L, False, w, size=rows); ra.asnumpy(w[:1]); ts.append(1e3*(time.perf_counter()-t))
    ok = np.array_equal(ra.asnumpy(w).reshape(rows, L), np.sort(h.reshape(rows, L), axis=1))
    print(f"merge kernel {dtn} rows={rows} L={L}: " + " ".join(f"{v:.2f}" for v in ts) + f" ms ok={ok}")
    time.sleep(0.5)
