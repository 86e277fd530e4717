import numpy as np, time
import rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(1)
with ra.Device("cpu"):
  for dt in ("int64", "float64", "float32"):
    s = np.sort(rng.standard_normal(1 << 24).astype(dt) * (1 if dt[0] == "f" else 1e9)).astype(dt)
    q = (rng.standard_normal(1 << 20) * (1 if dt[0] == "f" else 1e9)).astype(dt)
    S, Q = ra.asarray(s), ra.asarray(q)
    r = ra.searchsorted(S, Q); assert np.array_equal(r.get(), np.searchsorted(s, q)); drain_background(); ra.searchsorted(S, Q)
    best = bn = 1e9
    for _ in range(5):
        t = time.perf_counter(); ra.searchsorted(S, Q); best = min(best, time.perf_counter() - t)
        t = time.perf_counter(); np.searchsorted(s, q); bn = min(bn, time.perf_counter() - t)
    print("distinct 2^24", dt, f"rocarray {best*1e3:.1f} ms numpy {bn*1e3:.1f} ms ratio {bn/best:.2f}", flush=True)
