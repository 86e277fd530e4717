"""Where the host's one-pass paths pay: ``take`` of n random indices into n float32 with
the bounds check in the gather against the separate check (``thresholds.py take``), and
``x[m]`` / ``nonzero(m)`` of n float32 by the one-item walk against the scan and
chunk-count paths called directly (``thresholds.py masks [n ...]``); in one process.

Run from the repository root with the tree measured on ``PYTHONPATH``."""
import sys
import time

import numpy as np

import rocarray as ra
from rocarray import _advanced_indexing as A
from rocarray._array_object import Array
from rocarray.compiler.cache import drain_background

rng = np.random.default_rng(0)


def best(f, r):
    for _ in range(20):
        f()
    drain_background()
    for _ in range(20):
        f()
    b = 1e9
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(r):
            f()
        b = min(b, (time.perf_counter() - t0) / r)
    return b * 1e6


def take(sizes):
    for n in sizes or (4096, 16384, 65536, 262144):
        a = ra.asarray(rng.standard_normal(n).astype(np.float32))
        idx = ra.asarray(rng.integers(0, n, n))
        r = max(20, 200000 // n)
        A.CHECKED_TAKE_MOST = 0
        sep = best(lambda: ra.take(a, idx), r)
        A.CHECKED_TAKE_MOST = 1 << 30
        fused = best(lambda: ra.take(a, idx), r)
        print(n, "separate check %.1f us, fused %.1f us" % (sep, fused))


def scan_select(x, mask):
    m, pos, count = A._positions(mask)
    out = Array._empty((count + 1,), x.dtype, x.device)
    A._select_host(x, m, pos, count, out)
    return out[:count]


def masks(sizes):
    for n in sizes or (256, 4096, 65536, 262143):
        a = ra.asarray(rng.standard_normal(n).astype(np.float32))
        m = a > 0
        assert (scan_select(a, m).get() == a[m].get()).all()
        assert (A._flat_true_host(m).get() == ra.nonzero(m)[0].get()).all()
        r = max(20, 400000 // n)
        res = [(best(lambda: scan_select(a, m), r), best(lambda: A._flat_true_host(m), r),
                best(lambda: a[m], r), best(lambda: ra.nonzero(m), r)) for _ in range(2)]
        print(n, "scan/counts: x[m] %.1f nonzero %.1f us; one pass: x[m] %.1f nonzero %.1f us" % tuple(
            min(r_[k] for r_ in res) for k in range(4)))


if __name__ == "__main__":
    {"take": take, "masks": masks}[sys.argv[1]]([int(v) for v in sys.argv[2:]])
