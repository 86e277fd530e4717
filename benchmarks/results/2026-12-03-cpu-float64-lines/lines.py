"""Host sort of float64 lines and rows of 16,384-65,537 for the tree on PYTHONPATH, beside
NumPy in the same process: python lines.py LABEL (best of 9 after a warm-up, ms)."""
import sys, time
import numpy as np
import rocarray as ra
from rocarray.compiler.cache import drain_background

label = sys.argv[1]
rng = np.random.default_rng(0)


def best(f, k=9):
    t = 1e9
    for _ in range(k):
        s = time.perf_counter(); f(); t = min(t, time.perf_counter() - s)
    return t * 1e3


for rows in (1, 4, 16):
    for L in (16384, 20000, 32768, 50000, 65536, 65537):
        a = rng.standard_normal((rows, L))
        x = ra.asarray(a)
        for _ in range(3):
            ra.sort(x, axis=-1)
        drain_background()
        assert np.array_equal(ra.sort(x, axis=-1).get(), np.sort(a, axis=-1))
        r, n = best(lambda: ra.sort(x, axis=-1)), best(lambda: np.sort(a, axis=-1))
        print(f"[{label}] sort float64 {rows}x{L}: {r:.3f} ms, numpy {n:.3f} ({n / r:.2f})", flush=True)
a = rng.standard_normal(50000).round(2)
x = ra.asarray(a)
for _ in range(3):
    ra.unique_counts(x)
drain_background()
r, n = best(lambda: ra.unique_counts(x)), best(lambda: np.unique(a, return_counts=True))
print(f"[{label}] unique_counts float64 50,000 (rounded): {r:.3f} ms, numpy {n:.3f} ({n / r:.2f})", flush=True)
