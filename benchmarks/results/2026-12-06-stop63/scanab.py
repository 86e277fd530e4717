"""cumulative_sum of one long line, the tree on PYTHONPATH, beside CuPy and PyTorch and a copy:
wall per call with a sync (median of 200), and per call of 200 queued then one sync (median of 5)."""
import sys, time, os
import numpy as np
import rocarray as ra
from rocarray import _reduction
from rocarray.compiler.cache import drain_background
import torch, cupy as cp
dev = ra.Device("cuda:0")
tag = sys.argv[1]

def t_sync(f, sync, r=200):
    f(); sync(); b = []
    for _ in range(r):
        t0 = time.perf_counter(); f(); sync(); b.append(time.perf_counter() - t0)
    return np.median(b) * 1e6

def t_queue(f, sync, r=200):
    f(); sync(); b = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(r):
            f()
        sync(); b.append((time.perf_counter() - t0) / r)
    return np.median(b) * 1e6

rng = np.random.default_rng(0)
for n in (1 << 24, 1 << 20):
    for dt, odt in (("float32", None), ("int64", None), ("int32", "int64")):
        h = rng.integers(-1000, 1000, n).astype(dt)
        x = ra.asarray(h, device=dev)
        f = (lambda: ra.cumulative_sum(x)) if odt is None else (lambda: ra.cumulative_sum(x, dtype=ra.int64))
        for _ in range(3):
            f(); dev.synchronize(); drain_background()
        assert any(p.chained is not None for p in _reduction._scan_plans.values())
        want = np.cumsum(h, dtype=odt or (None if dt != "int32" else "int64"))
        got = f().get()
        ok = np.array_equal(got, want) if dt != "float32" else np.allclose(got, want, rtol=1e-4, atol=1e-1)
        tx = torch.as_tensor(h, device="cuda"); cx = cp.asarray(h)
        ts = torch.cuda.synchronize; cs = cp.cuda.runtime.deviceSynchronize
        r = dict(ra_sync=t_sync(f, dev.synchronize), ra_queue=t_queue(f, dev.synchronize),
                 torch_sync=t_sync(lambda: tx.cumsum(0) if odt is None else tx.cumsum(0, dtype=torch.int64), ts),
                 torch_queue=t_queue(lambda: tx.cumsum(0) if odt is None else tx.cumsum(0, dtype=torch.int64), ts),
                 cupy_sync=t_sync(lambda: cx.cumsum() if odt is None else cx.cumsum(dtype=cp.int64), cs),
                 copy_sync=t_sync(lambda: x.copy(), dev.synchronize), copy_queue=t_queue(lambda: x.copy(), dev.synchronize))
        print(f"{tag} n={n} {dt}->{odt or dt} exact={ok} " + " ".join(f"{k}={v:.1f}us" for k, v in r.items()), flush=True)
