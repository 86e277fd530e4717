"""A process's first sorts of a 2^22 line (float32, then float64, int64 wide), timed, then warm."""
import sys, time
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
n = 1 << 22
out = []
for dt in ("float32", "float64", "int64"):
    a = (rng.standard_normal(n) * (1e15 if dt == "int64" else 1)).astype(dt)
    x = ra.asarray(a)
    t0 = time.perf_counter(); y = ra.sort(x); t1 = time.perf_counter()
    assert np.array_equal(y.get(), np.sort(a))
    drain_background()
    t2 = time.perf_counter(); ra.sort(x); t3 = time.perf_counter()
    t4 = time.perf_counter(); np.sort(a); t5 = time.perf_counter()
    out.append(f"{dt}: first {1e3 * (t1 - t0):.1f} ms, after the compile {1e3 * (t3 - t2):.1f} ms, numpy {1e3 * (t5 - t4):.1f} ms")
print(sys.argv[1], "; ".join(out))
