"""NumPy's utilities of rocarray/_numpy_utils.py (bit packing, multi-dimensional histograms,
functional helpers, checks and conversions, ``matvec``/``vecmat``, dtype helpers) against
NumPy on seeded random data, over the dtypes each accepts, with empty and non-contiguous
inputs, their errors, and NumPy's protocols reaching them."""

import numpy as np
import pytest

import rocarray as ra
from conftest import ALL_DTYPES, NUMERIC_DTYPES, random_array
from test_numpy_numerics import _same

INTEGRAL = [d for d in ALL_DTYPES if np.dtype(d).kind in "biu"]
REAL = [d for d in ALL_DTYPES if np.dtype(d).kind in "biuf"]
INEXACT = [d for d in ALL_DTYPES if np.dtype(d).kind in "fc"]


def _both(a, device):
    """The NumPy array and its rocarray copy."""
    return a, ra.asarray(a, device=device)


# -- bits -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", INTEGRAL, ids=str)
def test_packbits(device, dtype):
    rng = np.random.default_rng(71)
    for shape in ((), (0,), (13,), (3, 13), (2, 0, 5), (4, 5, 9), (2, 8)):
        a = random_array(shape, dtype, rng, low=-3, high=3)
        x = ra.asarray(a, device=device)
        axes = [None] + list(range(-len(shape), len(shape))) + ([0] if not shape else [])
        for axis in axes:
            for order in ("big", "little"):
                _same(ra.packbits(x, axis=axis, bitorder=order), np.packbits(a, axis=axis, bitorder=order))
    # non-contiguous: steps, a reversal and a transpose
    a = random_array((6, 19), dtype, rng, low=-3, high=3)
    x = ra.asarray(a, device=device)
    for view, want in ((x[::2, ::-3], a[::2, ::-3]), (x.T, a.T), (x[1:, 3:].T, a[1:, 3:].T)):
        for axis in (None, 0, 1):
            _same(ra.packbits(view, axis=axis), np.packbits(want, axis=axis))
    got = np.packbits(x, axis=1, bitorder="little")  # (NumPy's function reaches it)
    assert isinstance(got, ra.Array)
    _same(got, np.packbits(a, axis=1, bitorder="little"))


def test_unpackbits(device):
    rng = np.random.default_rng(72)
    for shape in ((), (0,), (1,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)):
        a = rng.integers(0, 256, size=shape, dtype=np.uint8)
        x = ra.asarray(a, device=device)
        axes = [None] + list(range(-len(shape), len(shape))) + ([0] if not shape else [])
        for axis in axes:
            n = 8 * (a.size if axis is None or not shape else shape[axis])
            counts = [None, 0, 3, -3, n, -n, n + 5] if n else [None, 0, -0]
            for count in counts:
                if n and count is not None and count < 0 and -count > n:
                    continue
                for order in ("big", "little"):
                    _same(ra.unpackbits(x, axis=axis, count=count, bitorder=order),
                          np.unpackbits(a, axis=axis, count=count, bitorder=order))
    # non-contiguous, and a round trip through packbits
    a = rng.integers(0, 256, size=(5, 7), dtype=np.uint8)
    x = ra.asarray(a, device=device)
    for view, want in ((x[::2, ::-1], a[::2, ::-1]), (x.T, a.T)):
        for axis in (None, 0, 1):
            _same(ra.unpackbits(view, axis=axis, count=-2), np.unpackbits(want, axis=axis, count=-2))
    bits = random_array((3, 21), ra.bool, rng)
    _same(ra.unpackbits(ra.packbits(ra.asarray(bits, device=device), axis=1), axis=1, count=21),
          bits.astype(np.uint8))
    # (NumPy fills the bits past an empty input's end with whatever memory holds: zeros here)
    _same(ra.unpackbits(ra.zeros((0,), dtype=ra.uint8, device=device), count=3), np.zeros(3, np.uint8))
    got = np.unpackbits(x, axis=0)
    assert isinstance(got, ra.Array)
    _same(got, np.unpackbits(a, axis=0))


def test_bits_errors(device):
    f = ra.asarray([1.0, 0.0], device=device)
    with pytest.raises(TypeError, match="packbits: expected an input array of integer or boolean data type, not float64"):
        ra.packbits(f)
    with pytest.raises(TypeError, match="integer or boolean data type, not complex64"):
        ra.packbits(ra.asarray([1j], dtype=ra.complex64, device=device))
    for dt in (ra.int8, ra.uint16, ra.bool, ra.float32):
        with pytest.raises(TypeError, match=r"unpackbits: expected an input array of unsigned byte data type \(uint8\)"):
            ra.unpackbits(ra.ones(3, dtype=dt, device=device))
    b = ra.asarray([5, 7], dtype=ra.uint8, device=device)
    with pytest.raises(ValueError, match="bitorder must be either 'little' or 'big', not 'middle'"):
        ra.packbits(b, bitorder="middle")
    with pytest.raises(ValueError, match="bitorder must be either 'little' or 'big', not None"):
        ra.unpackbits(b, bitorder=None)
    with pytest.raises(ValueError, match=r"unpackbits: -count \(17\) is larger than the number of bits \(16\)"):
        ra.unpackbits(b, count=-17)
    with pytest.raises(ValueError, match="larger than the number of bits"):
        ra.unpackbits(ra.zeros((0,), dtype=ra.uint8, device=device), count=-1)
    with pytest.raises(TypeError, match="unpackbits: count must be an integer, not float"):
        ra.unpackbits(b, count=2.5)
    with pytest.raises(TypeError, match="count must be an integer, not bool"):
        ra.unpackbits(b, count=True)
    with pytest.raises(IndexError, match="out of bounds"):
        ra.packbits(b, axis=1)
    with pytest.raises(TypeError, match="packbits: axis must be an int, not float"):
        ra.packbits(b, axis=1.0)
    with pytest.raises(TypeError, match="expected a rocarray array, a Python scalar or a list, not ndarray"):
        ra.packbits(np.array([1, 0]))


