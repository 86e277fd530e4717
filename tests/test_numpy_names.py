"""NumPy's everyday names in the rocarray namespace (rocarray/_numpy_names.py,
_numpy_stats.py, _numpy_methods.py) against NumPy on random data, on every device, over the
dtypes each accepts, with their errors."""

import pickle
import warnings

import numpy as np
import pytest

import rocarray as ra

from conftest import ALL_DTYPES, NUMERIC_DTYPES, random_array

REAL = [d for d in NUMERIC_DTYPES if d.kind != "c"]
FLOATS = [ra.float32, ra.float64]


def _put(a, device):
    return ra.asarray(a, device=device)


def _same(got, want, tol=None):
    assert isinstance(got, ra.Array), type(got)
    g = got.get()
    want = np.asarray(want)
    assert g.shape == want.shape, (g.shape, want.shape)
    if want.dtype.kind in "fc" or g.dtype.kind in "fc":
        size = want.dtype.itemsize // (2 if want.dtype.kind == "c" else 1)
        t = tol if tol is not None else {1: 1e-12, 2: 2e-3, 4: 2e-5, 8: 1e-10}[size]
        np.testing.assert_allclose(g, want, rtol=t, atol=t, equal_nan=True)
    else:
        np.testing.assert_array_equal(g, want)


def test_aliases_are_the_standard_functions():
    assert ra.concatenate is not None and ra.absolute is ra.abs and ra.arccos is ra.acos
    assert ra.power is ra.pow and ra.true_divide is ra.divide and ra.invert is ra.bitwise_invert
    assert ra.conjugate is ra.conj and ra.mod is ra.remainder


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_joining_splitting(device, dtype):
    rng = np.random.default_rng(1)
    a = random_array((3, 4), dtype, rng)
    b = random_array((3, 4), dtype, rng)
    v = random_array((4,), dtype, rng)
    x, y, w = _put(a, device), _put(b, device), _put(v, device)
    _same(ra.concatenate([x, y], axis=1), np.concatenate([a, b], axis=1))
    _same(ra.concatenate([x, y], axis=None), np.concatenate([a, b], axis=None))
    _same(ra.hstack([x, y]), np.hstack([a, b]))
    _same(ra.hstack([w, w]), np.hstack([v, v]))
    _same(ra.vstack([x, w]), np.vstack([a, v]))
    _same(ra.dstack([x, y]), np.dstack([a, b]))
    _same(ra.column_stack([w, w]), np.column_stack([v, v]))
    _same(ra.append(x, y, axis=0), np.append(a, b, axis=0))
    for got, want in zip(ra.split(x, 2, axis=1), np.split(a, 2, axis=1)):
        _same(got, want)
    for got, want in zip(ra.array_split(w, 3), np.array_split(v, 3)):
        _same(got, want)
    for got, want in zip(ra.split(x, [1, 2]), np.split(a, [1, 2])):
        _same(got, want)
    for got, want in zip(ra.hsplit(x, 2), np.hsplit(a, 2)):
        _same(got, want)
    _same(ra.atleast_3d(w), np.atleast_3d(v))
    _same(ra.atleast_2d(w), np.atleast_2d(v))
    _same(ra.transpose(x), a.T)
    _same(ra.swapaxes(x, 0, 1), np.swapaxes(a, 0, 1))
    _same(ra.ravel(x), np.ravel(a))
    _same(ra.flipud(x), np.flipud(a))
    _same(ra.fliplr(x), np.fliplr(a))
    _same(ra.argwhere(x), np.argwhere(a))
    _same(ra.flatnonzero(x), np.flatnonzero(a))
    _same(ra.array(a, ndmin=3), np.array(a, ndmin=3))
    with pytest.raises(ValueError, match="does not split into 3 equal parts"):
        ra.split(x, 3, axis=1)
    with pytest.raises(ValueError, match="larger than 0"):
        ra.array_split(x, 0)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_pad(device, dtype):
    a = random_array((3, 4), dtype, np.random.default_rng(2))
    x = _put(a, device)
    for mode in ("edge", "wrap", "reflect", "symmetric"):
        for width in (1, (2, 1), ((1, 2), (3, 0))):
            _same(ra.pad(x, width, mode=mode), np.pad(a, width, mode=mode))
    _same(ra.pad(x, ((1, 0), (2, 2))), np.pad(a, ((1, 0), (2, 2))))
    _same(ra.pad(x, 2, constant_values=1), np.pad(a, 2, constant_values=1))
    with pytest.raises(ValueError, match="mode 'mean' is not supported"):
        ra.pad(x, 1, mode="mean")
    with pytest.raises(ValueError, match="cannot be negative"):
        ra.pad(x, -1)


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=str)
def test_products(device, dtype):
    rng = np.random.default_rng(3)
    a = random_array((3, 4), dtype, rng, low=-5, high=5)
    b = random_array((4, 2), dtype, rng, low=-5, high=5)
    c = random_array((2, 4, 3), dtype, rng, low=-5, high=5)
    v = random_array((4,), dtype, rng, low=-5, high=5)
    x, y, z, w = (_put(t, device) for t in (a, b, c, v))
    tol = 5e-2 if dtype == ra.float16 else None
    _same(ra.dot(x, y), np.dot(a, b), tol)
    _same(ra.dot(x, w), np.dot(a, v), tol)
    _same(ra.dot(w, w), np.dot(v, v), tol)
    _same(ra.dot(x, z), np.dot(a, c), tol)
    _same(ra.dot(x, 2), np.dot(a, 2), tol)
    _same(ra.inner(x, x), np.inner(a, a), tol)
    _same(ra.outer(w, w), np.outer(v, v), tol)
    _same(ra.vdot(w, w), np.vdot(v, v), tol)
    _same(ra.kron(x, y), np.kron(a, b), tol)
    _same(ra.trace(x), np.trace(a).astype(ra.trace(x).dtype), tol)
    _same(ra.trace(z, offset=1, axis1=1, axis2=2), np.trace(c, 1, 1, 2).astype(ra.trace(z).dtype), tol)
    _same(ra.diagonal(z, -1, 1, 2), np.diagonal(c, -1, 1, 2))
    _same(ra.diag(w, 1), np.diag(v, 1))
    _same(ra.diag(x, -1), np.diag(a, -1))
    _same(ra.diagflat(x), np.diagflat(a))
    if dtype.kind != "c":
        _same(ra.cross(_put(a[:, :3], device), _put(a[::-1, :3], device)), np.cross(a[:, :3], a[::-1, :3]), tol)


