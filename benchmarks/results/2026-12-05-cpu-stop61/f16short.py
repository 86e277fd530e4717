import sys, time
import numpy as np
from rocarray.compiler import network_host as nh
if sys.argv[1] == "low": nh.LINE_MIN["f2"] = 2
import rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
n = 1 << 22
def t(f, r=7):
    f(); drain_background(); f(); b = 1e9
    for _ in range(r):
        t0 = time.perf_counter(); f(); b = min(b, time.perf_counter() - t0)
    return b * 1e3
ra.sort(ra.asarray(np.zeros((2, 40), np.float16))); ra.argsort(ra.asarray(np.zeros((2, 20), np.float32))); drain_background()
for L in [int(v) for v in sys.argv[2].split(",")]:
    a = (rng.standard_normal((n // L, L)) * 100).astype(np.float16); x = ra.asarray(a)
    r = t(lambda: ra.sort(x, axis=1)); p = t(lambda: np.sort(a, axis=1))
    print(f"{sys.argv[1]} float16 rows of {L:3d}: numpy {p:7.2f} rocarray {r:7.2f} ms ({p / r:5.2f}x)", flush=True)
