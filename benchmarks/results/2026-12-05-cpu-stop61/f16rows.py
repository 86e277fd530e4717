"""float16 sort of rows and single lines: NumPy against rocarray (2^22 elements)."""
import sys, time
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
n = 1 << 22
def t(f, r=7):
    f(); drain_background(); f(); b = 1e9
    for _ in range(r):
        t0 = time.perf_counter(); f(); b = min(b, time.perf_counter() - t0)
    return b * 1e3
for L in [int(v) for v in (sys.argv[1] if len(sys.argv) > 1 else "20,32,100,1024,8192,65536").split(",")]:
    rows = n // L
    a = (rng.standard_normal((rows, L)) * 100).astype(np.float16)
    x = ra.asarray(a)
    for desc in (False,):
        r = t(lambda: ra.sort(x, axis=1)); p = t(lambda: np.sort(a, axis=1))
        assert np.array_equal(ra.sort(x, axis=1).get().view(np.uint16), np.sort(a, axis=1, kind="stable").view(np.uint16))
        print(f"float16 rows of {L:5d}: numpy {p:7.2f} rocarray {r:7.2f} ms ({p / r:5.2f}x)", flush=True)
for L in [int(v) for v in (sys.argv[2] if len(sys.argv) > 2 else "1024,8192,65536").split(",")]:
    a = (rng.standard_normal(L) * 100).astype(np.float16)
    x = ra.asarray(a)
    r = t(lambda: ra.sort(x), 50); p = t(lambda: np.sort(a), 50)
    print(f"float16 line of {L:5d}: numpy {p*1e3:8.1f} rocarray {r*1e3:8.1f} us ({p / r:5.2f}x)", flush=True)
