"""The search kernel's variants: nvJitLink's level for the search module (argv[1]) and the
sorted array's loads through the read-only path or not (argv[2] 'nc' / 'plain'); two
geometries beside PyTorch and CuPy."""
import time, sys, os, tempfile
os.environ["ROCARRAY_CACHE_DIR"] = tempfile.mkdtemp()
LEVEL, NC = int(sys.argv[1]), sys.argv[2] == "nc"
import numpy as np, rocarray as ra, torch, cupy as cp
from rocarray.targets import nvptx as NV
from rocarray.compiler import gather_gpu as G
orig = NV.NVPTXTarget._nvjitlink_cubin
def patched(self, data):
    if b"search" not in data:
        return orig(self, data)
    nvj = NV._nvjitlink()
    h = nvj.create(2, [f"-arch={self.name}", f"-O{LEVEL}"])
    try:
        nvj.add_data(h, nvj.InputType.PTX, data, len(data), "rocarray"); nvj.complete(h)
        cub = bytearray(nvj.get_linked_cubin_size(h)); nvj.get_linked_cubin(h, cub)
    finally:
        nvj.destroy(h)
    return bytes(cub)
NV.NVPTXTarget._nvjitlink_cubin = patched
if not NC:
    ol = G._Builder.load
    def load(self, base, index, ty, align, read_only=False):
        return ol(self, base, index, ty, align, False)
    G._Builder.load = load
rng = np.random.default_rng(0)
def best(f, sync, n=15):
    for _ in range(3): f()
    sync(); ts = []
    for _ in range(n):
        t0 = time.perf_counter(); f(); sync(); ts.append(time.perf_counter() - t0)
    return min(ts) * 1e3
for nq, na in ((1 << 20, 1 << 24), (1 << 24, 1 << 20), (1 << 24, 1 << 16)):
    A = np.sort(rng.standard_normal(na).astype(np.float32)); Q = rng.standard_normal(nq).astype(np.float32)
    a, q = ra.asarray(A, device="cuda:0"), ra.asarray(Q, device="cuda:0"); d = a.device
    ta, tq = torch.as_tensor(A, device="cuda"), torch.as_tensor(Q, device="cuda")
    ca, cq = cp.asarray(A), cp.asarray(Q)
    assert (ra.searchsorted(a, q).get() == np.searchsorted(A, Q)).all()
    r = best(lambda: ra.searchsorted(a, q), d.synchronize)
    t = best(lambda: torch.searchsorted(ta, tq), torch.cuda.synchronize)
    c = best(lambda: cp.searchsorted(ca, cq), cp.cuda.Device().synchronize)
    i = best(lambda: ra.isin(q, a), d.synchronize) if na <= 1 << 16 else float("nan")
    ci = best(lambda: cp.isin(cq, ca), cp.cuda.Device().synchronize) if na <= 1 << 16 else float("nan")
    print(f"O{LEVEL} {'nc   ' if NC else 'plain'} {nq:>9} queries in {na:>9}: ra {r:.3f} torch {t:.3f} cupy {c:.3f} ms   isin ra {i:.3f} cupy {ci:.3f}", flush=True)
