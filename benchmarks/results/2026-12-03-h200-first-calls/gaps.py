"""Timeline of one warm call: each GPU kernel's start and end relative to the call's first
kernel (CUPTI via torch.profiler), host time per call, and a cProfile of the host side."""
import time, cProfile, pstats, io
import numpy as np, torch, cupy as cp
import rocarray as ra
from rocarray.compiler.cache import drain_background

rng = np.random.default_rng(0)
xf = rng.standard_normal(1 << 24).astype(np.float32)
a = ra.asarray(xf, device="cuda:0"); t = torch.as_tensor(xf, device="cuda"); c = cp.asarray(xf)
dev = a.device
y = ra.asarray(xf[::-1].copy(), device="cuda:0"); ty = torch.as_tensor(xf[::-1].copy(), device="cuda")
rows = a.reshape(-1, 1024); trows = t.reshape(-1, 1024)
ri = rng.integers(0, 1024, (1 << 14, 1024)); rid = ra.asarray(ri, device="cuda:0"); tri = torch.as_tensor(ri, device="cuda")
tkh = rng.integers(0, 1 << 24, 1 << 22); tk = ra.asarray(tkh, device='cuda:0'); ttk = torch.as_tensor(tkh, device='cuda')
cases = [("ra concat", lambda: ra.concat([a, y]), dev.synchronize),
         ("torch cat", lambda: torch.cat([t, ty]), torch.cuda.synchronize),
         ("ra stack", lambda: ra.stack([a, y]), dev.synchronize),
         ("ra take_along_axis", lambda: ra.take_along_axis(rows, rid, axis=1), dev.synchronize),
         ("torch gather", lambda: torch.gather(trows, 1, tri), torch.cuda.synchronize),
         ("ra unique_counts f32", lambda: ra.unique_counts(a), dev.synchronize),
         ("torch unique f32", lambda: torch.unique(t, sorted=True, return_counts=True), torch.cuda.synchronize),
         ("ra sort f32", lambda: ra.sort(a), dev.synchronize),
         ("torch sort f32", lambda: torch.sort(t).values, torch.cuda.synchronize),
         ("ra take 4M", lambda: ra.take(a, tk), dev.synchronize),
         ("torch take 4M", lambda: t.take(ttk), torch.cuda.synchronize)]
for name, f, sync in cases:
    for _ in range(3): f()
    sync(); drain_background()
    for _ in range(3): f()
    sync()
    walls, hosts = [], []
    for _ in range(15):
        s = time.perf_counter(); f(); h = time.perf_counter(); sync(); e = time.perf_counter()
        walls.append(e - s); hosts.append(h - s)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
        f(); sync()
    evs = sorted([e for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA],
                 key=lambda e: e.time_range.start)
    t0 = evs[0].time_range.start if evs else 0
    print(f"{name}: wall min {min(walls)*1e6:.0f} us, host (until return) min {min(hosts)*1e6:.0f} us", flush=True)
    prev = t0
    for e in evs:
        print(f"    start {e.time_range.start - t0:7.1f} gap {e.time_range.start - prev:6.1f} dur {e.time_range.end - e.time_range.start:7.1f}  {e.name[:50]}")
        prev = e.time_range.end
    if name.startswith("ra"):
        pr = cProfile.Profile(); pr.enable()
        for _ in range(20): f(); sync()
        pr.disable()
        s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(10)
        print("\n".join(s.getvalue().splitlines()[:26]))