# -- histograms -----------------------------------------------------------------------------------

def _same_hist(got, want):
    h, edges = got
    hw, ew = want
    _same(h, hw, rtol=1e-10)
    assert isinstance(edges, list) and len(edges) == len(ew)
    for e, w in zip(edges, ew):
        _same(e, w, rtol=1e-5 if w.dtype.itemsize <= 4 else 1e-12)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # (NumPy's 0/0 densities)
@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_histogramdd(device, dtype):
    rng = np.random.default_rng(73)
    s = random_array((200, 3), dtype, rng, low=-50, high=50)
    x = ra.asarray(s, device=device)
    kind = np.dtype(dtype).kind
    e1 = np.array([-60, -10, 0, 3, 70]) if kind != "b" else np.array([0, 1])
    e2 = np.sort(rng.uniform(-40, 40, 6))
    ranges = [(-20, 20), None, (0.0, 0.0)] if kind != "b" else [(0, 1), None, (0.5, 2)]
    w = rng.uniform(0, 2, 200)
    for bins in (10, 1, (3, 4, 5), [2, e1, e2], [e1, e1, e2], np.array([3, 2, 4])):
        rbins = [ra.asarray(b, device=device) if isinstance(b, np.ndarray) else b for b in bins] \
            if isinstance(bins, (list, tuple)) else bins
        for rng_ in (None, ranges):
            for density in (None, True):
                want = np.histogramdd(s, bins=bins, range=rng_, density=density)
                _same_hist(ra.histogramdd(x, bins=rbins, range=rng_, density=density), want)
        want = np.histogramdd(s, bins=bins, weights=w)
        _same_hist(ra.histogramdd(x, bins=rbins, weights=ra.asarray(w, device=device)), want)
    # a sequence of D coordinate arrays, one coordinate (1-D), integer and boolean weights
    cols = [ra.asarray(s[:, i], device=device) for i in range(3)]
    _same_hist(ra.histogramdd(cols, bins=4), np.histogramdd([s[:, 0], s[:, 1], s[:, 2]], bins=4))
    _same_hist(ra.histogramdd(x[:, 1], bins=7), np.histogramdd(s[:, 1], bins=7))
    wi = rng.integers(0, 5, 200)
    _same_hist(ra.histogramdd(x, bins=3, weights=ra.asarray(wi, device=device)), np.histogramdd(s, bins=3, weights=wi))
    wb = wi > 2
    _same_hist(ra.histogramdd(x, bins=3, weights=ra.asarray(wb, device=device)), np.histogramdd(s, bins=3, weights=wb))
    # non-contiguous samples: steps, a transposed (D, N) block
    _same_hist(ra.histogramdd(x[::3, ::2], bins=5), np.histogramdd(s[::3, ::2], bins=5))
    t = ra.asarray(np.ascontiguousarray(s.T), device=device).T
    _same_hist(ra.histogramdd(t, bins=(2, 3, 4), density=True), np.histogramdd(s, bins=(2, 3, 4), density=True))
    # empty samples: the default range (0, 1), and given edges
    empty = s[:0]
    _same_hist(ra.histogramdd(ra.asarray(empty, device=device), bins=3), np.histogramdd(empty, bins=3))
    _same_hist(ra.histogramdd(ra.asarray(empty, device=device), bins=[e1.tolist(), 2, ra.asarray(e2, device=device)]),
               np.histogramdd(empty, bins=[e1, 2, e2]))
    got = np.histogramdd(x, bins=4)  # (NumPy's function reaches it)
    assert isinstance(got[0], ra.Array) and all(isinstance(e, ra.Array) for e in got[1])


def test_histogramdd_edges_and_outliers(device):
    # values on edges, below, above and NaN: the last edge in the last bin, the rest left out
    s = np.array([[0.0, 1.0], [1.0, 1.0], [2.0, 3.0], [-1.0, 0.5], [3.0, 9.0], [np.nan, 1.0], [1.5, np.inf]])
    for bins in ([np.array([0.0, 1.0, 2.0]), np.array([0.0, 1.0, 1.0, 3.0])], 2):
        rbins = bins if bins == 2 else [ra.asarray(b, device=device) for b in bins]
        rng_ = [(0, 2), (0, 3)] if bins == 2 else None
        _same_hist(ra.histogramdd(ra.asarray(s, device=device), bins=rbins, range=rng_),
                   np.histogramdd(s, bins=bins, range=rng_))
    # one edge: a dimension of no bins
    _same_hist(ra.histogramdd(ra.asarray(s[:3], device=device), bins=[ra.asarray([1.0], device=device), 2]),
               np.histogramdd(s[:3], bins=[np.array([1.0]), 2]))


