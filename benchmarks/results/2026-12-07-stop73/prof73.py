"""Stop 73: per-step wall times of the ranking program (rocarray vs torch) and a host profile."""
import cProfile, pstats, statistics, time, sys, io
import numpy as np
import rocarray as ra
import torch
dev = ra.Device("cuda:0")
rng = np.random.default_rng(0)
scores_h = rng.standard_normal((1000, 256)).astype(np.float32)
labels_h = rng.integers(0, 5000, 200_000)
thr_h = np.sort(rng.standard_normal(1000).astype(np.float32))
S, L, T = (ra.asarray(h, device=dev) for h in (scores_h, labels_h, thr_h))
tS, tL, tT = (torch.as_tensor(h, device="cuda") for h in (scores_h, labels_h, thr_h))
flat = ra.sort(ra.reshape(S, (-1,))); vals, cnts = ra.unique_counts(L); ids = ra.searchsorted(vals, L)
order = ra.argsort(S, axis=1, descending=True, stable=True)
tflat = torch.sort(tS.reshape(-1)).values; tv, tc = torch.unique(tL, sorted=True, return_counts=True); tids = torch.searchsorted(tv, tL)
torder = torch.argsort(tS, dim=1, descending=True, stable=True)
steps = [
 ("argsort rows desc", lambda: ra.argsort(S, axis=1, descending=True, stable=True), lambda: torch.argsort(tS, dim=1, descending=True, stable=True)),
 ("take_along_axis top", lambda: ra.take_along_axis(S, order[:, :10], axis=1), lambda: torch.gather(tS, 1, torder[:, :10])),
 ("sort rows", lambda: ra.sort(S, axis=1), lambda: torch.sort(tS, dim=1).values),
 ("sort flat", lambda: ra.sort(ra.reshape(S, (-1,))), lambda: torch.sort(tS.reshape(-1)).values),
 ("searchsorted thr", lambda: ra.searchsorted(flat, T), lambda: torch.searchsorted(tflat, tT)),
 ("unique_counts", lambda: ra.unique_counts(L), lambda: torch.unique(tL, sorted=True, return_counts=True)),
 ("searchsorted labels", lambda: ra.searchsorted(vals, L), lambda: torch.searchsorted(tv, tL)),
 ("take counts", lambda: ra.take(cnts, ids), lambda: tc[tids]),
]
def t(fn, sync, n=30):
    for _ in range(5): fn()
    sync(); w = []; h = []
    for _ in range(n):
        t0 = time.perf_counter(); fn(); t1 = time.perf_counter(); sync(); t2 = time.perf_counter()
        w.append(t2 - t0); h.append(t1 - t0)
    return statistics.median(w) * 1e6, statistics.median(h) * 1e6
rs = lambda: dev.synchronize(); ts = torch.cuda.synchronize
print(f"{'step':22s} {'ra wall':>8s} {'ra host':>8s} {'torch wall':>10s} {'torch host':>10s}")
for name, a, b in steps:
    aw, ah = t(a, rs); bw, bh = t(b, ts)
    print(f"{name:22s} {aw:8.1f} {ah:8.1f} {bw:10.1f} {bh:10.1f}", flush=True)
pr = cProfile.Profile()
pr.enable()
for _ in range(50):
    for name, a, b in steps: a()
    rs()
pr.disable()
s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(45); print(s.getvalue()[:9000])
s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(60); print(s.getvalue()[:12000])
