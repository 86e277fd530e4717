import time, sys, numpy as np, rocarray as ra
from rocarray import _radix
from rocarray.compiler import network_host
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
orig = dict(network_host.LINE_MAX); raised = {**orig, 8: 1 << 16}
def best(f, k=7):
    t = 1e9
    for _ in range(k):
        s = time.perf_counter(); f(); t = min(t, time.perf_counter() - s)
    return t * 1e3
def use(l):
    network_host.LINE_MAX.clear(); network_host.LINE_MAX.update(l); _radix._network_specs.clear()
for dt in (np.float32, np.int32):
    for rows, L in ((1, 20000), (1, 32768), (1, 65536), (16, 20000), (16, 65536)):
        a = rng.standard_normal((rows, L)).astype(dt) if dt == np.float32 else rng.integers(-10**9, 10**9, (rows, L)).astype(dt)
        x = ra.asarray(a); res = {}
        for name, lim in (("now", orig), ("raised", raised), ("now2", orig), ("raised2", raised)):
            use(lim)
            for _ in range(3): ra.argsort(x, axis=-1)
            drain_background(); ra.argsort(x, axis=-1)
            assert np.array_equal(ra.argsort(x, axis=-1).get(), np.argsort(a, axis=-1, kind="stable"))
            res[name] = best(lambda: ra.argsort(x, axis=-1))
        use(orig)
        nt = best(lambda: np.argsort(a, axis=-1, kind="stable"))
        print(f"argsort {np.dtype(dt).name} {rows}x{L}: now {res['now']:.3f}/{res['now2']:.3f} raised {res['raised']:.3f}/{res['raised2']:.3f} numpy {nt:.3f}", flush=True)
