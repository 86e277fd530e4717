"""cumulative_sum of one 2^24 line (the tree on PYTHONPATH): per call of 200 queued then one
sync (median of 5), beside PyTorch and a copy; CHAIN_STEPS / CHAIN_BLOCKS as the tree has them."""
import sys, time
import numpy as np
import rocarray as ra
from rocarray import _reduction
from rocarray.compiler import reduction_chain as rc
from rocarray.compiler.cache import drain_background
import torch
dev = ra.Device("cuda:0")
tag = sys.argv[1]

def t_queue(f, sync, r=200):
    f(); sync(); b = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(r):
            f()
        sync(); b.append((time.perf_counter() - t0) / r)
    return np.median(b) * 1e6

rng = np.random.default_rng(0)
n = 1 << 24
for dt, odt in (("float32", None), ("int64", None)):
    h = rng.integers(-1000, 1000, n).astype(dt)
    x = ra.asarray(h, device=dev)
    f = (lambda: ra.cumulative_sum(x)) if odt is None else (lambda: ra.cumulative_sum(x, dtype=ra.int64))
    for _ in range(3):
        f(); dev.synchronize(); drain_background()
    assert any(p.chained is not None for p in _reduction._scan_plans.values())
    want = np.cumsum(h, dtype=odt or None)
    got = f().get()
    ok = np.array_equal(got, want)
    tx = torch.as_tensor(h, device="cuda")
    ts = torch.cuda.synchronize
    ra_q = t_queue(f, dev.synchronize)
    cp_q = t_queue(lambda: x.copy(), dev.synchronize)
    to_q = t_queue(lambda: tx.cumsum(0) if odt is None else tx.cumsum(0, dtype=torch.int64), ts)
    outb = np.dtype(odt or dt).itemsize
    frac = n * (np.dtype(dt).itemsize + outb) / (ra_q * 1e-6) / (n * 2 * np.dtype(dt).itemsize / (cp_q * 1e-6))
    print(f"{tag} steps={rc.CHAIN_STEPS} blocks={rc.CHAIN_BLOCKS} {dt}->{odt or dt} exact={ok} ra_q={ra_q:.1f}us "
          f"copy_q={cp_q:.1f}us torch_q={to_q:.1f}us fraction={frac:.3f}", flush=True)
