"""Per step of the ranking program on the GPU: wall (best of 7), host until return, and
rocarray's kernels (CUPTI via torch.profiler), beside CuPy and PyTorch."""
import time, collections, sys
import numpy as np, torch, cupy as cp
import rocarray as ra
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
S = rng.standard_normal((1000, 256)).astype(np.float32); L = rng.integers(0, 5000, 200000)
T = np.sort(rng.standard_normal(1000).astype(np.float32))
s, l, t = (ra.asarray(a, device="cuda:0") for a in (S, L, T))
cs, cl, ct = (cp.asarray(a) for a in (S, L, T))
ts, tl, tt = (torch.as_tensor(a, device="cuda") for a in (S, L, T))
dev = s.device
flat = ra.sort(ra.reshape(s, (-1,))); cflat = cp.sort(cs.reshape(-1)); tflat = torch.sort(ts.reshape(-1)).values
v, c = ra.unique_counts(l); cv, cc = cp.unique(cl, return_counts=True); tv, tc = torch.unique(tl, sorted=True, return_counts=True)
ids = ra.searchsorted(v, l); cids = cp.searchsorted(cv, cl); tids = torch.searchsorted(tv, tl)
order = ra.argsort(s, axis=1, descending=True); corder = cp.argsort(-cs, axis=1); torder = torch.argsort(ts, dim=1, descending=True, stable=True)
steps = [
 ("argsort rows desc", lambda: ra.argsort(s, axis=1, descending=True, stable=True), lambda: cp.argsort(-cs, axis=1), lambda: torch.argsort(ts, dim=1, descending=True, stable=True)),
 ("take_along top10", lambda: ra.take_along_axis(s, order[:, :10], axis=1), lambda: cp.take_along_axis(cs, corder[:, :10], axis=1), lambda: torch.gather(ts, 1, torder[:, :10])),
 ("sort rows", lambda: ra.sort(s, axis=1), lambda: cp.sort(cs, axis=1), lambda: torch.sort(ts, dim=1).values),
 ("sort flat 256k", lambda: ra.sort(ra.reshape(s, (-1,))), lambda: cp.sort(cs.reshape(-1)), lambda: torch.sort(ts.reshape(-1)).values),
 ("searchsorted thr", lambda: ra.searchsorted(flat, t), lambda: cp.searchsorted(cflat, ct), lambda: torch.searchsorted(tflat, tt)),
 ("unique_counts 200k", lambda: ra.unique_counts(l), lambda: cp.unique(cl, return_counts=True), lambda: torch.unique(tl, sorted=True, return_counts=True)),
 ("searchsorted ids", lambda: ra.searchsorted(v, l), lambda: cp.searchsorted(cv, cl), lambda: torch.searchsorted(tv, tl)),
 ("take counts", lambda: ra.take(c, ids), lambda: cp.take(cc, cids), lambda: tc[tids]),
]
syncs = (dev.synchronize, cp.cuda.runtime.deviceSynchronize, torch.cuda.synchronize)
for name, *fs in steps:
    for f, sy in zip(fs, syncs):
        for _ in range(3): f()
        sy()
    drain_background()
    walls = [[], [], []]; hosts = []
    for _ in range(7):
        for k, (f, sy) in enumerate(zip(fs, syncs)):
            t0 = time.perf_counter(); f(); h = time.perf_counter(); sy(); walls[k].append(time.perf_counter() - t0)
            if k == 0: hosts.append(h - t0)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
        fs[0](); dev.synchronize()
    ks = collections.OrderedDict()
    for e in p.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            ks.setdefault(e.name[:50], []).append(e.device_time)
    tot = sum(sum(x) for x in ks.values())
    print(f"{name:20s} ra {min(walls[0])*1e3:7.3f} ms (host {min(hosts)*1e3:.3f}, kernels {tot:.0f} us in {sum(len(x) for x in ks.values())})  cupy {min(walls[1])*1e3:7.3f}  torch {min(walls[2])*1e3:7.3f}", flush=True)
    for k, x in ks.items():
        print(f"      {sum(x):8.1f} us x{len(x)} {k}")
