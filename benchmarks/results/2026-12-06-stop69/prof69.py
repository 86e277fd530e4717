"""Per-op GPU timeline: wall (sync), host enqueue, CUPTI kernels with gaps."""
import json, os, sys, tempfile, time
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
import torch  # (its profiler: CUPTI)
from torch.profiler import profile, ProfilerActivity

dev = ra.asarray([1.0], device="cuda:0").device
N = 1 << 24
rng = np.random.default_rng(1)

def sync():
    dev.synchronize(); torch.cuda.synchronize()

def timeline(fn, reps=3):
    for _ in range(3): fn()
    sync(); drain_background()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn(); sync()
    path = tempfile.mktemp(suffix=".json")
    prof.export_chrome_trace(path)
    ev = json.load(open(path))["traceEvents"]; os.unlink(path)
    ks = sorted([e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")], key=lambda e: e["ts"])
    # split into calls: the last third
    per = len(ks) // reps
    ks = ks[-per:] if per else ks
    if not ks: return "no kernels"
    t0 = ks[0]["ts"]; out = []; prev = t0
    for e in ks:
        out.append(f"+{e['ts']-t0:7.1f} gap {e['ts']-prev:6.1f} dur {e['dur']:7.1f} {e['name'][:50]}")
        prev = e["ts"] + e["dur"]
    span = ks[-1]["ts"] + ks[-1]["dur"] - t0
    busy = sum(e["dur"] for e in ks)
    return f"span {span:.1f} busy {busy:.1f}\n      " + "\n      ".join(out)

def wall(fn, n=15):
    for _ in range(3): fn()
    sync(); best = 1e9; enq = 1e9
    for _ in range(n):
        t0 = time.perf_counter(); r = fn(); t1 = time.perf_counter(); sync(); t2 = time.perf_counter()
        best = min(best, t2 - t0); enq = min(enq, t1 - t0); del r
    return best * 1e6, enq * 1e6

ONLY = [o for o in os.environ.get("PROF_OPS", "").split(",") if o]


def row(name, fns):
    if ONLY and not any(o in name for o in ONLY):
        return
    for lib, fn in fns.items():
        try:
            w, e = wall(fn)
            print(f"{name:28s} {lib:6s} wall {w:7.1f} us  enqueue {e:6.1f} us  {timeline(fn)}", flush=True)
        except Exception as ex:
            print(f"{name:28s} {lib:6s} ERROR {type(ex).__name__}: {ex}", flush=True)


for dt in ("float32", "int64"):
    xn = (rng.standard_normal(N) * 100).astype(dt)
    x = ra.asarray(xn, device=dev)
    m = x > 0
    k = int((xn > 0).sum())
    z = ra.asarray(xn, device=dev)
    vals = ra.asarray(np.abs(xn[:k]) + 1, device=dev)
    srt = ra.sort(ra.asarray(rng.integers(0, N // 4, N).astype(dt), device=dev))
    print(f"### {dt}", flush=True)
    row("x[m] " + dt, {"ra": lambda: x[m]})
    row("x[x>0] " + dt, {"ra": lambda: x[x > 0]})
    row("nonzero(m) " + dt, {"ra": lambda: ra.nonzero(m)})

    def place():
        z[m] = vals
    row("z[m]=vals " + dt, {"ra": place})
    row("unique_counts(sorted) " + dt, {"ra": lambda: ra.unique_counts(srt)})
