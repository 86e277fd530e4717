"""nvJitLink's -O level for the hand-built modules: first-call cost of the ranking steps
and single ops, and the warm kernels' times, at the level given (argv[1])."""
import time, sys, os, tempfile
os.environ["ROCARRAY_CACHE_DIR"] = tempfile.mkdtemp()
LEVEL = int(sys.argv[1])
import numpy as np, rocarray as ra
from rocarray.targets import nvptx as NV
from rocarray.compiler.cache import drain_background
orig = NV.NVPTXTarget._nvjitlink_cubin
acc = {"n": 0, "ms": 0.0}
def patched(self, data):
    nvj = NV._nvjitlink()
    t0 = time.perf_counter()
    h = nvj.create(2, [f"-arch={self.name}", f"-O{LEVEL}"])
    try:
        nvj.add_data(h, nvj.InputType.PTX, data, len(data), "rocarray"); nvj.complete(h)
        cub = bytearray(nvj.get_linked_cubin_size(h)); nvj.get_linked_cubin(h, cub)
    finally:
        nvj.destroy(h)
    acc["n"] += 1; acc["ms"] += (time.perf_counter() - t0) * 1e3
    return bytes(cub)
NV.NVPTXTarget._nvjitlink_cubin = patched
rng = np.random.default_rng(0)
dev = "cuda:0"
xf = rng.standard_normal(1 << 24).astype(np.float32)
a = ra.asarray(xf, device=dev); d = a.device
rows = a.reshape(-1, 1024)
rid = ra.asarray(rng.integers(0, 1024, (1 << 14, 1024)), device=dev)
xi = ra.asarray(rng.integers(0, 1 << 40, 1 << 24), device=dev)
q = ra.asarray(np.sort(rng.standard_normal(1 << 20).astype(np.float32)), device=dev)
d.synchronize(); drain_background()
ops = [("sort f32", lambda: ra.sort(a)), ("argsort f32", lambda: ra.argsort(a)), ("sort rows", lambda: ra.sort(rows, axis=1)),
       ("sort i64", lambda: ra.sort(xi)), ("unique_counts f32", lambda: ra.unique_counts(a)),
       ("mask", lambda: a[a > 0]), ("take_along_axis", lambda: ra.take_along_axis(rows, rid, axis=1)),
       ("searchsorted", lambda: ra.searchsorted(q, a)), ("concat", lambda: ra.concat([a, a]))]
for name, f in ops:
    acc["n"] = 0; acc["ms"] = 0.0
    t0 = time.perf_counter(); f(); d.synchronize(); first = (time.perf_counter() - t0) * 1e3
    n, ms = acc["n"], acc["ms"]
    drain_background()
    for _ in range(3): f()
    d.synchronize()
    ts = []
    for _ in range(10):
        t0 = time.perf_counter(); f(); d.synchronize(); ts.append(time.perf_counter() - t0)
    print(f"O{LEVEL} {name:18s} first {first:8.1f} ms (nvJitLink {n} x, {ms:6.1f} ms)   warm best {min(ts)*1e3:7.3f} ms", flush=True)
