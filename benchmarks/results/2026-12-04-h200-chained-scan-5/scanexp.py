"""Scan passes on the GPU: plan, residency, kernel times under chunk-count variants."""
import sys, time
import numpy as np
import rocarray as ra
from rocarray import _reduction as R
from rocarray.compiler.cache import drain_background
import torch
from torch.profiler import profile, ProfilerActivity
from torch.autograd import DeviceType

dev = ra.Device("cuda:0").check()


def kernels(fn, calls=5):
    for _ in range(3):
        fn()
    dev.synchronize()
    drain_background()
    for _ in range(3):
        fn()
    dev.synchronize()
    t = []
    for _ in range(15):
        t0 = time.perf_counter(); fn(); dev.synchronize(); t.append(time.perf_counter() - t0)
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for i in range(calls):
            fn()
            dev.synchronize()
    ks = {}
    for e in prof.events():
        if e.device_type == DeviceType.CUDA:
            ks.setdefault(e.name[:40], []).append(e.time_range.end - e.time_range.start)
    return min(t) * 1e6, {k: round(float(np.median(v)), 1) for k, v in ks.items()}


orig = R._scan_chunks
for dt in ["float32", "int64"]:
    x = ra.asarray(np.random.default_rng(0).standard_normal(1 << 24).astype(dt) if dt == "float32"
                   else np.random.default_rng(0).integers(-1000, 1000, 1 << 24), device=dev)
    print(f"== {dt} sum: wall {kernels(lambda: ra.sum(x))}")
    for m in [1, 2, 4, 0.5]:
        R._scan_chunks = lambda *a, m=m, **k: max(1, int(orig(*a, **k) * m))
        R._scan_plans.clear()
        w, ks = kernels(lambda: ra.cumulative_sum(x))
        plan = next(iter(R._scan_plans.values()))
        code = plan.code
        res = [dev.runtime.resident_grid(f, 256) for f in code.functions[:4]]
        print(f"  chunks x{m}: wall {w:.1f} kernels {ks} resident {res}")
        print("     launches", [(e, items, grid) for e, _, items, _, _, grid, _ in plan.launches])
    R._scan_chunks = orig
    R._scan_plans.clear()
