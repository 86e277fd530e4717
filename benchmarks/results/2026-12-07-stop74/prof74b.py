"""Stop 74: the host's driver calls beside the kernels of sort(L) and unique_counts(L) on
cuda:0 (CUPTI driver and runtime API records with the kernels), and host time of pieces."""
import json, os, statistics, sys, tempfile, time
import numpy as np
import rocarray as ra
import rocarray._radix_gpu as RG
from rocarray.compiler.cache import drain_background
import torch
from torch.profiler import profile, ProfilerActivity
dev = ra.Device("cuda:0")
rng = np.random.default_rng(0)
labels_h = rng.integers(0, 5000, 200_000)
L = ra.asarray(labels_h, device=dev)
S = ra.asarray(rng.standard_normal((1000, 256)).astype(np.float32), device=dev)
flat = ra.reshape(S, (-1,))
tL = torch.as_tensor(labels_h, device="cuda")
sync, ts = dev.synchronize, torch.cuda.synchronize
RG.key_extremes(L); ra.unique_counts(L); ra.sort(flat); drain_background()
def tw(fn, s, n=60):
    for _ in range(8): fn()
    s(); w = []; h = []
    for _ in range(n):
        t0 = time.perf_counter(); fn(); t1 = time.perf_counter(); s(); w.append(time.perf_counter() - t0); h.append(t1 - t0)
    return f"wall {statistics.median(w) * 1e6:6.1f} host {statistics.median(h) * 1e6:6.1f}"
k0 = ra.empty((200_000,), dtype=ra.uint32, device=dev)
kern = RG._int_key_kernel(np.dtype(np.int64), np.dtype(np.uint32))




print("sort flat f32        ", tw(lambda: ra.sort(flat), sync))
print("sort(L)              ", tw(lambda: ra.sort(L), sync))
print("unique_counts(L)     ", tw(lambda: ra.unique_counts(L), sync), "| torch", tw(lambda: torch.unique(tL, sorted=True, return_counts=True), ts))
def trace(name, fn, s, reps=3):
    for _ in range(3): fn()
    s(); torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn(); s()
    path = tempfile.mktemp(suffix=".json")
    prof.export_chrome_trace(path)
    ev = json.load(open(path))["traceEvents"]; os.unlink(path)
    cats = sorted({str(e.get("cat")) for e in ev if "ts" in e})
    ks = sorted([e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver")
                 and "ts" in e], key=lambda e: float(e["ts"]))
    gpu = [e for e in ks if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    per = len(gpu) // reps
    start = float(gpu[-per]["ts"]) if per else float(ks[0]["ts"])
    api = [e for e in ks if e.get("cat") in ("cuda_runtime", "cuda_driver")]
    # the last call's host records: from the first API record after the previous call's last kernel
    prev_end = float(gpu[-per - 1]["ts"]) + float(gpu[-per - 1]["dur"]) if len(gpu) > per else 0
    t0 = min([float(e["ts"]) for e in api if float(e["ts"]) > prev_end] + [start])
    print(f"== {name}: categories {cats}")
    for e in ks:
        if float(e["ts"]) >= t0:
            print(f"  {float(e['ts']) - t0:8.1f} {e.get('cat'):12s} {e['name'][:40]:40s} dur {float(e['dur']):6.1f}")
trace("sort(L)", lambda: ra.sort(L), sync)
trace("unique_counts(L)", lambda: ra.unique_counts(L), sync)
trace("sort flat f32", lambda: ra.sort(flat), sync)
trace("torch unique", lambda: torch.unique(tL, sorted=True, return_counts=True), ts)
