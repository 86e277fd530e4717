"""NumPy's partition of float64 holding NaNs and infinities writes some -0.0 as +0.0 (seen
with NumPy 2.4.6 on an AVX-512 host, x86-simd-sort): the negative zeros before and after
``ndarray.partition``, for the data of tests/test_split_sort.py's ``_wide`` and variants."""
import numpy as np


def make(seed, inf=True, payload=True, negnan=True):
    rng = np.random.default_rng(seed)
    n = 50_003
    a = rng.standard_normal(n) * 1e6
    pick = rng.choice(n, 400, replace=False)
    a[pick[:60]] = np.nan
    if negnan:
        a[pick[60:90]] = -np.nan
    if payload:
        a[pick[90:100]] = np.frombuffer(np.uint64(0x7FF0_0000_0000_0ABC).tobytes(), np.float64)[0]
    a[pick[100:200]] = -0.0
    a[pick[200:300]] = 0.0
    if inf:
        a[pick[300:320]] = np.inf
        a[pick[320:340]] = -np.inf
    return a


print("numpy", np.__version__)
for kw in ({}, {"inf": False}, {"payload": False}, {"negnan": False}, {"payload": False, "negnan": False}):
    a = make(2, **kw)
    b = a.copy()
    b.partition(a.size // 2)
    print(kw or "all", "negative zeros:", np.signbit(a[a == 0]).sum(), "->", np.signbit(b[b == 0]).sum())