@pytest.mark.parametrize("dtype", [ra.int32, ra.float32, ra.float64, ra.complex128], ids=str)
def test_einsum(device, dtype):
    rng = np.random.default_rng(4)
    a = random_array((3, 4), dtype, rng, low=-4, high=4)
    b = random_array((4, 5), dtype, rng, low=-4, high=4)
    s = random_array((4, 4), dtype, rng, low=-4, high=4)
    t = random_array((2, 3, 4), dtype, rng, low=-4, high=4)
    x, y, q, r = (_put(v, device) for v in (a, b, s, t))
    cases = [("ij,jk->ik", (x, y), (a, b)), ("ij,jk", (x, y), (a, b)), ("ij->ji", (x,), (a,)),
             ("ii->i", (q,), (s,)), ("ii", (q,), (s,)), ("ij->", (x,), (a,)), ("ij->j", (x,), (a,)),
             ("bij,jk->bik", (r, y), (t, b)), ("bij,bij->b", (r, r), (t, t)), ("i,j->ij", (q[0], q[1]), (s[0], s[1])),
             ("ij,jk,kl->il", (x, y, _put(b.T, device)), (a, b, b.T)), ("ij,ij->ij", (x, x), (a, a))]
    for sub, ours, theirs in cases:
        got = ra.einsum(sub, *ours)
        _same(got, np.einsum(sub, *theirs).astype(got.dtype))
    for sub, ours, theirs in [("...j,jk->...k", (r, y), (t, b)), ("...ij->...", (r,), (t,)),
                              ("...j,...j", (r, x), (t, a)), ("ij...,j...->i...", (r.T, r.T[0]), (t.T, t.T[0]))]:
        got = ra.einsum(sub, *ours)
        _same(got, np.einsum(sub, *theirs).astype(got.dtype))
    with pytest.raises(ValueError, match="do not fit an array of 2 dimensions"):
        ra.einsum("ijk...->i", x)
    with pytest.raises(ValueError, match="name 3 axes of an array of 2"):
        ra.einsum("ijk->i", x)


