"""rocarray.linalg's NumPy-only functions (lstsq, norm, cond, multi_dot, tensorinv,
tensorsolve) against numpy.linalg on seeded random data: every float dtype and integers,
stacks, tall / wide / rank-deficient / empty matrices, NumPy's errors; on every device."""

import math

import numpy as np
import pytest

import rocarray as ra
from conftest import random_array

FLOATS = [ra.float32, ra.float64, ra.complex64, ra.complex128]


def tol(dtype):
    return 2e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


def close(got, want, dtype, scale=1.0):
    assert isinstance(got, ra.Array), type(got)
    got = ra.asnumpy(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=tol(dtype) * scale, atol=tol(dtype) * scale)


def rand(shape, dtype, seed=0):
    return random_array(shape, dtype, np.random.default_rng(seed), low=-1, high=1)


def dev(a, device):
    return ra.asarray(a, device=device)


# -- lstsq ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(7, 3), (3, 7), (5, 5), (1, 4), (6, 1)])
@pytest.mark.parametrize("nrhs", [None, 1, 3])
def test_lstsq_full_rank(device, dtype, shape, nrhs):
    a = rand(shape, dtype, 1)
    b = rand((shape[0],) if nrhs is None else (shape[0], nrhs), dtype, 2)
    x, res, rank, s = ra.linalg.lstsq(dev(a, device), dev(b, device))
    wx, wres, wrank, ws = np.linalg.lstsq(a, b)
    assert rank == wrank and isinstance(rank, int)
    close(x, wx, dtype, 10)
    close(res, wres, dtype, 10)
    close(s, ws, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(8, 5), (4, 6)])
def test_lstsq_rank_deficient(device, dtype, shape):
    # rank 2, built in float64 (then rounded) so that NumPy's float64 SVD finds rank 2 too
    a = (rand((shape[0], 2), np.complex128 if np.dtype(dtype).kind == "c" else np.float64, 3)
         @ rand((2, shape[1]), np.float64, 4))
    a[:, -1] = a[:, 0]  # an exact repeat keeps the rank at 2 after rounding too
    a = a.astype(dtype)
    b = rand((shape[0], 2), dtype, 5)
    x, res, rank, s = ra.linalg.lstsq(dev(a, device), dev(b, device))
    wx, wres, wrank, ws = np.linalg.lstsq(a, b)
    assert rank == wrank
    assert res.shape == wres.shape == (0,)  # rank < N: no residuals
    close(x, wx, dtype, 50)
    close(s, ws, dtype, 10)


def test_lstsq_rcond_and_dtypes(device):
    a = np.diag([1.0, 1e-3, 1e-9])
    b = np.ones(3)
    for rcond in (None, 1e-5, 1e-2, -1, 0.5):
        x, res, rank, s = ra.linalg.lstsq(dev(a, device), dev(b, device), rcond=rcond)
        wx, wres, wrank, ws = np.linalg.lstsq(a, b, rcond=rcond)
        assert rank == wrank, rcond
        close(x, wx, np.float64)
    # integers are float64; float32 with float64 is float64; float32 alone stays float32
    ai = np.arange(12).reshape(4, 3) % 5
    bi = np.arange(4)
    x, res, rank, s = ra.linalg.lstsq(dev(ai, device), dev(bi, device))
    wx, wres, wrank, ws = np.linalg.lstsq(ai, bi)
    close(x, wx, np.float64)
    close(res, wres, np.float64, 10)
    a32 = rand((5, 2), np.float32, 6)
    x, res, _, s = ra.linalg.lstsq(dev(a32, device), dev(rand((5,), np.float64, 7), device))
    assert x.dtype == ra.float64 and s.dtype == ra.float64
    x, res, _, s = ra.linalg.lstsq(dev(a32, device), dev(rand((5,), np.complex64, 8), device))
    assert x.dtype == ra.complex64 and res.dtype == ra.float32 and s.dtype == ra.float32
    # a zero matrix has rank 0 and the zero solution
    x, res, rank, s = ra.linalg.lstsq(dev(np.zeros((3, 2)), device), dev(b, device))
    assert rank == 0 and not ra.asnumpy(x).any()


