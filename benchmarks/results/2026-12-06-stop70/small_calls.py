"""Warm calls of the primitives on 1,000 host elements beside NumPy: best of 5 loops, us a call."""
import time, numpy as np, rocarray as ra
rng = np.random.default_rng(0)
def t(f, k=3000):
    for _ in range(50): f()
    ts=[]
    for _ in range(5):
        s=time.perf_counter()
        for _ in range(k): f()
        ts.append((time.perf_counter()-s)/k)
    return min(ts)*1e6
n = 1000
h = rng.standard_normal(n).astype("float32"); a = ra.asarray(h)
m = h > 0; am = ra.asarray(m)
idx = rng.integers(0, n, 200); aidx = ra.asarray(idx)
hi = rng.integers(0, 50, n); ai = ra.asarray(hi)
srt = np.sort(h); asrt = ra.asarray(srt); q = rng.standard_normal(100).astype("float32"); aq = ra.asarray(q)
cases = {
 "x[m]": (lambda: h[m], lambda: a[am]),
 "x[x>0]": (lambda: h[h > 0], lambda: a[a > 0]),
 "nonzero": (lambda: np.nonzero(m), lambda: ra.nonzero(am)),
 "cumsum": (lambda: np.cumsum(h), lambda: ra.cumulative_sum(a)),
 "take": (lambda: np.take(h, idx), lambda: ra.take(a, aidx)),
 "x[idx]": (lambda: h[idx], lambda: a[aidx]),
 "unique_values": (lambda: np.unique(hi), lambda: ra.unique_values(ai)),
 "unique_counts": (lambda: np.unique(hi, return_counts=True), lambda: ra.unique_counts(ai)),
 "searchsorted": (lambda: np.searchsorted(srt, q), lambda: ra.searchsorted(asrt, aq)),
 "concat": (lambda: np.concatenate([h, h]), lambda: ra.concat([a, a])),
 "x+y": (lambda: h + h, lambda: a + a),
 "sum": (lambda: h.sum(), lambda: ra.sum(a)),
 "x[m]=v": (lambda: h.__setitem__(m, 1.0), lambda: a.__setitem__(am, 1.0)),
}
for k, (fn, fr) in cases.items():
    tn, tr = t(fn), t(fr)
    print(f"{k:15s} numpy {tn:6.2f} us  rocarray {tr:6.2f} us  ratio {tn/tr:.2f}")