@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_quantiles(device, dtype):
    rng = np.random.default_rng(5)
    a = random_array((5, 6), dtype, rng)
    x = _put(a, device)
    fa = a.astype(np.float64) if dtype.kind != "f" else a
    tol = 5e-3 if dtype == ra.float16 else 1e-6
    _same(ra.median(x), np.median(fa).astype(ra.median(x).dtype), tol)
    _same(ra.median(x, axis=0), np.median(fa, axis=0), tol)
    _same(ra.median(x, axis=1, keepdims=True), np.median(fa, axis=1, keepdims=True), tol)
    for method in ("linear", "lower", "higher", "midpoint", "nearest"):
        _same(ra.quantile(x, 0.3, axis=1, method=method), np.quantile(fa, 0.3, axis=1, method=method), tol)
    _same(ra.percentile(x, [10, 50, 90], axis=0), np.percentile(fa, [10, 50, 90], axis=0), tol)
    _same(ra.percentile(x, 25), np.percentile(fa, 25), tol)
    with pytest.raises(ValueError, match=r"q must lie in \[0, 100\]"):
        ra.percentile(x, 101)
    with pytest.raises(ValueError, match="method 'weibull' is not supported"):
        ra.quantile(x, 0.5, method="weibull")


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_nan_functions(device, dtype):
    rng = np.random.default_rng(6)
    a = random_array((4, 5), dtype, rng)
    a[rng.random((4, 5)) < 0.3] = np.nan
    a[2] = np.nan  # a line of NaN only
    x = _put(a, device)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy warns on lines of NaN only
        for axis in (None, 0, 1):
            _same(ra.nansum(x, axis=axis), np.nansum(a, axis=axis))
            _same(ra.nanprod(x, axis=axis), np.nanprod(a, axis=axis), 1e-4)
            _same(ra.nanmax(x, axis=axis), np.nanmax(a, axis=axis))
            _same(ra.nanmin(x, axis=axis), np.nanmin(a, axis=axis))
            _same(ra.nanmean(x, axis=axis), np.nanmean(a, axis=axis))
            _same(ra.nanvar(x, axis=axis), np.nanvar(a, axis=axis), 1e-4)
            _same(ra.nanstd(x, axis=axis, ddof=1), np.nanstd(a, axis=axis, ddof=1), 1e-4)
            _same(ra.nanmedian(x, axis=axis), np.nanmedian(a, axis=axis))
            _same(ra.nanpercentile(x, 30, axis=axis), np.nanpercentile(a, 30, axis=axis))
        _same(ra.nancumsum(x, axis=1), np.nancumsum(a, axis=1))
        _same(ra.nanargmax(x[:2], axis=1), np.nanargmax(a[:2], axis=1))
        _same(ra.nanargmin(x[:2]), np.nanargmin(a[:2]))
    with pytest.raises(ValueError, match="only NaN"):
        ra.nanargmax(x, axis=1)


