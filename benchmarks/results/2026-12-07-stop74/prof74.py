"""Stop 74: key_extremes through the extremes module (mapped words) on cuda:0: unique_counts,
sort of int64 labels and key_extremes, wall and host, beside torch; timelines."""
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
tL = torch.as_tensor(labels_h, device="cuda")
sync, ts = dev.synchronize, torch.cuda.synchronize
t0 = time.perf_counter(); RG.key_extremes(L); t1 = time.perf_counter(); drain_background(); t2 = time.perf_counter()
print(f"first key_extremes {1e3*(t1-t0):.1f} ms (reduction), module compile waited {1e3*(t2-t1):.1f} ms")
ref = (int(labels_h.min()) + (1 << 63), int(labels_h.max()) + (1 << 63))
assert RG.key_extremes(L) == ref, (RG.key_extremes(L), ref)
def tw(fn, s, n=60):
    for _ in range(8): fn()
    s(); w = []; h = []
    for _ in range(n):
        t0 = time.perf_counter(); fn(); t1 = time.perf_counter(); s(); w.append(time.perf_counter() - t0); h.append(t1 - t0)
    return f"wall {statistics.median(w) * 1e6:6.1f} host {statistics.median(h) * 1e6:6.1f}"
v, c = ra.unique_counts(L); rv, rc = np.unique(labels_h, return_counts=True)
assert np.array_equal(v.get(), rv) and np.array_equal(c.get(), rc)
for rep in range(2):
    print("key_extremes(L)      ", tw(lambda: RG.key_extremes(L), sync))
    print("ra.max(L).get()      ", tw(lambda: ra.max(L).get(), sync), "| torch max item", tw(lambda: tL.max().item(), ts))
    print("ra.sort(L)           ", tw(lambda: ra.sort(L), sync), "| torch", tw(lambda: torch.sort(tL), ts))
    print("ra.unique_counts(L)  ", tw(lambda: ra.unique_counts(L), sync), "| torch", tw(lambda: torch.unique(tL, sorted=True, return_counts=True), ts))
    big = ra.asarray(rng.integers(-2**40, 2**40, 1 << 24), device=dev); tbig = torch.as_tensor(big.get(), device="cuda")
    print("key_extremes 2^24    ", tw(lambda: RG.key_extremes(big), sync, 20))
    print("ra.sort 2^24 int64   ", tw(lambda: ra.sort(big), sync, 10), "| torch", tw(lambda: torch.sort(tbig), ts, 10))
    del big, tbig
def timeline(fn, s, reps=3):
    for _ in range(3): fn()
    s(); torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn(); s()
    path = tempfile.mktemp(suffix=".json")
    prof.export_chrome_trace(path)
    ev = json.load(open(path))["traceEvents"]; os.unlink(path)
    ks = sorted([e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")], key=lambda e: e["ts"])
    per = len(ks) // reps
    ks = ks[-per:] if per else ks
    t0 = ks[0]["ts"]; out = []; prev = t0
    for e in ks:
        out.append(f"gap {e['ts']-prev:5.1f} {e['name'][:28]} {e['dur']:6.1f}")
        prev = e["ts"] + e["dur"]
    return f"span {ks[-1]['ts'] + ks[-1]['dur'] - t0:6.1f} | " + " | ".join(out)
print("timeline unique_counts ra", timeline(lambda: ra.unique_counts(L), sync))
print("timeline sort(L) ra", timeline(lambda: ra.sort(L), sync))
