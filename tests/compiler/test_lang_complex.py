"""Complex numbers in the kernel language against NumPy: arithmetic, construction, functions
(on random data at several scales, and on a grid of special values)."""

import warnings

import numpy as np
import pytest

try:  # tests/compiler may or may not be a package
    from ._lang_target import elementwise
except ImportError:
    from _lang_target import elementwise

CPLX = [np.complex64, np.complex128]
#: relative error allowed, measured as |got - want| / |want| (a few ulp)
TOL = {np.complex64: 3e-6, np.complex128: 2e-14}
NUMPY = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh,
         "acosh": np.arccosh, "atanh": np.arctanh}
FUNCS = ["exp", "log", "log10", "log2", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh",
         "asin", "acos", "atan", "asinh", "acosh", "atanh"]


def crand(dt, n=64, scale=1.0, seed=0):
    rng = np.random.default_rng(seed)
    return ((rng.normal(size=n) + 1j * rng.normal(size=n)) * scale).astype(dt)


def rel_err(got, want):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.abs(got - want) / np.maximum(np.abs(want), np.finfo(got.real.dtype).tiny)


@pytest.mark.parametrize("dt", CPLX)
def test_arithmetic(dt):
    a = crand(dt, seed=1)
    b = crand(dt, seed=2)
    outs = elementwise("out0 = in0 + in1; out1 = in0 - in1; out2 = in0 * in1; out3 = in0 / in1;"
                       " out4 = -in0; out5 = in0 == in1; out6 = in0 != in0",
                       [a, b], [dt] * 5 + [bool, bool])
    np.testing.assert_array_equal(outs[0], a + b)
    np.testing.assert_array_equal(outs[1], a - b)
    assert rel_err(outs[2], a * b).max() < TOL[dt]
    assert rel_err(outs[3], a / b).max() < TOL[dt]
    np.testing.assert_array_equal(outs[4], -a)
    assert not outs[5].any() and not outs[6].any()


@pytest.mark.parametrize("dt", CPLX)
def test_division_no_premature_overflow(dt):
    big = np.finfo(np.float32 if dt == np.complex64 else np.float64).max / 4
    a = np.array([complex(big, big), complex(1, 1), complex(1e-30, 1e-30), 1 + 0j, 1 + 1j],
                 dtype=dt)
    b = np.array([complex(big, big / 2), complex(big, big), complex(1e-30, 2e-30), 0j,
                  complex(np.inf, 0)], dtype=dt)
    got = elementwise("out0 = in0 / in1", [a, b], [dt])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = a / b
    np.testing.assert_allclose(got[:3], want[:3], rtol=TOL[dt])
    np.testing.assert_array_equal(np.isinf(got[3].real) or np.isnan(got[3].real), True)
    np.testing.assert_array_equal(got[4:], want[4:])


@pytest.mark.parametrize("dt", CPLX)
def test_mixed_real_complex(dt):
    a = crand(dt, seed=3)
    x = np.random.default_rng(4).normal(size=64)
    real_dt = np.float32 if dt == np.complex64 else np.float64
    xr = x.astype(real_dt)
    outs = elementwise("out0 = in0 + in1; out1 = in1 - in0; out2 = in0 * in1; out3 = in0 / in1;"
                       " out4 = in1 / in0; out5 = in0 * 2; out6 = 1 - in0",
                       [a, xr], [dt] * 7)
    for got, want in zip(outs, [a + xr, xr - a, a * xr, a / xr, xr / a, a * 2, 1 - a]):
        assert rel_err(got, want.astype(dt)).max() < TOL[dt]
    # complex64 with a double promotes to complex128
    out = elementwise("out0 = in0 * in1", [a.astype(np.complex64), x], [np.complex128])
    assert rel_err(out, a.astype(np.complex64).astype(np.complex128) * x).max() < 1e-15


@pytest.mark.parametrize("dt", CPLX)
def test_construction_and_parts(dt):
    x = np.random.default_rng(5).normal(size=16)
    y = np.random.default_rng(6).normal(size=16)
    comp = "float" if dt == np.complex64 else "double"
    body = (f"complex<{comp}> z = complex<{comp}>(in0, in1); thrust::complex<{comp}> w(in1, in0);"
            f" out0 = z; out1 = real(z) + imag(w) * 0; out2 = z.imag(); out3 = conj(z);"
            f" out4 = abs(z); out5 = arg(z); out6 = norm(z); out7 = w.real();"
            f" complex<{comp}> u = in0; u.imag(in1); out8 = u; out9 = z * w")
    rd = np.float32 if dt == np.complex64 else np.float64
    outs = elementwise(body, [x, y], [dt, rd, rd, dt, rd, rd, rd, rd, dt, dt])
    z = (x + 1j * y).astype(dt)
    w = (y + 1j * x).astype(dt)
    np.testing.assert_array_equal(outs[0], z)
    np.testing.assert_array_equal(outs[1], z.real)
    np.testing.assert_array_equal(outs[2], z.imag)
    np.testing.assert_array_equal(outs[3], np.conj(z))
    np.testing.assert_allclose(outs[4], np.abs(z), rtol=TOL[dt])
    np.testing.assert_allclose(outs[5], np.angle(z), rtol=TOL[dt])
    np.testing.assert_allclose(outs[6], np.abs(z) ** 2, rtol=TOL[dt] * 4)
    np.testing.assert_array_equal(outs[7], w.real)
    np.testing.assert_array_equal(outs[8], z)
    assert rel_err(outs[9], z * w).max() < TOL[dt]


