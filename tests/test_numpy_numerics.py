"""NumPy's numerical helpers (rocarray/_numpy_numerics.py) against NumPy on random data, on
every device, over the dtypes each accepts, with their errors; and the NumPy names of
functions beyond the standard reached through NumPy's protocols."""

import warnings

import numpy as np
import pytest

import rocarray as ra

from conftest import ALL_DTYPES, NUMERIC_DTYPES, random_array

REAL = [d for d in NUMERIC_DTYPES if d.kind != "c"]


def _same(got, want, rtol=None):
    assert isinstance(got, ra.Array), type(got)
    g, want = got.get(), np.asarray(want)
    assert g.shape == want.shape, (g.shape, want.shape)
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    if want.dtype.kind in "fc":
        size = want.dtype.itemsize // (2 if want.dtype.kind == "c" else 1)
        t = rtol if rtol is not None else {2: 4e-3, 4: 1e-5, 8: 1e-12}[size]
        np.testing.assert_allclose(g, want, rtol=t, atol=t, equal_nan=True)
    else:
        np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize("dtype", [None, ra.int32, ra.float32, ra.complex64, ra.bool], ids=str)
def test_identity_and_tri(device, dtype):
    npdt = None if dtype is None else np.dtype(dtype)
    for n in (0, 1, 4):
        _same(ra.identity(n, dtype=dtype, device=device), np.identity(n, dtype=npdt))
    for N, M, k in ((3, None, 0), (3, 5, 1), (4, 2, -1), (2, 6, -3), (0, 3, 0), (3, 4, 9)):
        kw = {} if dtype is None else {"dtype": dtype}
        _same(ra.tri(N, M, k, device=device, **kw), np.tri(N, M, k, **({} if npdt is None else {"dtype": npdt})))
    with pytest.raises(TypeError, match="identity: expected an integer, not float"):
        ra.identity(2.0)
    with pytest.raises(TypeError, match="tri: expected an integer"):
        ra.tri(2, k=0.5)


def test_logspace_geomspace(device):
    for args, kw in (((0, 3, 4), {}), ((-2.5, 1.5, 7), {"endpoint": False}), ((1, 2, 5), {"base": 2.0}),
                     ((0, 1, 0), {}), ((2, 3, 1), {}), ((0, 2, 3), {"dtype": np.float32}),
                     ((0, 4, 5), {"dtype": np.int64})):
        _same(ra.logspace(*args, device=device, **kw), np.logspace(*args, **kw))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for args, kw in (((1, 1000, 4), {}), ((-1, -1000, 4), {}), ((2.5, 0.01, 9), {}),
                         ((1, 1000, 3), {"endpoint": False}), ((3, 7, 1), {}), ((1, 10, 0), {}),
                         ((-1, 100, 3), {}), ((1, 256, 9), {"dtype": np.float32})):
            _same(ra.geomspace(*args, device=device, **kw), np.geomspace(*args, **kw))
    with pytest.raises(ValueError, match="Geometric sequence cannot include zero"):
        ra.geomspace(0, 10, device=device)
    with pytest.raises(TypeError, match="logspace: start must be a real Python or NumPy scalar"):
        ra.logspace(ra.asarray([0.0]), 1)
    with pytest.raises(ValueError, match="logspace: num must be >= 0"):
        ra.logspace(0, 1, -1)


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=str)
def test_float_power(device, dtype):
    rng = np.random.default_rng(21)
    a = random_array((5, 7), dtype, rng, low=1, high=6)
    b = random_array((7,), dtype, rng, low=-3, high=3)
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
    with np.errstate(all="ignore"):
        _same(ra.float_power(x, y), np.float_power(a, b))
        _same(ra.float_power(x, 2), np.float_power(a, 2))
        _same(ra.float_power(0.5, y), np.float_power(0.5, b))
        _same(np.float_power(x, y), np.float_power(a, b))  # (NumPy's ufunc reaches it)
    out = ra.empty((5, 7), dtype=ra.complex128 if np.dtype(dtype).kind == "c" else ra.float64, device=device)
    assert ra.float_power(x, y, out=out) is out
    with pytest.raises(TypeError, match="at least one argument must be a rocarray array"):
        ra.float_power(2, 3)
    with pytest.raises(TypeError, match="expected rocarray arrays or Python scalars, not ndarray"):
        ra.float_power(a, y)