def test_histogramdd_errors(device):
    x = ra.asarray(np.random.default_rng(74).uniform(0, 1, (10, 2)), device=device)
    with pytest.raises(ValueError, match=r"the dimension of bins \(3\) must be equal to the dimension of the sample x \(2\)"):
        ra.histogramdd(x, bins=(2, 3, 4))
    with pytest.raises(ValueError, match=r"`bins\[1\]` must be positive, when an integer; got 0"):
        ra.histogramdd(x, bins=(2, 0))
    with pytest.raises(TypeError, match=r"`bins\[0\]` must be an integer, when a scalar, not float"):
        ra.histogramdd(x, bins=2.5)
    with pytest.raises(ValueError, match=r"`bins\[0\]` must be monotonically increasing, when an array"):
        ra.histogramdd(x, bins=[ra.asarray([0.0, 2.0, 1.0], device=device), 2])
    with pytest.raises(ValueError, match=r"`bins\[1\]` must be a scalar or 1d array, not 2-d"):
        ra.histogramdd(x, bins=[2, ra.ones((2, 2), device=device)])
    with pytest.raises(ValueError, match=r"range argument must have one entry per dimension \(2\), not 1"):
        ra.histogramdd(x, range=[(0, 1)])
    with pytest.raises(ValueError, match="max must be larger than min in range parameter"):
        ra.histogramdd(x, range=[(0, 1), (2, 1)])
    with pytest.raises(ValueError, match=r"supplied range of \[0.0, inf\] is not finite"):
        ra.histogramdd(x, range=[(0, float("inf")), None])
    with pytest.raises(ValueError, match=r"range\[0\] must be a \(min, max\) pair or None"):
        ra.histogramdd(x, range=[3, None])
    with pytest.raises(ValueError, match=r"autodetected range of \[nan, nan\] is not finite"):
        ra.histogramdd(ra.asarray([[float("nan")], [1.0]], device=device))
    with pytest.raises(ValueError, match=r"weights of shape \(9,\) do not match the 10 samples"):
        ra.histogramdd(x, weights=ra.ones(9, device=device))
    with pytest.raises(TypeError, match="weights must be real"):
        ra.histogramdd(x, weights=ra.ones(10, dtype=ra.complex128, device=device))
    with pytest.raises(TypeError, match="complex samples have no order"):
        ra.histogramdd(ra.ones((3, 2), dtype=ra.complex64, device=device))
    with pytest.raises(ValueError, match=r"the sample must be an \(N, D\) array"):
        ra.histogramdd(ra.ones((2, 3, 4), device=device))
    with pytest.raises(TypeError, match="bins must be an integer or a sequence, not the string 'auto'"):
        ra.histogramdd(x, bins="auto")


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # (NumPy's 0/0 densities)
@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_histogram2d(device, dtype):
    rng = np.random.default_rng(75)
    xs = random_array((150,), dtype, rng, low=-30, high=30)
    ys = random_array((150,), dtype, rng, low=0, high=90)
    x, y = ra.asarray(xs, device=device), ra.asarray(ys, device=device)
    kind = np.dtype(dtype).kind
    ex = np.array([-31.0, -5.0, 0.0, 12.0, 31.0]) if kind != "b" else np.array([0.0, 0.5, 1.0])
    ey = np.linspace(-1, 91, 7) if kind != "b" else np.array([0.0, 1.0])
    w = rng.uniform(-1, 1, 150)
    for bins in (10, [3, 5], ex, [ex, ey], [4, ey]):
        rbins = [ra.asarray(b, device=device) if isinstance(b, np.ndarray) else b for b in bins] \
            if isinstance(bins, list) else ra.asarray(bins, device=device) if isinstance(bins, np.ndarray) else bins
        for rng_ in (None, [(-10, 10), (5, 50)]):
            for density in (None, True):
                want = np.histogram2d(xs, ys, bins=bins, range=rng_, density=density)
                got = ra.histogram2d(x, y, bins=rbins, range=rng_, density=density)
                assert len(got) == 3
                _same_hist((got[0], list(got[1:])), (want[0], list(want[1:])))
        want = np.histogram2d(xs, ys, bins=bins, weights=w)
        got = ra.histogram2d(x, y, bins=rbins, weights=ra.asarray(w, device=device))
        _same_hist((got[0], list(got[1:])), (want[0], list(want[1:])))
    # non-contiguous coordinates, empty ones, and NumPy's function reaching it
    got = np.histogram2d(x[::2], y[1::2], bins=4)
    want = np.histogram2d(xs[::2], ys[1::2], bins=4)
    assert all(isinstance(g, ra.Array) for g in got)
    _same_hist((got[0], list(got[1:])), (want[0], list(want[1:])))
    got = ra.histogram2d(x[:0], y[:0], bins=3)
    want = np.histogram2d(xs[:0], ys[:0], bins=3)
    _same_hist((got[0], list(got[1:])), (want[0], list(want[1:])))
    with pytest.raises(ValueError, match=r"x and y must have the same length \(150 and 149\)"):
        ra.histogram2d(x, y[1:])
    with pytest.raises(ValueError, match="histogram2d: x and y must be 1-D"):
        ra.histogram2d(ra.reshape(x, (10, 15)), ra.reshape(y, (10, 15)))