@pytest.mark.parametrize("dtype", [ra.bool, ra.uint8, ra.int16, ra.int64, ra.uint64], ids=str)
def test_bincount(device, dtype):
    rng = np.random.default_rng(7)
    hi = 1 if dtype == ra.bool else 12
    a = rng.integers(0, hi + 1, size=40).astype(dtype)
    x = _put(a, device)
    _same(ra.bincount(x), np.bincount(a))
    _same(ra.bincount(x, minlength=20), np.bincount(a, minlength=20))
    wts = rng.uniform(-1, 1, 40)
    _same(ra.bincount(x, weights=_put(wts, device)), np.bincount(a, weights=wts), 1e-9)
    _same(ra.bincount(x[:0]), np.bincount(a[:0]))
    if dtype.kind == "i":
        with pytest.raises(ValueError, match="negative"):
            ra.bincount(_put(np.array([1, -1], dtype=dtype), device))
    with pytest.raises(TypeError, match="integers"):
        ra.bincount(_put(np.array([1.0]), device))


@pytest.mark.parametrize("dtype", [ra.int32, ra.uint8, ra.float32, ra.float64], ids=str)
def test_histogram(device, dtype):
    rng = np.random.default_rng(8)
    a = random_array((50,), dtype, rng, low=0, high=100)
    x = _put(a, device)
    for bins, rng_ in ((10, None), (7, (10, 60)), (1, None)):
        h, e = ra.histogram(x, bins=bins, range=rng_)
        hn, en = np.histogram(a, bins=bins, range=rng_)
        _same(h, hn)
        _same(e, en, 1e-5)
    edges = np.array([0.0, 5.0, 20.0, 50.0, 100.0])
    h, e = ra.histogram(x, bins=_put(edges, device))
    _same(h, np.histogram(a, bins=edges)[0])
    h, _ = ra.histogram(x, bins=4, density=True)
    _same(h, np.histogram(a, bins=4, density=True)[0], 1e-6)
    wts = rng.uniform(0, 1, 50)
    h, _ = ra.histogram(x, bins=5, weights=_put(wts, device))
    _same(h, np.histogram(a, bins=5, weights=wts)[0], 1e-9)
    _same(ra.digitize(x, _put(edges, device)), np.digitize(a, edges))
    with pytest.raises(ValueError, match="increase monotonically"):
        ra.histogram(x, bins=_put(edges[::-1].copy(), device))
    with pytest.raises(ValueError, match="'auto'.*not supported"):
        ra.histogram(x, bins="auto")


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=str)
def test_closeness_and_equality(device, dtype):
    rng = np.random.default_rng(9)
    a = random_array((20,), dtype, rng)
    b = a.copy()
    if dtype.kind in "fc":
        b[::3] = (b[::3] * (1 + 1e-7)).astype(dtype)
        b[1::4] += dtype.type(1)
        if dtype.kind == "f":
            a[0], b[0] = np.inf, np.inf
            a[2], b[2] = np.nan, np.nan
    else:
        b[::4] += 1
    x, y = _put(a, device), _put(b, device)
    _same(ra.isclose(x, y), np.isclose(a, b))
    _same(ra.isclose(x, y, equal_nan=True), np.isclose(a, b, equal_nan=True))
    assert ra.allclose(x, x, equal_nan=True) is np.allclose(a, a, equal_nan=True)
    assert ra.allclose(x, y) == np.allclose(a, b)
    assert ra.array_equal(x, y) == np.array_equal(a, b)
    assert ra.array_equal(x, x, equal_nan=True) == np.array_equal(a, a, equal_nan=True)
    assert ra.array_equal(x, x[:3]) is False
    assert ra.array_equiv(x[:1], _put(np.repeat(a[:1], 3), device)) is True


