"""Stop 73: where unique_counts (and the ranking program's other steps) spend their time on
cuda:0: host time by stage, and CUPTI timelines of one call, rocarray beside torch."""
import json, os, statistics, tempfile, time
import numpy as np
import rocarray as ra
import rocarray._radix as RX, rocarray._radix_gpu as RG, rocarray._set_functions as SF, rocarray._masks as MK
import torch
from torch.profiler import profile, ProfilerActivity
dev = ra.Device("cuda:0")
rng = np.random.default_rng(0)
scores_h = rng.standard_normal((1000, 256)).astype(np.float32)
labels_h = rng.integers(0, 5000, 200_000)
S, L = ra.asarray(scores_h, device=dev), ra.asarray(labels_h, device=dev)
tS, tL = torch.as_tensor(scores_h, device="cuda"), torch.as_tensor(labels_h, device="cuda")
vals, cnts = ra.unique_counts(L); ids = ra.searchsorted(vals, L)
order = ra.argsort(S, axis=1, descending=True, stable=True)
tv, tc = torch.unique(tL, sorted=True, return_counts=True); tids = torch.searchsorted(tv, tL)
torder = torch.argsort(tS, dim=1, descending=True, stable=True)
sync = dev.synchronize
# host time by stage
stages = {}
def wrap(mod, name, label):
    f = getattr(mod, name)
    def g(*a, **k):
        t0 = time.perf_counter(); r = f(*a, **k); stages.setdefault(label, []).append(time.perf_counter() - t0); return r
    setattr(mod, name, g)
wrap(RG, "key_extremes", "key_extremes (reduce + read-back)")
wrap(RX, "gpu_radix_sort", "gpu_radix_sort (whole)")
wrap(SF, "gpu_runs", "gpu_runs (3 entries + count read-back + cuts)")
wrap(SF, "_counts", "_counts (2 subtracts)")
wrap(SF, "sort", "sort (whole, incl. key_extremes)")
for _ in range(10): ra.unique_counts(L)
sync(); stages.clear(); tot = []
for _ in range(40):
    t0 = time.perf_counter(); ra.unique_counts(L); t1 = time.perf_counter(); sync(); tot.append((t1 - t0, time.perf_counter() - t0))
print("unique_counts host", round(statistics.median(a for a, b in tot) * 1e6, 1), "wall", round(statistics.median(b for a, b in tot) * 1e6, 1))
for k, v in stages.items():
    print(f"  {k:50s} median {statistics.median(v) * 1e6:7.1f} us  (calls {len(v)})")
def tw(fn, s, n=40):
    for _ in range(5): fn()
    s(); w = []
    for _ in range(n):
        t0 = time.perf_counter(); fn(); s(); w.append(time.perf_counter() - t0)
    return statistics.median(w) * 1e6
print("ra.sort(L) wall", round(tw(lambda: ra.sort(L), sync), 1), "torch.sort(tL)", round(tw(lambda: torch.sort(tL), torch.cuda.synchronize), 1))
print("ra key_extremes(L) wall", round(tw(lambda: RG.key_extremes(L), sync), 1))
print("ra.max(L) .get wall", round(tw(lambda: ra.max(L).get(), sync), 1), "torch max item", round(tw(lambda: tL.max().item(), torch.cuda.synchronize), 1))
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
import cProfile, pstats, io
for name, fn in (("sort flat", lambda: ra.sort(ra.reshape(S, (-1,)))), ("unique_counts", lambda: ra.unique_counts(L))):
    for _ in range(10): fn()
    sync(); pr = cProfile.Profile(); pr.enable()
    for _ in range(100):
        fn(); sync()
    pr.disable(); out = io.StringIO(); pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(14)
    print(f"== cProfile of 100 {name} calls, each then synchronised"); print(out.getvalue()[:5000], flush=True)
ts = torch.cuda.synchronize
for name, a, b in [
    ("unique_counts", lambda: ra.unique_counts(L), lambda: torch.unique(tL, sorted=True, return_counts=True)),
    ("sort flat", lambda: ra.sort(ra.reshape(S, (-1,))), lambda: torch.sort(tS.reshape(-1)).values),
    ("argsort rows desc", lambda: ra.argsort(S, axis=1, descending=True, stable=True), lambda: torch.argsort(tS, dim=1, descending=True, stable=True)),
    ("take_along_axis top", lambda: ra.take_along_axis(S, order[:, :10], axis=1), lambda: torch.gather(tS, 1, torder[:, :10])),
    ("take counts", lambda: ra.take(cnts, ids), lambda: tc[tids]),
]:
    print(f"timeline {name} ra    {timeline(a, sync)}", flush=True)
    print(f"timeline {name} torch {timeline(b, ts)}", flush=True)

# variant for the next design: the int64 sort with no key-range read-back (all 8 passes)
orig_ke = RG.key_extremes
def full_range(keys):
    return 0, (1 << (8 * keys.dtype.itemsize)) - 1
for label, ke in (("with key_extremes", orig_ke), ("all passes, no read-back", full_range)):
    RG.key_extremes = ke
    ref_v, ref_c = np.unique(labels_h, return_counts=True)
    v, c = ra.unique_counts(L)
    assert np.array_equal(ra.asnumpy(v), ref_v) and np.array_equal(ra.asnumpy(c), ref_c), label
    print(f"unique_counts {label}: wall {tw(lambda: ra.unique_counts(L), sync):.1f} us; "
          f"sort(L) {tw(lambda: ra.sort(L), sync):.1f} us", flush=True)
    print(f"timeline unique_counts {label} {timeline(lambda: ra.unique_counts(L), sync)}", flush=True)
RG.key_extremes = orig_ke