# -- functional -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=str)
def test_piecewise(device, dtype):
    rng = np.random.default_rng(76)
    a = random_array((4, 6), dtype, rng, low=-10, high=10)
    x = ra.asarray(a, device=device)
    real = np.dtype(dtype).kind != "c"
    key = a.real if not real else a
    kx = x.real if not real else x
    lo, hi = (key < 3), (key > -2)
    rlo, rhi = (kx < 3), (kx > -2)
    double = (lambda v: v * 2, lambda v: v * 2)
    shift = (lambda v, s, scale=1: v * scale + s, lambda v, s, scale=1: v * scale + s)
    # two conditions and two functions (the later one wins where both hold)
    _same(ra.piecewise(x, [rlo, rhi], [double[0], 5]), np.piecewise(a, [lo, hi], [double[1], 5]))
    # one function more: the last one where no condition holds; extra arguments
    _same(ra.piecewise(x, [rlo & ~rhi], [shift[0], 1], 3, scale=2),
          np.piecewise(a, [lo & ~hi], [shift[1], 1], 3, scale=2))
    # a condition alone (not in a list) for a 1-D x; a 2-D array of conditions is a list of
    # its rows (NumPy's reading, and its error here); conditions as lists
    _same(ra.piecewise(x[1], rlo[1], [double[0]]), np.piecewise(a[1], lo[1], [double[1]]))
    _same(ra.piecewise(x[2], rlo[2], [double[0], 7]), np.piecewise(a[2], lo[2], [double[1], 7]))
    with pytest.raises(ValueError, match=r"with 4 condition\(s\), either 4 or 5 functions are expected"):
        ra.piecewise(x, rlo, [double[0]])
    _same(ra.piecewise(x[:2, :2], rlo[:2, :2], [double[0], 7]), np.piecewise(a[:2, :2], lo[:2, :2], [double[1], 7]))
    # masks of the leading axis alone (rows), with the otherwise function
    rows = np.array([True, False, True, True])
    _same(ra.piecewise(x, [ra.asarray(rows, device=device)], [double[0], 3]), np.piecewise(a, [rows], [double[1], 3]))
    _same(ra.piecewise(x, [lo.tolist()], [double[0]]), np.piecewise(a, [lo.tolist()], [double[1]]))
    # a condition that holds nowhere (the function is not called), non-contiguous x
    never = ra.zeros(x.shape, dtype=ra.bool, device=device)
    _same(ra.piecewise(x, [never], [lambda v: 1 / 0, 4]), np.piecewise(a, [np.zeros(a.shape, bool)], [lambda v: 1 / 0, 4]))
    v, av = x[::2, ::-2], a[::2, ::-2]
    _same(ra.piecewise(v, [(v.real if not real else v) > 0], [double[0], 9]),
          np.piecewise(av, [(av.real if not real else av) > 0], [double[1], 9]))
    # 0-d x: a scalar condition
    _same(ra.piecewise(x[1, 2], True, [double[0]]), np.piecewise(a[1, 2], True, [double[1]]))
    _same(ra.piecewise(x[1, 2], [False, True], [3, double[0]]), np.piecewise(a[1, 2], [False, True], [3, double[1]]))
    # empty x
    _same(ra.piecewise(x[:0], [rlo[:0]], [double[0]]), np.piecewise(a[:0], [lo[:0]], [double[1]]))
    got = np.piecewise(x, [rlo], [double[0], 0])  # (NumPy's function reaches it)
    assert isinstance(got, ra.Array)
    _same(got, np.piecewise(a, [lo], [double[1], 0]))
    if np.dtype(dtype) == np.int8:  # (a boolean x: its values and constants as booleans)
        b = a > 0
        _same(ra.piecewise(x > 0, [rlo], [lambda v: ~v, True]), np.piecewise(b, [lo], [lambda v: ~v, True]))
    with pytest.raises(ValueError, match=r"with 2 condition\(s\), either 2 or 3 functions are expected, not 4"):
        ra.piecewise(x, [rlo, rhi], [1, 2, 3, 4])
    with pytest.raises(ValueError, match=r"a condition of shape \(3,\) does not match x of shape \(4, 6\)"):
        ra.piecewise(x, [ra.asarray([True, False, True], device=device)], [1])
    with pytest.raises(ValueError, match=r"a condition of shape \(1, 6\) does not match"):
        ra.piecewise(x, [rlo[:1]], [1])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_apply_along_axis(device, dtype):
    rng = np.random.default_rng(77)
    a = random_array((3, 4, 5), dtype, rng)
    x = ra.asarray(a, device=device)
    funcs = [(lambda v: v[::-1], lambda v: v[::-1]),  # a line of the same length
             (lambda v: v[1:3], lambda v: v[1:3]),  # a shorter line
             (lambda v: v[2], lambda v: v[2]),  # a scalar
             (lambda v: ra.stack([v, v[::-1]]), lambda v: np.stack([v, v[::-1]]))]  # a 2-D result
    if np.dtype(dtype).kind != "b":
        funcs.append((lambda v, k=1: ra.sum(v) * k, lambda v, k=1: np.sum(v) * k))
    for fr, fn in funcs:
        for axis in (0, 1, 2, -1):
            _same(ra.apply_along_axis(fr, axis, x), np.apply_along_axis(fn, axis, a))
    # non-contiguous input, extra arguments, a 1-D array, and NumPy's function (whose
    # func1d, given rocarray lines, calls NumPy's names that reach rocarray too)
    _same(ra.apply_along_axis(funcs[0][0], 1, x[::2, :, ::-2]), np.apply_along_axis(funcs[0][1], 1, a[::2, :, ::-2]))
    _same(ra.apply_along_axis(funcs[0][0], 0, permute := ra.permute_dims(x, (2, 0, 1))),
          np.apply_along_axis(funcs[0][1], 0, np.transpose(a, (2, 0, 1))))
    assert permute.shape == (5, 3, 4)
    _same(ra.apply_along_axis(funcs[2][0], 0, x[0, 0]), np.apply_along_axis(funcs[2][1], 0, a[0, 0]))
    if np.dtype(dtype).kind != "b":
        _same(ra.apply_along_axis(funcs[4][0], 2, x, k=3), np.apply_along_axis(funcs[4][1], 2, a, k=3))
        got = np.apply_along_axis(lambda v: np.cumsum(v), 1, x)
        assert isinstance(got, ra.Array)
        _same(got, np.apply_along_axis(np.cumsum, 1, a))
    # an empty line (the axis of length 0) is still a call
    _same(ra.apply_along_axis(lambda v: v.shape[0], 1, x[:, :0]), np.apply_along_axis(lambda v: v.shape[0], 1, a[:, :0]))


