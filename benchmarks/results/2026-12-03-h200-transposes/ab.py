"""Warm wall time (call + sync) of transposed copies and gathers for the tree on PYTHONPATH,
checked against NumPy first: python ab.py LABEL [peers]."""
import sys, time
import numpy as np
import rocarray as ra
from rocarray.compiler import gather_gpu as G
from rocarray.compiler.cache import drain_background
label = sys.argv[1]
peers = "peers" in sys.argv
rng = np.random.default_rng(0)
dev = ra.Device("cuda:0")
data = {}
for dt in (np.float32, np.int64):
    sq = rng.standard_normal((4096, 4096)).astype(dt) if dt == np.float32 else rng.integers(-1000, 1000, (4096, 4096))
    wide = rng.standard_normal((2048, 8192)).astype(np.float32) if dt == np.float32 else rng.integers(-9, 9, (2048, 8192))
    bat = rng.standard_normal((64, 512, 500)).astype(dt) if dt == np.float32 else rng.integers(-9, 9, (64, 512, 500))
    x = (rng.standard_normal(1 << 24).astype(dt) if dt == np.float32 else rng.integers(-1000, 1000, 1 << 24))
    rows = x.reshape(-1, 1024)
    ridx = rng.integers(0, 1024, rows.shape)
    idx = rng.integers(0, 1 << 24, 1 << 22)
    data[dt] = dict(sq=sq, wide=wide, bat=bat, x=x, rows=rows, ridx=ridx, idx=idx)
cases = {}
for dt, d in data.items():
    n = np.dtype(dt).name
    r = {k: ra.asarray(v, device=dev) for k, v in d.items()}
    cases[f"T {n} 4096^2"] = (lambda r=r: r["sq"].T.copy(), lambda d=d: np.ascontiguousarray(d["sq"].T), 2 * d["sq"].nbytes)
    cases[f"T {n} 2048x8192"] = (lambda r=r: r["wide"].T.copy(), lambda d=d: np.ascontiguousarray(d["wide"].T), 2 * d["wide"].nbytes)
    cases[f"T {n} 64x512x500 (0,2,1)"] = (lambda r=r: ra.permute_dims(r["bat"], (0, 2, 1)).copy(),
                                         lambda d=d: np.ascontiguousarray(d["bat"].transpose(0, 2, 1)), 2 * d["bat"].nbytes)
    cases[f"take_along_axis {n}"] = (lambda r=r: ra.take_along_axis(r["rows"], r["ridx"], axis=1),
                                     lambda d=d: np.take_along_axis(d["rows"], d["ridx"], axis=1),
                                     d["ridx"].nbytes + 2 * d["ridx"].size * d["x"].itemsize)
    cases[f"take {n}"] = (lambda r=r: ra.take(r["x"], r["idx"]), lambda d=d: np.take(d["x"], d["idx"]),
                          d["idx"].nbytes + 2 * d["idx"].size * d["x"].itemsize)
    y = ra.asarray(d["x"][::-1].copy(), device=dev)
    cases[f"concat {n}"] = (lambda r=r, y=y: ra.concat([r["x"], y]), lambda d=d: np.concatenate([d["x"], d["x"][::-1]]), 4 * d["x"].nbytes)
    if peers:
        import cupy, torch
        c = {k: cupy.asarray(v) for k, v in d.items()}
        t = {k: torch.as_tensor(v, device="cuda") for k, v in d.items()}
        cases[f"  cupy T {n} 4096^2"] = (lambda c=c: cupy.ascontiguousarray(c["sq"].T), None, 2 * d["sq"].nbytes)
        cases[f"  torch T {n} 4096^2"] = (lambda t=t: t["sq"].T.contiguous(), None, 2 * d["sq"].nbytes)
        cases[f"  torch take_along_axis {n}"] = (lambda t=t: torch.gather(t["rows"], 1, t["ridx"]), None,
                                                 d["ridx"].nbytes + 2 * d["ridx"].size * d["x"].itemsize)
        cases[f"  torch take {n}"] = (lambda t=t: t["x"].take(t["idx"]), None, d["idx"].nbytes + 2 * d["idx"].size * d["x"].itemsize)
# the copy bandwidth
src, dst = ra.ones(1 << 24, dtype=ra.float32, device=dev), ra.empty(1 << 24, dtype=ra.float32, device=dev)
rt = dev.runtime
copy = lambda: rt.copy_device_to_device(dev.index, dst.data_ptr, src.data_ptr, 4 << 24)
def sync():
    dev.synchronize()
    if peers:
        import torch; torch.cuda.synchronize()
for name, (f, ref, _) in cases.items():
    if ref is not None:
        got = f().get()
        assert np.array_equal(got, ref()), name
for _ in range(3):
    for f, _, _ in cases.values(): f()
drain_background(); sync()
best = {k: 1e9 for k in cases}; bcopy = 1e9
for _ in range(15):
    s = time.perf_counter(); copy(); sync(); bcopy = min(bcopy, time.perf_counter() - s)
    for name, (f, _, _) in cases.items():
        s = time.perf_counter(); f(); sync(); best[name] = min(best[name], time.perf_counter() - s)
bw = 8 * (1 << 24) / bcopy
print(f"[{label}] tile {G.TILE} items {G.ITEMS}; copy {bw/1e9:.0f} GB/s")
pipe = {}
for name, (f, _, _) in cases.items():
    sync(); s = time.perf_counter()
    for _ in range(20): f()
    sync(); pipe[name] = (time.perf_counter() - s) / 20
for name, (_, _, nb) in cases.items():
    print(f"[{label}] {name}: {best[name]*1e6:.1f} us, {nb / best[name] / bw:.2f} of copy; 20 in a row {pipe[name]*1e6:.1f} us each", flush=True)
try:
    from rocarray import _gather_gpu
    from cuda.bindings import driver
    plan = _gather_gpu.gather_plan(dev, 4, np.dtype(np.int64))
    fns = getattr(plan, "functions", None) or (plan.function,)
    for f in fns:
        h = f if not isinstance(f, int) else driver.CUfunction(f)
        print(f"[{label}] gather f32/int64 entry regs", driver.cuFuncGetAttribute(
            driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS, h))
except Exception as e:
    print(f"[{label}] regs: {e!r}")

