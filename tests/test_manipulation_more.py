"""concat, stack, unstack, flip, roll, moveaxis, repeat, tile, diff, meshgrid, tril, triu
against NumPy, on every device, every dtype; plus their error messages."""

import numpy as np
import pytest

import rocarray as ra
from conftest import ALL_DTYPES, NUMERIC_DTYPES, random_array

SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)]


def _put(a, device):
    return ra.asarray(a, device=device)


def _strided(a, device):
    """An input that is a view: every other element of a larger array, reversed on axis 0."""
    if a.ndim == 0:
        return _put(a, device), a
    big = np.repeat(a, 2, axis=-1)
    x = _put(big, device)[..., ::2]
    if a.ndim >= 1:
        x = x[::-1]
        a = a[::-1]
    assert not x.is_c_contiguous() or x.size <= 1
    return x, a


def _check(got, want):
    assert isinstance(got, ra.Array)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got.get(), want)


def _axes(ndim):
    return sorted(set(range(-ndim, ndim)))


# -- concat / stack / unstack ------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_concat_all_dtypes(device, dtype):
    rng = np.random.default_rng(1)
    for shape in [(5,), (3, 4), (2, 0, 3), (2, 3, 4)]:
        for axis in _axes(len(shape)) + [None]:
            parts = []
            for n in (1, 0, 3):
                s = list(shape)
                if axis is not None:
                    s[axis] = n
                parts.append(random_array(tuple(s), dtype, rng))
            xs = [_put(p, device) for p in parts]
            _check(ra.concat(xs, axis=axis), np.concatenate(parts, axis=axis))
            _check(ra.concat(tuple(xs[:1]), axis=axis), np.concatenate(parts[:1], axis=axis))


def test_concat_views_promotion_and_flatten(device):
    a = random_array((4, 6), np.float32)
    b = random_array((4, 3), np.int16)
    xa, na = _strided(a, device)
    xb = _put(b, device)
    _check(ra.concat([xa, xb], axis=1), np.concatenate([na, b.astype(np.float32)], axis=1))
    # axis=None flattens in C order, zero-d arrays included
    c = random_array((), np.int64)
    _check(ra.concat([_put(c, device), xa.T], axis=None),
           np.concatenate([c.reshape(1), na.T.reshape(-1)]).astype(np.float64))
    u = random_array((3,), np.uint8)
    i = random_array((2,), np.int8)
    _check(ra.concat([_put(u, device), _put(i, device)]), np.concatenate([u, i]).astype(np.int16))
    bo = random_array((2,), np.bool_)
    _check(ra.concat([_put(bo, device), _put(bo, device)]), np.concatenate([bo, bo]))
    cplx = random_array((2,), np.complex64)
    f64 = random_array((2,), np.float64)
    _check(ra.concat([_put(cplx, device), _put(f64, device)]), np.concatenate([cplx, f64]).astype(np.complex128))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.float32, np.int64, np.complex128], ids=str)