def test_apply_along_axis_errors(device):
    x = ra.ones((3, 0, 2), device=device)
    with pytest.raises(ValueError, match="cannot apply along an axis when any other dimension is 0"):
        ra.apply_along_axis(lambda v: v, 0, x)
    calls = iter([ra.ones(2, device=device), ra.ones(3, device=device)])
    with pytest.raises(ValueError, match=r"func1d returned shape \(3,\) for one line and \(2,\) for the first"):
        ra.apply_along_axis(lambda v: next(calls), 1, ra.ones((2, 4), device=device))
    with pytest.raises(IndexError, match="out of bounds"):
        ra.apply_along_axis(lambda v: v, 3, ra.ones((2, 4), device=device))
    # later results take the first one's dtype, as NumPy's assignment into its buffer
    vals = iter([1, 2.7])
    _same(ra.apply_along_axis(lambda v: next(vals), 0, ra.ones((4, 2), device=device)), np.array([1, 2]))


@pytest.mark.parametrize("dtype", [ra.int16, ra.uint8, ra.float32, ra.float64, ra.complex128], ids=str)
def test_apply_over_axes(device, dtype):
    rng = np.random.default_rng(78)
    a = random_array((3, 4, 5), dtype, rng, low=0, high=20)
    x = ra.asarray(a, device=device)
    for axes in (0, [0, 2], (2, 0), [-1], (1, -1, 0), []):
        _same(ra.apply_over_axes(ra.sum, x, axes), np.apply_over_axes(np.sum, a, axes))
        got = np.apply_over_axes(np.sum, x, axes)  # (np.sum on rocarray arrays: rocarray's)
        assert isinstance(got, ra.Array)
        _same(got, np.apply_over_axes(np.sum, a, axes))
    # a function that keeps the axis itself; non-contiguous input
    keep = (lambda v, axis: ra.cumulative_sum(v, axis=axis), lambda v, axis: np.cumsum(v, axis=axis))
    _same(ra.apply_over_axes(keep[0], x[::2, :, ::-1], [0, 1]), np.apply_over_axes(keep[1], a[::2, :, ::-1], [0, 1]))
    _same(ra.apply_over_axes(ra.sum, x[:, :0], 1), np.apply_over_axes(np.sum, a[:, :0], 1))
    with pytest.raises(ValueError, match="function is not returning an array of the correct shape"):
        ra.apply_over_axes(lambda v, axis: ra.sum(v), x, [1])
    with pytest.raises(IndexError, match="out of bounds"):
        ra.apply_over_axes(ra.sum, x, [3])


@pytest.mark.parametrize("dtype", [None, ra.int32, ra.uint8, ra.float32, ra.complex64], ids=str)
def test_fromfunction(device, dtype):
    kw = {} if dtype is None else {"dtype": dtype}
    nkw = {} if dtype is None else {"dtype": np.dtype(dtype)}
    for shape in ((2, 3), (4,), (0, 3), (2, 1, 3)):
        f = (lambda *ix, scale=1: sum(i * (k + 2) for k, i in enumerate(ix)) * scale)
        _same(ra.fromfunction(f, shape, device=device, **kw), np.fromfunction(f, shape, **nkw))
        _same(ra.fromfunction(f, shape, scale=3, device=device, **kw), np.fromfunction(f, shape, scale=3, **nkw))
    args = ra.fromfunction(lambda *ix: ix, (3, 2), device=device, **kw)
    assert len(args) == 2 and all(isinstance(v, ra.Array) and v.shape == (3, 2) for v in args)
    with pytest.raises(TypeError, match="fromfunction: each entry of shape must be an integer, not float"):
        ra.fromfunction(lambda i: i, (2.5,))
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        ra.fromfunction(lambda i: i, (-1,))


