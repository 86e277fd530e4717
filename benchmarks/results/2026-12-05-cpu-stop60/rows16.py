"""Rows of narrow integers: NumPy, rocarray as is, rocarray with the network's 8/16-bit kinds (argv[1] == 'new')."""
import sys, time
import numpy as np
from rocarray.compiler import network_host as nh
if len(sys.argv) > 1 and sys.argv[1] == "new" and "i2" not in nh.KINDS:
    nh.KINDS = nh.KINDS + ("i2", "u2", "i1", "u1", "b1")
    nh.LINE_MAX.update({("i2", False): 1 << 15, ("u2", False): 1 << 15, ("i1", False): 1 << 16, ("u1", False): 1 << 16, ("b1", False): 1 << 16})
import rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
n = 1 << 22
def t(f, r=7):
    f(); drain_background(); f(); b = 1e9
    for _ in range(r):
        t0 = time.perf_counter(); f(); b = min(b, time.perf_counter() - t0)
    return b * 1e3
for dt in (sys.argv[3] if len(sys.argv) > 3 else "int16,uint16,int8,uint8,bool").split(","):
    for L in [int(v) for v in (sys.argv[2] if len(sys.argv) > 2 else "8,31,100,1024,8192").split(",")]:
        if dt == "bool":
            a = rng.random((n // L, L)) < 0.5
        else:
            a = rng.integers(-1000, 1001, (n // L, L)); a = (np.maximum(a, 0) if dt[0] == "u" else a).astype(dt)
        x = ra.asarray(a)
        r = t(lambda: ra.sort(x, axis=1)); p = t(lambda: np.sort(a, axis=1))
        assert np.array_equal(ra.sort(x, axis=1).get(), np.sort(a, axis=1))
        print(f"{dt:7s} rows of {L:5d}: numpy {p:7.2f} rocarray {r:7.2f} ms ({p / r:5.2f}x)", flush=True)
