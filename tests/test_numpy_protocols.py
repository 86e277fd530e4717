"""NumPy's protocols on rocarray arrays (__array_ufunc__, __array_function__), the Array
methods with NumPy's signatures, and the array API 2025.12 changes, on every device: results
stay rocarray arrays on the array's device; NumPy operands are accepted on the CPU and a
TypeError on GPUs; what rocarray lacks is a TypeError naming it."""

import numpy as np
import pytest

import rocarray as ra
from rocarray._numpy_protocols import _UFUNCS

from conftest import ALL_DTYPES, random_array

FLOATS = [ra.float16, ra.float32, ra.float64]


def _put(a, device):
    return ra.asarray(a, device=device)


def _same(got, want, rtol=None):
    assert isinstance(got, ra.Array), type(got)
    g = got.get()
    want = np.asarray(want)
    assert g.shape == want.shape, (g.shape, want.shape)
    if want.dtype.kind in "fc":
        size = want.dtype.itemsize // (2 if want.dtype.kind == "c" else 1)
        tol = rtol if rtol is not None else {2: 2e-3, 4: 2e-5, 8: 1e-12}[size]
        np.testing.assert_allclose(g, want, rtol=tol, atol=tol, equal_nan=True)
    else:
        np.testing.assert_array_equal(g, want)


# -- __array_ufunc__ ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_every_mapped_ufunc_runs_rocarray_op(device, dtype):
    """Each NumPy ufunc with a rocarray op gives the op's own result, as a rocarray array
    on the device, for every dtype the op accepts."""
    rng = np.random.default_rng(5)
    a = random_array((7,), dtype, rng, low=1, high=9)
    b = random_array((7,), dtype, rng, low=1, high=9)
    x, y = _put(a, device), _put(b, device)
    ran = 0
    for np_name, ra_name in sorted(_UFUNCS.items()):
        uf = getattr(np, np_name, None)
        if not isinstance(uf, np.ufunc):
            continue
        op = getattr(ra, ra_name)
        args = (x,) if uf.nin == 1 else (x, y)
        try:
            want = op(*args)
        except TypeError:  # the op does not take this dtype: nor does the protocol
            with pytest.raises(TypeError):
                uf(*args)
            continue
        got = uf(*args)
        assert isinstance(got, ra.Array) and got.device == x.device, np_name
        assert got.dtype == want.dtype, np_name
        np.testing.assert_array_equal(got.get(), want.get(), err_msg=np_name)
        ran += 1
    assert ran >= 10


@pytest.mark.parametrize("dtype", [ra.int32, ra.uint8, ra.float32, ra.float64, ra.complex128], ids=str)
def test_ufunc_values_match_numpy(device, dtype):
    rng = np.random.default_rng(6)
    a = random_array((4, 5), dtype, rng, low=1, high=20)
    b = random_array((5,), dtype, rng, low=1, high=20)
    x, y = _put(a, device), _put(b, device)
    for uf in (np.add, np.subtract, np.multiply, np.maximum, np.equal, np.less):
        if dtype.kind == "c" and uf in (np.maximum, np.less):
            continue
        _same(uf(x, y), uf(a, b))
    if dtype.kind in "fc":
        for uf in (np.sin, np.exp, np.sqrt, np.absolute, np.negative, np.conjugate):
            _same(uf(x), uf(a))
        _same(np.true_divide(x, y), np.true_divide(a, b))
        _same(np.power(x, y) if dtype.kind == "f" else np.power(x, 2), np.power(a, b) if dtype.kind == "f"
              else np.power(a, 2), rtol=1e-4)
    else:
        _same(np.invert(x), np.invert(a))
        _same(np.floor_divide(x, y), np.floor_divide(a, b))


def test_ufunc_out_where_dtype(device):
    rng = np.random.default_rng(7)
    a = random_array((3, 4), np.float32, rng)
    b = random_array((3, 4), np.float32, rng)
    x, y = _put(a, device), _put(b, device)
    out = ra.zeros((3, 4), dtype=ra.float32, device=device)
    r = np.add(x, y, out=out)
    assert r is out
    _same(out, a + b)
    mask = a > 0
    out2 = ra.full((3, 4), -7.0, dtype=ra.float32, device=device)
    np.multiply(x, y, out=(out2,), where=_put(mask, device))
    want = np.full((3, 4), -7.0, np.float32)
    np.multiply(a, b, out=want, where=mask)
    _same(out2, want)
    i8 = random_array((5,), np.int8, rng)
    got = np.add(_put(i8, device), _put(i8, device), dtype=np.int64)
    assert got.dtype == ra.int64
    _same(got, np.add(i8, i8, dtype=np.int64))
    with pytest.raises(TypeError, match="order='F' is not supported"):
        np.add(x, y, order="F")


