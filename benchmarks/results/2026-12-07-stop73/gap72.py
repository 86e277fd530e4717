"""Stop 72 (copy of gap71.py, lib only): stop 71 experiment: x[m] / nonzero's host gap between the scan and the write.
Variants (monkeypatched, alternated in one process): old; prep (the write's parameter
area packed before the wait, launch_into_new after it); poll (prep + the host polls
the mapped word instead of cuStreamSynchronize)."""
import os, sys, time, statistics
import numpy as np
import rocarray as ra
import rocarray._masks as M
from rocarray._buffer import Buffer
from rocarray._array_object import Array
from rocarray.compiler import compact_gpu
from cuda.bindings import driver as drv

dev = ra.asarray([1.0], device="cuda:0").device
rt = dev.runtime
err, flags = drv.cuCtxGetFlags()
print("ctx flags", flags, "sched", int(flags) & 7, "tree", os.environ.get("TREE"), flush=True)
from rocarray.runtime.gpu import GPURuntime
LIB = GPURuntime.__dict__.get("await_word")


def sync_then_read(self, index, word, unset):
    self.synchronize_current(index)
    return word[0][word[1]]


def use(name):
    if LIB is not None:
        GPURuntime.await_word = LIB if name == "lib" else sync_then_read


VARIANTS = ["lib"]
N = 1 << 24
rng = np.random.default_rng(1)


def sync():
    dev.synchronize()


def wall(fn, n=30):
    for _ in range(3): fn()
    sync(); ts = []
    for _ in range(n):
        t0 = time.perf_counter(); r = fn(); sync(); ts.append(time.perf_counter() - t0); del r
    return min(ts) * 1e6, statistics.median(ts) * 1e6


def queued(fn, calls=20, rounds=5):
    for _ in range(3): fn()
    sync(); best = 1e9
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls): fn()
        sync(); best = min(best, (time.perf_counter() - t0) / calls)
    return best * 1e6


for dt in ("float32", "int64"):
    xn = (rng.standard_normal(N) * 100).astype(dt)
    x = ra.asarray(xn, device=dev)
    m = x > 0
    ref_v = xn[xn > 0]
    ref_i = np.nonzero(xn > 0)[0]
    for name in VARIANTS:
        use(name)
        assert np.array_equal(ra.asnumpy(x[m]), ref_v), name
        assert np.array_equal(ra.asnumpy(ra.nonzero(m)[0]), ref_i), name
        e = ra.asarray(np.zeros(N, dt), device=dev) > 0
        assert x[e].shape == (0,) and ra.nonzero(e)[0].shape == (0,)
        sub = x[::2]
        assert np.array_equal(ra.asnumpy(sub[sub > 0]), xn[::2][xn[::2] > 0])
    k = int((xn > 0).sum())
    z = ra.asarray(xn, device=dev)
    vals = ra.asarray(np.abs(xn[:k]) + 1, device=dev)
    xs = x[: 1 << 16]
    ms = xs > 0

    def place():
        z[m] = vals
    res = {}
    for rep in range(3):
        for name in VARIANTS:
            use(name)
            for op, fn in (("x[m]", lambda: x[m]), ("nonzero", lambda: ra.nonzero(m)),
                           ("x[x>0]", lambda: x[x > 0]), ("x[m]=v", place), ("small", lambda: xs[ms])):
                lo, med = wall(fn)
                q = queued(fn)
                res.setdefault((op, name), []).append((lo, med, q))
    for (op, name), rs in res.items():
        print(f"{dt:8s} {op:8s} {name:5s} " + "  ".join(f"min {a:6.1f} med {b:6.1f} q {c:6.1f}" for a, b, c in rs),
              flush=True)
use('lib')

# timelines (CUPTI through torch's profiler): the gap before the write
import json, tempfile
import torch
from torch.profiler import profile, ProfilerActivity


def timeline(fn, reps=3):
    for _ in range(3): fn()
    sync(); torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn(); sync()
    path = tempfile.mktemp(suffix=".json")
    prof.export_chrome_trace(path)
    ev = json.load(open(path))["traceEvents"]; os.unlink(path)
    ks = sorted([e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")], key=lambda e: e["ts"])
    per = len(ks) // reps
    ks = ks[-per:] if per else ks
    t0 = ks[0]["ts"]; out = []; prev = t0
    for e in ks:
        out.append(f"gap {e['ts']-prev:5.1f} dur {e['dur']:6.1f}")
        prev = e["ts"] + e["dur"]
    return f"span {ks[-1]['ts'] + ks[-1]['dur'] - t0:6.1f} | " + " | ".join(out)


for dt in ("float32", "int64"):
    xn = (rng.standard_normal(N) * 100).astype(dt)
    x = ra.asarray(xn, device=dev)
    m = x > 0
    for name in VARIANTS:
        use(name)
        print(f"timeline {dt} x[m] {name:5s} {timeline(lambda: x[m])}", flush=True)
        print(f"timeline {dt} nonzero {name:5s} {timeline(lambda: ra.nonzero(m))}", flush=True)
        print(f"timeline {dt} x[x>0] {name:5s} {timeline(lambda: x[x > 0])}", flush=True)
use('lib')

