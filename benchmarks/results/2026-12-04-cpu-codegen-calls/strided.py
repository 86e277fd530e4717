import time, numpy as np, rocarray as ra
from rocarray.compiler.cache import drain_background
def best(fn, k=30):
    for _ in range(5): fn()
    drain_background()
    for _ in range(5): fn()
    t = []
    for _ in range(k):
        t0 = time.perf_counter(); fn(); t.append(time.perf_counter() - t0)
    return min(t) * 1e6
for shape in [(625, 16), (100, 100), (1000, 1000), (250, 1000)]:
    h = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    x = ra.asarray(h)
    for name, f, g in [("T*2", lambda: x.T * 2, lambda: h.T * 2), ("Tcopy", lambda: ra.asarray(x.T, copy=True), lambda: h.T.copy()),
                       ("[:, ::2]*2", lambda: x[:, ::2] * 2, lambda: h[:, ::2] * 2), ("x*2", lambda: x * 2, lambda: h * 2)]:
        r, q = best(f), best(g)
        print(f"{str(shape):12s} {name:10s} ra {r:9.1f} us np {q:9.1f} us ratio {r/q:5.2f}  ns/elem {r*1e3/h.size:.2f}", flush=True)