@pytest.mark.parametrize("ashape, bshape", [((0, 3), (0,)), ((0, 3), (0, 2)), ((3, 0), (3, 2)),
                                            ((4, 2), (4, 0)), ((0, 0), (0, 1))])
def test_lstsq_empty(device, ashape, bshape):
    a, b = rand(ashape, np.float64, 1), rand(bshape, np.float64, 2)
    got = ra.linalg.lstsq(dev(a, device), dev(b, device))
    want = np.linalg.lstsq(a, b)
    for g, w in zip(got[:2] + got[3:], want[:2] + want[3:]):
        close(g, w, np.float64)
    assert got[2] == want[2]


@pytest.mark.parametrize("call, error, match", [
    ("ra.linalg.lstsq(t3, v)", np.linalg.LinAlgError, "3-dimensional array given"),
    ("ra.linalg.lstsq(m, t3)", np.linalg.LinAlgError, "3-dimensional array given"),
    ("ra.linalg.lstsq(m, v4)", np.linalg.LinAlgError, "Incompatible dimensions"),
    ("ra.linalg.lstsq(m, v, rcond='x')", TypeError, "rcond must be a real number"),
    ("ra.linalg.lstsq(h, v)", TypeError, "float16 is not supported"),
    ("ra.linalg.lstsq([[1.0]], v)", TypeError, "must be a rocarray array"),
    ("ra.linalg.lstsq(nanm, v)", np.linalg.LinAlgError, "converge"),
])
def test_lstsq_errors(device, call, error, match):
    env = {"ra": ra, "t3": ra.ones((2, 3, 3), device=device), "m": ra.ones((3, 2), device=device),
           "v": ra.ones((3,), device=device), "v4": ra.ones((4,), device=device),
           "h": ra.ones((3, 2), dtype=ra.float16, device=device),
           "nanm": ra.asarray([[1.0, math.nan], [0.0, 1.0], [1.0, 1.0]], device=device)}
    with pytest.raises(error, match=match):
        eval(call, env)


def test_lstsq_through_numpy(device):
    if device.kind != "cpu":
        pytest.skip("NumPy's dispatch is the same on every device; checked once on the CPU")
    a, b = rand((6, 3), np.float64, 1), rand((6,), np.float64, 2)
    x, res, rank, s = np.linalg.lstsq(dev(a, device), dev(b, device))
    assert isinstance(x, ra.Array) and isinstance(res, ra.Array) and isinstance(s, ra.Array)
    close(x, np.linalg.lstsq(a, b)[0], np.float64)
    assert isinstance(np.linalg.norm(dev(a, device)), ra.Array)
    assert isinstance(np.linalg.multi_dot([dev(a, device).T, dev(a, device), dev(a, device).T]), ra.Array)


# -- norm -----------------------------------------------------------------------------------------

VECTOR_ORDS = [None, 2, 1, 0, 3, 0.5, -1, -2, math.inf, -math.inf]
MATRIX_ORDS = [None, "fro", "f", "nuc", 1, -1, 2, -2, math.inf, -math.inf]


@pytest.mark.parametrize("dtype", FLOATS + [ra.int32])
def test_norm_vectors(device, dtype):
    x = rand((3, 4, 5), dtype, 1)
    g = dev(x, device)
    wdt = np.float64 if np.dtype(dtype).kind == "i" else dtype
    with np.errstate(divide="ignore"):  # (integer zeros with ord < 0: inf, then 0, as NumPy)
        for ord in VECTOR_ORDS:
            for axis in (0, 1, -1):
                for keepdims in (False, True):
                    close(ra.linalg.norm(g, ord=ord, axis=axis, keepdims=keepdims),
                          np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims), wdt, 10)
            close(ra.linalg.norm(g[0, 0], ord=ord), np.linalg.norm(x[0, 0], ord=ord), wdt, 10)
    close(ra.linalg.norm(g), np.linalg.norm(x), wdt, 10)
    close(ra.linalg.norm(g, keepdims=True), np.linalg.norm(x, keepdims=True), wdt, 10)


@pytest.mark.parametrize("dtype", FLOATS + [ra.int64])
@pytest.mark.parametrize("shape, axis", [((4, 6), None), ((6, 4), (1, 0)), ((2, 3, 5, 4), (1, 3)),
                                         ((2, 5, 3), (-1, -2)), ((3, 4, 2), (0, 2))])
