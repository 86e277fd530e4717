"""Stop 75: where a lone GPU gather's wall time goes beside PyTorch's (take, take_along_axis,
x[idx] = v; the benchmark's sizes), with the host's driver calls; the lowest-ratio sorts."""
import json, os, statistics, sys, tempfile, time
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
import torch
from torch.profiler import profile, ProfilerActivity
dev = ra.Device("cuda:0")
rng = np.random.default_rng(0)
n, k = 1 << 24, 1 << 22
xh = rng.standard_normal(n).astype(np.float32); ih = rng.integers(0, n, k); wh = rng.standard_normal(k).astype(np.float32)
rows_h = xh.reshape(-1, 1024); ridx_h = rng.integers(0, 1024, rows_h.shape)
X, I, W, R, RI = (ra.asarray(a, device=dev) for a in (xh, ih, wh, rows_h, ridx_h))
tX, tI, tW, tR, tRI = (torch.as_tensor(a, device="cuda") for a in (xh, ih, wh, rows_h, ridx_h))
S = ra.asarray(xh.copy(), device=dev); tS = tX.clone()
sync, ts = dev.synchronize, torch.cuda.synchronize
def put(): S[I] = W
def tput(): tS[tI] = tW
ops = {"take": (lambda: ra.take(X, I), lambda: tX.take(tI)),
       "take_along_axis": (lambda: ra.take_along_axis(R, RI, axis=1), lambda: torch.gather(tR, 1, tRI)),
       "x[idx]": (lambda: X[I], lambda: tX[tI]),
       "x[idx] = v": (put, tput)}
for f, g in ops.values(): f(); g()
drain_background()
def tw(fn, s, n=40):
    for _ in range(5): fn()
    s(); w = []; h = []
    for _ in range(n):
        t0 = time.perf_counter(); fn(); t1 = time.perf_counter(); s(); w.append(time.perf_counter() - t0); h.append(t1 - t0)
    return f"wall {statistics.median(w) * 1e6:6.1f} host {statistics.median(h) * 1e6:6.1f}"
for rep in range(2):
    for name, (f, g) in ops.items():
        print(f"{name:16s} ra {tw(f, sync)} | torch {tw(g, ts)}", flush=True)
def trace(name, fn, s, reps=3):
    for _ in range(3): fn()
    s(); torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn(); s()
    path = tempfile.mktemp(suffix=".json")
    prof.export_chrome_trace(path)
    ev = json.load(open(path))["traceEvents"]; os.unlink(path)
    ks = sorted([e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver")
                 and "ts" in e], key=lambda e: float(e["ts"]))
    gpu = [e for e in ks if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    per = len(gpu) // reps
    api = [e for e in ks if e.get("cat") in ("cuda_runtime", "cuda_driver")]
    prev_end = float(gpu[-per - 1]["ts"]) + float(gpu[-per - 1]["dur"]) if len(gpu) > per else 0
    t0 = min([float(e["ts"]) for e in api if float(e["ts"]) > prev_end] + [float(gpu[-per]["ts"])])
    print(f"== {name}")
    for e in ks:
        if float(e["ts"]) >= t0:
            print(f"  {float(e['ts']) - t0:8.1f} {e.get('cat'):12s} {e['name'][:40]:40s} dur {float(e['dur']):6.1f}")
for name, (f, g) in ops.items():
    trace("ra " + name, f, sync); trace("torch " + name, g, ts)
