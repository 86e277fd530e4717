"""rocarray.lib.stride_tricks (``sliding_window_view``, ``as_strided``) against NumPy on
random data over every dtype, with non-contiguous inputs, the views' sharing of memory,
the refusal to write where elements may share memory, and the errors."""

import numpy as np
import pytest

import rocarray as ra
from conftest import ALL_DTYPES, random_array
from rocarray.lib.stride_tricks import as_strided, sliding_window_view


def _eq(got, want):
    assert isinstance(got, ra.Array)
    g = got.get()
    assert g.shape == want.shape and g.dtype == want.dtype, (g.shape, g.dtype, want.shape, want.dtype)
    np.testing.assert_array_equal(g, want)


WINDOWS = [((7,), 3, None), ((7,), 7, None), ((7,), 0, None), ((7,), 1, 0), ((5, 6), (2, 3), None),
           ((5, 6), 2, 1), ((5, 6), 4, -2), ((5, 6), (2, 2), (1, 1)), ((3, 4, 5), (2, 3), (2, 0)),
           ((3, 4, 5), 1, 2), ((0, 4), (0, 2), None)]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_sliding_windows_match_numpy(device, dtype):
    rng = np.random.default_rng(3)
    for shape, window, axis in WINDOWS:
        a = random_array(shape, dtype, rng)
        x = ra.asarray(a, device=device)
        want = np.lib.stride_tricks.sliding_window_view(a, window, axis=axis)
        got = sliding_window_view(x, window, axis=axis)
        _eq(got, want)
        if got.size:
            assert ra.shares_memory(got, x)
        # through NumPy's protocol
        _eq(np.lib.stride_tricks.sliding_window_view(x, window, axis=axis), want)
    # non-contiguous inputs: a stepped slice, a transpose, a reversed axis
    a = random_array((6, 9), dtype, rng)
    x = ra.asarray(a, device=device)
    for view, ref in ((x[:, ::2], a[:, ::2]), (x.T, a.T), (x[::-1], a[::-1])):
        _eq(sliding_window_view(view, (2, 3)), np.lib.stride_tricks.sliding_window_view(ref, (2, 3)))
        _eq(ra.asarray(sliding_window_view(view, 3, axis=0)[1:, ::2, -1], copy=True),
            np.lib.stride_tricks.sliding_window_view(ref, 3, axis=0)[1:, ::2, -1])


def test_windows_refuse_writes_where_they_overlap(device):
    x = ra.asarray(np.arange(10.0), device=device)
    w = sliding_window_view(x, 3)
    with pytest.raises(ValueError, match="may share memory"):
        w[0, 0] = 1.0
    with pytest.raises(ValueError, match="may share memory"):
        ra.add(w, 1.0, out=w)
    # a window of one overlaps nothing: it can be written, into x's memory
    one = sliding_window_view(x, 1)
    one[4, 0] = -1.0
    assert x.get()[4] == -1.0
    # ordinary views (steps, transposes, reversals) stay writable
    y = ra.asarray(np.zeros((4, 6)), device=device)
    y.T[1, 2] = 5.0
    y[::-1, ::3][0, 1] = 7.0
    assert y.get()[2, 1] == 5.0 and y.get()[3, 3] == 7.0


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.float64, np.complex64], ids=str)
def test_as_strided_matches_numpy(device, dtype):
    rng = np.random.default_rng(5)
    a = random_array((24,), dtype, rng)
    x = ra.asarray(a, device=device)
    item = a.itemsize
    for shape, strides in (((4, 6), (6 * item, item)), ((3, 4), (item, 2 * item)), ((5,), (0,)),
                           ((6, 3), (3 * item, item)), ((2, 2, 2), (12 * item, 4 * item, item)), ((0, 3), (item, item))):
        _eq(as_strided(x, shape, strides), np.lib.stride_tricks.as_strided(a, shape, strides))
    # from an element inside, with a negative stride
    _eq(as_strided(x[10:], (5,), (-2 * item,)), np.lib.stride_tricks.as_strided(a[10:], (5,), (-2 * item,)))
    _eq(as_strided(x[::-1], (3, 2), (-item, -3 * item)), np.lib.stride_tricks.as_strided(a[::-1], (3, 2), (-item, -3 * item)))
    _eq(as_strided(x), a)
    # (NumPy's as_strided takes no __array_function__: it converts its argument)


def test_as_strided_writes_land_in_the_array(device):
    x = ra.asarray(np.zeros(12, np.float32), device=device)
    v = as_strided(x, (3, 2), (16, 4))
    v[...] = ra.asarray(np.arange(1.0, 7.0, dtype=np.float32).reshape(3, 2), device=device)
    np.testing.assert_array_equal(x.get(), [1, 2, 0, 0, 3, 4, 0, 0, 5, 6, 0, 0])
    with pytest.raises(ValueError, match="may share memory"):
        as_strided(x, (3, 4), (4, 4))[...] = 1.0


BAD = [
    (lambda x: sliding_window_view(x, -1), ValueError, "cannot contain negative"),
    (lambda x: sliding_window_view(x, 11), ValueError, "longer than axis 0"),
    (lambda x: sliding_window_view(x, (2, 2)), ValueError, "every one of x's 1 dimensions"),
    (lambda x: sliding_window_view(x, (2, 2), axis=0), ValueError, "same length"),
    (lambda x: sliding_window_view(x, 2, axis=1), ValueError, "out of bounds"),
    (lambda x: sliding_window_view(x, 2.5), TypeError, "must be an integer"),
    (lambda x: sliding_window_view(x.get(), 2), TypeError, "must be a rocarray array"),
    (lambda x: as_strided(x, (11,), (8,)), ValueError, "outside its memory"),
    (lambda x: as_strided(x[5:], (3,), (-24,)), ValueError, "outside its memory"),
    (lambda x: as_strided(x, (2,), (3,)), ValueError, "multiple of the item size"),
    (lambda x: as_strided(x, (2, 2), (8,)), ValueError, "same length"),
    (lambda x: as_strided(x, (-1,), (8,)), ValueError, "negative dimensions"),
    (lambda x: as_strided(x, writeable=False), TypeError, "writeable=False"),
]


@pytest.mark.parametrize("k", range(len(BAD)))
def test_bad_input(device, k):
    fn, err, msg = BAD[k]
    x = ra.asarray(np.arange(10.0), device=device)
    with pytest.raises(err, match=msg):
        fn(x)
