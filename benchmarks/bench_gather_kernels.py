"""GPU kernel times of gathers, transposed copies, searchsorted and isin: rocarray's kernels
(rocarray/compiler/gather_gpu.py) beside PyTorch's and CuPy's for the same op, as the
torch profiler sees them (CUPTI sees every kernel of the process), with synchronised wall
times (best of 10); then the gather and search kernels' time for 1, 2, 4 and 8 items per
thread.

    python benchmarks/bench_gather_kernels.py           # on cuda:0, beside torch and cupy

``MEASURE_DEVICE=cpu MEASURE_SCALE=6`` runs rocarray alone on smaller data (a check that
the script runs; no kernel times).  Sizes: 2^24 elements, take with 2^22 int64 indices,
take_along_axis on 16384x1024 rows, transposes of 4096x4096, searchsorted of 2^20
queries into a sorted 2^24 array, isin of 2^24 values in 65536."""
import json, os, sys, time, tempfile, traceback
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_elementwise import machine  # noqa: E402  (sets the cache env)

import rocarray as ra  # noqa: E402
from rocarray.compiler.cache import drain_background  # noqa: E402

DEVICE = os.environ.get("MEASURE_DEVICE", "cuda:0")
SCALE = int(os.environ.get("MEASURE_SCALE", "0"))  # (a local check: sizes divided by 2**SCALE)
dev = ra.asarray([1.0], device=DEVICE).device
print("\n".join(["## rocarray GPU gather, transpose and search kernels", ""] + machine(dev) + [""]), flush=True)
try:
    import torch
    import cupy as cp
    from torch.profiler import profile, ProfilerActivity
    PEERS = True
except ImportError:
    PEERS = False

def sync_all():
    dev.synchronize()
    if PEERS:
        torch.cuda.synchronize(); cp.cuda.Device(0).synchronize()

def kernels(fn, reps=5):
    if not PEERS:
        fn(); return {}
    for _ in range(3):
        fn()
    sync_all(); drain_background()
    with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        for _ in range(reps):
            fn()
        sync_all()
    path = tempfile.mktemp(suffix=".json")
    prof.export_chrome_trace(path)
    ev = json.load(open(path))["traceEvents"]
    os.unlink(path)
    ks = {}
    for e in ev:
        if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            k = ks.setdefault(e["name"][:60], [0, 0.0])
            k[0] += 1; k[1] += e["dur"]
    return {n: (c / reps, d / reps) for n, (c, d) in ks.items()}

def wall(fn, n=10):
    best = 1e9
    for _ in range(3): fn()
    sync_all()
    for _ in range(n):
        t0 = time.perf_counter(); fn(); sync_all(); best = min(best, time.perf_counter() - t0)
    return best * 1e6

def row(label, fns, nbytes):
    out = []
    for lib, fn in fns.items():
        if lib != "rocarray" and not PEERS:
            continue
        try:
            ks = kernels(fn)
            tot = sum(d for _, d in ks.values())
            w = wall(fn)
            top = "; ".join(f"{c:.0f}x {d:.1f} {n}" for n, (c, d) in sorted(ks.items(), key=lambda kv: -kv[1][1])[:4])
            bw = nbytes / (tot * 1e-6) / 1e12 if tot else 0
            out.append(f"  {lib:8s} kernels {tot:8.1f} us ({bw:4.2f} TB/s)  wall {w:8.1f} us   [{top}]")
        except Exception as e:
            out.append(f"  {lib:8s} ERROR {e!r}"); traceback.print_exc()
    print(f"== {label}\n" + "\n".join(out), flush=True)

rng = np.random.default_rng(0)
N = 1 << (24 - SCALE)
Q, T, R = 1 << (22 - SCALE), 1 << (20 - SCALE), 1 << (14 - SCALE)
# copy bandwidth reference
xc = ra.asarray(rng.standard_normal(N).astype(np.float32), device=dev)
tc = torch.from_numpy(rng.standard_normal(N).astype(np.float32)).cuda() if PEERS else None
row("copy 2^24 float32 (reference)", {"rocarray": lambda: ra.asarray(xc, copy=True), "torch": lambda: tc.clone()} if PEERS else {"rocarray": lambda: ra.asarray(xc, copy=True)}, 8 * N)