# -- checks and conversions -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_real_if_close(device, dtype):
    rng = np.random.default_rng(79)
    a = random_array((4, 5), dtype, rng)
    x = ra.asarray(a, device=device)
    if np.dtype(dtype).kind != "c":
        assert ra.real_if_close(x) is x
        _same(np.real_if_close(x), np.real_if_close(a))
        return
    eps = float(np.finfo(dtype).eps)
    re = a.real.astype(dtype)
    for scale in (0.0, 10 * eps, 99 * eps, 101 * eps, 1e-3, 1.0):
        b = (re + 1j * scale * rng.uniform(-1, 1, re.shape)).astype(dtype)
        y = ra.asarray(b, device=device)
        for tol in (100, 1000, 1e-4, 0.5):
            _same(ra.real_if_close(y, tol=tol), np.real_if_close(b, tol=tol))
        _same(ra.real_if_close(y[::2, ::-2]), np.real_if_close(b[::2, ::-2]))
    _same(ra.real_if_close(x[:0]), np.real_if_close(a[:0]))
    got = np.real_if_close(x, tol=1e9)
    assert isinstance(got, ra.Array)
    _same(got, np.real_if_close(a, tol=1e9))
    with pytest.raises(TypeError, match="real_if_close: tol must be a real number, not str"):
        ra.real_if_close(x, tol="big")


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_asarray_chkfinite(device, dtype):
    rng = np.random.default_rng(80)
    a = random_array((3, 4), dtype, rng)
    x = ra.asarray(a, device=device)
    _same(ra.asarray_chkfinite(x), np.asarray_chkfinite(a))
    _same(ra.asarray_chkfinite(x.T[::2]), np.asarray_chkfinite(a.T[::2]))
    _same(ra.asarray_chkfinite(x[:0]), np.asarray_chkfinite(a[:0]))
    _same(ra.asarray_chkfinite(x, dtype=ra.float64), np.asarray_chkfinite(a, dtype=np.float64)) \
        if np.dtype(dtype).kind != "c" else None
    assert ra.asarray_chkfinite(x.T, order="C").flags["C_CONTIGUOUS"]
    f = ra.asarray_chkfinite(x, order="F")
    assert f.flags["F_CONTIGUOUS"]
    _same(f, a)
    if np.dtype(dtype).kind in "fc":
        for bad in (np.inf, -np.inf, np.nan):
            b = a.copy()
            b[1, 2] = bad
            with pytest.raises(ValueError, match="array must not contain infs or NaNs"):
                ra.asarray_chkfinite(ra.asarray(b, device=device))
        # (a bad value outside the view checked does not count)
        b = a.copy()
        b[0, 0] = np.nan
        _same(ra.asarray_chkfinite(ra.asarray(b, device=device)[1:]), np.asarray_chkfinite(b[1:]))


def test_asarray_chkfinite_lists_and_errors(device):
    _same(ra.asarray_chkfinite([1.0, 2.0]), np.asarray_chkfinite([1.0, 2.0]))
    _same(ra.asarray_chkfinite([1, 2], dtype=ra.float32), np.asarray_chkfinite([1, 2], dtype=np.float32))
    with pytest.raises(ValueError, match="array must not contain infs or NaNs"):
        ra.asarray_chkfinite([1.0, float("nan")])
    with pytest.raises(ValueError, match="order must be one of 'C', 'F', 'A', 'K' or None, not 'X'"):
        ra.asarray_chkfinite([1.0], order="X")
    with pytest.raises(TypeError, match="not a data type"):
        ra.asarray_chkfinite(ra.ones(2, device=device), dtype="nope")


@pytest.mark.parametrize("dtype", [ra.bool, ra.int8, ra.uint32, ra.float32, ra.complex128], ids=str)
def test_require(device, dtype):
    rng = np.random.default_rng(81)
    a = random_array((3, 4), dtype, rng)
    x = ra.asarray(a, device=device)
    assert ra.require(x) is x
    assert ra.require(x, requirements=["C", "A", "W", "E"]) is x
    t = x.T
    for req in ("C", ["C_CONTIGUOUS"], ["contiguous", "aligned"]):
        r = ra.require(t, requirements=req)
        assert r.flags["C_CONTIGUOUS"]
        _same(r, a.T)
    r = ra.require(x, requirements=["F", "W"])
    assert r.flags["F_CONTIGUOUS"] and not r.flags["C_CONTIGUOUS"]
    _same(r, a)
    assert ra.require(t, requirements="F") is t
    o = ra.require(x, requirements="O")
    assert o is not x
    _same(o, a)
    o[0, 0] = o[1, 1]  # (a copy: x keeps its values)
    _same(x, a)
    wide = ra.complex128 if np.dtype(dtype).kind == "c" else ra.float64
    r = ra.require(x[::2, ::-1], dtype=wide, requirements=("C", "OWNDATA"))
    assert r.flags["C_CONTIGUOUS"]
    _same(r, np.require(a[::2, ::-1], dtype=np.dtype(wide), requirements=("C", "OWNDATA")))
    _same(ra.require([[1, 2]], dtype=ra.int8, requirements="C"), np.require([[1, 2]], dtype=np.int8, requirements="C"))
    with pytest.raises(ValueError, match='require: cannot specify both "C" and "F" order'):
        ra.require(x, requirements=["C", "F_CONTIGUOUS"])
    with pytest.raises(ValueError, match="require: unknown requirement 'X'; use one of C, C_CONTIGUOUS"):
        ra.require(x, requirements=["X"])