@pytest.mark.parametrize("dtype", [ra.bool, ra.int16, ra.uint32, ra.float32, ra.float64], ids=str)
def test_ufunc_reduce_and_accumulate(device, dtype):
    rng = np.random.default_rng(8)
    a = random_array((4, 6), dtype, rng, low=-5, high=5)
    x = _put(a, device)
    names = ["add", "multiply", "maximum", "minimum", "logical_and", "logical_or"]
    for name in names:
        uf = getattr(np, name)
        for axis in (0, 1, None, (0, 1)):
            for keepdims in (False, True):
                got = uf.reduce(x, axis=axis, keepdims=keepdims)
                want = uf.reduce(a, axis=axis, keepdims=keepdims)
                if name in ("add", "multiply") and dtype.kind in "bi":
                    want = want.astype(got.dtype)  # Note: rocarray sums small ints in int64 (the standard)
                _same(got, want)
    _same(np.add.reduce(x, axis=1, dtype=np.float64), np.add.reduce(a, axis=1, dtype=np.float64))
    if dtype.kind != "b":
        _same(np.maximum.reduce(x, axis=0, initial=3), np.maximum.reduce(a, axis=0, initial=3))
    got = np.add.accumulate(x, axis=1)
    want = np.add.accumulate(a, axis=1)
    _same(got, want.astype(got.dtype))
    got = np.multiply.outer(x[0], x[1])
    _same(got, np.multiply.outer(a[0], a[1]).astype(got.dtype))


def test_ufunc_without_rocarray_op_is_a_type_error(device):
    x = _put(random_array((4,), np.float64), device)
    with pytest.raises(TypeError, match=r"numpy\.isnat.*\.get\(\)"):
        np.isnat(x)
    with pytest.raises(TypeError, match=r"numpy\.add\.at"):
        np.add.at(x, [0], 1.0)
    with pytest.raises(TypeError, match=r"numpy\.subtract\.reduce"):
        np.subtract.reduce(x)


def test_numpy_operands_cpu_accepted_gpu_refused(device):
    """NumPy arrays beside rocarray arrays: copied in on the CPU (the result a rocarray
    array), a TypeError on GPUs, whichever side the NumPy array is on (as CuPy)."""
    a = random_array((3, 4), np.float32, np.random.default_rng(9))
    x = _put(a, device)
    cases = [lambda: a + x, lambda: x + a, lambda: np.add(a, x), lambda: x * a, lambda: a < x,
             lambda: np.concatenate([x, a]), lambda: np.where(a > 0, x, a)]
    if device.kind == "cpu":
        for f in cases:
            r = f()
            assert isinstance(r, ra.Array) and r.device == x.device
        _same(a + x, a + a)
        _same(np.concatenate([x, a]), np.concatenate([a, a]))
    else:
        for f in cases:
            with pytest.raises(TypeError, match=r"NumPy arrays cannot be mixed .* x\.get\(\)"):
                f()
    # NumPy scalars are scalars, on every device
    _same(np.float32(2) * x, np.float32(2) * a)
    _same(x - np.int64(1), a - np.int64(1))


# -- __array_function__ --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_numpy_reductions_dispatch(device, dtype):
    rng = np.random.default_rng(10)
    a = random_array((3, 5), dtype, rng, low=-6, high=6)
    x = _put(a, device)
    real = dtype.kind != "c"
    for axis in (None, 0, 1, -1):
        got = np.sum(x, axis)
        _same(got, np.sum(a, axis).astype(got.dtype))
        got = np.prod(x, axis=axis, keepdims=True)
        _same(got, np.prod(a, axis=axis, keepdims=True).astype(got.dtype))
        _same(np.any(x, axis), np.any(a, axis))
        _same(np.all(x, axis=axis), np.all(a, axis=axis))
        if real:
            _same(np.max(x, axis), np.max(a, axis))
            _same(np.amin(x, axis=axis, keepdims=True), np.amin(a, axis=axis, keepdims=True))
            _same(np.argmax(x, axis), np.argmax(a, axis))
            _same(np.argmin(x, axis=axis), np.argmin(a, axis=axis))
        if dtype != ra.float16 or axis is not None:
            _same(np.mean(x, axis), np.mean(a, axis))
    if dtype.kind in "iufc" and dtype != ra.float16:
        _same(np.std(x, axis=0, ddof=1), np.std(a, axis=0, ddof=1))
        _same(np.var(x, 1), np.var(a, 1))
    got = np.cumsum(x)
    _same(got, np.cumsum(a).astype(got.dtype))
    got = np.cumprod(x, axis=1)
    _same(got, np.cumprod(a, axis=1).astype(got.dtype))