@pytest.mark.parametrize("dtype", REAL + [ra.complex128], ids=str)
def test_trapezoid(device, dtype):
    rng = np.random.default_rng(22)
    y = random_array((4, 9), dtype, rng, low=-5, high=5)
    yr = ra.asarray(y, device=device)
    xs = np.sort(rng.uniform(0, 10, 9))
    x2 = np.sort(rng.uniform(0, 10, (4, 9)), axis=1)
    _same(ra.trapezoid(yr), np.trapezoid(y))
    _same(ra.trapezoid(yr, dx=0.25, axis=0), np.trapezoid(y, dx=0.25, axis=0))
    _same(ra.trapezoid(yr, ra.asarray(xs, device=device)), np.trapezoid(y, xs))
    _same(ra.trapezoid(yr, ra.asarray(x2, device=device), axis=1), np.trapezoid(y, x2, axis=1))
    _same(ra.trapezoid(yr[0], ra.asarray(xs, device=device)), np.trapezoid(y[0], xs))
    _same(np.trapezoid(yr, dx=2.0), np.trapezoid(y, dx=2.0))


@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_gradient(device, dtype):
    rng = np.random.default_rng(23)
    f = random_array((6, 8), dtype, rng, low=-20, high=20)
    fr = ra.asarray(f, device=device)
    c0 = np.cumsum(rng.uniform(0.5, 2.0, 6))
    c1 = np.cumsum(rng.uniform(0.5, 2.0, 8))
    for edge in (1, 2):
        for args, kw in (((), {}), ((0.5,), {}), ((2.0, 0.25), {}), ((c0, c1), {}), ((c0, 3.0), {}),
                         ((), {"axis": 1}), ((c1,), {"axis": -1}), ((), {"axis": (1, 0)})):
            want = np.gradient(f, *args, edge_order=edge, **kw)
            got = ra.gradient(fr, *[ra.asarray(a, device=device) if isinstance(a, np.ndarray) else a for a in args],
                              edge_order=edge, **kw)
            if isinstance(want, tuple):
                assert isinstance(got, tuple) and len(got) == len(want)
                for g, w in zip(got, want):
                    _same(g, w)
            else:
                _same(got, want)
    one = f[0]
    _same(ra.gradient(ra.asarray(one, device=device), 0.5), np.gradient(one, 0.5))
    _same(np.gradient(ra.asarray(one, device=device)), np.gradient(one))  # (NumPy's name reaches it)
    with pytest.raises(ValueError, match="Shape of array too small"):
        ra.gradient(ra.asarray(f[:2], device=device), edge_order=2, axis=0)
    with pytest.raises(ValueError, match="edge_order must be 1 or 2"):
        ra.gradient(fr, edge_order=3)
    with pytest.raises(TypeError, match="invalid number of arguments"):
        ra.gradient(fr, 1.0, 2.0, 3.0)
    with pytest.raises(TypeError, match="use rocarray.asarray\\(\\) to move a NumPy array"):
        ra.gradient(fr, c0, c1)
    with pytest.raises(ValueError, match="distances must match the length"):
        ra.gradient(fr, ra.asarray(c1, device=device), ra.asarray(c1, device=device))


@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_unwrap(device, dtype):
    """NumPy's unwrap: float and integer periods (the integer interval's ends), ``discont``,
    each axis; the result's dtype as NumPy's."""
    rng = np.random.default_rng(27)
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    top = 7 if info is None else min(7, int(info.max))
    p = (np.cumsum(rng.uniform(-2, 2, (4, 9)), axis=1) * 3) % top
    p = p.astype(dtype)
    pr = ra.asarray(p, device=device)
    for kw in ({}, {"period": 4.0}, {"period": 6}, {"period": 7}, {"discont": 1.0}, {"discont": 5.0, "period": 4}):
        for axis in (-1, 0):
            try:
                with np.errstate(all="ignore"):
                    want = np.unwrap(p, axis=axis, **kw)
            except OverflowError:  # (NumPy's too: an unsigned dtype and an integer period)
                with pytest.raises(OverflowError, match="out of bounds for uint"):
                    ra.unwrap(pr, axis=axis, **kw)
                continue
            _same(ra.unwrap(pr, axis=axis, **kw), want, rtol=1e-2 if np.dtype(dtype) == np.float16 else None)
    _same(np.unwrap(pr), np.unwrap(p))  # (NumPy's name reaches it)
    with pytest.raises(TypeError, match="unwrap: period must be a real Python or NumPy scalar"):
        ra.unwrap(pr, period="2pi")


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES + [ra.bool], ids=str)
def test_vander_polyval(device, dtype):
    rng = np.random.default_rng(24)
    x = random_array((6,), dtype, rng, low=-4, high=4)
    xr = ra.asarray(x, device=device)
    for N, inc in ((None, False), (3, True), (1, False), (0, False), (8, True)):
        _same(ra.vander(xr, N, increasing=inc), np.vander(x, N, increasing=inc))
    if np.dtype(dtype) != np.bool_:
        p = random_array((4,), dtype, rng, low=-3, high=3)
        pts = random_array((3, 5), dtype, rng, low=-2, high=2)
        _same(ra.polyval(ra.asarray(p, device=device), ra.asarray(pts, device=device)), np.polyval(p, pts))
        _same(ra.polyval(ra.asarray(p, device=device), ra.asarray(pts[0, 0], device=device)), np.polyval(p, pts[0, 0]))
    with pytest.raises(ValueError, match="one-dimensional"):
        ra.vander(ra.asarray(np.ones((2, 2)), device=device))


