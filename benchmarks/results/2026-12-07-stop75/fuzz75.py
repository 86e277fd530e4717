"""Differential fuzz of the primitives against NumPy on the CPU."""
import sys, traceback
import numpy as np
import rocarray as ra

rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
DT = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
      np.float16, np.float32, np.float64, np.complex64, np.complex128]
fails = []

def data(dt, shape):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        mode = rng.integers(3)
        if mode == 0:
            return rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
        lo = 0 if dt.kind == "u" else -5
        return rng.integers(lo, 6, shape).astype(dt)
    special = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1.0, -1.0])
    a = rng.standard_normal(shape)
    if rng.random() < 0.5:
        a = np.round(a * 2) / 2
    if rng.random() < 0.6:
        m = rng.random(shape) < 0.2
        a = np.where(m, rng.choice(special, shape), a)
    if dt.kind == "c":
        b = rng.standard_normal(shape)
        if rng.random() < 0.5:
            b = np.where(rng.random(shape) < 0.3, rng.choice(special, shape), np.round(b))
        a = a + 1j * b
    return a.astype(dt)

def view(h):
    """A random (maybe non-contiguous) view of h and the same of its rocarray copy."""
    kind = rng.integers(4)
    if h.ndim == 0 or kind == 0:
        return lambda a: a
    if kind == 1:
        return lambda a: a[..., ::-1]
    if kind == 2:
        return lambda a: a[..., ::2]
    return lambda a: a.T if a.ndim > 1 else a[::-1]

def npu(h, **kw):
    """np.unique, float16 through float32 (NumPy 2.4's default float16 sort misorders arrays
    with NaNs on AVX-512 machines)."""
    if h.dtype == np.float16:
        r = np.unique(h.astype(np.float32), **kw)
        return (r[0].astype(np.float16), *r[1:]) if isinstance(r, tuple) else r.astype(np.float16)
    return np.unique(h, **kw)

def same(name, got, want, dt):
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        fails.append((name, dt, f"shape {got.shape} vs {want.shape}")); return
    if got.dtype != want.dtype and not (name.startswith("nonzero") or "arg" in name or "inverse" in name or "counts" in name or "searchsorted" in name):
        fails.append((name, dt, f"dtype {got.dtype} vs {want.dtype}")); return
    if want.dtype.kind in "fc" and name.startswith("cumulative"):
        ok = np.allclose(got, want, rtol=1e-2 if want.dtype.itemsize <= 4 else 1e-9, atol=1e-2 if want.dtype == np.float16 else 1e-5, equal_nan=True)
    elif want.dtype.kind in "fc":
        ok = np.array_equal(got, want, equal_nan=True)
        if ok and want.dtype.kind == "f":
            ok = np.array_equal(np.signbit(got[~np.isnan(got)]), np.signbit(want[~np.isnan(want)])) or "sort" not in name
    else:
        ok = np.array_equal(got, want)
    if not ok:
        fails.append((name, dt, f"values differ\n got {got.ravel()[:20]}\nwant {want.ravel()[:20]}"))

