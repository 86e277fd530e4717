"""Host masks, gathers, searches and scans of 2^22 elements on data of several shapes beside NumPy in one run: median ms of 5."""
import time, sys, numpy as np, rocarray as ra
rng = np.random.default_rng(4)
n = 1 << 22
def t(f, k=5):
    f(); f(); ts=[]
    for _ in range(k):
        t0=time.perf_counter(); f(); ts.append(time.perf_counter()-t0)
    return np.median(ts)*1e3
def row(name, fn, fr):
    tn, tr = t(fn), t(fr)
    flag = "  <==" if tn / tr < 1 else ""
    print(f"{name:45s} numpy {tn:8.2f} rocarray {tr:8.2f} ratio {tn/tr:6.2f}{flag}", flush=True)
for dt in ("float32", "int64"):
    h = rng.standard_normal(n).astype(dt) if dt[0] == "f" else rng.integers(-1000, 1000, n).astype(dt)
    a = ra.asarray(h)
    for share in (0.0, 0.01, 0.5, 0.99, 1.0):
        m = rng.random(n) < share; M = ra.asarray(m)
        row(f"{dt} x[m], {share:.0%} true", lambda: h[m], lambda: a[M])
        row(f"{dt} nonzero, {share:.0%} true", lambda: np.nonzero(m), lambda: ra.nonzero(M))
    s = np.sort(h); S = ra.asarray(s)
    for qname, q in (("random", rng.choice(h, 1 << 20)), ("sorted", np.sort(rng.choice(h, 1 << 20)))):
        Q = ra.asarray(q)
        row(f"{dt} searchsorted {qname} queries", lambda: np.searchsorted(s, q), lambda: ra.searchsorted(S, Q))
    for iname, idx in (("sorted", np.sort(rng.integers(0, n, 1 << 22))), ("arange", np.arange(n)), ("one index", np.zeros(n, np.int64))):
        I = ra.asarray(idx)
        row(f"{dt} take {iname} indices", lambda: np.take(h, idx), lambda: ra.take(a, I))
    for vals in (3, 1 << 16):
        v = rng.choice(h, vals); V = ra.asarray(v)
        row(f"{dt} isin {vals} values", lambda: np.isin(h, v), lambda: ra.isin(a, V))
    r2 = h.reshape(-1, 1024); R2 = ra.asarray(r2)
    row(f"{dt} cumulative_sum rows of 1024", lambda: np.cumsum(r2, axis=1), lambda: ra.cumulative_sum(R2, axis=1))
    row(f"{dt} cumulative_sum axis 0 of 4096x1024", lambda: np.cumsum(r2, axis=0), lambda: ra.cumulative_sum(R2, axis=0))
    row(f"{dt} sort rows of 1024 axis 0", lambda: np.sort(r2, axis=0), lambda: ra.sort(R2, axis=0))
    row(f"{dt} argsort rows of 16", lambda: np.argsort(h.reshape(-1, 16), axis=1, kind="stable"), lambda: ra.argsort(ra.reshape(a, (-1, 16)), axis=1))
    row(f"{dt} unique_values", lambda: np.unique(h), lambda: ra.unique_values(a))
