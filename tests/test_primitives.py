"""The scan primitive (rocarray/_primitives.py) against NumPy: every op, dtype and axis,
inclusive, exclusive and with the identity in front, strided inputs, user kernels."""

import numpy as np
import pytest

import rocarray as ra
from conftest import ALL_DTYPES, random_array

_NP = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum,
       "logical_and": np.logical_and, "logical_or": np.logical_or}


def _expected(h, op, axis, dtype=None):
    if op == "sum":
        return np.cumsum(h, axis=axis, dtype=dtype or (np.int64 if h.dtype.kind in "bi" else
                                                        np.uint64 if h.dtype.kind == "u" else h.dtype))
    if op == "prod":
        return np.cumprod(h, axis=axis, dtype=dtype or (np.int64 if h.dtype.kind in "bi" else
                                                         np.uint64 if h.dtype.kind == "u" else h.dtype))
    if op.startswith("logical"):
        return _NP[op].accumulate(h.astype(bool), axis=axis)
    return _NP[op].accumulate(h, axis=axis)


def _identity(op, dt):
    if op == "sum":
        return 0
    if op == "prod":
        return 1
    if op == "logical_and":
        return True
    if op == "logical_or":
        return False
    if dt.kind == "f":
        return -np.inf if op == "max" else np.inf
    if dt.kind == "b":
        return op == "min"
    info = np.iinfo(dt)
    return info.min if op == "max" else info.max


def _close(got, want):
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    if want.dtype.kind in "fc":
        tol = 1e-2 if want.dtype == np.float16 else 1e-4
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want[np.isfinite(want)]).max(initial=1))
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op", sorted(_NP))
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_scan_matches_numpy(device, op, dtype):
    if op in ("max", "min") and np.dtype(dtype).kind == "c":
        with pytest.raises(TypeError, match="complex"):
            ra.scan(ra.asarray(random_array((4,), dtype), device=device), op)
        return
    rng = np.random.default_rng(7)
    small = op == "prod" and np.dtype(dtype).kind in "fc"
    h = random_array((3, 37), dtype, rng, low=-2 if op == "prod" else -100, high=2 if op == "prod" else 100)
    if small:
        h = (h / 2).astype(dtype)
    x = ra.asarray(h, device=device)
    for axis in (0, 1, -1):
        _close(ra.scan(x, op, axis=axis).get(), _expected(h, op, axis))
        excl = ra.scan(x, op, axis=axis, exclusive=True).get()
        want = _expected(h, op, axis)
        first = np.full_like(np.take(want, [0], axis=axis), _identity(op, want.dtype))
        want_ex = np.concatenate([first, np.delete(want, -1, axis=axis)], axis=axis)
        _close(excl, want_ex)
        init = ra.scan(x, op, axis=axis, include_initial=True).get()
        _close(init, np.concatenate([first, want], axis=axis))


def test_scan_long_lines_strided_and_empty(device):
    rng = np.random.default_rng(3)
    h = rng.integers(-50, 50, size=(3, 300001)).astype(np.int32)
    x = ra.asarray(h, device=device)
    _close(ra.scan(x, "sum", axis=1).get(), np.cumsum(h, axis=1, dtype=np.int64))
    _close(ra.exclusive_scan(x[:, ::-3], "max", axis=1)[:, 1:].get(),
           np.maximum.accumulate(h[:, ::-3], axis=1)[:, :-1])
    _close(ra.scan(x[::2, ::7], "min", axis=0).get(), np.minimum.accumulate(h[::2, ::7], axis=0))
    e = ra.asarray(np.zeros((0, 4), np.float32), device=device)
    assert ra.scan(e, "sum", axis=0).shape == (0, 4)
    assert ra.exclusive_scan(e, axis=1).shape == (0, 4)
    assert ra.scan(e, axis=0, include_initial=True).shape == (1, 4)


def test_scan_long_wide_integer_lines(device):
    """Integer sums, maxima and minima of 16 bytes an element: one pass per line on the
    host (``HOST_ONE_PASS_BYTES``), chunked on GPUs; 2**18 elements and more."""
    rng = np.random.default_rng(31)
    h = rng.integers(-2**40, 2**40, size=(2, 300001))
    x = ra.asarray(h, device=device)
    _close(ra.cumulative_sum(x[0]).get(), np.cumsum(h[0]))
    _close(ra.cumulative_sum(x[:, ::-1], axis=1, include_initial=True).get()[:, 1:],
           np.cumsum(h[:, ::-1], axis=1))
    _close(ra.scan(x[1, ::2], "max").get(), np.maximum.accumulate(h[1, ::2]))
    u = ra.asarray(h[0].astype(np.uint64), device=device)
    _close(ra.scan(u, "min").get(), np.minimum.accumulate(h[0].astype(np.uint64)))