def test_host_joins_copy_bytes_below_the_threads_size(dtype, monkeypatch):
    """On the host, a join of contiguous arrays of one dtype smaller than the size its
    launches split across threads is one ``memmove`` per non-empty piece; a larger one,
    mixed dtypes and views take the copy kernel.  Every result is NumPy's."""
    cpu = ra.Device("cpu")
    rt = cpu.runtime
    monkeypatch.setattr(rt, "parallel_threshold", 40)
    copies = []
    memmove = rt.copy_device_to_device

    def counted(*args, **kwargs):
        copies.append(args)
        memmove(*args, **kwargs)

    monkeypatch.setattr(rt, "copy_device_to_device", counted)
    rng = np.random.default_rng(7)
    cases = [  # (parts, join, memmoves expected)
        ([(3, 4), (0, 4), (2, 4)], "concat", 2),     # 20 elements
        ([(6,), (7,), (1,)], "flat", 3),             # 14
        ([(2, 3)] * 4, "stack", 4),                  # 24
        ([(5, 4), (6, 4)], "concat", 0),             # 44: the kernel's threads
        ([(2, 2, 5)] * 2, "stack", 0),               # 40
        ([(30,), (20,)], "flat", 0),                 # 50
    ]
    for shapes, how, expected in cases:
        host = [random_array(s, dtype, rng) for s in shapes]
        arrays = [ra.asarray(h, device=cpu) for h in host]
        del copies[:]
        if how == "stack":
            got, want = ra.stack(arrays), np.stack(host)
        elif how == "flat":
            got, want = ra.concat(arrays, axis=None), np.concatenate(host, axis=None)
        else:
            got, want = ra.concat(arrays), np.concatenate(host)
        _check(got, want)
        assert len(copies) == expected, (shapes, how)
    # a view among the pieces, or a second dtype: the copy kernel
    h = random_array((4, 3), dtype, rng)
    x = ra.asarray(h, device=cpu)
    del copies[:]
    _check(ra.concat([x[::2], x]), np.concatenate([h[::2], h]))
    other = h.astype(np.complex64 if h.dtype.kind == "c" else np.float64)
    _check(ra.concat([x, ra.asarray(other, device=cpu)]), np.concatenate([h, other]))
    assert not copies


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_stack_all_dtypes(device, dtype):
    rng = np.random.default_rng(2)
    for shape in SHAPES:
        for axis in _axes(len(shape) + 1):
            parts = [random_array(shape, dtype, rng) for _ in range(3)]
            _check(ra.stack([_put(p, device) for p in parts], axis=axis), np.stack(parts, axis=axis))
    a = random_array((3, 4), dtype, rng)
    x, na = _strided(a, device)
    _check(ra.stack((x, x.T.T), axis=1), np.stack([na, na], axis=1))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_unstack_all_dtypes(device, dtype):
    rng = np.random.default_rng(3)
    for shape in SHAPES[1:]:
        a = random_array(shape, dtype, rng)
        x = _put(a, device)
        for axis in _axes(len(shape)):
            got = ra.unstack(x, axis=axis)
            want = [np.take(a, i, axis=axis) for i in range(a.shape[axis])]
            assert isinstance(got, tuple) and len(got) == len(want)
            for g, w in zip(got, want):
                _check(g, w)
                assert g._buf is x._buf  # views
    x, na = _strided(random_array((4, 6), dtype, rng), device)
    for g, w in zip(ra.unstack(x, axis=-1), np.moveaxis(na, -1, 0)):
        _check(g, w)


def test_concat_stack_unstack_errors(device):
    x = _put(random_array((2, 3), np.float32), device)
    y = _put(random_array((2, 4), np.float32), device)
    with pytest.raises(ValueError, match=r"\(2, 3\), \(2, 4\).*axis 0"):
        ra.concat([x, y])
    assert ra.concat([x, y], axis=1).shape == (2, 7)
    with pytest.raises(ValueError, match="same number of dimensions.*\\(2, 3\\), \\(3,\\)"):
        ra.concat([x, _put(random_array((3,), np.float32), device)])
    with pytest.raises(ValueError, match="0-d"):
        ra.concat([_put(np.float32(1), device)] * 2)
    with pytest.raises(IndexError, match="axis 2 is out of bounds"):
        ra.concat([x, x], axis=2)
    with pytest.raises(TypeError, match="axis must be an integer"):
        ra.concat([x, x], axis=1.0)
    with pytest.raises(TypeError, match="tuple or list"):
        ra.concat(x)
    with pytest.raises(TypeError, match=r"arrays\[1\] must be a rocarray array, not ndarray"):
        ra.concat([x, np.ones((2, 3))])
    with pytest.raises(ValueError, match="at least one array"):
        ra.concat([])
    with pytest.raises(ValueError, match=r"same shape.*\(2, 3\), \(2, 4\)"):
        ra.stack([x, y])
    with pytest.raises(IndexError, match="axis 3 is out of bounds for an array of dimension 3"):
        ra.stack([x, x], axis=3)
    with pytest.raises(IndexError, match="axis -3"):
        ra.unstack(x, axis=-3)
    with pytest.raises(ValueError, match="0-d"):
        ra.unstack(_put(np.int8(3), device))
    with pytest.raises(TypeError, match="x must be a rocarray array"):
        ra.unstack([1, 2])


