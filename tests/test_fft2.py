"""rocarray.fft's fft2 / ifft2 / rfft2 / irfft2 against numpy.fft on random data: float32/64
and complex64/128 (32-bit inputs stay 32-bit), several shapes and axes, s larger and smaller
than the input, every norm, NumPy's positional signature, errors; every device."""

import numpy as np
import pytest

import rocarray as ra
from conftest import random_array

NORMS = ["backward", "ortho", "forward"]
DTYPES = [ra.float32, ra.float64, ra.complex64, ra.complex128]
SINGLE = (np.dtype(np.float32), np.dtype(np.complex64))


def check(got, want, dtype, out_kind):
    got = ra.asnumpy(got)
    single = np.dtype(dtype) in SINGLE
    expected = {("c", True): np.complex64, ("c", False): np.complex128,
                ("f", True): np.float32, ("f", False): np.float64}[(out_kind, single)]
    assert got.dtype == expected
    assert got.shape == want.shape
    tol = 1e-4 if single else 1e-10
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


def rand(shape, dtype, seed=0):
    return random_array(shape, dtype, np.random.default_rng(seed), low=-1, high=1)


#: (input shape, s, axes): default axes, other axes, s larger, smaller, mixed, with -1
CASES = [
    ((8, 6), None, None),
    ((3, 5, 7), None, None),
    ((4, 6, 5), None, (0, 2)),
    ((4, 6, 5), None, (2, 0)),
    ((6, 8), (10, 12), None),
    ((6, 8), (3, 4), None),
    ((6, 8), (9, 5), None),
    ((2, 6, 8), (4, 7), (0, 1)),
    ((6, 8), (-1, 5), None),
    ((1, 1), None, None),
    ((5, 4, 3), (2,), (1,)),
]


def _call(fn, g, s, axes, norm):
    kwargs = {"norm": norm}
    if s is not None:
        kwargs["s"] = s
    if axes is not None:
        kwargs["axes"] = axes
    return fn(g, **kwargs)


def _numpy_s(a, s, axes):
    """NumPy's s for the case: -1 spelled out as the input's length (NumPy 2 deprecates -1)."""
    if s is None:
        return None
    axes = (-2, -1) if axes is None else axes
    return tuple(a.shape[ax] if v == -1 else v for v, ax in zip(s, axes))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm", NORMS)
def test_complex_transforms(device, dtype, norm):
    for k, (shape, s, axes) in enumerate(CASES):
        a = rand(shape, dtype, k)
        g = ra.asarray(a, device=device)
        ns = _numpy_s(a, s, axes)
        nkw = {"s": ns, "norm": norm, **({} if axes is None else {"axes": axes})}
        check(_call(ra.fft.fft2, g, s, axes, norm), np.fft.fft2(a, **nkw), dtype, "c")
        check(_call(ra.fft.ifft2, g, s, axes, norm), np.fft.ifft2(a, **nkw), dtype, "c")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm", NORMS)
def test_real_transforms(device, dtype, norm):
    for k, (shape, s, axes) in enumerate(CASES):
        a = rand(shape, dtype, 100 + k)
        g = ra.asarray(a, device=device)
        nkw = {"s": _numpy_s(a, s, axes), "norm": norm, **({} if axes is None else {"axes": axes})}
        if np.dtype(dtype).kind == "f":
            check(_call(ra.fft.rfft2, g, s, axes, norm), np.fft.rfft2(a, **nkw), dtype, "c")
        else:
            last = (-1 if axes is None else axes[-1])
            if s is None and a.shape[last] == 1:
                continue  # (2 * (1 - 1) points: an error, checked below)
            # irfft2 of a half spectrum: NumPy's default last length, or s's
            check(_call(ra.fft.irfft2, g, s, axes, norm), np.fft.irfft2(a, **nkw), dtype, "f")


def test_positional_signature_and_none_norm(device):
    a = rand((4, 6, 8), np.complex128, 7)
    g = ra.asarray(a, device=device)
    check(ra.fft.fft2(g, (5, 3), (0, 2), "ortho"), np.fft.fft2(a, (5, 3), (0, 2), "ortho"), np.complex128, "c")
    check(ra.fft.ifft2(g, None, (1, 0), None), np.fft.ifft2(a, None, (1, 0), None), np.complex128, "c")
    check(ra.fft.irfft2(g, (4, 10)), np.fft.irfft2(a, (4, 10)), np.complex128, "f")
    r = rand((4, 6, 8), np.float32, 8)
    check(ra.fft.rfft2(ra.asarray(r, device=device), None, (0, 1), None), np.fft.rfft2(r, None, (0, 1)),
          np.float32, "c")


def test_round_trips(device):
    a = rand((6, 10), np.float64, 9)
    g = ra.asarray(a, device=device)
    np.testing.assert_allclose(ra.asnumpy(ra.fft.irfft2(ra.fft.rfft2(g), s=(6, 10))), a, atol=1e-12)
    np.testing.assert_allclose(ra.asnumpy(ra.fft.ifft2(ra.fft.fft2(g))).real, a, atol=1e-12)
    b = rand((5, 7), np.float32, 10)
    # odd last length: irfft2 needs s to give it back
    np.testing.assert_allclose(ra.asnumpy(ra.fft.irfft2(ra.fft.rfft2(ra.asarray(b, device=device)), s=b.shape)),
                               b, atol=1e-5)


def test_integer_input(device):
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    check(ra.fft.fft2(ra.asarray(a, device=device)), np.fft.fft2(a), np.float64, "c")
    check(ra.fft.rfft2(ra.asarray(a, device=device)), np.fft.rfft2(a), np.float64, "c")


@pytest.mark.parametrize("call, error, match", [
    ("ra.fft.fft2(v)", IndexError, "out of bounds"),
    ("ra.fft.ifft2(x, s=(4, 4, 4))", ValueError, "s has 3 entries for 2 axes"),
    ("ra.fft.fft2(x, norm='none')", ValueError, "norm must be 'backward', 'ortho' or 'forward'"),
    ("ra.fft.rfft2(x, s=(0, 4))", ValueError, "invalid number of data points"),
    ("ra.fft.irfft2(one)", ValueError, "invalid number of data points"),
    ("ra.fft.fft2(x, axes=(0, 0))", ValueError, "repeated axes"),
    ("ra.fft.fft2(x, axes=(0, 5))", IndexError, "out of bounds"),
    ("ra.fft.fft2(x, axes=None)", TypeError, "axes must be a sequence"),
    ("ra.fft.fft2(x, axes=1)", TypeError, "axes must be a sequence of ints"),
    ("ra.fft.rfft2(c)", TypeError, "expected a real floating-point array"),
    ("ra.fft.irfft2(h)", TypeError, "float16 is not supported"),
    ("ra.fft.fft2(x, s=(2.5, 4))", TypeError, "must be an int"),
    ("ra.fft.fft2(x.get())", TypeError, "must be a rocarray array"),
])
def test_errors(device, call, error, match):
    env = {"ra": ra, "x": ra.ones((4, 4), device=device), "v": ra.ones((4,), device=device),
           "c": ra.ones((4, 4), dtype=ra.complex64, device=device),
           "h": ra.ones((4, 4), dtype=ra.float16, device=device),
           "one": ra.ones((3, 1), dtype=ra.complex128, device=device)}
    with pytest.raises(error, match=match):
        eval(call, env)
