import time, numpy as np, rocarray as ra, sys
from rocarray.compiler.cache import drain_background
print(ra.__file__)
for side in [1024, 2048, 4096]:
    h = np.random.default_rng(0).random((side, side), dtype=np.float32)
    m = ra.asarray(h)
    for name, f in [("a.T + a", lambda: m.T + m), ("a.T*2", lambda: m.T * 2), ("Tcopy", lambda: ra.asarray(m.T, copy=True))]:
        f(); drain_background(); f()
        t = min((lambda t0: (f(), time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(5))
        print(f"{side} {name:8s} {t*1e3:8.2f} ms  {t*1e9/side/side:.2f} ns/elem")
