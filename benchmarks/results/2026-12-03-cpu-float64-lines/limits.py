"""sort of lines of L: the network's current limits against raised ones (one process)."""
import time, sys, numpy as np, rocarray as ra
from rocarray import _radix
from rocarray.compiler import network_host
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
orig = dict(network_host.LINE_MAX)
raised = {4: 1 << 18, 8: 1 << 17, 16: orig[16]}
def best(f, k=7):
    t = 1e9
    for _ in range(k):
        s = time.perf_counter(); f(); t = min(t, time.perf_counter() - s)
    return t * 1e3
def use(limits):
    network_host.LINE_MAX.clear(); network_host.LINE_MAX.update(limits); _radix._network_specs.clear()
rows_list = [int(r) for r in sys.argv[1:]] or [1]
for dt, Ls in ((np.float64, (16384, 20000, 32768, 50000, 65536, 100000, 131072)), (np.int64, (20000, 50000, 131072)),
               (np.float32, (65536, 100000, 200000, 262144)), (np.int32, (100000, 262144))):
    for rows in rows_list:
        for L in Ls:
            a = (rng.standard_normal((rows, L)).astype(dt) if np.dtype(dt).kind == "f"
                 else rng.integers(-10**9, 10**9, (rows, L)).astype(dt))
            x = ra.asarray(a)
            res = {}
            for name, lim in (("now", orig), ("raised", raised), ("now2", orig), ("raised2", raised)):
                use(lim)
                for _ in range(3): ra.sort(x, axis=-1)
                drain_background()
                for _ in range(2): ra.sort(x, axis=-1)
                assert np.array_equal(ra.sort(x, axis=-1).get(), np.sort(a, axis=-1))
                res[name] = best(lambda: ra.sort(x, axis=-1))
            use(orig)
            nt = best(lambda: np.sort(a, axis=-1))
            print(f"{np.dtype(dt).name:8} {rows}x{L:7}: now {res['now']:.3f}/{res['now2']:.3f} raised {res['raised']:.3f}/{res['raised2']:.3f} numpy {nt:.3f}", flush=True)