for dt in (np.float32, np.int64):
    name = np.dtype(dt).name
    h = (rng.standard_normal(N) * 1000).astype(dt)
    hi = rng.integers(0, N, Q)
    x, i = ra.asarray(h, device=dev), ra.asarray(hi, device=dev)
    tx, ti = (torch.from_numpy(h).cuda(), torch.from_numpy(hi).cuda()) if PEERS else (None, None)
    cx, ci = (cp.asarray(h), cp.asarray(hi)) if PEERS else (None, None)
    assert np.array_equal(ra.take(x, i).get(), h[hi])
    isz = np.dtype(dt).itemsize
    row(f"take {name} (2^24, 2^22 int64 indices)", {"rocarray": lambda: ra.take(x, i), "torch": lambda: torch.take(tx, ti),
        "cupy": lambda: cp.take(cx, ci)}, Q * (8 + 2 * isz))
    h2 = h.reshape(R, 1024)
    hi2 = rng.integers(0, 1024, (R, 1024))
    x2, i2 = ra.asarray(h2, device=dev), ra.asarray(hi2, device=dev)
    tx2, ti2 = (torch.from_numpy(h2).cuda(), torch.from_numpy(hi2).cuda()) if PEERS else (None, None)
    cx2, ci2 = (cp.asarray(h2), cp.asarray(hi2)) if PEERS else (None, None)
    assert np.array_equal(ra.take_along_axis(x2, i2, axis=-1).get(), np.take_along_axis(h2, hi2, axis=-1))
    row(f"take_along_axis {name} (16384x1024, int64)", {"rocarray": lambda: ra.take_along_axis(x2, i2, axis=-1),
        "torch": lambda: torch.gather(tx2, 1, ti2), "cupy": lambda: cp.take_along_axis(cx2, ci2, axis=-1)},
        N * (8 + 2 * isz))
    h3 = h.reshape(1 << (12 - SCALE // 2), -1)
    x3 = ra.asarray(h3, device=dev)
    tx3, cx3 = (torch.from_numpy(h3).cuda(), cp.asarray(h3)) if PEERS else (None, None)
    assert np.array_equal(x3.T.copy().get(), h3.T)
    row(f"transpose copy {name} 4096^2", {"rocarray": lambda: x3.T.copy(), "torch": lambda: tx3.T.contiguous(),
        "cupy": lambda: cp.ascontiguousarray(cx3.T)}, 2 * N * isz)
    del x, i, tx, ti, cx, ci, x2, i2, tx2, ti2, cx2, ci2, x3, tx3, cx3

for dt in (np.float32, np.int64):
    name = np.dtype(dt).name
    s = np.sort((rng.standard_normal(N) * 1e6).astype(dt))
    q = (rng.standard_normal(T) * 1e6).astype(dt)
    rs, rq = ra.asarray(s, device=dev), ra.asarray(q, device=dev)
    ts, tq = (torch.from_numpy(s).cuda(), torch.from_numpy(q).cuda()) if PEERS else (None, None)
    cs, cq = (cp.asarray(s), cp.asarray(q)) if PEERS else (None, None)
    assert np.array_equal(ra.searchsorted(rs, rq).get(), np.searchsorted(s, q))
    assert np.array_equal(ra.searchsorted(rs, rq, side="right").get(), np.searchsorted(s, q, side="right"))
    row(f"searchsorted {name} (2^20 queries, 2^24 sorted)", {"rocarray": lambda: ra.searchsorted(rs, rq),
        "torch": lambda: torch.searchsorted(ts, tq), "cupy": lambda: cp.searchsorted(cs, cq)}, 0)
    del rs, rq, ts, tq, cs, cq

h = rng.integers(0, 1 << 20, N).astype(np.float32)
t = rng.integers(0, 1 << 20, 65536 >> SCALE).astype(np.float32)
x, tt = ra.asarray(h, device=dev), ra.asarray(t, device=dev)
assert np.array_equal(ra.isin(x, tt).get(), np.isin(h, t))
tx, ttt = (torch.from_numpy(h).cuda(), torch.from_numpy(t).cuda()) if PEERS else (None, None)
cx, ct = (cp.asarray(h), cp.asarray(t)) if PEERS else (None, None)
row("isin float32 (2^24 in 65536)", {"rocarray": lambda: ra.isin(x, tt), "torch": lambda: torch.isin(tx, ttt),
    "cupy": lambda: cp.isin(cx, ct)}, 0)

# items per thread of the gather and search kernels (a module constant, part of their key)
if PEERS:
    from rocarray.compiler import gather_gpu as G
    h = (rng.standard_normal(N)).astype(np.float32)
    hi = rng.integers(0, N, Q)
    x, i = ra.asarray(h, device=dev), ra.asarray(hi, device=dev)
    h2, hi2 = h.reshape(R, 1024), rng.integers(0, 1024, (R, 1024))
    x2, i2 = ra.asarray(h2, device=dev), ra.asarray(hi2, device=dev)
    s = np.sort(h)
    rs, rq = ra.asarray(s, device=dev), ra.asarray(h[:T].copy(), device=dev)
    for items in (1, 2, 4, 8):
        G.ITEMS = items
        res = []
        for label, fn in (("take", lambda: ra.take(x, i)), ("take_along", lambda: ra.take_along_axis(x2, i2, axis=-1)),
                          ("searchsorted", lambda: ra.searchsorted(rs, rq))):
            ks = kernels(fn)
            res.append(f"{label} {sum(d for n, (c, d) in ks.items() if n.startswith('rk_')):.1f}")
        assert np.array_equal(ra.searchsorted(rs, rq).get(), np.searchsorted(s, h[:T]))
        print(f"ITEMS={items}: " + ", ".join(res) + " us (rocarray kernels)", flush=True)
    G.ITEMS = 4