def test_norm_matrices(device, dtype, shape, axis):
    x = rand(shape, dtype, 2)
    if axis is None and len(shape) != 2:
        return
    g = dev(x, device)
    wdt = np.float64 if np.dtype(dtype).kind == "i" else dtype
    for ord in MATRIX_ORDS:
        for keepdims in (False, True):
            close(ra.linalg.norm(g, ord=ord, axis=axis, keepdims=keepdims),
                  np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims), wdt, 10)


def test_norm_float16_and_empty(device):
    x = rand((4, 5), np.float16, 3)
    g = dev(x, device)
    for ord in (None, "fro", 1, math.inf):
        got = ra.linalg.norm(g, ord=ord)
        assert got.dtype == ra.float16
        np.testing.assert_allclose(ra.asnumpy(got), np.linalg.norm(x, ord=ord), rtol=2e-3)
    for shape, ord, axis in [((0,), None, None), ((0,), math.inf, None), ((0,), 1, None), ((2, 0), math.inf, 1),
                             ((0, 3), "fro", None), ((0, 3), 1, None), ((0, 3), -1, None), ((3, 0), math.inf, None),
                             ((0, 3), 2, None), ((0, 3), "nuc", None), ((0, 2, 2), 2, (1, 2))]:
        e = np.zeros(shape)
        close(ra.linalg.norm(dev(e, device), ord=ord, axis=axis), np.linalg.norm(e, ord=ord, axis=axis),
              np.float64)
    for shape, ord in [((0,), -math.inf), ((3, 0), -1), ((0, 3), -math.inf), ((0, 3), -2)]:
        e = np.zeros(shape)
        with pytest.raises(ValueError):
            np.linalg.norm(e, ord=ord)
        with pytest.raises(ValueError, match="empty"):
            ra.linalg.norm(dev(e, device), ord=ord)


@pytest.mark.parametrize("x, kwargs, error, match", [
    ("v", {"ord": "fro"}, ValueError, "Invalid norm order 'fro' for vectors"),
    ("v", {"ord": "nuc"}, ValueError, "Invalid norm order 'nuc' for vectors"),
    ("m", {"ord": 3}, ValueError, "Invalid norm order for matrices."),
    ("m", {"ord": 0}, ValueError, "Invalid norm order for matrices."),
    ("m", {"ord": "bad"}, ValueError, "Invalid norm order for matrices."),
    ("t", {"ord": 2}, ValueError, "Improper number of dimensions to norm."),
    ("t", {"axis": (0, 1, 2)}, ValueError, "Improper number of dimensions to norm."),
    ("m", {"axis": (1, 1)}, ValueError, "Duplicate axes given."),
    ("m", {"axis": (0, -2)}, ValueError, "Duplicate axes given."),
    ("m", {"axis": "a"}, TypeError, "'axis' must be None, an integer or a tuple of integers"),
    ("m", {"axis": 2}, IndexError, "out of bounds"),
    ("m", {"ord": [1]}, TypeError, "ord must be None, a real number or a string"),
    ("m16", {"ord": "nuc"}, TypeError, "float16"),
])
def test_norm_errors(device, x, kwargs, error, match):
    arrays = {"v": np.ones(3), "m": np.ones((2, 3)), "t": np.ones((2, 2, 2)), "m16": np.ones((2, 2), np.float16)}
    if x != "m16" and not (x == "m" and kwargs.get("ord") == [1]):
        with pytest.raises(error, match=match):  # NumPy raises the same
            np.linalg.norm(arrays[x], **kwargs)
    with pytest.raises(error, match=match):
        ra.linalg.norm(dev(arrays[x], device), **kwargs)