@pytest.mark.parametrize("dtype", [ra.int64, ra.float32, ra.float64, ra.complex128], ids=str)
def test_average_cov_corrcoef(device, dtype):
    rng = np.random.default_rng(10)
    a = random_array((3, 8), dtype, rng)
    x = _put(a, device)
    w = rng.uniform(0.5, 2, 8)
    tol = 1e-4 if dtype == ra.float32 else 1e-9
    _same(ra.average(x), np.average(a), tol)
    _same(ra.average(x, axis=1, weights=_put(w, device)), np.average(a, axis=1, weights=w), tol)
    r, s = ra.average(x, axis=0, returned=True)
    rn, sn = np.average(a, axis=0, returned=True)
    _same(r, rn, tol)
    _same(s, sn, tol)
    _same(ra.cov(x), np.cov(a), tol)
    _same(ra.cov(x, rowvar=False, bias=True), np.cov(a, rowvar=False, bias=True), tol)
    _same(ra.cov(x[0], x[1]), np.cov(a[0], a[1]), tol)
    _same(ra.corrcoef(x), np.corrcoef(a), tol)
    with pytest.raises(TypeError, match="fweights and aweights are not supported"):
        ra.cov(x, fweights=[1] * 8)
    with pytest.raises(ZeroDivisionError, match="sum to zero"):
        ra.average(x, axis=1, weights=_put(np.zeros(8), device))


@pytest.mark.parametrize("dtype", [ra.int32, ra.float32, ra.float64, ra.complex128], ids=str)
def test_interp_convolve(device, dtype):
    rng = np.random.default_rng(11)
    xp = np.sort(rng.uniform(0, 10, 12))
    fp = random_array((12,), dtype, rng)
    xs = rng.uniform(-2, 12, 30)
    xs[:3] = xp[:3]
    got = ra.interp(_put(xs, device), _put(xp, device), _put(fp, device))
    _same(got, np.interp(xs, xp, fp), 1e-9)
    got = ra.interp(_put(xs, device), _put(xp, device), _put(fp, device), left=-1, right=5)
    _same(got, np.interp(xs, xp, fp, left=-1, right=5), 1e-9)
    a = random_array((9,), dtype, rng, low=-5, high=5)
    v = random_array((4,), dtype, rng, low=-5, high=5)
    tol = 1e-4 if dtype == ra.float32 else 1e-9
    for mode in ("full", "same", "valid"):
        _same(ra.convolve(_put(a, device), _put(v, device), mode), np.convolve(a, v, mode), tol)
        _same(ra.convolve(_put(v, device), _put(a, device), mode), np.convolve(v, a, mode), tol)
        _same(ra.correlate(_put(a, device), _put(v, device), mode), np.correlate(a, v, mode), tol)
    with pytest.raises(ValueError, match="mode must be 'full', 'same' or 'valid'"):
        ra.convolve(_put(a, device), _put(v, device), "circular")
    with pytest.raises(TypeError, match="period is not supported"):
        ra.interp(_put(xs, device), _put(xp, device), _put(fp, device), period=3)


@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_scans_unique_extremes_round(device, dtype):
    rng = np.random.default_rng(12)
    a = random_array((4, 5), dtype, rng)
    x = _put(a, device)
    got = ra.cumsum(x, axis=1)
    _same(got, np.cumsum(a, axis=1).astype(got.dtype), 5e-2 if dtype == ra.float16 else None)
    got = ra.cumprod(x[:, :3])
    _same(got, np.cumprod(a[:, :3]).astype(got.dtype), 5e-2 if dtype == ra.float16 else None)
    _same(ra.amax(x, axis=0), np.amax(a, axis=0))
    _same(ra.amin(x, axis=1, keepdims=True), np.amin(a, axis=1, keepdims=True))
    _same(ra.ptp(x, axis=1), np.ptp(a, axis=1))
    vals, idx, inv, counts = ra.unique(x, return_index=True, return_inverse=True, return_counts=True)
    wv, wi, winv, wc = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    _same(vals, wv)
    _same(idx, wi)
    _same(inv, winv)
    _same(counts, wc)
    _same(ra.unique(x), np.unique(a))
    with pytest.raises(TypeError, match="axis is not supported"):
        ra.unique(x, axis=0)
    if dtype.kind == "f":
        _same(ra.around(x, 1), np.around(a, 1))
    else:
        _same(ra.around(x, -1), np.around(a, -1))


