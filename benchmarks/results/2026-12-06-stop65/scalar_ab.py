"""Kernels with no vector path (complex, raw) and a few others, the tree on PYTHONPATH:
per call of 100 queued then one sync (best of 5), beside CuPy and PyTorch."""
import sys, time
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background
import cupy as cp, torch
dev = ra.Device("cuda:0")
tag = sys.argv[1]
rs, cs, ts = dev.synchronize, cp.cuda.runtime.deviceSynchronize, torch.cuda.synchronize

def q(f, sync, r=100):
    for _ in range(3):
        f()
    sync(); drain_background(); f(); sync()
    b = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(r):
            f()
        sync(); b.append((time.perf_counter() - t0) / r)
    return min(b) * 1e6

rng = np.random.default_rng(0)
n = 1 << 24
rows = []
for dt in ("complex64", "complex128"):
    m = n if dt == "complex64" else n // 2
    a = (rng.standard_normal(m) + 1j * rng.standard_normal(m)).astype(dt)
    b = (rng.standard_normal(m) + 1j * rng.standard_normal(m)).astype(dt)
    x, y = ra.asarray(a, device=dev), ra.asarray(b, device=dev)
    cx, cy = cp.asarray(a), cp.asarray(b)
    tx, ty = torch.as_tensor(a, device="cuda"), torch.as_tensor(b, device="cuda")
    assert np.allclose((x * y).get(), a * b)
    rows.append((f"{dt} x*y {m}", q(lambda: x * y, rs), q(lambda: cx * cy, cs), q(lambda: tx * ty, ts), 3 * a.nbytes))
    rows.append((f"{dt} exp(x) {m}", q(lambda: ra.exp(x), rs), q(lambda: cp.exp(cx), cs), q(lambda: torch.exp(tx), ts), 2 * a.nbytes))
h = rng.standard_normal(n).astype(np.float32)
idx = rng.integers(0, n, 1 << 22)
sidx = np.sort(idx)
w = rng.standard_normal(1 << 22).astype(np.float32)
x, cx, tx = ra.asarray(h, device=dev), cp.asarray(h), torch.as_tensor(h, device="cuda")
rg = ra.ElementwiseKernel("raw T x, int64 j", "T y", "y = x[j]", "ab_gather")
cg = cp.ElementwiseKernel("raw T x, int64 j", "T y", "y = x[j]", "ab_gather")
rsc = ra.ElementwiseKernel("T v, int64 j", "raw T x", "x[j] = v", "ab_scatter")
csc = cp.ElementwiseKernel("T v, int64 j", "raw T x", "x[j] = v", "ab_scatter")
for name, ix in (("random", idx), ("sorted", sidx)):
    j, cj, tj = ra.asarray(ix, device=dev), cp.asarray(ix), torch.as_tensor(ix, device="cuda")
    rw, cw, tw = ra.asarray(w, device=dev), cp.asarray(w), torch.as_tensor(w, device="cuda")
    assert np.array_equal(rg(x, j).get(), h[ix])
    rows.append((f"gather kernel j {name}", q(lambda: rg(x, j), rs), q(lambda: cg(cx, cj), cs), q(lambda: tx[tj], ts), ix.size * 16))
    s, c2, t2 = x.copy(), cx.copy(), tx.clone()
    rows.append((f"scatter kernel j {name}", q(lambda: rsc(rw, j, s), rs), q(lambda: csc(cw, cj, c2), cs),
                 q(lambda: t2.__setitem__(tj, tw), ts), ix.size * 16))
# strided and transposed views (a float32 kernel's scalar loops; not changed)
rows.append(("float32 x[::2] + 1", q(lambda: x[::2] + 1, rs), q(lambda: cx[::2] + 1, cs), q(lambda: tx[::2] + 1, ts), n // 2 * 8))
sq, csq, tsq = x.reshape(4096, 4096), cx.reshape(4096, 4096), tx.reshape(4096, 4096)
rows.append(("float32 x.T + 1 4096^2", q(lambda: sq.T + 1, rs), q(lambda: csq.T + 1, cs), q(lambda: tsq.T + 1, ts), n * 8))
g = ra.random.default_rng(1)
cg2 = cp.random.default_rng(1)
rows.append(("random float32", q(lambda: g.random(n, dtype=ra.float32), rs), q(lambda: cg2.random(n, dtype=cp.float32), cs),
             q(lambda: torch.rand(n, device="cuda"), ts), n * 4))
rows.append(("standard_normal float64", q(lambda: g.standard_normal(n), rs), q(lambda: cg2.standard_normal(n), cs),
             q(lambda: torch.randn(n, device="cuda", dtype=torch.float64), ts), n * 8))
cpq = q(lambda: x.copy(), rs)
for name, r, c, t, by in rows:
    print(f"{tag} {name:34s} ra={r:8.1f}us cupy={c:8.1f} torch={t:8.1f} ratio_vs_best={min(c, t) / r:5.2f} "
          f"fraction_of_copy={by / r / (n * 8 / cpq):5.2f}", flush=True)