# -- cond -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + [ra.int64])
def test_cond(device, dtype):
    x = rand((3, 4, 4), dtype, 4)
    if np.dtype(dtype).kind == "i":
        x = np.random.default_rng(4).integers(-5, 5, (3, 4, 4)) + 10 * np.eye(4, dtype=np.int64)
    g = dev(x, device)
    wdt = np.float64 if np.dtype(dtype).kind == "i" else dtype
    for p in (None, "fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        close(ra.linalg.cond(g, p), np.linalg.cond(x, p), wdt, 200)
        close(ra.linalg.cond(g[0], p), np.linalg.cond(x[0], p), wdt, 200)
    for shape in ((5, 3), (2, 3, 6)):  # SVD norms take any shape
        y = rand(shape, dtype, 5)
        for p in (None, 2, -2):
            close(ra.linalg.cond(dev(y, device), p), np.linalg.cond(y, p), wdt, 100)


def test_cond_singular(device):
    s = np.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 0.0], [0.0, 1.0]]])
    g = dev(s, device)
    for p in (None, 1, math.inf, "fro"):
        got, want = ra.asnumpy(ra.linalg.cond(g, p)), np.linalg.cond(s, p)
        # exactly singular: inf where the inverse fails; the SVD's tiny last value: huge
        assert math.isinf(got[0]) if math.isinf(want[0]) else got[0] > 1e15, (p, got, want)
        np.testing.assert_allclose(got[1], want[1])
    z = np.zeros((2, 2))
    assert math.isinf(float(ra.linalg.cond(dev(z, device), 1))) and math.isinf(np.linalg.cond(z, 1))
    assert math.isinf(float(ra.linalg.cond(dev(z, device)))) and math.isinf(np.linalg.cond(z))
    # NaN input keeps NaN (not turned into inf)
    n = np.array([[1.0, math.nan], [0.0, 1.0]])
    with pytest.raises(np.linalg.LinAlgError):  # (NumPy's SVD refuses NaN; so does the CPU's)
        np.linalg.cond(n)
    assert math.isnan(float(ra.linalg.cond(dev(n, device), 1))) and math.isnan(np.linalg.cond(n, 1))


@pytest.mark.parametrize("x, p, error, match", [
    ("v", None, np.linalg.LinAlgError, "1-dimensional array given"),
    ("e", None, np.linalg.LinAlgError, "cond is not defined on empty arrays"),
    ("r", 1, np.linalg.LinAlgError, "Last 2 dimensions of the array must be square"),
    ("m", 3, ValueError, "Invalid norm order for matrices."),
])
def test_cond_errors(device, x, p, error, match):
    arrays = {"v": np.ones(3), "e": np.ones((0, 3)), "r": np.ones((2, 3)), "m": np.eye(2)}
    with pytest.raises(error):
        np.linalg.cond(arrays[x], p)
    with pytest.raises(error, match=match):
        ra.linalg.cond(dev(arrays[x], device), p)


# -- multi_dot ------------------------------------------------------------------------------------

def test_chain_order_is_optimal():
    from rocarray.linalg._numpy_linalg import _chain_order

    # the textbook chain (CLRS 15.2): optimal ((A1(A2A3))((A4A5)A6)), 15125 multiplications
    split = _chain_order([30, 35, 15, 5, 10, 20, 25])

    def text(i, j):
        return f"A{i + 1}" if i == j else f"({text(i, split[i][j])}{text(split[i][j] + 1, j)})"
    assert text(0, 5) == "((A1(A2A3))((A4A5)A6))"
    assert _chain_order([10, 100, 5, 50])[0][2] == 1  # (AB)C
    assert _chain_order([50, 5, 100, 10])[0][2] == 0  # A(BC)


@pytest.mark.parametrize("dtype", FLOATS + [ra.int32])
@pytest.mark.parametrize("shapes", [[(3, 4), (4, 5), (5, 2)], [(10, 30), (30, 5), (5, 60), (60, 2)],
                                    [(4,), (4, 6), (6, 3), (3, 5), (5,)], [(4,), (4, 6), (6, 3)],
                                    [(2, 6), (6, 3), (3,)], [(3, 4), (4, 2)], [(4,), (4,)],
                                    [(3, 0), (0, 4), (4, 2)]])
def test_multi_dot(device, dtype, shapes):
    arrays = [rand(s, dtype, i) for i, s in enumerate(shapes)]
    got = ra.linalg.multi_dot([dev(a, device) for a in arrays])
    close(got, np.linalg.multi_dot(arrays), dtype, 20)