def test_numpy_reduction_arguments(device):
    a = random_array((4, 5), np.float64, np.random.default_rng(11))
    x = _put(a, device)
    mask = a > 0
    _same(np.sum(x, axis=1, initial=10.0), np.sum(a, axis=1, initial=10.0))
    _same(np.sum(x, where=_put(mask, device)), np.sum(a, where=mask))
    _same(np.max(x, axis=0, initial=50.0), np.max(a, axis=0, initial=50.0))
    _same(np.max(x, axis=0, initial=0.5), np.max(a, axis=0, initial=0.5))
    with_nan = a.copy()
    with_nan[1, 2] = np.nan
    _same(np.min(_put(with_nan, device), axis=0, initial=-50.0), np.min(with_nan, axis=0, initial=-50.0))
    _same(np.mean(x, axis=0, where=_put(mask, device)), np.mean(a, axis=0, where=mask))
    out = ra.zeros(5, dtype=ra.float64, device=device)
    assert np.sum(x, axis=0, out=out) is out
    _same(out, a.sum(axis=0))
    ints = random_array((6,), np.int32, np.random.default_rng(12))
    got = np.mean(_put(ints, device))
    assert got.dtype == ra.float64
    _same(got, np.mean(ints))
    with pytest.raises(ValueError, match="out has shape"):
        np.sum(x, axis=0, out=ra.zeros(4, device=device))
    with pytest.raises(ValueError, match="where= needs an initial"):
        np.max(x, where=_put(mask, device))


def test_numpy_functions_dispatch(device):
    rng = np.random.default_rng(13)
    a = random_array((4, 6), np.float32, rng)
    x = _put(a, device)
    _same(np.concatenate([x, x], axis=1), np.concatenate([a, a], axis=1))
    _same(np.concatenate([x, x], axis=None), np.concatenate([a, a], axis=None))
    _same(np.stack([x, x], 1), np.stack([a, a], 1))
    _same(np.where(x > 0, x, 0), np.where(a > 0, a, 0))
    for g, w in zip(np.where(x > 0), np.where(a > 0)):
        _same(g, w)
    _same(np.sort(x, axis=None), np.sort(a, axis=None))
    _same(np.argsort(x, 0), np.argsort(a, 0, kind="stable"))
    _same(np.transpose(x), np.transpose(a))
    _same(np.reshape(x, (6, 4)), np.reshape(a, (6, 4)))
    _same(np.take(x, [1, 3]), np.take(a, [1, 3]))
    _same(np.take(x, 2, axis=1), np.take(a, 2, axis=1))
    _same(np.clip(x, -1, 1), np.clip(a, -1, 1))
    _same(np.round(x, 1), np.round(a, 1))
    _same(np.flip(x, 0), np.flip(a, 0))
    _same(np.diff(x, 2, axis=0), np.diff(a, 2, axis=0))
    _same(np.squeeze(x[None]), a)
    _same(np.tril(x, 1), np.tril(a, 1))
    _same(np.tensordot(x, x.T, 1), np.tensordot(a, a.T, 1))
    _same(np.zeros_like(x), np.zeros_like(a))
    _same(np.full_like(x, 3, shape=(2, 2)), np.full_like(a, 3, shape=(2, 2)))
    assert np.shape(x) == (4, 6) and np.ndim(x) == 2 and np.size(x, 1) == 6
    assert np.may_share_memory(x, x[1]) and not np.may_share_memory(x, x.copy())
    assert np.iscomplexobj(x) is False
    vals, counts = np.unique(_put(np.array([3, 1, 3, 2, 1]), device), return_counts=True)
    _same(vals, [1, 2, 3])
    _same(counts, [2, 1, 2])
    res = np.unique(_put(np.array([[3, 1], [3, 2]]), device), return_index=True, return_inverse=True)
    want = np.unique(np.array([[3, 1], [3, 2]]), return_index=True, return_inverse=True)
    for g, w in zip(res, want):
        _same(g, w)


