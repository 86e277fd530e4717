"""Where the GPU's x[idx] = v time goes: the scatter module's path against the elementwise
kernels' (check_bounds + rk_put1), both in this process (diagnostic, not a benchmark)."""
import time, numpy as np, rocarray as ra, torch, cupy as cp
from rocarray import _gather_gpu
from rocarray._advanced_indexing import check_bounds, _put1
from rocarray.compiler.cache import drain_background
dev = ra.Device("cuda:0")
n, m = 1 << 24, 1 << 22
rng = np.random.default_rng(0)
for dt in (np.float32, np.int64):
    for idt in (np.int64, np.int32):
        _gather_gpu._kernel(dev, "scatter", np.dtype(dt).itemsize, 8 * np.dtype(idt).itemsize, True)
    s = ra.asarray(rng.standard_normal(n).astype(dt), device=dev)
    hidx = rng.integers(0, n, m)
    idx = ra.asarray(hidx, device=dev)
    idx32 = ra.asarray(hidx.astype(np.int32), device=dev)
    w = ra.asarray(rng.standard_normal(m).astype(dt), device=dev)
    sorted_idx = ra.asarray(np.sort(hidx), device=dev)
    ts, ti, tw = torch.as_tensor(s.get(), device="cuda"), torch.as_tensor(hidx, device="cuda"), torch.as_tensor(w.get(), device="cuda")
    cs, ci, cw = cp.asarray(s.get()), cp.asarray(hidx), cp.asarray(w.get())
    def t(f, sync=dev.synchronize):
        for _ in range(8): f()
        drain_background(); sync()
        best = 1e9
        for _ in range(30):
            t0 = time.perf_counter(); f(); sync(); best = min(best, time.perf_counter() - t0)
        return round(best * 1e3, 3)
    def setitem(i, v=w): s[i] = v
    plan = _gather_gpu.scatter_plan(dev, np.dtype(dt).itemsize, np.dtype(np.int64))
    assert plan is not None
    row = {
        "setitem (scatter)": t(lambda: setitem(idx)),
        "setitem int32 idx": t(lambda: setitem(idx32)),
        "setitem one value": t(lambda: setitem(idx, w[0])),
        "setitem sorted idx": t(lambda: setitem(sorted_idx)),
        "old: check_bounds": t(lambda: check_bounds(idx, n, 0)),
        "old: check + rk_put1": t(lambda: (check_bounds(idx, n, 0), _put1(idx, w, n, s))),
        "take": t(lambda: ra.take(s, idx)),
        "torch setitem": t(lambda: ts.__setitem__(ti, tw), torch.cuda.synchronize),
        "cupy setitem": t(lambda: cs.__setitem__(ci, cw), cp.cuda.Device().synchronize),
    }
    hs = s.get().copy(); hs[hidx] = w.get()  # (last wins on the host; any of equal ones on a GPU)
    got = s.get()
    ok = np.isin(got[hidx], w.get()).all() and np.array_equal(np.delete(got, hidx), np.delete(hs, hidx))
    print(np.dtype(dt).name, row, "correct" if ok else "WRONG", flush=True)