def test_multi_dot_out_and_mixed(device):
    a, b, c = rand((3, 4), np.float64, 1), rand((4, 5), np.float32, 2), rand((5, 2), np.float64, 3)
    out = ra.empty((3, 2), device=device)
    got = ra.linalg.multi_dot([dev(a, device), dev(b, device), dev(c, device)], out=out)
    assert got is out
    close(out, np.linalg.multi_dot([a, b, c]), np.float64, 10)


@pytest.mark.parametrize("call, error, match", [
    ("ra.linalg.multi_dot([m])", ValueError, "Expecting at least two arrays."),
    ("ra.linalg.multi_dot([m, t3, m])", np.linalg.LinAlgError, "3-dimensional array given"),
    ("ra.linalg.multi_dot([m, m, m])", ValueError, "not aligned"),
    ("ra.linalg.multi_dot([m, [[1.0]], m])", TypeError, "must be a rocarray array"),
])
def test_multi_dot_errors(device, call, error, match):
    env = {"ra": ra, "m": ra.ones((2, 3), device=device), "t3": ra.ones((3, 3, 2), device=device)}
    with pytest.raises(error, match=match):
        eval(call, env)


# -- tensorinv, tensorsolve -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + [ra.int64])
def test_tensorinv(device, dtype):
    a = rand((4, 6, 8, 3), dtype, 1) + np.eye(24).reshape(4, 6, 8, 3) * 5
    if np.dtype(dtype).kind == "i":
        a = np.random.default_rng(1).integers(-3, 3, (4, 6, 8, 3)) + 20 * np.eye(24, dtype=np.int64).reshape(4, 6, 8, 3)
    wdt = np.float64 if np.dtype(dtype).kind == "i" else dtype
    a = a.astype(wdt if np.dtype(dtype).kind != "i" else dtype)
    close(ra.linalg.tensorinv(dev(a, device), ind=2), np.linalg.tensorinv(a, ind=2), wdt, 10)
    b = a.reshape(24, 8, 3)
    close(ra.linalg.tensorinv(dev(b, device), ind=1), np.linalg.tensorinv(b, ind=1), wdt, 10)


@pytest.mark.parametrize("dtype", FLOATS)
def test_tensorsolve(device, dtype):
    a = (rand((6, 2, 3), dtype, 2) + np.eye(6).reshape(6, 2, 3) * 4).astype(dtype)
    b = rand((6,), dtype, 3)
    close(ra.linalg.tensorsolve(dev(a, device), dev(b, device)), np.linalg.tensorsolve(a, b), dtype, 10)
    a4 = (rand((2, 3, 2, 3), dtype, 4) + np.eye(6).reshape(2, 3, 2, 3) * 4).astype(dtype)
    b2 = rand((2, 3), dtype, 5)
    for axes in (None, (0,), (1, 0), (3,), (2, 1)):
        close(ra.linalg.tensorsolve(dev(a4, device), dev(b2, device), axes=axes),
              np.linalg.tensorsolve(a4, b2, axes=axes), dtype, 10)
    # a negative axis counts from the end (NumPy's list.remove refuses it)
    close(ra.linalg.tensorsolve(dev(a4, device), dev(b2, device), axes=(-1, 0)),
          np.linalg.tensorsolve(a4, b2, axes=(3, 0)), dtype, 10)


def test_tensor_errors(device):
    with pytest.raises(ValueError, match="Invalid ind argument."):
        ra.linalg.tensorinv(ra.ones((2, 2), device=device), ind=0)
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        ra.linalg.tensorinv(ra.ones((2, 3, 4), device=device), ind=1)
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.tensorinv(np.ones((2, 3, 4)), ind=1)
    with pytest.raises(np.linalg.LinAlgError):  # singular, as NumPy
        ra.linalg.tensorinv(ra.ones((2, 2, 4), device=device), ind=2)
    with pytest.raises(np.linalg.LinAlgError, match="Input arrays must satisfy the requirement"):
        ra.linalg.tensorsolve(ra.ones((6, 2, 4), device=device), ra.ones((6,), device=device))
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.tensorsolve(np.ones((6, 2, 4)), np.ones((6,)))
    with pytest.raises(TypeError, match="ind must be an int"):
        ra.linalg.tensorinv(ra.ones((2, 2), device=device), ind=1.5)