def test_function_without_rocarray_version_is_a_type_error(device):
    x = _put(random_array((4, 4), np.float64), device)
    with pytest.raises(TypeError, match=r"numpy\.einsum_path; copy the array to the host with x\.get\(\)"):
        np.einsum_path("ij,jk", x, x)



def test_linalg_and_fft_dispatch(device):
    """numpy.linalg's and numpy.fft's functions reach rocarray.linalg and rocarray.fft."""
    a = random_array((4, 4), np.float64, np.random.default_rng(16)) + 8 * np.eye(4)
    x = _put(a, device)
    _same(np.linalg.det(x), np.linalg.det(a))
    _same(np.linalg.inv(x), np.linalg.inv(a))
    _same(np.linalg.solve(x, x[:, :1]), np.linalg.solve(a, a[:, :1]))
    _same(np.fft.fft(x), np.fft.fft(a))
    _same(np.fft.rfft(x, axis=0), np.fft.rfft(a, axis=0))


# -- Array methods with NumPy's signatures -------------------------------------------------------


@pytest.mark.parametrize("dtype", [ra.int8, ra.int64, ra.uint16, ra.float32, ra.float64, ra.complex64], ids=str)
def test_methods_match_numpy(device, dtype):
    rng = np.random.default_rng(14)
    a = random_array((3, 4), dtype, rng, low=-9, high=9)
    x = _put(a, device)
    got = x.sum(0)
    _same(got, a.sum(0).astype(got.dtype))
    wide = ra.complex128 if dtype.kind == "c" else ra.float64
    got = x.sum(axis=1, dtype=wide, keepdims=True)
    _same(got, a.sum(axis=1, dtype=wide, keepdims=True))
    _same(x.mean(), a.mean())
    _same(x.mean(axis=0), a.mean(axis=0))
    _same(x.std(ddof=1), a.std(ddof=1))
    _same(x.var(axis=1), a.var(axis=1))
    got = x.cumsum()
    _same(got, a.cumsum().astype(got.dtype))
    got = x.cumsum(axis=0)
    _same(got, a.cumsum(axis=0).astype(got.dtype))
    _same(x.ravel(), a.ravel())
    _same(x.flatten(), a.flatten())
    _same(x.T, a.T)
    _same(x.transpose(1, 0), a.transpose(1, 0))
    _same(x.reshape(4, 3), a.reshape(4, 3))
    _same(x.swapaxes(0, 1), a.swapaxes(0, 1))
    _same(x.repeat(2, axis=1), a.repeat(2, axis=1))
    _same(x.take([0, 2], axis=1), a.take([0, 2], axis=1))
    _same(x.diagonal(), a.diagonal())
    got = x.trace()
    _same(got, np.asarray(a.trace()).astype(got.dtype))
    _same(x.dot(x.T), a.dot(a.T))
    assert x.tolist() == a.tolist()
    assert x.item(5) == a.item(5) and x.item(1, 2) == a.item(1, 2)
    _same(x.real, a.real)
    _same(x.imag, a.imag)
    _same(x.conj(), a.conj())
    for g, w in zip(x.nonzero(), a.nonzero()):
        _same(g, w)
    if dtype.kind != "c":
        _same(x.max(axis=1), a.max(axis=1))
        _same(x.min(0, keepdims=True), a.min(0, keepdims=True))
        _same(x.argmax(), a.argmax())
        _same(x.argmin(axis=0), a.argmin(axis=0))
        _same(x.clip(-2, 3), a.clip(-2, 3))
        _same(x.argsort(axis=1), a.argsort(axis=1, kind="stable"))
        y = x.copy()
        assert y.sort(axis=0) is None
        _same(y, np.sort(a, axis=0))
    if dtype.kind == "f":
        _same(x.round(1), a.round(1))
        _same(x.astype(ra.float64, copy=False), a.astype(np.float64))
        assert x.astype(dtype, copy=False) is x


