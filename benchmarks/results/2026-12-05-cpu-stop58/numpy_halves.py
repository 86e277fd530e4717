"""What NumPy's own sort gives on two threads (NumPy only, no rocarray): one 2^22 line
sorted whole, its two halves sorted side by side (no merge: a lower bound of any
split-then-sort), and np.partition at the middle then both halves side by side (a sorted
line).  On a 2-core AVX-512 host this bounds what a sample sort with NumPy's sort per
bucket can reach."""
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

ex = ThreadPoolExecutor(2)
n = 1 << 22


def med(f, k=7):
    ts = []
    for _ in range(k):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return np.median(ts) * 1e3


for dt in ("float32", "int32", "float64", "int64"):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(n).astype(dt) if dt[0] == "f" else rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, n,
                                                                              dtype=dt)

    def halves():
        b = a.copy()
        list(ex.map(lambda s: b[s].sort(), [slice(0, n // 2), slice(n // 2, n)]))

    def partition_then_halves():
        b = np.partition(a, n // 2)
        list(ex.map(lambda s: b[s].sort(), [slice(0, n // 2), slice(n // 2, n)]))

    print(f"{dt}: np.sort {med(lambda: np.sort(a)):.1f} ms, copy {med(lambda: a.copy()):.1f}, "
          f"halves side by side {med(halves):.1f}, np.partition {med(lambda: np.partition(a, n // 2)):.1f}, "
          f"np.partition + halves {med(partition_then_halves):.1f}")
