"""sort and argsort of many short rows of narrow dtypes on the host beside NumPy: 2^20
elements in rows of L, best of three after a warm-up that lets background compiles finish."""
import time
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background

rng = np.random.default_rng(0)
with ra.Device("cpu"):
    for dt in ("float16", "int16", "uint8", "bool"):
        for L in (4, 16, 31):
            a = (rng.standard_normal((1 << 20) // L * L) * 50).astype(dt).reshape(-1, L)
            x = ra.asarray(a)
            for f in (ra.sort, ra.argsort):
                f(x, axis=1)
            drain_background()
            assert np.array_equal(ra.argsort(x, axis=1).get(), np.argsort(a, axis=1, kind="stable"))
            assert np.array_equal(ra.sort(x, axis=1).get(), np.sort(a, axis=1))
            r = {}
            for name, f, g in (("sort", lambda: ra.sort(x, axis=1), lambda: np.sort(a, axis=1, kind="stable")),
                               ("argsort", lambda: ra.argsort(x, axis=1),
                                lambda: np.argsort(a, axis=1, kind="stable"))):
                b = bn = 1e9
                for _ in range(3):
                    t = time.perf_counter(); f(); b = min(b, time.perf_counter() - t)
                    t = time.perf_counter(); g(); bn = min(bn, time.perf_counter() - t)
                r[name] = f"{b * 1e3:6.1f} ms (numpy {bn * 1e3:6.1f}, {bn / b:4.2f})"
            print(f"{dt:8s} rows of {L:2d}: sort {r['sort']} argsort {r['argsort']}", flush=True)
