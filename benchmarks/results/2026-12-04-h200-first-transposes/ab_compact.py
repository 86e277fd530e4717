"""x[x > 0] and nonzero on the GPU: the write queued before the count's read-back
(default) against sized first (WRITE_FIRST_BYTES = 0), alternating in one process."""
import time, numpy as np, rocarray as ra
import rocarray._advanced_indexing as ai
from rocarray.compiler.cache import drain_background
dev = ra.Device("cuda:0")
rng = np.random.default_rng(0)
DEFAULT = ai.WRITE_FIRST_BYTES
for dt in ("float32", "int64"):
    a = rng.standard_normal(1 << 24)
    a = (a * 1000).astype(dt) if dt == "int64" else a.astype(dt)
    x = ra.asarray(a, device=dev)
    for name, f in (("x[x > 0]", lambda: x[x > 0]), ("nonzero", lambda: ra.nonzero(x)),
                    ("x[x > 2] (2%)", lambda: x[x > (2 if dt == "float32" else 2000)])):
        best = {}
        for mode, v in (("write first", DEFAULT), ("sized first", 0)):
            ai.WRITE_FIRST_BYTES = v
            for _ in range(3): f()
            dev.synchronize()
        drain_background()
        for _ in range(30):
            for mode, v in (("write first", DEFAULT), ("sized first", 0)):
                ai.WRITE_FIRST_BYTES = v
                t0 = time.perf_counter(); f(); dev.synchronize()
                best[mode] = min(best.get(mode, 1e9), time.perf_counter() - t0)
        ai.WRITE_FIRST_BYTES = DEFAULT
        print(f"{dt:8s} {name:14s} " + "  ".join(f"{m} {t*1e6:7.1f} us" for m, t in best.items()), flush=True)
