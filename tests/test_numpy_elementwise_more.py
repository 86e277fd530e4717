"""NumPy's ldexp, frexp, spacing, bitwise_count, fix, i0 and kaiser against NumPy: seeded
random data with the specials (NaN, infinities, signed zeros, subnormals, the largest and
smallest values) for every dtype each accepts, non-contiguous, 0-d and empty inputs, the
result dtypes, ``np.<name>(x)`` dispatch and the TypeErrors; every device."""

import numpy as np
import pytest

import rocarray as ra
from conftest import ALL_DTYPES

FLOATS = [np.float16, np.float32, np.float64]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
REAL = [np.bool_] + INTS + FLOATS


def specials(dtype):
    """Every special value of a float dtype, both signs."""
    fi = np.finfo(dtype)
    v = [0.0, np.inf, np.nan, 1.0, 0.5, 2.0, 3.0, float(fi.max), float(fi.tiny), float(fi.smallest_subnormal),
         float(fi.smallest_subnormal) * 3, float(fi.tiny) - float(fi.smallest_subnormal), float(fi.eps),
         float(np.nextafter(fi.max, 0, dtype=dtype))]
    return np.array(v + [-x for x in v], dtype=dtype)


def data(dtype, rng, n=200):
    """Random values of ``dtype``: floats over their whole exponent range, with the specials."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(n) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, size=n, dtype=dt, endpoint=True)
        a[:3] = [info.min, info.max, 0]
        return a
    fi = np.finfo(dt)
    mag = np.exp2(rng.uniform(np.log2(float(fi.smallest_subnormal)), np.log2(float(fi.max)), n))
    a = (mag * rng.choice([-1.0, 1.0], n)).astype(dt)
    s = specials(dt)
    a[:len(s)] = s
    return rng.permutation(a)


def same(got, want):
    """Equal values and dtypes, NaN where NumPy has NaN, zeros of NumPy's sign."""
    assert isinstance(got, ra.Array)
    g = got.get()
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    assert g.shape == want.shape
    np.testing.assert_array_equal(g, want)
    if want.dtype.kind == "f":
        zeros = want == 0
        np.testing.assert_array_equal(np.signbit(g[zeros]), np.signbit(want[zeros]))