def test_windows(device):
    for M in (0, 1, 2, 3, 8, 51):
        for name in ("bartlett", "blackman", "hamming", "hanning"):
            _same(getattr(ra, name)(M, device=device), getattr(np, name)(M))
    with pytest.raises(TypeError, match="hamming: expected an integer"):
        ra.hamming(3.5)


def test_names_beyond_the_standard_through_numpy(device):
    """``np.exp2(x)``, ``np.fmax``, ``np.gcd``, ``np.radians`` and the rest reach the catalogue's
    rows on the array's device; ``np.sinc`` its function."""
    rng = np.random.default_rng(25)
    a = random_array((9,), np.float64, rng, low=-4, high=4)
    b = random_array((9,), np.float64, rng, low=-4, high=4)
    i, j = random_array((9,), np.int64, rng), random_array((9,), np.int64, rng)
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
    xi, yi = ra.asarray(i, device=device), ra.asarray(j, device=device)
    with np.errstate(all="ignore"):
        for fn in (np.exp2, np.cbrt, np.fabs, np.radians, np.degrees, np.deg2rad, np.rad2deg, np.sinc):
            _same(fn(x), fn(a))
        for fn in (np.fmax, np.fmin, np.fmod, np.heaviside, np.logaddexp2):
            _same(fn(x, y), fn(a, b))
        for fn in (np.gcd, np.lcm, np.fmod):
            _same(fn(xi, yi), fn(i, j))
    out = ra.empty((9,), dtype=ra.float64, device=device)
    assert np.fmax(x, y, out=out) is out
    _same(out, np.fmax(a, b))


@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_divmod_and_modf(device, dtype):
    """The two-result ufuncs as compositions: NumPy's results for every real dtype (signed
    zeros, infinities and NaNs of modf included), ``out=`` pairs, ``np.divmod`` / ``np.modf``
    through NumPy's protocol."""
    rng = np.random.default_rng(26)
    a = random_array((40,), dtype, rng, low=-50, high=50)
    b = random_array((40,), dtype, rng, low=1, high=9)
    if np.dtype(dtype).kind == "f":
        a[:7] = np.array([2.5, -0.75, -2.0, np.inf, -np.inf, np.nan, -0.0], dtype=dtype)
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
    with np.errstate(all="ignore"):
        if np.dtype(dtype).kind == "f":
            finite = np.isfinite(a)  # (an infinite dividend: the standard's quotient, documented)
            q, r = ra.divmod(x[finite], y[finite])
            wq, wr = np.divmod(a[finite], b[finite])
        else:
            q, r = ra.divmod(x, y)
            wq, wr = np.divmod(a, b)
        _same(q, wq)
        _same(r, wr)
        for got, want in zip(ra.modf(x), np.modf(a)):
            _same(got, want)
            if want.dtype.kind == "f":
                np.testing.assert_array_equal(np.signbit(got.get()), np.signbit(want))
        for got, want in zip(np.modf(x), np.modf(a)):
            _same(got, want)
        outs = tuple(ra.empty((40,), dtype=ra.modf(x)[0].dtype, device=device) for _ in range(2))
        assert all(g is o for g, o in zip(np.modf(x, out=outs), outs))
        for got, want in zip(outs, np.modf(a)):
            _same(got, want)
    if np.dtype(dtype).kind != "f":
        for got, want in zip(np.divmod(x, y), np.divmod(a, b)):
            _same(got, want)
    with pytest.raises(TypeError, match="out must be a tuple of two arrays"):
        ra.divmod(x, y, out=x)


def test_modf_refuses_complex(device):
    with pytest.raises(TypeError, match="modf: complex dtype complex128 is not supported"):
        ra.modf(ra.asarray([1 + 1j], device=device))
