"""rocarray.fft against numpy.fft on random data: every function, float32/64 and
complex64/128 (32-bit inputs stay 32-bit), n / s, axis / axes, norm, errors; every device."""

import numpy as np
import pytest

import rocarray as ra
from conftest import random_array

NORMS = ["backward", "ortho", "forward"]
CPLX = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128,
        np.dtype(np.complex64): np.complex64, np.dtype(np.complex128): np.complex128}


def tol(dtype):
    return 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


def check(got, want, dtype, out_kind):
    got = ra.asnumpy(got)
    single = np.dtype(dtype) in (np.float32, np.complex64)
    expected = {("c", True): np.complex64, ("c", False): np.complex128,
                ("f", True): np.float32, ("f", False): np.float64}[(out_kind, single)]
    assert got.dtype == expected
    assert got.shape == want.shape
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=tol(dtype), atol=tol(dtype) * scale)


def rand(shape, dtype, seed=0):
    return random_array(shape, dtype, np.random.default_rng(seed), low=-1, high=1)


@pytest.mark.parametrize("dtype", [ra.float32, ra.float64, ra.complex64, ra.complex128])
@pytest.mark.parametrize("norm", NORMS)
def test_one_dimensional(device, dtype, norm):
    a = rand((3, 16, 5), dtype, 1)
    g = ra.asarray(a, device=device)
    for n, axis in ((None, -1), (None, 1), (12, 1), (20, 0), (7, -1)):
        check(ra.fft.fft(g, n=n, axis=axis, norm=norm), np.fft.fft(a, n=n, axis=axis, norm=norm), dtype, "c")
        check(ra.fft.ifft(g, n=n, axis=axis, norm=norm), np.fft.ifft(a, n=n, axis=axis, norm=norm), dtype, "c")
        if np.dtype(dtype).kind == "f":
            check(ra.fft.rfft(g, n=n, axis=axis, norm=norm), np.fft.rfft(a, n=n, axis=axis, norm=norm), dtype, "c")
            check(ra.fft.ihfft(g, n=n, axis=axis, norm=norm), np.fft.ihfft(a, n=n, axis=axis, norm=norm),
                  dtype, "c")
        else:
            check(ra.fft.irfft(g, n=n, axis=axis, norm=norm), np.fft.irfft(a, n=n, axis=axis, norm=norm),
                  dtype, "f")
            check(ra.fft.hfft(g, n=n, axis=axis, norm=norm), np.fft.hfft(a, n=n, axis=axis, norm=norm), dtype, "f")


@pytest.mark.parametrize("dtype", [ra.float32, ra.float64, ra.complex64, ra.complex128])
@pytest.mark.parametrize("norm", NORMS)
def test_n_dimensional(device, dtype, norm):
    a = rand((4, 6, 8, 2), dtype, 2)
    g = ra.asarray(a, device=device)
    cases = [(None, None), (None, (0, 2)), ((5, 10), (1, 2)), ((3, 4, 6, 2), None), ((4, 4), (2, 0))]
    for s, axes in cases:
        np_axes = axes if axes is not None or s is None else tuple(range(a.ndim - len(s), a.ndim))
        check(ra.fft.fftn(g, s=s, axes=axes, norm=norm), np.fft.fftn(a, s=s, axes=np_axes, norm=norm), dtype, "c")
        check(ra.fft.ifftn(g, s=s, axes=axes, norm=norm), np.fft.ifftn(a, s=s, axes=np_axes, norm=norm), dtype, "c")
        if np.dtype(dtype).kind == "f":
            check(ra.fft.rfftn(g, s=s, axes=axes, norm=norm), np.fft.rfftn(a, s=s, axes=np_axes, norm=norm),
                  dtype, "c")
        else:
            check(ra.fft.irfftn(g, s=s, axes=axes, norm=norm), np.fft.irfftn(a, s=s, axes=np_axes, norm=norm),
                  dtype, "f")


def test_round_trips_and_minus_one(device):
    a = rand((6, 10), np.float64, 3)
    g = ra.asarray(a, device=device)
    np.testing.assert_allclose(ra.asnumpy(ra.fft.irfftn(ra.fft.rfftn(g), s=(-1, 10))), a, atol=1e-12)
    np.testing.assert_allclose(ra.asnumpy(ra.fft.ifft(ra.fft.fft(g))).real, a, atol=1e-12)
    check(ra.fft.fftn(g, s=(-1, 4)), np.fft.fftn(a, s=(6, 4), axes=(0, 1)), np.float64, "c")


def test_integer_input(device):
    a = np.arange(8, dtype=np.int32)
    check(ra.fft.fft(ra.asarray(a, device=device)), np.fft.fft(a), np.float64, "c")


@pytest.mark.parametrize("dtype", [None, ra.float32])
def test_frequencies_and_shifts(device, dtype):
    for n in (1, 8, 9):
        got = ra.fft.fftfreq(n, d=0.5, dtype=dtype, device=device)
        assert got.device == device and got.dtype == (dtype or ra.float64)
        np.testing.assert_allclose(ra.asnumpy(got), np.fft.fftfreq(n, 0.5))
        np.testing.assert_allclose(ra.asnumpy(ra.fft.rfftfreq(n, d=0.5, dtype=dtype, device=device)),
                                   np.fft.rfftfreq(n, 0.5))
    a = rand((5, 8), np.float64, 4)
    g = ra.asarray(a, device=device)
    for axes in (None, 0, (1,), (0, 1)):
        np.testing.assert_array_equal(ra.asnumpy(ra.fft.fftshift(g, axes=axes)), np.fft.fftshift(a, axes=axes))
        np.testing.assert_array_equal(ra.asnumpy(ra.fft.ifftshift(g, axes=axes)), np.fft.ifftshift(a, axes=axes))


@pytest.mark.parametrize("call, error, match", [
    ("ra.fft.fft(x, norm='none')", ValueError, "norm must be 'backward', 'ortho' or 'forward'"),
    ("ra.fft.fft(x, n=0)", ValueError, "invalid number of data points"),
    ("ra.fft.fft(x, n=2.5)", TypeError, "n must be an int"),
    ("ra.fft.fft(x, axis=3)", IndexError, "out of bounds"),
    ("ra.fft.rfft(c)", TypeError, "expected a real floating-point array"),
    ("ra.fft.fftn(x, s=(4, 4), axes=(0,))", ValueError, "s has 2 entries for 1 axes"),
    ("ra.fft.fftn(x, axes=(0, 0))", ValueError, "repeated axes"),
    ("ra.fft.fft(h)", TypeError, "float16 is not supported"),
    ("ra.fft.fft(s0)", ValueError, "at least one dimension"),
    ("ra.fft.fft([1.0])", TypeError, "must be a rocarray array"),
    ("ra.fft.fftfreq(0)", ValueError, "n must be at least 1"),
    ("ra.fft.fftfreq(4, dtype=ra.int32)", TypeError, "dtype must be float32 or float64"),
])
def test_errors(device, call, error, match):
    env = {"ra": ra, "x": ra.ones((4, 4), device=device), "c": ra.ones((4,), dtype=ra.complex64, device=device),
           "h": ra.ones((4,), dtype=ra.float16, device=device), "s0": ra.ones((), device=device)}
    with pytest.raises(error, match=match):
        eval(call, env)