def test_mask_indices(device):
    for n in (0, 1, 4, 6):
        for k in (-2, 0, 1, 3):
            for fr, fn in ((ra.triu, np.triu), (ra.tril, np.tril), (np.triu, np.triu)):
                got = ra.mask_indices(n, fr, k, device=device)
                want = np.mask_indices(n, fn, k)
                assert isinstance(got, tuple) and len(got) == 2
                for g, w in zip(got, want):
                    _same(g, w.astype(np.int64))
    # any function of (array, k): the nonzero entries
    got = ra.mask_indices(5, lambda m, k: m * (ra.arange(5, device=device) % 2 == k), 1, device=device)
    want = np.mask_indices(5, lambda m, k: m * (np.arange(5) % 2 == k), 1)
    for g, w in zip(got, want):
        _same(g, w.astype(np.int64))
    with pytest.raises(TypeError, match="mask_indices: n must be an integer, not float"):
        ra.mask_indices(2.0, ra.triu)
    with pytest.raises(ValueError, match=r"mask_func returned shape \(3,\), expected \(3, 3\)"):
        ra.mask_indices(3, lambda m, k: m[0], 0)


# -- matvec and vecmat ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_matvec_vecmat(device, dtype):
    rng = np.random.default_rng(82)
    lo, hi = (-4, 4) if np.dtype(dtype).kind in "iu" else (-100, 100)
    cases = [((3, 4), (4,)), ((2, 3, 4), (4,)), ((3, 4), (5, 4)), ((2, 1, 3, 4), (5, 4)), ((3, 0), (0,)),
             ((0, 4), (4,)), ((1, 1), (1,))]
    for sa, sb in cases:
        m, v = random_array(sa, dtype, rng, low=lo, high=hi), random_array(sb, dtype, rng, low=lo, high=hi)
        xm, xv = ra.asarray(m, device=device), ra.asarray(v, device=device)
        _same(ra.matvec(xm, xv), np.matvec(m, v), rtol=2e-2 if dtype == ra.float16 else None)
        # vecmat: vectors (..., n) times matrices (..., n, k)
        mt = np.swapaxes(m, -1, -2)
        _same(ra.vecmat(xv, ra.matrix_transpose(xm)), np.vecmat(v, mt), rtol=2e-2 if dtype == ra.float16 else None)
    # non-contiguous operands, NumPy's ufuncs reaching them, out=
    m = random_array((6, 5, 8), dtype, rng, low=lo, high=hi)
    v = random_array((8, 5), dtype, rng, low=lo, high=hi)
    xm, xv = ra.asarray(m, device=device), ra.asarray(v, device=device)
    tol = 2e-2 if dtype == ra.float16 else None
    got = np.matvec(xm[::2, :, ::-2], xv[::-2, 1])
    assert isinstance(got, ra.Array)
    _same(got, np.matvec(m[::2, :, ::-2], v[::-2, 1]), rtol=tol)
    got = np.vecmat(xv.T[:1, ::-1][:, :6], ra.permute_dims(xm, (2, 0, 1))[:, :, ::2])
    assert isinstance(got, ra.Array)
    _same(got, np.vecmat(v.T[:1, ::-1][:, :6], np.transpose(m, (2, 0, 1))[:, :, ::2]), rtol=tol)
    out = ra.empty((6, 5), dtype=dtype, device=device)
    assert ra.matvec(xm, xv[:, 0], out=out) is out
    _same(out, np.matvec(m, v[:, 0]), rtol=tol)


def test_matvec_vecmat_errors(device):
    m, v = ra.ones((3, 4), device=device), ra.ones(4, device=device)
    with pytest.raises(ValueError, match=r"matvec: input operand 0 does not have enough dimensions \(has 1, "
                                         r"gufunc core with signature \(m,n\),\(n\)->\(m\) requires 2\)"):
        ra.matvec(v, v)
    with pytest.raises(ValueError, match="matvec: input operand 1 does not have enough dimensions"):
        ra.matvec(m, ra.asarray(1.0, device=device))
    with pytest.raises(ValueError, match=r"matvec: input operand 1 has a mismatch in its core dimension 0.*"
                                         r"\(size 3 is different from 4\)"):
        ra.matvec(m, ra.ones(3, device=device))
    with pytest.raises(ValueError, match=r"vecmat: input operand 1 has a mismatch.*\(size 3 is different from 4\)"):
        ra.vecmat(v, m)
    with pytest.raises(ValueError, match="vecmat: input operand 1 does not have enough dimensions"):
        ra.vecmat(v, v)
    with pytest.raises(ValueError, match="cannot be broadcast"):
        ra.matvec(ra.ones((2, 3, 4), device=device), ra.ones((3, 4), device=device))


