import numpy as np, time, sys
import rocarray as ra
rng = np.random.default_rng(0)
with ra.Device("cpu"):
  for dt in ("int64", "float32", "int32", "float64"):
    if dt.startswith("float"):
        s = np.sort((rng.standard_normal(1 << 22) * 1000).astype(dt)); q = (rng.standard_normal(1 << 20) * 1000).astype(dt)
    else:
        s = np.sort(rng.integers(-1000, 1000, 1 << 22)).astype(dt); q = rng.integers(-1000, 1000, 1 << 20).astype(dt)
    S, Q = ra.asarray(s), ra.asarray(q)
    for side in ("left", "right"):
        r = ra.searchsorted(S, Q, side=side)
        assert np.array_equal(r.get(), np.searchsorted(s, q, side=side)), (dt, side)
    from rocarray.compiler.cache import drain_background; ra.searchsorted(S, Q); drain_background(); ra.searchsorted(S, Q)
    best = 1e9; bn = 1e9
    for _ in range(5):
        t = time.perf_counter(); ra.searchsorted(S, Q); best = min(best, time.perf_counter() - t)
        t = time.perf_counter(); np.searchsorted(s, q); bn = min(bn, time.perf_counter() - t)
    print(dt, f"rocarray {best*1e3:.1f} ms numpy {bn*1e3:.1f} ms ratio {bn/best:.2f}", flush=True)