def test_mixed_devices_refused():
    devs = ra.available_devices()
    if len(devs) < 2:
        pytest.skip("needs two devices")
    a, b = (ra.asarray([1.0, 2.0], device=d) for d in devs[:2])
    for fn in (ra.concat, ra.stack):
        with pytest.raises(TypeError, match="cannot mix devices"):
            fn([a, b])
    with pytest.raises(TypeError, match="cannot mix devices"):
        ra.meshgrid(a, b)


# -- flip / moveaxis / roll ------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_flip_all_dtypes(device, dtype):
    rng = np.random.default_rng(4)
    for shape in SHAPES:
        a = random_array(shape, dtype, rng)
        x = _put(a, device)
        choices = [None] + _axes(len(shape))
        if len(shape) >= 2:
            choices += [(0, -1), tuple(range(len(shape)))]
        for axis in choices:
            got = ra.flip(x, axis=axis)
            _check(got, np.flip(a, axis=axis))
            assert got._buf is x._buf
    x, na = _strided(random_array((3, 4), dtype, rng), device)
    _check(ra.flip(x, axis=1), np.flip(na, axis=1))
    _check(ra.flip(ra.flip(x)), na)
    # computing on a flipped view, and writing through it
    if dtype != ra.bool:
        _check(ra.flip(x) + x, np.flip(na) + na)
    a = random_array((6,), dtype, rng)
    x = _put(a.copy(), device)
    f = ra.flip(x)
    f[:2] = _put(a[:2], device)
    a2 = a.copy()
    a2[::-1][:2] = a[:2]
    _check(x, a2)


@pytest.mark.parametrize("dtype", [ra.int8, ra.float64, ra.complex64, ra.bool], ids=str)
def test_moveaxis(device, dtype):
    a = random_array((2, 3, 4, 5), dtype)
    x = _put(a, device)
    for src, dst in [(0, -1), (-1, 0), (1, 2), ((0, 1), (3, 2)), ((0, 2, 3), (1, 0, 2)), ((), ()), ([3], [0])]:
        got = ra.moveaxis(x, src, dst)
        _check(got, np.moveaxis(a, src, dst))
        assert got._buf is x._buf
    x, na = _strided(random_array((3, 4), dtype), device)
    _check(ra.moveaxis(x, 0, 1), np.moveaxis(na, 0, 1))
    z = _put(random_array((), dtype), device)
    _check(ra.moveaxis(z, (), ()), random_array((), dtype))
    with pytest.raises(ValueError, match="same number of axes"):
        ra.moveaxis(x, (0, 1), 0)
    with pytest.raises(ValueError, match="repeated axis in source"):
        ra.moveaxis(x, (0, 0), (0, 1))
    with pytest.raises(ValueError, match="repeated axis in destination"):
        ra.moveaxis(x, (0, 1), (1, -1))
    with pytest.raises(IndexError, match="axis 2 is out of bounds"):
        ra.moveaxis(x, 2, 0)
    with pytest.raises(TypeError, match="axis must be an integer"):
        ra.moveaxis(x, "a", 0)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_roll_all_dtypes(device, dtype):
    rng = np.random.default_rng(5)
    for shape in SHAPES:
        a = random_array(shape, dtype, rng)
        x = _put(a, device)
        for shift in (0, 1, -2, 7, -13):
            _check(ra.roll(x, shift), np.roll(a, shift))
            for axis in _axes(len(shape)):
                _check(ra.roll(x, shift, axis=axis), np.roll(a, shift, axis=axis))
        if len(shape) >= 2:
            _check(ra.roll(x, (1, -3), axis=(0, -1)), np.roll(a, (1, -3), axis=(0, -1)))
            _check(ra.roll(x, 2, axis=(1, 0)), np.roll(a, 2, axis=(1, 0)))
            _check(ra.roll(x, (1, 2), axis=(0, 0)), np.roll(a, (1, 2), axis=(0, 0)))
    x, na = _strided(random_array((3, 5), dtype, rng), device)
    _check(ra.roll(x, 4), np.roll(na, 4))
    _check(ra.roll(x, (-1, 2), axis=(0, 1)), np.roll(na, (-1, 2), axis=(0, 1)))


