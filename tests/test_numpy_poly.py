"""rocarray's NumPy polynomial functions (poly, polyadd, polysub, polymul, polydiv, polyder,
polyint, polyfit, roots, poly1d) against NumPy's on seeded random coefficients of every
float dtype and integers, NumPy's dispatch to them, and their errors; on every device."""

import numpy as np
import pytest

import rocarray as ra
from conftest import random_array

FLOATS = [ra.float32, ra.float64, ra.complex64, ra.complex128]
DTYPES = FLOATS + [ra.int64]


def tol(dtype):
    return 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


def close(got, want, dtype, scale=1.0):
    assert isinstance(got, ra.Array), type(got)
    got, want = ra.asnumpy(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=tol(dtype) * scale, atol=tol(dtype) * scale)


def rand(shape, dtype, seed=0):
    if np.dtype(dtype).kind == "i":
        return np.random.default_rng(seed).integers(-9, 10, shape).astype(dtype)
    return random_array(shape, dtype, np.random.default_rng(seed), low=-1, high=1)


def sorted_roots(r):
    return np.sort_complex(np.asarray(r).astype(np.complex128))


@pytest.mark.parametrize("dtype", DTYPES)
def test_add_sub_mul(device, dtype):
    for n1, n2 in ((4, 2), (1, 5), (3, 3)):
        a, b = rand((n1,), dtype, n1), rand((n2,), dtype, 10 + n2)
        ga, gb = ra.asarray(a, device=device), ra.asarray(b, device=device)
        close(ra.polyadd(ga, gb), np.polyadd(a, b), dtype)
        close(ra.polysub(ga, gb), np.polysub(a, b), dtype)
        close(ra.polymul(ga, gb), np.polymul(a, b), dtype, 10)
    # leading zeros: polymul drops them (as NumPy's poly1d), polyadd keeps them
    z = np.concatenate([np.zeros(2, dtype), rand((3,), dtype, 4)])
    gz = ra.asarray(z, device=device)
    close(ra.polymul(gz, gz), np.polymul(z, z), dtype, 10)
    close(ra.polyadd(gz, gz[2:]), np.polyadd(z, z[2:]), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_polydiv(device, dtype):
    u, v = rand((6,), dtype, 1), rand((3,), dtype, 2)
    v[0] = 3  # a leading coefficient well away from 0
    q, r = ra.polydiv(ra.asarray(u, device=device), ra.asarray(v, device=device))
    wq, wr = np.polydiv(u, v)
    close(q, wq, dtype, 10)
    close(r, wr, dtype, 10)
    # exact division: the remainder's vanishing leading terms are dropped down to one
    p = np.polymul(u, v)
    q, r = ra.polydiv(ra.asarray(p, device=device), ra.asarray(v, device=device))
    wq, wr = np.polydiv(p, v)
    close(q, wq, dtype, 10)
    assert r.shape == wr.shape
    # a divisor longer than the dividend: q = [0], r = u
    q, r = ra.polydiv(ra.asarray(v[:2], device=device), ra.asarray(v, device=device))
    wq, wr = np.polydiv(v[:2], v)
    close(q, wq, dtype)
    close(r, wr, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_polyder_polyint(device, dtype):
    p = rand((5,), dtype, 3)
    g = ra.asarray(p, device=device)
    for m in (0, 1, 2, 4, 5, 6):
        close(ra.polyder(g, m), np.polyder(p, m), dtype)
    for m, k in ((0, None), (1, None), (2, None), (1, 3.0), (3, [1.0, 2.0, 3.0]), (2, 5), (2, [1, 2, 3])):
        close(ra.polyint(g, m, k), np.polyint(p, m, k), dtype, 10)
    # the derivative of the integral is the polynomial again
    close(ra.polyder(ra.polyint(g, 2), 2), np.polyder(np.polyint(p, 2), 2), dtype, 10)


@pytest.mark.parametrize("dtype", DTYPES)
def test_poly_and_roots(device, dtype):
    r = rand((4,), dtype, 5)
    g = ra.asarray(r, device=device)
    c = np.poly(r)
    close(ra.poly(g), c, dtype, 10)
    got = ra.roots(ra.poly(g))
    want = np.roots(c)
    assert ra.asnumpy(got).dtype == want.dtype
    np.testing.assert_allclose(sorted_roots(ra.asnumpy(got)), sorted_roots(want), atol=tol(dtype) * 1e3)
    # conjugate pairs give real coefficients; a square matrix its characteristic polynomial
    pairs = np.array([1 + 2j, 1 - 2j, 3 + 0j])
    close(ra.poly(ra.asarray(pairs, device=device)), np.poly(pairs), np.float64)
    m = rand((4, 4), dtype, 6)
    close(ra.poly(ra.asarray(m, device=device)), np.poly(m), dtype, 100)
    assert ra.poly(ra.zeros((0,), device=device)) == np.poly([]) == 1.0


def test_roots_edges(device):
    for p in ([0, 0, 1, -3, 2, 0, 0], [0.0, 0.0], [5.0], [2, 0], [1, 0, 1], [1.0, -6, 11, -6], [3, 0, 0]):
        got, want = ra.roots(ra.asarray(p, device=device)), np.roots(p)
        assert ra.asnumpy(got).dtype == want.dtype, p
        assert got.shape == want.shape, p
        np.testing.assert_allclose(sorted_roots(ra.asnumpy(got)), sorted_roots(want), atol=1e-9)
    with pytest.raises(ValueError, match="Input must be a rank-1 array."):
        ra.roots(ra.ones((2, 2), device=device))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("ydim", [1, 2])
def test_polyfit(device, dtype, ydim):
    x = np.linspace(-1, 1, 25).astype(dtype)
    y = (np.polyval([0.5, -1.0, 2.0, 0.25], x)[:, None] * np.array([1.0, -2.0])
         + rand((25, 2), dtype, 7) * 0.01).astype(dtype)
    y = y[:, 0] if ydim == 1 else y
    w = np.random.default_rng(8).uniform(0.5, 1.5, 25)
    gx, gy, gw = (ra.asarray(v, device=device) for v in (x, y, w))
    for deg in (0, 1, 3):
        close(ra.polyfit(gx, gy, deg), np.polyfit(x, y, deg), dtype, 10)
        close(ra.polyfit(gx, gy, deg, w=gw), np.polyfit(x, y, deg, w=w), dtype, 10)
    got = ra.polyfit(gx, gy, 3, full=True)
    want = np.polyfit(x, y, 3, full=True)
    for g, wnt in zip(got[:2] + got[3:4], want[:2] + want[3:4]):
        close(g, wnt, dtype, 100)
    assert got[2] == want[2] and got[4] == pytest.approx(want[4])
    for cov in (True, "unscaled"):
        c, v = ra.polyfit(gx, gy, 2, cov=cov)
        wc, wv = np.polyfit(x, y, 2, cov=cov)
        close(c, wc, dtype, 10)
        close(v, wv, dtype, 100)


def test_polyfit_warns_and_errors(device):
    x = ra.asarray([0.0, 0.0, 1.0, 1.0], device=device)
    with pytest.warns(np.exceptions.RankWarning, match="Polyfit may be poorly conditioned"):
        ra.polyfit(x, x, 3)
    with pytest.warns(np.exceptions.RankWarning):
        np.polyfit(ra.asnumpy(x), ra.asnumpy(x), 3)
    v3 = ra.ones(3, device=device)
    cases = [(lambda: ra.polyfit(v3, v3, -1), ValueError, "expected deg >= 0"),
             (lambda: ra.polyfit(ra.ones((3, 1), device=device), v3, 1), TypeError, "expected 1D vector for x"),
             (lambda: ra.polyfit(v3[:0], v3[:0], 1), TypeError, "expected non-empty vector for x"),
             (lambda: ra.polyfit(v3, ra.ones((3, 1, 1), device=device), 1), TypeError, "expected 1D or 2D array"),
             (lambda: ra.polyfit(v3, v3[:2], 1), TypeError, "expected x and y to have same length"),
             (lambda: ra.polyfit(v3, v3, 1, w=v3[:2]), TypeError, "expected w and y to have the same length"),
             (lambda: ra.polyfit(v3, v3, 1, w=ra.ones((3, 1), device=device)), TypeError, "1-d array for weights"),
             (lambda: ra.polyfit(ra.arange(3.0, device=device), v3, 2, cov=True), ValueError,
              "number of data points must exceed order"),
             (lambda: ra.polyder(v3, -1), ValueError, "Order of derivative must be positive"),
             (lambda: ra.polyint(v3, -1), ValueError, "Order of integral must be positive"),
             (lambda: ra.polyint(v3, 3, k=[1.0, 2.0]), ValueError, "k must be a scalar or a rank-1 array"),
             (lambda: ra.poly(ra.ones((2, 3), device=device)), ValueError, "input must be 1d or non-empty square"),
             (lambda: ra.polyadd(ra.ones((2, 2), device=device), v3), ValueError, "must be 1-D"),
             (lambda: ra.poly1d(ra.ones((2, 2), device=device)), ValueError, "Polynomial must be 1d only."),
             (lambda: ra.poly1d([1.0, 2.0]) ** -1, ValueError, "Power to non-negative integers only."),
             (lambda: ra.polyval(np.ones(3), v3), TypeError, "rocarray.asarray")]
    for call, error, match in cases:
        with pytest.raises(error, match=match):
            call()


def test_poly1d(device):
    c = np.array([1.0, -2.0, 3.0, 0.5])
    d = np.array([2.0, 1.0])
    p, q = ra.poly1d(ra.asarray(c, device=device)), ra.poly1d(ra.asarray(d, device=device))
    wp, wq = np.poly1d(c), np.poly1d(d)
    assert p.order == wp.order == len(p) and p.variable == "x"
    close(p.coeffs, wp.coeffs, np.float64)
    xs = np.array([0.5, -1.0, 2.0])
    close(p(ra.asarray(xs, device=device)), wp(xs), np.float64)
    for got, want in ((p + q, wp + wq), (p - q, wp - wq), (p * q, wp * wq), (p ** 3, wp ** 3), (-p, -wp),
                      (2.0 * p, 2.0 * wp), (p * 2.0, wp * 2.0), (p / 2.0, wp / 2.0), (1.0 + p, 1.0 + wp),
                      (1.0 - p, 1.0 - wp), (p.deriv(), wp.deriv()), (p.deriv(2), wp.deriv(2)),
                      (p.integ(), wp.integ()), (p.integ(2, k=[1.0, 2.0]), wp.integ(2, k=[1.0, 2.0])), (p(q), wp(wq)),
                      (p ** 0, wp ** 0)):
        assert isinstance(got, ra.poly1d)
        close(got.coeffs, want.coeffs, np.float64, 10)
    dq, dr = p / q
    wdq, wdr = wp / wq
    close(dq.coeffs, wdq.coeffs, np.float64)
    close(dr.coeffs, wdr.coeffs, np.float64)
    np.testing.assert_allclose(sorted_roots(ra.asnumpy(p.roots)), sorted_roots(wp.roots))
    assert p == ra.poly1d(ra.asarray(c, device=device)) and p != q
    assert float(p[0]) == wp[0] and float(p[3]) == wp[3] and float(p[7]) == wp[7] == 0
    p2 = ra.poly1d(p)
    p2[5] = 4.0
    wp2 = np.poly1d(wp)
    wp2[5] = 4.0
    close(p2.coeffs, wp2.coeffs, np.float64)
    close(p.coeffs, c, np.float64)  # (setting a coefficient of p2 leaves p as it was)
    # from roots; leading zeros dropped; an all-zero polynomial keeps one 0
    close(ra.poly1d(ra.asarray([1.0, 2.0], device=device), r=True).coeffs, np.poly1d([1.0, 2.0], r=True).coeffs,
          np.float64)
    close(ra.poly1d(ra.asarray([0, 0, 1, 2], device=device)).coeffs, np.poly1d([0, 0, 1, 2]).coeffs, np.int64)
    close(ra.poly1d(ra.zeros(3, device=device)).coeffs, np.poly1d(np.zeros(3)).coeffs, np.float64)
    assert repr(ra.poly1d(ra.asarray([1.0, 2.0], device="cpu"))) == repr(np.poly1d([1.0, 2.0]))
    # (elsewhere the array's repr names its device, as rocarray's arrays do)
    assert repr(ra.poly1d(ra.asarray([1.0, 2.0], device=device))).startswith("poly1d([1., 2.]")
    # polynomial functions given poly1d give poly1d
    assert isinstance(ra.polyadd(p, q), ra.poly1d) and isinstance(ra.polyder(p), ra.poly1d)
    assert isinstance(ra.polydiv(p, q)[0], ra.poly1d)


def test_numpy_dispatch(device):
    if device.kind != "cpu":
        pytest.skip("NumPy's dispatch is the same on every device; checked once on the CPU")
    x = ra.asarray(np.linspace(0, 1, 10), device=device)
    y = ra.multiply(x, x)
    for got in (np.polyfit(x, y, 2), np.roots(ra.asarray([1.0, -3.0, 2.0], device=device)), np.poly(x[:3]),
                np.polyadd(x, y), np.polymul(x[:3], y[:2]), np.polyder(x), np.polyint(x), np.polydiv(x, y[:3])[0]):
        assert isinstance(got, ra.Array)
    np.testing.assert_allclose(ra.asnumpy(np.polyfit(x, y, 2)), [1.0, 0.0, 0.0], atol=1e-12)