def test_scan_dtype_argument(device):
    h = random_array((50,), np.int8)
    x = ra.asarray(h, device=device)
    _close(ra.scan(x, "sum", dtype=ra.int16).get(), np.cumsum(h, dtype=np.int16))
    _close(ra.exclusive_scan(x, "prod", dtype=ra.float64)[1:].get(),
           np.cumprod(h, dtype=np.float64)[:-1])


def test_scan_reduction_kernel(device):
    # a user's associative operation: the running sum of squares, then a square root
    rk = ra.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "rk_scan_l2")
    h = random_array((4, 33), np.float64)
    got = ra.scan(ra.asarray(h, device=device), rk, axis=1).get()
    np.testing.assert_allclose(got, np.sqrt(np.cumsum(h * h, axis=1)), rtol=1e-12)
    two = ra.ReductionKernel("T x, T z", "T y", "x + z", "a + b", "y = a", "0", "rk_two")
    with pytest.raises(ValueError, match="one input and one output"):
        ra.scan(ra.asarray(h, device=device), two)


def test_scan_warm_calls_of_a_layout(device):
    """Repeated calls of one layout (the launch plan's warm path) on other data and
    offsets: inclusive, exclusive (a view of the plan's result), a user's kernel."""
    rk = ra.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "rk_scan_warm")
    h = random_array((3, 5, 1001), np.int32, np.random.default_rng(41), low=-9, high=9)
    x = ra.asarray(h, device=device)
    for _ in range(2):
        for k in range(3):
            _close(ra.scan(x[k], "max", axis=1).get(), np.maximum.accumulate(h[k], axis=1))
            _close(ra.exclusive_scan(x[k], axis=0).get(),
                   np.concatenate([np.zeros((1, 1001), np.int64), np.cumsum(h[k], axis=0)[:-1]]))
            _close(ra.scan(x[k], "sum", axis=-1, exclusive=True).get(),
                   np.concatenate([np.zeros((5, 1), np.int64), np.cumsum(h[k], axis=1)[:, :-1]], axis=1))
            y = ra.astype(x[k], ra.float64)
            np.testing.assert_allclose(ra.scan(y, rk).get(), np.sqrt(np.cumsum(h[k].astype(np.float64) ** 2, axis=1)),
                                       rtol=1e-12)