def test_roll_flip_errors(device):
    x = _put(random_array((2, 3), np.float32), device)
    with pytest.raises(ValueError, match="same length"):
        ra.roll(x, (1, 2), axis=(0,))
    with pytest.raises(ValueError, match="tuple axis"):
        ra.roll(x, (1, 2))
    with pytest.raises(TypeError, match="shift must be an integer, not float"):
        ra.roll(x, 1.5)
    with pytest.raises(IndexError, match="axis -3 is out of bounds"):
        ra.roll(x, 1, axis=-3)
    with pytest.raises(IndexError, match="axis 2 is out of bounds"):
        ra.flip(x, axis=2)
    with pytest.raises(ValueError, match="repeated axis"):
        ra.flip(x, axis=(1, -1))
    with pytest.raises(TypeError, match="x must be a rocarray array, not list"):
        ra.flip([1, 2])
    with pytest.raises(TypeError, match="x must be a rocarray array"):
        ra.roll(np.ones(3), 1)


# -- repeat / tile ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_repeat_int_all_dtypes(device, dtype):
    rng = np.random.default_rng(6)
    for shape in SHAPES:
        a = random_array(shape, dtype, rng)
        x = _put(a, device)
        for r in (0, 1, 3):
            _check(ra.repeat(x, r), np.repeat(a, r))
            for axis in _axes(len(shape)):
                _check(ra.repeat(x, r, axis=axis), np.repeat(a, r, axis=axis))
    x, na = _strided(random_array((3, 4), dtype, rng), device)
    _check(ra.repeat(x, 2, axis=1), np.repeat(na, 2, axis=1))
    _check(ra.repeat(x, 2), np.repeat(na, 2))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_repeat_array_all_dtypes(device, dtype):
    rng = np.random.default_rng(7)
    for shape in [(5,), (3, 4), (2, 0, 3), (2, 3, 4)]:
        a = random_array(shape, dtype, rng)
        x = _put(a, device)
        for axis in _axes(len(shape)) + [None]:
            m = a.size if axis is None else a.shape[axis]
            for rdt in (np.int64, np.int32, np.uint8):
                reps = rng.integers(0, 4, size=m).astype(rdt)
                _check(ra.repeat(x, _put(reps, device), axis=axis), np.repeat(a, reps, axis=axis))
                one = np.array([2], dtype=rdt)
                _check(ra.repeat(x, _put(one, device), axis=axis), np.repeat(a, one, axis=axis))
            same = np.full(m, 2, dtype=np.int16)
            _check(ra.repeat(x, _put(same, device), axis=axis), np.repeat(a, same, axis=axis))
    x, na = _strided(random_array((3, 4), dtype, rng), device)
    reps = np.array([1, 0, 3, 2])
    _check(ra.repeat(x, _put(reps, device), axis=1), np.repeat(na, reps, axis=1))
    reps = np.array([2, 0, 1])
    _check(ra.repeat(x, _put(reps, device), axis=0), np.repeat(na, reps, axis=0))
    # a 0-d input with axis=None
    z = random_array((), dtype, rng)
    _check(ra.repeat(_put(z, device), _put(np.array([3]), device)), np.repeat(z, 3))


