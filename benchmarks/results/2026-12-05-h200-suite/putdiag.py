"""Where the GPU's x[idx] = v time goes (diagnostic, not a benchmark)."""
import time, numpy as np, rocarray as ra, torch, cupy as cp
from rocarray._advanced_indexing import check_bounds, _put1
from rocarray.compiler.cache import drain_background
dev = ra.Device("cuda:0")
n, m = 1 << 24, 1 << 22
rng = np.random.default_rng(0)
for dt in (np.float32, np.int64):
    s = ra.asarray(rng.standard_normal(n).astype(dt), device=dev)
    idx = ra.asarray(rng.integers(0, n, m), device=dev)
    w = ra.asarray(rng.standard_normal(m).astype(dt), device=dev)
    idx32 = ra.asarray(rng.integers(0, n, m).astype(np.int32), device=dev)
    sorted_idx = ra.asarray(np.sort(rng.integers(0, n, m)), device=dev)
    ts, ti, tw = torch.as_tensor(s.get(), device="cuda"), torch.as_tensor(idx.get(), device="cuda"), torch.as_tensor(w.get(), device="cuda")
    def t(f, sync=dev.synchronize):
        for _ in range(8): f()
        drain_background(); sync()
        best = 1e9
        for _ in range(20):
            t0 = time.perf_counter(); f(); sync(); best = min(best, time.perf_counter() - t0)
        return best * 1e3
    def setitem(i): s[i] = w
    print(dt.__name__, "setitem", round(t(lambda: setitem(idx)), 3),
          "check", round(t(lambda: check_bounds(idx, n, 0)), 3),
          "put1 kernel", round(t(lambda: _put1(idx, w, n, s)), 3),
          "put1 int32 idx", round(t(lambda: _put1(idx32, w, n, s)), 3),
          "put1 sorted idx", round(t(lambda: _put1(sorted_idx, w, n, s)), 3),
          "take", round(t(lambda: ra.take(s, idx)), 3),
          "torch", round(t(lambda: ts.__setitem__(ti, tw), torch.cuda.synchronize), 3),
          "torch index_put_", round(t(lambda: ts.index_put_((ti,), tw), torch.cuda.synchronize), 3), flush=True)