def layouts(a, device):
    """(rocarray array, NumPy array) pairs: contiguous, strided, reversed 2-d, 0-d and empty."""
    x = ra.asarray(a, device=device)
    m = a[: (a.size // 12) * 12].reshape(12, -1)
    y = ra.asarray(m, device=device)
    return [(x, a), (x[::3], a[::3]), (y[::-2, 1::2], m[::-2, 1::2]), (y.T, m.T),
            (x[5], np.asarray(a[5])), (x[:0], a[:0])]


def quiet(fn, *args):
    with np.errstate(all="ignore"):
        return fn(*args)


# -- frexp -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_frexp(device, dtype):
    rng = np.random.default_rng(1 + REAL.index(dtype))
    for x, a in layouts(data(dtype, rng), device):
        m, e = ra.frexp(x)
        wm, we = np.frexp(a)
        same(m, wm)
        same(e, we)
        assert e.dtype == ra.int32
    # np.frexp reaches rocarray; out= a pair
    x = ra.asarray(data(dtype, rng), device=device)
    m, e = np.frexp(x)
    same(m, np.frexp(x.get())[0])
    mo, eo = ra.empty(x.shape, dtype=m.dtype, device=device), ra.empty(x.shape, dtype=ra.int32, device=device)
    r = ra.frexp(x, out=(mo, eo))
    assert r[0] is mo and r[1] is eo
    same(eo, np.frexp(x.get())[1])


def test_frexp_rebuilds_x(device):
    for dt in FLOATS:
        a = data(dt, np.random.default_rng(7))
        m, e = ra.frexp(ra.asarray(a, device=device))
        fin = np.isfinite(a)
        np.testing.assert_array_equal(np.ldexp(m.get()[fin], e.get()[fin]), a[fin])
        mag = np.abs(m.get()[fin & (a != 0)])
        assert ((mag >= 0.5) & (mag < 1)).all()


# -- ldexp -----------------------------------------------------------------------------------

def exponents(dtype, rng, n):
    """Exponents of ``dtype``: small ones, ones past every float's range, the extremes."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(n) < 0.5
    info = np.iinfo(dt)
    lo, hi = max(int(info.min), -1200), min(int(info.max), 1200)
    e = rng.integers(lo, hi, size=n, endpoint=True).astype(dt)
    e[: min(4, n)] = [info.min, info.max, 0, 1][: min(4, n)]
    return e


@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_ldexp_over_exponent_dtypes(device, dtype):
    rng = np.random.default_rng(11 + REAL.index(dtype))
    a = data(dtype, rng)
    for edt in [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32]:
        e = exponents(edt, rng, a.size)
        want = quiet(np.ldexp, a, e)
        same(ra.ldexp(ra.asarray(a, device=device), ra.asarray(e, device=device)), want)
        # non-contiguous and broadcast operands
        x, y = ra.asarray(a, device=device), ra.asarray(e, device=device)
        same(ra.ldexp(x[::-3], y[1::3]), quiet(np.ldexp, a[::-3], e[1::3]))
        same(ra.ldexp(x[:7, None], y[None, :5]), quiet(np.ldexp, a[:7, None], e[None, :5]))


def test_ldexp_rounds_once_into_subnormals_and_saturates(device):
    rng = np.random.default_rng(3)
    for dt in FLOATS:
        fi = np.finfo(dt)
        nmant, emin = fi.nmant, int(fi.minexp)
        # mantissas with all their bits, exponents that take them across the subnormal range
        m = (1 + rng.random(400)).astype(dt) * rng.choice([-1, 1], 400).astype(dt)
        e = rng.integers(emin - nmant - 3, emin + 2, size=400).astype(np.int32)
        same(ra.ldexp(ra.asarray(m, device=device), ra.asarray(e, device=device)), quiet(np.ldexp, m, e))
        # overflow to inf, underflow to a signed zero, big steps from a subnormal
        s = specials(dt)
        for k in (-100000, -3000, -1100, -200, -30, 30, 200, 1100, 3000, 100000):
            same(ra.ldexp(ra.asarray(s, device=device), k), quiet(np.ldexp, s, np.int64(k)).astype(dt))


def test_ldexp_dtypes_scalars_and_dispatch(device):
    f32 = ra.asarray(np.array([1.5, -3.0], dtype=np.float32), device=device)
    i8 = ra.asarray(np.array([2, -1], dtype=np.int8), device=device)
    assert ra.ldexp(f32, ra.asarray(np.array([2, 3]), device=device)).dtype == ra.float32  # (not float64)
    assert ra.ldexp(f32, 3).dtype == ra.float32
    assert ra.ldexp(i8, i8).dtype == ra.float16
    assert ra.ldexp(1.5, i8).dtype == ra.float64
    for x1 in (2, True):  # (Python ints and bools: NumPy's float16, float64 beside bool exponents)
        for e in (np.array([1, 2], dtype=np.int8), np.array([1, -2], dtype=np.int64), np.array([True, False])):
            same(ra.ldexp(x1, ra.asarray(e, device=device)), np.ldexp(x1, e))
    np.testing.assert_array_equal(ra.ldexp(1.5, i8).get(), np.ldexp(1.5, i8.get()))
    np.testing.assert_array_equal(ra.ldexp(f32, True).get(), np.ldexp(f32.get(), True))
    got = np.ldexp(f32, i8)
    assert isinstance(got, ra.Array)
    same(got, np.ldexp(f32.get(), i8.get()))
    out = ra.empty((2,), dtype=ra.float64, device=device)
    assert ra.ldexp(f32, i8, out=out) is out
    np.testing.assert_array_equal(out.get(), np.ldexp(f32.get(), i8.get()).astype(np.float64))
    z = ra.ldexp(ra.asarray(np.float32(3.0), device=device), 2)
    assert z.shape == () and z.dtype == ra.float32 and float(z) == 12.0


# -- spacing ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_spacing(device, dtype):
    rng = np.random.default_rng(21 + REAL.index(dtype))
    for x, a in layouts(data(dtype, rng), device):
        same(ra.spacing(x), quiet(np.spacing, a))
    x = ra.asarray(data(dtype, rng), device=device)
    same(quiet(np.spacing, x), quiet(np.spacing, x.get()))


def test_spacing_at_the_ends():
    for dt in FLOATS:
        fi = np.finfo(dt)
        got = ra.spacing(ra.asarray(np.array([fi.max, 0.0, -0.0, np.inf, 1.0], dtype=dt))).get()
        assert np.isinf(got[0]) and got[0] > 0
        assert got[1] == got[2] == fi.smallest_subnormal and not np.signbit(got[2])
        assert np.isnan(got[3]) and got[4] == fi.eps


# -- bitwise_count ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.bool_] + INTS, ids=str)
def test_bitwise_count(device, dtype):
    rng = np.random.default_rng(31 + INTS.index(dtype) if dtype in INTS else 30)
    for x, a in layouts(data(dtype, rng), device):
        same(ra.bitwise_count(x), np.bitwise_count(a))
    x = ra.asarray(data(dtype, rng), device=device)
    same(np.bitwise_count(x), np.bitwise_count(x.get()))
    out = ra.empty(x.shape, dtype=ra.uint8, device=device)
    assert ra.bitwise_count(x, out=out) is out
    np.testing.assert_array_equal(out.get(), np.bitwise_count(x.get()))


# -- fix -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_fix(device, dtype):
    rng = np.random.default_rng(41 + REAL.index(dtype))
    a = data(dtype, rng)
    if np.dtype(dtype).kind == "f":
        a[-20:] = rng.uniform(-3, 3, 20).astype(dtype)  # (fractions, beside the huge values)
    for x, y in layouts(a, device):
        same(ra.fix(x), np.fix(y))
    got = np.fix(ra.asarray(a, device=device))
    assert isinstance(got, ra.Array)
    same(got, np.fix(a))


# -- i0 and kaiser ----------------------------------------------------------------------------------

def test_i0_against_high_precision():
    """Within 4 units in the last place of I0 (computed by mpmath) over the whole range of
    float64, float32 within 1 (it is computed in float64)."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    rng = np.random.default_rng(51)
    a = np.concatenate([rng.uniform(0, 8, 600), rng.uniform(8, 40, 400), rng.uniform(40, 713.9, 400),
                        np.exp2(rng.uniform(-1074, 0, 100)), [0.0, 8.0, 700.0, 713.98]])
    a = a * rng.choice([-1.0, 1.0], a.size)
    want = np.array([float(mp.besseli(0, mp.mpf(float(v)))) for v in a])
    got = ra.i0(ra.asarray(a)).get()
    assert (np.abs(got - want) <= 4 * np.spacing(want)).all()
    b = a[np.abs(a) < 88].astype(np.float32)
    want32 = np.array([float(mp.besseli(0, mp.mpf(float(v)))) for v in b]).astype(np.float32)
    got32 = ra.i0(ra.asarray(b)).get()
    assert got32.dtype == np.float32
    assert (np.abs(got32 - want32) <= np.spacing(want32)).all()


def test_i0_coefficients_are_the_chebyshev_expansions():
    """The catalogue's i0 coefficients are the Chebyshev expansions they are said to be:
    recomputed here with mpmath."""
    mp = pytest.importorskip("mpmath")
    from rocarray._kernels import catalogue

    ew = catalogue().elementwise
    mp.mp.dps = 50
    n = 90

    def cheb(f, count):
        nodes = [mp.cos(mp.pi * (j + 0.5) / n) for j in range(n)]
        vals = [f(t) for t in nodes]
        cs = [2 * mp.fsum(v * mp.cos(mp.pi * k * (j + 0.5) / n) for j, v in enumerate(vals)) / n
              for k in range(count)]
        cs[0] /= 2
        return [float(c) for c in cs]

    small = cheb(lambda t: mp.exp(-4 * (t + 1)) * mp.besseli(0, 4 * (t + 1)), len(ew._I0_SMALL))
    large = cheb(lambda t: (lambda a: mp.sqrt(a) * mp.exp(-a) * mp.besseli(0, a))(16 / (t + 1)),
                 len(ew._I0_LARGE))
    np.testing.assert_allclose(ew._I0_SMALL, small, rtol=1e-14, atol=1e-30)
    np.testing.assert_allclose(ew._I0_LARGE, large, rtol=1e-14, atol=1e-30)


@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_i0(device, dtype):
    rng = np.random.default_rng(61 + REAL.index(dtype))
    a = data(dtype, rng)
    if np.dtype(dtype).kind == "f":
        a[-60:] = rng.uniform(-30, 30, 60).astype(dtype)
    for x, y in layouts(a, device):
        got = ra.i0(x)
        with np.errstate(all="ignore"):
            # NumPy's i0(inf) is NaN (I0(inf) = inf); its float16 is computed in float16:
            # compared here with float64's, rounded once, as rocarray computes it
            yy = y.astype(np.float64) if y.dtype == np.float16 else y
            want = np.asarray(np.where(np.isinf(yy), np.inf, np.i0(yy))).astype(np.i0(np.zeros(1, y.dtype)).dtype)
        assert got.dtype == want.dtype and got.shape == want.shape
        tol = {np.dtype(np.float16): 1e-3, np.dtype(np.float32): 4e-7}.get(want.dtype, 1e-14)
        np.testing.assert_allclose(got.get(), want, rtol=tol, atol=0, equal_nan=True)
    got = np.i0(ra.asarray(a, device=device))
    assert isinstance(got, ra.Array)


@pytest.mark.parametrize("M", [0, 1, 2, 3, 8, 51])
@pytest.mark.parametrize("beta", [0.0, 0.5, 5.0, 14.0, 100.0, -3.0])
def test_kaiser(device, M, beta):
    got = ra.kaiser(M, beta, device=device)
    want = np.kaiser(M, beta)
    assert got.dtype == ra.float64 and got.shape == want.shape and got.device == device
    np.testing.assert_allclose(got.get(), want, rtol=1e-13, atol=1e-300)


# -- errors ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, match", [
    ("ra.ldexp(f, f)", "exponents x2 must be of an integer dtype or bool"),
    ("ra.ldexp(f, u64)", "not uint64"),
    ("ra.ldexp(c, i)", "x1 must be real"),
    ("ra.ldexp(f, 2.0)", "exponent x2 must be an integer"),
    ("ra.ldexp(1.0, 2)", "at least one argument must be an array"),
    ("ra.ldexp(f.get(), i)", "rocarray array or a Python scalar"),
    ("ra.frexp(c)", "frexp: complex dtype complex64 is not supported"),
    ("ra.spacing(c)", "spacing: complex floating dtype complex64 is not supported"),
    ("ra.bitwise_count(f)", "bitwise_count: real floating dtype float32 is not supported"),
    ("ra.bitwise_count(c)", "bitwise_count: complex floating dtype complex64 is not supported"),
    ("ra.bitwise_count(3)", "must be a rocarray array"),
    ("ra.fix(c)", "fix: complex floating dtype complex64 is not supported"),
    ("ra.i0(c)", "i0: complex dtype complex64 is not supported"),
    ("ra.kaiser(4, 'a')", "beta must be a real"),
    ("ra.kaiser(2.5, 1.0)", "expected an integer"),
])
def test_bad_dtypes_raise_type_error(device, call, match):
    env = {"ra": ra, "f": ra.ones((3,), dtype=ra.float32, device=device),
           "c": ra.ones((3,), dtype=ra.complex64, device=device), "i": ra.ones((3,), dtype=ra.int32, device=device),
           "u64": ra.ones((3,), dtype=ra.uint64, device=device)}
    with pytest.raises(TypeError, match=match):
        eval(call, env)


def test_every_dtype_is_accepted_or_refused_as_numpy():
    """Each function takes the dtypes NumPy takes and refuses the others with a TypeError."""
    for dt in ALL_DTYPES:
        a = np.ones(3, dtype=dt)
        x = ra.asarray(a)
        for name in ("spacing", "bitwise_count", "fix", "frexp", "i0"):
            try:
                getattr(np, name)(a)
                numpy_takes = True
            except TypeError:
                numpy_takes = False
            if numpy_takes:
                getattr(ra, name)(x)
            else:
                with pytest.raises(TypeError):
                    getattr(ra, name)(x)
