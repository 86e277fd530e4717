"""Single host lines of 2^13..2^18: sorted in one piece (SPLIT_SORT_MIN 2^18) or split
between the threads from 2^13 on, beside NumPy (ratio NumPy's time / rocarray's)."""
import sys, time
import numpy as np
import rocarray as ra
from rocarray import _split_sort
from rocarray.compiler.cache import drain_background
rng = np.random.default_rng(0)
def t(f, r=25):
    f(); drain_background(); f(); b = 1e9
    for _ in range(r):
        t0 = time.perf_counter(); f(); b = min(b, time.perf_counter() - t0)
    return b * 1e3
for dt in sys.argv[1].split(","):
    for L in (1 << 13, 1 << 14, 1 << 15, 1 << 16, 1 << 17, 1 << 18):
        a = (rng.standard_normal(L) * (1e15 if dt == "int64" else 1)).astype(dt)
        x = ra.asarray(a)
        row = []
        for split_min in (1 << 18, 1 << 13):
            _split_sort.SPLIT_SORT_MIN = split_min
            r = t(lambda: ra.sort(x)); p = t(lambda: np.sort(a))
            assert np.array_equal(ra.sort(x).get(), np.sort(a))
            row.append(f"split from 2^{split_min.bit_length() - 1}: {r:.3f} ms ({p / r:.2f}x)")
        print(f"{dt:8s} {L:7d}: numpy {p:.3f} ms; " + "; ".join(row), flush=True)