for it in range(int(sys.argv[2]) if len(sys.argv) > 2 else 300):
    dt = DT[rng.integers(len(DT))]
    nd = rng.integers(0, 4)
    shape = tuple(int(s) for s in rng.integers(0, 9 if nd > 1 else 3000, nd))
    if rng.random() < 0.1:
        shape = tuple(0 if i == 0 else s for i, s in enumerate(shape))
    elif rng.random() < 0.12:
        shape = (int(rng.integers(5000, 300000)),)
    h0 = data(dt, shape)
    v = view(h0)
    a0 = ra.asarray(h0)
    h, a = v(h0), v(a0)
    def run(name, f, g, want_exc=None):
        try:
            want = g(h)
        except Exception as e:
            try:
                f(a)
            except Exception as e2:
                return
            fails.append((name, dt, f"numpy raised {type(e).__name__}: {e}; rocarray did not")); return
        try:
            got = f(a)
        except Exception as e:
            fails.append((name, dt, f"raised {type(e).__name__}: {e}\n{traceback.format_exc()[-800:]}")); return
        if isinstance(want, tuple):
            if len(got) != len(want):
                fails.append((name, dt, "tuple length")); return
            for k, (g1, w1) in enumerate(zip(got, want)):
                same(f"{name}[{k}]", ra.asnumpy(g1), w1, dt)
        else:
            same(name, ra.asnumpy(got), want, dt)
    ax = int(rng.integers(-h.ndim, h.ndim)) if h.ndim else None
    if h.ndim and np.dtype(dt).kind != "c":
        run("sort", lambda a: ra.sort(a, axis=ax), lambda h: np.sort(h, axis=ax, kind="stable"))
        run("sort desc", lambda a: ra.sort(a, axis=ax, descending=True),
            lambda h: np.flip(np.sort(np.flip(h, axis=ax), axis=ax, kind="stable"), axis=ax))
        run("argsort", lambda a: ra.argsort(a, axis=ax), lambda h: np.argsort(h, axis=ax, kind="stable"))
        run("argsort desc", lambda a: ra.argsort(a, axis=ax, descending=True, stable=True),
            lambda h: (h.shape[ax] - 1 - np.flip(np.argsort(np.flip(h, axis=ax), axis=ax, kind="stable"), axis=ax)))
    if h.ndim and np.dtype(dt).kind == "c":
        run("sort c", lambda a: ra.sort(a, axis=ax), lambda h: np.sort(h, axis=ax, kind="stable"))
        run("argsort c", lambda a: ra.argsort(a, axis=ax), lambda h: np.argsort(h, axis=ax, kind="stable"))
    if h.ndim:
        run("cumulative_sum", lambda a: ra.cumulative_sum(a, axis=ax), lambda h: np.cumsum(h, axis=ax, dtype=None if h.dtype.kind in "fc" else (np.uint64 if h.dtype.kind == "u" else np.int64)) if np.dtype(dt).kind != "f" else (np.cumsum(h.astype(np.float32), axis=ax).astype(np.float16) if h.dtype == np.float16 else np.cumsum(h, axis=ax)))
    uv = lambda h: np.unique(h.ravel(), equal_nan=False)
    if np.dtype(dt).kind not in "c" or True:
        run("unique_values", lambda a: ra.unique_values(a), lambda h: npu(h.ravel(), equal_nan=False))
        run("unique_counts", lambda a: tuple(ra.unique_counts(a)), lambda h: tuple(npu(h.ravel(), return_counts=True, equal_nan=False)))
        def uinv(a):
            v_, i_ = ra.unique_inverse(a)
            return (v_, ra.asarray(ra.asnumpy(v_)[ra.asnumpy(i_)]))
        run("unique_inverse", uinv, lambda h: (npu(h, equal_nan=False), h))
    m = h0.real > 0 if np.dtype(dt).kind == "c" else (h0 != 0)
    mv = v(m)
    run("x[m]", lambda a: a[ra.asarray(mv)] if a.ndim else a[ra.asarray(mv)], lambda h: h[mv])
    run("nonzero", lambda a: tuple(ra.nonzero(a)), lambda h: np.nonzero(h)) if h.ndim else None
    if h.ndim:
        n = h.shape[ax]
        if n:
            idx = rng.integers(-n, n, int(rng.integers(0, 50)))
            run("take", lambda a: ra.take(a, ra.asarray(idx), axis=ax), lambda h: np.take(h, idx, axis=ax))
        if h.ndim == 1 and h.size and np.dtype(dt).kind != "c":
            s = np.sort(h, kind="stable")
            q = data(dt, (int(rng.integers(0, 40)),))
            for side in ("left", "right"):
                run("searchsorted " + side, lambda a: ra.searchsorted(ra.asarray(s), ra.asarray(q), side=side),
                    lambda h: np.searchsorted(s, q, side=side))
            vals = data(dt, (int(rng.integers(0, 30)),))
            run("isin", lambda a: ra.isin(a, ra.asarray(vals)), lambda h: np.isin(h, vals))
    if h.ndim and h.size:
        hc = h.copy(); ac = ra.asarray(hc)
        mm = rng.random(h.shape) < 0.3
        val = data(dt, (int(mm.sum()),))
        def setm(a):
            a2 = ra.asarray(hc); a2[ra.asarray(mm)] = ra.asarray(val); return a2
        def setmn(h):
            h2 = hc.copy(); h2[mm] = val; return h2
        run("x[m]=v", setm, setmn)
print("iterations done; failures:", len(fails))
seen = set()
for name, dt, msg in fails:
    if (name, dt) in seen: continue
    seen.add((name, dt)); print("FAIL", name, np.dtype(dt), msg[:600])