def test_repeat_errors(device):
    x = _put(random_array((2, 3), np.float32), device)
    with pytest.raises(ValueError, match="non-negative, got -1"):
        ra.repeat(x, -1)
    with pytest.raises(ValueError, match="non-negative"):
        ra.repeat(x, _put(np.array([1, -1, 2]), device), axis=1)
    with pytest.raises(TypeError, match="integer dtype, not float32"):
        ra.repeat(x, _put(np.array([1.0, 2.0]), device).astype(ra.float32), axis=0)
    with pytest.raises(TypeError, match="repeats must be an integer, not float"):
        ra.repeat(x, 2.0)
    with pytest.raises(TypeError, match="not bool"):
        ra.repeat(x, True)
    with pytest.raises(ValueError, match=r"shape \(1,\) or \(3,\).*axis 1.*got shape \(2,\)"):
        ra.repeat(x, _put(np.array([1, 2]), device), axis=1)
    with pytest.raises(ValueError, match=r"shape \(1,\) or \(6,\)"):
        ra.repeat(x, _put(np.array([[1, 2]]), device))
    with pytest.raises(ValueError, match=r"must have shape \(1,\) to match axis 0 of size 1; got shape \(2,\)"):
        ra.repeat(x[:1], _put(np.array([1, 2]), device), axis=0)  # (said "(1,) or (1,)")
    with pytest.raises(IndexError, match="axis 2 is out of bounds"):
        ra.repeat(x, 2, axis=2)
    with pytest.raises(IndexError, match="0-d"):
        ra.repeat(_put(np.float32(1), device), 2, axis=0)
    with pytest.raises(TypeError, match="x must be a rocarray array"):
        ra.repeat([1, 2], 2)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_tile_all_dtypes(device, dtype):
    rng = np.random.default_rng(8)
    for shape in SHAPES:
        a = random_array(shape, dtype, rng)
        x = _put(a, device)
        for reps in [(), (2,), (1, 3), (2, 0), (3, 1, 2), (2, 1, 1, 2), (1, 1, 1, 1, 1)]:
            _check(ra.tile(x, reps), np.tile(a, reps))
    x, na = _strided(random_array((3, 4), dtype, rng), device)
    _check(ra.tile(x, (2, 3)), np.tile(na, (2, 3)))
    # more dimensions than one kernel takes once split into (rep, size) pairs
    a = random_array((2, 3, 2, 3, 2), dtype, rng)
    _check(ra.tile(_put(a, device), (2, 2, 1, 2, 3)), np.tile(a, (2, 2, 1, 2, 3)))


def test_tile_errors(device):
    x = _put(random_array((2, 3), np.int32), device)
    with pytest.raises(TypeError, match="tuple of ints, not int"):
        ra.tile(x, 2)
    with pytest.raises(ValueError, match="non-negative"):
        ra.tile(x, (2, -1))
    with pytest.raises(TypeError, match="repetitions must be an integer, not float"):
        ra.tile(x, (2.0,))


# -- diff ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_diff_all_dtypes(device, dtype):
    rng = np.random.default_rng(9)
    for shape in SHAPES[1:]:
        a = random_array(shape, dtype, rng)
        x = _put(a, device)
        for axis in _axes(len(shape)):
            for n in (0, 1, 2, 5):
                with np.errstate(over="ignore"):
                    want = np.diff(a, n=n, axis=axis)
                _check(ra.diff(x, axis=axis, n=n), want)
    x, na = _strided(random_array((4, 5), dtype, rng), device)
    _check(ra.diff(x, axis=0), np.diff(na, axis=0))
    _check(ra.diff(x), np.diff(na))


@pytest.mark.parametrize("dtype", [ra.bool, ra.int16, ra.uint32, ra.float32, ra.complex128], ids=str)
def test_diff_prepend_append(device, dtype):
    rng = np.random.default_rng(10)
    a = random_array((3, 4), dtype, rng)
    p = random_array((3, 2), dtype, rng)
    q = random_array((3, 1), dtype, rng)
    x = _put(a, device)
    _check(ra.diff(x, prepend=_put(p, device)), np.diff(a, prepend=p))
    _check(ra.diff(x, append=_put(q, device), n=2), np.diff(a, append=q, n=2))
    _check(ra.diff(x, prepend=_put(p, device), append=_put(q, device), n=3),
           np.diff(a, prepend=p, append=q, n=3))
    r = random_array((1, 4), dtype, rng)
    _check(ra.diff(x, axis=0, append=_put(r, device)), np.diff(a, axis=0, append=r))


