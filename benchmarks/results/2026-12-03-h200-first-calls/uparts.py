"""unique_counts of 2^24 float32 on the GPU in parts: the sort, the runs of the sorted
values, the whole; best of 15, each synced; and the runs' pieces."""
import time
import numpy as np, torch
import rocarray as ra
from rocarray._advanced_indexing import gpu_runs
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
xf = rng.standard_normal(1 << 24).astype(np.float32)
a = ra.asarray(xf, device="cuda:0"); dev = a.device; t = torch.as_tensor(xf, device="cuda")
s = ra.sort(a)
xi = rng.integers(-1000, 1000, 1 << 24); ai = ra.asarray(xi, device="cuda:0"); si = ra.sort(ai)
def best(f, sync=dev.synchronize, n=15):
    for _ in range(3): f()
    sync(); drain_background()
    ts = []
    for _ in range(n):
        sync(); t0 = time.perf_counter(); f(); sync(); ts.append(time.perf_counter() - t0)
    return min(ts) * 1e6, sorted(ts)[n // 2] * 1e6
for name, f, sy in [("sort f32", lambda: ra.sort(a), dev.synchronize),
                    ("runs of sorted f32", lambda: gpu_runs(s, True), dev.synchronize),
                    ("runs of sorted f32, no lengths", lambda: gpu_runs(s, False), dev.synchronize),
                    ("unique_counts f32", lambda: ra.unique_counts(a), dev.synchronize),
                    ("torch unique f32", lambda: torch.unique(t, sorted=True, return_counts=True), torch.cuda.synchronize),
                    ("runs of sorted int64 (2000 values)", lambda: gpu_runs(si, True), dev.synchronize),
                    ("empty 64MB + 128MB", lambda: (ra.empty(1 << 24, dtype=ra.float32, device=dev), ra.empty(1 << 24, dtype=ra.int64, device=dev)), dev.synchronize),
                    ("int(s[-1])", lambda: int(s[-1]), dev.synchronize)]:
    print(f"{name:36s} best {best(f, sy)[0]:8.1f} us  median {best(f, sy)[1]:8.1f}", flush=True)