def test_abs_does_not_overflow():
    z = np.array([complex(1e200, 1e200), complex(3e-200, 4e-200)])
    got = elementwise("out0 = abs(in0)", [z], [np.float64])
    np.testing.assert_allclose(got, np.abs(z), rtol=1e-15)


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dt", CPLX)
@pytest.mark.parametrize("scale", [1.0, 1e-3, 30.0])
def test_functions_random(name, dt, scale):
    z = crand(dt, scale=scale, seed=7)
    got = elementwise(f"out0 = {name}(in0)", [z], [dt])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = (NUMPY.get(name) or getattr(np, name))(z)
    if scale == 30.0 and name in ("exp", "sinh", "cosh") and dt == np.complex64:
        want = (NUMPY.get(name) or getattr(np, name))(z.astype(np.complex128)).astype(dt)
    err = rel_err(got, want)
    finite = np.isfinite(want)
    assert err[finite].max() < TOL[dt] * 4, (z[np.argmax(err)], got[np.argmax(err)],
                                              want[np.argmax(err)])
    np.testing.assert_array_equal(np.isfinite(got), finite)


SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.0, -0.5, np.inf, -np.inf, np.nan]


def _same(a, b, tol):
    if np.isnan(a) or np.isnan(b):
        return bool(np.isnan(a) and np.isnan(b))
    if np.isinf(a) or np.isinf(b) or a == 0 or b == 0:
        return a == b and np.signbit(a) == np.signbit(b)
    return abs(a - b) <= tol * abs(b)


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dt", CPLX)
def test_functions_special_values(name, dt):
    """Infinities, NaNs and signed zeros as NumPy (C99 Annex G) gives them, signs included."""
    z = np.array([complex(a, b) for a in SPECIAL for b in SPECIAL], dtype=dt)
    got = elementwise(f"out0 = {name}(in0)", [z], [dt])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = (NUMPY.get(name) or getattr(np, name))(z)
    bad = [(zz, g, w) for zz, g, w in zip(z, got, want)
           if not (_same(g.real, w.real, TOL[dt] * 4) and _same(g.imag, w.imag, TOL[dt] * 4))]
    assert not bad, bad


@pytest.mark.parametrize("dt", CPLX)
def test_pow(dt):
    a = crand(dt, seed=8)
    b = crand(dt, seed=9)
    n = np.array([0, 1, 2, 3, 4, 5, -1, -2, -3, 7, 10, 99, -99, 100, 2.5, -0.5] * 4,
                 dtype=np.float64)
    outs = elementwise("out0 = pow(in0, in1); out1 = pow(in0, in2); out2 = pow(in0, 2)",
                       [a, b, n], [dt, dt, dt])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert rel_err(outs[0], a ** b).max() < TOL[dt] * 20
        # pow(complex64, double) computes in complex128 (C promotion), then rounds
        want = (a.astype(np.complex128) ** n.astype(np.complex128)).astype(dt)
        ok = np.isfinite(want)
        assert ok.sum() > 50
        assert rel_err(outs[1][ok], want[ok]).max() < TOL[dt] * 200
        np.testing.assert_allclose(outs[2], a * a, rtol=TOL[dt])
    zero = np.zeros(4, dt)
    e = np.array([2, 0, -1, 1j], dt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = elementwise("out0 = pow(in0, in1)", [zero, e], [dt])
        want = zero ** e
    np.testing.assert_array_equal(got, want)


def test_complex_condition_is_an_error():
    from rocarray.compiler.lang import KernelTypeError
    with pytest.raises(KernelTypeError, match="complex128 value cannot be used as a condition"):
        elementwise("if (in0) out0 = 1;", [np.ones(2, np.complex128)], [np.float64])
    with pytest.raises(KernelTypeError, match="cannot assign a complex128"):
        elementwise("out0 = in0;", [np.ones(2, np.complex128)], [np.float64])
    with pytest.raises(KernelTypeError, match="cannot compare complex"):
        elementwise("out0 = in0 < in0;", [np.ones(2, np.complex128)], [bool])
    # an explicit cast takes the real part
    got = elementwise("out0 = (double)in0;", [np.array([3 + 4j])], [np.float64])
    assert got[0] == 3.0