def _same_bits(got, want):
    """Equal values with equal signs of zero (each part of a complex number)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    for part in ((np.real, np.imag) if want.dtype.kind == "c" else (np.real,)):
        np.testing.assert_array_equal(np.signbit(part(got)), np.signbit(part(want)))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64, np.complex128], ids=str)
def test_sum_scans_keep_signed_zeros(device, dtype):
    """A running sum of ``-0.0`` stays ``-0.0`` as NumPy's does (which starts from the
    first element), at every length class (one chunk, chunked lines, the GPU's single
    pass) and along both axes; the identity in front (``include_initial``, exclusive) is
    ``+0.0``, as NumPy writes it.  A row runs ``-0.0`` then whole numbers in -1..1 (sums
    exact in every float type, so regrouping changes no bit: a prefix sums to ``-0.0``
    exactly when all of it is ``-0.0``)."""
    rng = np.random.default_rng(17)
    complex_ = np.dtype(dtype).kind == "c"
    neg = complex(-0.0, -0.0) if complex_ else -0.0
    for n in (1, 7, 5000, 300001):
        h = np.full((2, n), neg, dtype)
        tail = rng.integers(-1, 2, n - n // 2).astype(dtype)
        h[1, n // 2:] = tail + 1j * rng.integers(-1, 2, tail.size) if complex_ else tail
        x = ra.asarray(h, device=device)
        for axis in (0, 1):
            _same_bits(ra.cumulative_sum(x, axis=axis).get(), np.cumsum(h, axis=axis))
            _same_bits(ra.scan(x, axis=axis).get(), np.cumsum(h, axis=axis))
        zero = np.zeros((2, 1), dtype)
        _same_bits(ra.cumulative_sum(x, axis=1, include_initial=True).get(),
                   np.concatenate([zero, np.cumsum(h, axis=1)], axis=1))
        _same_bits(ra.exclusive_scan(x, axis=1).get(), np.concatenate([zero, np.cumsum(h, axis=1)[:, :-1]], axis=1))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=str)
def test_complex_products_take_the_first_element_as_it_is(device, dtype):
    """A complex running product starts from its first element as NumPy's does:
    ``(1+0j) * (inf+0j)`` would be ``inf+nanj``, ``(1+0j) * (-0.0-0.0j)`` ``0.0-0.0j``.
    Lines of one chunk and chunked lines (the first element of each row, random values
    after it; the finite row's first products to a tolerance), the identity in front."""
    rng = np.random.default_rng(5)
    firsts = np.array([complex(np.inf, 0.0), complex(-0.0, -0.0), complex(0.0, -np.inf), 1.5 - 0.5j], dtype)
    for n in (3, 5000, 300001):
        h = random_array((4, n), dtype, rng, low=-1, high=1)
        h[:, 0] = firsts
        x = ra.asarray(h, device=device)
        with np.errstate(invalid="ignore", over="ignore"):
            want = np.cumprod(h, axis=1)
        got = ra.cumulative_prod(x, axis=1).get()
        _same_bits(got[:, :1], want[:, :1])
        np.testing.assert_array_equal(np.isnan(got[:, 1]), np.isnan(want[:, 1]))
        np.testing.assert_allclose(got[3, :100], want[3, :100], rtol=1e-5)  # (finite: the last bits may differ)
        init = ra.cumulative_prod(x, axis=1, include_initial=True).get()
        _same_bits(init[:, :2], np.concatenate([np.ones((4, 1), dtype), want[:, :1]], axis=1))
        _same_bits(ra.scan(x[:, :1], "prod", axis=1).get(), h[:, :1])


def test_scan_bad_input(device):
    x = ra.asarray(random_array((3, 4), np.float32), device=device)
    with pytest.raises(TypeError, match="rocarray array"):
        ra.scan(np.ones(3))
    with pytest.raises(ValueError, match="0-d"):
        ra.scan(ra.asarray(1.0, device=device))
    with pytest.raises(ValueError, match="op must be one of"):
        ra.scan(x, "mean")
    with pytest.raises(TypeError, match="axis must be an int"):
        ra.scan(x, axis=None)
    with pytest.raises((ValueError, IndexError), match="axis"):
        ra.scan(x, axis=2)
    with pytest.raises(ValueError, match="exclude each other"):
        ra.scan(x, exclusive=True, include_initial=True)
    with pytest.raises(TypeError, match="dtype= is accepted"):
        ra.scan(x, "max", dtype=ra.float64)


def test_new_sizes_compile_nothing(device):
    """Thin specialization of the primitives: once an op has run on a dtype, new sizes,
    axes and layouts (a line long enough for a chunked scan, a tiled transposing copy)
    compile nothing."""
    from rocarray import cache
    from rocarray.compiler.cache import drain_background

    def compiles():
        drain_background()
        i = cache.info()
        return i["compiled"] + i["disk_hits"]

    rng = np.random.default_rng(8)

    def run(shape):
        a = random_array(shape, np.int32, rng)
        x = ra.asarray(a, device=device)
        i = ra.asarray(rng.integers(-shape[-1], shape[-1], size=shape[-1] // 2), device=device)
        ra.scan(x, "max", axis=-1)
        ra.exclusive_scan(x, axis=0)
        x[x > 0]
        x[x < 0] = x[x < 0] * 2
        ra.nonzero(x > 3)
        ra.take(x, i, axis=x.ndim - 1)
        ra.take_along_axis(x, ra.abs(x) % shape[-1], axis=-1)
        ra.permute_dims(x, tuple(reversed(range(x.ndim)))).copy()
        ra.concat([x, x], axis=0)

    run((3, 40))
    run((2, 3, 4))  # (an N-d gather adds int64 offsets: the one int64 ``add``, whatever the dtype)
    # (the host's size classes -- ``x[m]``, ``x[m] = v``, ``nonzero`` and the runs of
    # ``unique_*`` from 2**18 elements, takes of more than 16,384 indices -- compile their
    # own kernels once per dtype:
    # docs/indexing.md)
    run((1, 270000))
    before = compiles()
    run((2, 300001))
    run((700, 700))
    run((5, 6, 7))
    run((4, 1, 3, 9))
    assert compiles() == before