def test_index_arrays(device):
    rng = np.random.default_rng(13)
    flat = rng.integers(0, 24, 10)
    for g, w in zip(ra.unravel_index(_put(flat, device), (2, 3, 4)), np.unravel_index(flat, (2, 3, 4))):
        _same(g, w)
    coords = np.unravel_index(flat, (2, 3, 4))
    _same(ra.ravel_multi_index(tuple(_put(c, device) for c in coords), (2, 3, 4)),
          np.ravel_multi_index(coords, (2, 3, 4)))
    _same(ra.indices((2, 3), device=device), np.indices((2, 3)))
    for ours, theirs in ((ra.tril_indices(4, 1, device=device), np.tril_indices(4, 1)),
                         (ra.triu_indices(3, 0, 5, device=device), np.triu_indices(3, 0, 5)),
                         (ra.diag_indices(3, device=device), np.diag_indices(3))):
        for g, w in zip(ours, theirs):
            _same(g, w)
    with pytest.raises(ValueError, match="out of bounds for an array of size 24"):
        ra.unravel_index(_put(np.array([24]), device), (2, 3, 4))
    with pytest.raises(TypeError, match="indices must be integers"):
        ra.unravel_index(_put(np.array([1.0]), device), (2,))


def test_numpy_forms_of_standard_functions(device):
    """``where(condition)`` is ``nonzero``; ``diff`` takes ``n`` and ``axis`` by position
    (NumPy's order, which scikit-learn writes); the standard's forms still work."""
    a = random_array((3, 5), np.float64, np.random.default_rng(14))
    x = _put(a, device)
    for g, w in zip(ra.where(x > 0), np.where(a > 0)):
        _same(g, w)
    _same(ra.where(x > 0, x, 0.0), np.where(a > 0, a, 0.0))
    _same(ra.diff(x, 2), np.diff(a, 2))
    _same(ra.diff(x, 1, 0), np.diff(a, 1, 0))
    _same(ra.diff(x, axis=0, n=2), np.diff(a, axis=0, n=2))
    with pytest.raises(TypeError, match="give both x1 and x2, or neither"):
        ra.where(x > 0, x)


def test_pickle_keeps_the_device(device):
    x = _put(random_array((2, 3), np.float32, np.random.default_rng(15)), device)
    y = pickle.loads(pickle.dumps(x))
    assert y.device == x.device and y.dtype == x.dtype
    _same(y, x.get())


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_copyto_casting_where_and_errors(device, dtype):
    """``copyto`` against NumPy's: broadcast sources, a ``where`` mask, Python scalars,
    overlapping views, and NumPy's errors for a cast its rule refuses, a bad shape or mask."""
    rng = np.random.default_rng(16)
    a = random_array((4, 5), dtype, rng)
    for src, where in ((random_array((4, 5), dtype, rng), True), (random_array((5,), dtype, rng), True),
                       (random_array((4, 5), dtype, rng), rng.random((4, 5)) < 0.5),
                       (random_array((1, 5), dtype, rng), rng.random((4, 1)) < 0.5)):
        b, x = a.copy(), _put(a.copy(), device)
        np.copyto(b, src, where=where)
        ra.copyto(x, _put(src, device), where=where if where is True else _put(where, device))
        _same(x, b)
    b, x = a.copy(), _put(a.copy(), device)
    np.copyto(b, b[::-1])  # (the source overlaps the destination)
    ra.copyto(x, x[::-1])
    _same(x, b)
    b, x = a.copy(), _put(a.copy(), device)
    one = True if np.dtype(dtype).kind == "b" else 1  # (a Python int fits every other dtype: weak)
    np.copyto(b, one)
    ra.copyto(x, one)
    _same(x, b)
    if np.dtype(dtype).kind in "biu":
        with pytest.raises(TypeError, match="Cannot cast scalar from dtype\\('float64'\\) to dtype"):
            ra.copyto(x, 1.5)
        with pytest.raises(TypeError, match="according to the rule 'same_kind'"):
            ra.copyto(x, _put(np.ones(5), device))
        ra.copyto(x, _put(np.full(5, 2.0), device), casting="unsafe")
        np.copyto(b, np.full(5, 2.0), casting="unsafe")
        _same(x, b)
    if np.dtype(dtype).kind in "fc":
        b, x = a.copy(), _put(a.copy(), device)
        with np.errstate(over="ignore"):  # (float16: infinity, as NumPy's)
            np.copyto(b, 2**70, where=b.real > 0)  # (a Python int beyond int64: weak, fits a float)
        ra.copyto(x, 2**70, where=x.real > 0)
        _same(x, b)
    with pytest.raises(ValueError, match="could not broadcast input array from shape \\(3,\\) into shape \\(4, 5\\)"):
        ra.copyto(x, _put(a[0, :3], device))
    with pytest.raises(TypeError, match="where must be a boolean array"):
        ra.copyto(x, x, where=_put(np.ones((4, 5), np.int32), device))
    with pytest.raises(ValueError, match="casting must be one of"):
        ra.copyto(x, x, casting="bogus")
    with pytest.raises(ValueError, match="broadcast view"):
        ra.copyto(ra.broadcast_to(x[0], (4, 5)), x)
    with pytest.raises(TypeError, match="destination must be a rocarray array"):
        ra.copyto(a, x)
    np.copyto(x, x[::-1])  # (NumPy's own name reaches it)
    _same(x, b[::-1])


