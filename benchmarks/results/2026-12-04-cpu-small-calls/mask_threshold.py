"""x[x > 0] and nonzero(x > 0) of n float32 on the host: the one-pass kernel (``select``,
``flat_true``) against the scan / chunk-count paths called directly, in one process."""
import sys, time, numpy as np, rocarray as ra
from rocarray import _advanced_indexing as A
from rocarray._array_object import Array
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
def best(f, r):
    for _ in range(20): f()
    drain_background()
    for _ in range(20): f()
    b = 1e9
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(r): f()
        b = min(b, (time.perf_counter() - t0) / r)
    return b * 1e6
def scan_select(x, mask):
    m, pos, count = A._positions(mask)
    out = Array._empty((count + 1,), x.dtype, x.device)
    A._select_host(x, m, pos, count, out)
    return out[:count]
for n in [int(v) for v in sys.argv[1:]] or (256, 4096, 65536, 262143):
    a = ra.asarray(rng.standard_normal(n).astype(np.float32))
    m = a > 0
    assert (scan_select(a, m).get() == a[m].get()).all() and (A._flat_true_host(m).get() == ra.nonzero(m)[0].get()).all()
    r = max(20, 400000 // n)
    res = [(best(lambda: scan_select(a, m), r), best(lambda: A._flat_true_host(m), r),
            best(lambda: a[m], r), best(lambda: ra.nonzero(m), r)) for _ in range(2)]
    print(n, "scan/counts: x[m] %.1f nonzero %.1f us; one pass: x[m] %.1f nonzero %.1f us" % tuple(
        min(r_[k] for r_ in res) for k in range(4)))