def test_fill_view_item_methods(device):
    a = random_array((2, 3), np.float32, np.random.default_rng(15))
    x = _put(a, device)
    y = x.copy()
    y.fill(2.5)
    _same(y, np.full((2, 3), 2.5, np.float32))
    v = x.view(ra.int32)
    _same(v, a.view(np.int32))
    _same(x.view(ra.uint8), a.view(np.uint8))
    with pytest.raises(IndexError, match="out of bounds"):
        x.item(6)
    with pytest.raises(ValueError, match="contiguous last axis"):
        x.T.view(ra.uint8)
    with pytest.raises(ValueError, match="ddof or correction"):
        x.std(ddof=1, correction=1)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=str)
def test_real_imag_are_views(device, dtype):
    """``x.real`` and ``x.imag`` of a complex array are views (as NumPy's and CuPy's): of a
    strided view too, written through by ``[...] =``, in-place operators and assignment."""
    rng = np.random.default_rng(16)
    a = random_array((5, 6), dtype, rng)
    x = _put(a.copy(), device)
    for g, w in ((x.real, a.real), (x.imag, a.imag), (x[::-2, 1::2].imag, a[::-2, 1::2].imag),
                 (x.T.real, a.T.real)):
        _same(g, w)
        assert g.dtype == w.dtype and g.strides == w.strides
    b = a.copy()
    x.imag[1:3] = 7.5
    b.imag[1:3] = 7.5
    x.real *= 2
    b.real *= 2
    x[:, ::2].imag = -1
    b[:, ::2].imag = -1
    x.real = x.imag
    b.real = b.imag
    _same(x, b)
    _same(ra.sum(x.imag, axis=0), b.imag.sum(axis=0))
    r = ra.asarray(a.real.copy(), device=device)
    assert r.real is r
    r.real = 3
    _same(r, np.full(a.shape, 3, a.real.dtype))
    _same(r.imag, np.zeros(a.shape, a.real.dtype))
    with pytest.raises(TypeError, match="has no imaginary part to set"):
        r.imag = 1


# -- array API 2025.12 ---------------------------------------------------------------------------


def test_array_api_2025_12(device):
    assert ra.__array_api_version__ == "2025.12"
    x = ra.ones(3, device=device)
    for v in ("2023.12", "2024.12", "2025.12", None):
        assert x.__array_namespace__(api_version=v) is ra
    with pytest.raises(ValueError, match="does not implement array API version '2026.12'"):
        x.__array_namespace__(api_version="2026.12")
    devs = ra.__array_namespace_info__().devices()
    assert isinstance(devs, tuple) and devs[0] == ra.Device("cpu") and device in devs
    b = ra.broadcast_arrays(x, ra.zeros((2, 1), device=device))
    assert isinstance(b, tuple) and [t.shape for t in b] == [(2, 3), (2, 3)]
    g = ra.meshgrid(x, x)
    assert isinstance(g, tuple) and len(g) == 2
    with pytest.raises(TypeError, match=r"broadcast_arrays: arrays\[1\] must be a rocarray array"):
        ra.broadcast_arrays(x, [1, 2, 3])


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_floor_divide_special_cases_of_the_standard(device, dtype):
    """Infinite operands give the IEEE quotient (the standard; NumPy differs)."""
    inf, nan = float("inf"), float("nan")
    cases = [  # x1, x2, the standard's result
        (inf, 2.0, inf), (inf, -2.0, -inf), (-inf, 2.0, -inf), (-inf, -2.0, inf),
        (1.0, inf, 0.0), (1.0, -inf, -0.0), (-1.0, inf, -0.0), (-1.0, -inf, 0.0),
        (inf, inf, nan), (-inf, inf, nan), (0.0, 0.0, nan), (nan, 1.0, nan), (1.0, nan, nan),
        (5.0, 0.0, inf), (-5.0, 0.0, -inf), (5.0, -0.0, -inf), (0.0, 3.0, 0.0), (-0.0, 3.0, -0.0),
        (7.0, 2.0, 3.0), (-7.0, 2.0, -4.0), (7.0, -2.0, -4.0),
    ]
    a = np.array([c[0] for c in cases], dtype=dtype)
    b = np.array([c[1] for c in cases], dtype=dtype)
    want = np.array([c[2] for c in cases], dtype=dtype)
    for got in (ra.floor_divide(_put(a, device), _put(b, device)), _put(a, device) // _put(b, device)):
        g = got.get()
        np.testing.assert_array_equal(g, want)
        keep = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(g[keep]), np.signbit(want[keep]))
    y = _put(a, device)
    y //= _put(b, device)
    np.testing.assert_array_equal(y.get(), want)