def test_copy_shape_size_ndim_and_complexity(device):
    a = random_array((3, 4), np.complex64, np.random.default_rng(17))
    x = _put(a, device)
    c = ra.copy(x[:, ::2])
    _same(c, a[:, ::2])
    assert c.is_c_contiguous() and not ra.shares_memory(c, x)
    assert np.copy(x) is not x and isinstance(np.copy(x), ra.Array)
    with pytest.raises(ValueError, match="order must be 'K', 'A' or 'C'"):
        ra.copy(x, order="F")
    assert ra.shape(x) == np.shape(x) == (3, 4) and ra.shape([[1, 2]]) == (1, 2) and ra.shape(5) == ()
    assert ra.ndim(x) == np.ndim(x) == 2 and ra.size(x) == np.size(x) == 12 and ra.size(x, 1) == np.size(x, 1) == 4
    assert ra.size(x, -2) == 3
    with pytest.raises(IndexError, match="axis 2 is out of bounds for an array of dimension 2"):
        ra.size(x, 2)
    assert ra.iscomplexobj(x) and not ra.isrealobj(x) and np.iscomplexobj(x)
    assert ra.isrealobj(x.real) and not ra.iscomplexobj(_put(np.ones(2), device))


def test_shares_memory_as_numpy_decides(device):
    """``shares_memory`` is exact and ``may_share_memory`` the bounds test, both as NumPy
    decides them for the same views; arrays of other buffers or devices share nothing."""
    a = np.arange(60.0).reshape(6, 10)
    x = _put(a.copy(), device)
    h = a.copy()
    views = [lambda t: t, lambda t: t[::2], lambda t: t[1::2], lambda t: t[:, ::3], lambda t: t[:, 1::3],
             lambda t: t[2:4, 5:], lambda t: t.T, lambda t: t[::-1, ::-2], lambda t: t[0, :0], lambda t: t[5, 9:]]
    for f in views:
        for g in views:
            assert ra.shares_memory(f(x), g(x)) == np.shares_memory(f(h), g(h))
            assert ra.may_share_memory(f(x), g(x)) == np.may_share_memory(f(h), g(h))
            assert np.shares_memory(f(x), g(x)) == np.shares_memory(f(h), g(h))  # (NumPy's name reaches it)
    y = _put(a.copy(), device)
    assert not ra.shares_memory(x, y) and not ra.may_share_memory(x, y)
    assert not ra.shares_memory(x, 1.0) and not ra.shares_memory(x, [1, 2])
    z = x.reshape(-1)[3:40:7]
    with pytest.raises(np.exceptions.TooHardError):
        ra.shares_memory(z, x.reshape(-1)[5:40:11], max_work=0)
