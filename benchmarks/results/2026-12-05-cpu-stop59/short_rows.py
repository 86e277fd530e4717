"""argsort (and sort) of many short rows on the host beside NumPy's stable sorts: 2^22 elements
in rows of L, each call best of three after a warm-up that lets background compiles finish."""
import sys, time
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background

rng = np.random.default_rng(0)
lengths = [int(v) for v in (sys.argv[1] if len(sys.argv) > 1 else "4,8,16,31,48,100,300").split(",")]
with ra.Device("cpu"):
    for dt in ("float32", "int64", "int32", "float64"):
        for L in lengths:
            a = (rng.standard_normal((1 << 22) // L * L) * 1e6).astype(dt).reshape(-1, L)
            x = ra.asarray(a)
            for f in (ra.sort, ra.argsort):
                f(x, axis=1)
            drain_background()
            assert np.array_equal(ra.argsort(x, axis=1).get(), np.argsort(a, axis=1, kind="stable"))
            assert np.array_equal(ra.sort(x, axis=1).get(), np.sort(a, axis=1))
            out = []
            for name, f, g in (("sort", lambda: ra.sort(x, axis=1), lambda: np.sort(a, axis=1)),
                               ("argsort", lambda: ra.argsort(x, axis=1),
                                lambda: np.argsort(a, axis=1, kind="stable"))):
                b = bn = 1e9
                for _ in range(3):
                    t = time.perf_counter(); f(); b = min(b, time.perf_counter() - t)
                    t = time.perf_counter(); g(); bn = min(bn, time.perf_counter() - t)
                out.append(f"{name} {b * 1e3:7.1f} ms numpy {bn * 1e3:7.1f} ratio {bn / b:5.2f}")
            print(f"{dt:8s} rows of {L:4d}: " + " | ".join(out), flush=True)