# -- dtypes and Python values ---------------------------------------------------------------------

ABSTRACT = ("generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating",
            "complexfloating", "bool_")


def test_issubdtype():
    for d in ALL_DTYPES:
        for name in ABSTRACT:
            assert getattr(ra, name) is getattr(np, name)
            assert ra.issubdtype(d, getattr(ra, name)) == np.issubdtype(np.dtype(d), getattr(np, name)), (d, name)
        for e in ALL_DTYPES:
            assert ra.issubdtype(d, e) == (d == e)
        assert ra.issubdtype(ra.asarray([1], dtype=d).dtype, ra.bool_) == (d == ra.bool)
    assert ra.issubdtype(ra.float32, ra.floating) and not ra.issubdtype(ra.float32, ra.integer)
    assert ra.issubdtype("int8", ra.signedinteger) and ra.issubdtype(np.uint16, ra.unsignedinteger)
    assert ra.issubdtype(ra.int64, int) and not ra.issubdtype(ra.float32, float)  # (NumPy's reading)
    assert ra.issubdtype(ra.complex64, ra.inexact) and not ra.issubdtype(ra.complex64, ra.floating)
    with pytest.raises(TypeError, match="issubdtype: expected a dtype or a scalar type, not a rocarray array"):
        ra.issubdtype(ra.ones(2), ra.floating)
    with pytest.raises(TypeError, match="issubdtype: 3.5 is not a dtype or a scalar type"):
        ra.issubdtype(3.5, ra.floating)


def test_promote_types_and_min_scalar_type(device):
    for d in ALL_DTYPES:
        for e in ALL_DTYPES:
            assert ra.promote_types(d, e) == np.promote_types(np.dtype(d), np.dtype(e))
    assert ra.promote_types("i1", "u1") == ra.int16 and ra.promote_types(ra.int64, ra.uint64) == ra.float64
    with pytest.raises(TypeError, match="promote_types: expected a dtype, not a rocarray array"):
        ra.promote_types(ra.ones(2), ra.int8)
    for v in (0, 255, 256, -1, -129, 2**40, 2**64 - 1, 1.0, 1e10, 1e300, 1 + 1j, True, -0.5):
        assert ra.min_scalar_type(v) == np.min_scalar_type(v), v
    rng = np.random.default_rng(83)
    for d in ALL_DTYPES:
        a = random_array((), d, rng)
        x = ra.asarray(a, device=device)
        assert ra.min_scalar_type(x) == np.min_scalar_type(a), d
        assert ra.min_scalar_type(ra.asarray(random_array((3,), d, rng), device=device)) == np.dtype(d)


def test_common_type_mintypecode_typename(device):
    numeric = NUMERIC_DTYPES
    for d in numeric:
        for e in numeric:
            arrays = [ra.zeros(2, dtype=d, device=device), ra.ones((1,), dtype=e, device=device)]
            assert ra.common_type(*arrays) is np.common_type(np.zeros(2, d), np.ones(1, e)), (d, e)
        assert ra.common_type(ra.ones(3, dtype=d, device=device)) is np.common_type(np.ones(3, d))
    assert ra.common_type() is np.common_type()
    with pytest.raises(TypeError, match="can't get common type for non-numeric array of dtype bool"):
        ra.common_type(ra.ones(2, dtype=ra.bool, device=device))
    with pytest.raises(TypeError, match="common_type: expected arrays, not float"):
        ra.common_type(1.0)
    for chars in (["d", "f"], ["f"], ["F", "d"], ["i"], [], ["G", "f"]):
        assert ra.mintypecode(chars) == np.mintypecode(chars)
        assert ra.mintypecode(chars, typeset="fdFD", default="f") == np.mintypecode(chars, typeset="fdFD", default="f")
    assert ra.mintypecode([ra.ones(2, dtype=ra.complex64, device=device), "d"]) == "D"
    for c in "?bBhHiIlLqQfdgFDGO":
        assert ra.typename(c) == np.typename(c)
    with pytest.raises(ValueError, match="typename: unknown type character 'e'"):
        ra.typename("e")


def test_isscalar_iterable(device):
    x = ra.asarray([1.0, 2.0], device=device)
    for v in (3, 2.5, 1j, True, "s", b"b", np.float32(1), np.int8(2), None, [1], (1,), x, x[0], {1: 2}):
        assert ra.isscalar(v) == np.isscalar(v if not isinstance(v, ra.Array) else v.get()), v
        assert ra.iterable(v) == np.iterable(v if not isinstance(v, ra.Array) else v.get()), v
    assert not ra.isscalar(ra.asarray(1.0, device=device))
    assert not ra.iterable(ra.asarray(1.0, device=device)) and ra.iterable(x)