def test_diff_errors(device):
    x = _put(random_array((3, 4), np.float64), device)
    with pytest.raises(ValueError, match="0-d"):
        ra.diff(_put(np.float64(2), device))
    with pytest.raises(IndexError, match="axis 2 is out of bounds"):
        ra.diff(x, axis=2)
    with pytest.raises(ValueError, match="n must be non-negative, got -1"):
        ra.diff(x, n=-1)
    with pytest.raises(TypeError, match="n must be an integer, not float"):
        ra.diff(x, n=1.0)
    with pytest.raises(ValueError, match=r"prepend must have the shape of x \(3, 4\) except along axis 1; got \(2, 1\)"):
        ra.diff(x, prepend=_put(np.ones((2, 1)), device))
    with pytest.raises(TypeError, match="append must be a rocarray array, not float"):
        ra.diff(x, append=1.0)


# -- meshgrid, tril, triu ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_meshgrid_all_dtypes(device, dtype):
    rng = np.random.default_rng(11)
    for sizes in [(), (4,), (3, 5), (2, 0, 3), (2, 3, 1, 2)]:
        vecs = [random_array((n,), dtype, rng) for n in sizes]
        xs = [_put(v, device) for v in vecs]
        for indexing in ("xy", "ij"):
            got = ra.meshgrid(*xs, indexing=indexing)
            want = np.meshgrid(*vecs, indexing=indexing)
            assert isinstance(got, tuple) and len(got) == len(want)  # (2025.12: a tuple)
            for g, w in zip(got, want):
                _check(g, w)
    v = random_array((8,), dtype, rng)
    x = _put(v, device)[::-2]
    w = random_array((3,), dtype, rng)
    for g, want in zip(ra.meshgrid(x, _put(w, device)), np.meshgrid(v[::-2], w)):
        _check(g, want)
    # the outputs are new arrays, not views of the inputs
    g = ra.meshgrid(_put(w, device), _put(w, device))[0]
    assert g.is_c_contiguous() and g._buf is not x._buf


def test_meshgrid_errors(device):
    x = _put(random_array((3,), np.float32), device)
    with pytest.raises(ValueError, match="'xy' or 'ij', not 'xx'"):
        ra.meshgrid(x, x, indexing="xx")
    with pytest.raises(ValueError, match=r"one-dimensional; arrays\[1\] has shape \(3, 1\)"):
        ra.meshgrid(x, ra.reshape(x, (3, 1)))
    with pytest.raises(TypeError, match=r"arrays\[0\] must be a rocarray array, not list"):
        ra.meshgrid([1, 2], x)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_tril_triu_all_dtypes(device, dtype):
    rng = np.random.default_rng(12)
    for shape in [(4, 4), (3, 5), (5, 2), (2, 3, 4), (2, 1, 3, 3), (0, 3), (2, 0, 4), (1, 1)]:
        a = random_array(shape, dtype, rng)
        x = _put(a, device)
        for k in (0, 1, -1, 2, -3, 10, -10):
            _check(ra.tril(x, k=k), np.tril(a, k))
            _check(ra.triu(x, k=k), np.triu(a, k))
        _check(ra.tril(x), np.tril(a))
        _check(ra.triu(x), np.triu(a))
    x, na = _strided(random_array((4, 6), dtype, rng), device)
    _check(ra.tril(x, k=1), np.tril(na, 1))
    _check(ra.triu(x.T, k=-1), np.triu(na.T, -1))


def test_tril_triu_errors(device):
    x = _put(random_array((3,), np.float32), device)
    for fn in (ra.tril, ra.triu):
        with pytest.raises(ValueError, match=r"at least two dimensions \(\.\.\., M, N\); got shape \(3,\)"):
            fn(x)
        with pytest.raises(TypeError, match="k must be an integer, not float"):
            fn(ra.reshape(x, (1, 3)), k=1.0)
        with pytest.raises(TypeError, match="x must be a rocarray array"):
            fn(np.ones((2, 2)))


def test_new_names_exported():
    for name in ("concat", "stack", "unstack", "flip", "roll", "moveaxis", "repeat", "tile",
                 "meshgrid", "tril", "triu", "diff"):
        assert callable(getattr(ra, name))
    assert ra.__array_namespace_info__().capabilities()["max dimensions"] is None
