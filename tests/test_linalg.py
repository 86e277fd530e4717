"""rocarray.linalg against numpy.linalg on random well-conditioned data: every function,
float32/64 and complex64/128, stacked and broadcast inputs, errors; on every device."""

import math

import numpy as np
import pytest

import rocarray as ra
from conftest import random_array

FLOATS = [ra.float32, ra.float64, ra.complex64, ra.complex128]


def tol(dtype):
    return 2e-3 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-9


def close(got, want, dtype, scale=1.0):
    got = ra.asnumpy(got)
    assert got.dtype == np.asarray(want).dtype or got.dtype == np.dtype(dtype), (got.dtype, dtype)
    np.testing.assert_allclose(got, want, rtol=tol(dtype), atol=tol(dtype) * scale)


def rand(shape, dtype, seed=0):
    return random_array(shape, dtype, np.random.default_rng(seed), low=-1, high=1)


def well_conditioned(shape, dtype, seed=0):
    a = rand(shape, dtype, seed)
    n = shape[-1]
    return (a + n * np.eye(n)).astype(dtype)


def hermitian_pd(shape, dtype, seed=0):
    a = rand(shape, dtype, seed)
    n = shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


@pytest.mark.parametrize("dtype", FLOATS + [ra.float16])
@pytest.mark.parametrize("shapes", [((5, 7), (7, 3)), ((4, 5, 6), (6, 2)), ((2, 1, 3, 4), (5, 4, 3)),
                                    ((6,), (6, 3)), ((3, 6), (6,)), ((6,), (6,))])
def test_matmul(device, dtype, shapes):
    a, b = rand(shapes[0], dtype, 1), rand(shapes[1], dtype, 2)
    got = ra.asarray(a, device=device) @ ra.asarray(b, device=device)
    want = (a.astype(np.float32) @ b.astype(np.float32)).astype(dtype) if dtype == ra.float16 else a @ b
    np.testing.assert_allclose(ra.asnumpy(got), want, rtol=1e-2 if dtype == ra.float16 else tol(dtype),
                               atol=1e-2 if dtype == ra.float16 else tol(dtype))
    assert got.dtype == dtype and got.shape == want.shape


def test_matmul_views_and_mixed_dtypes(device):
    a = rand((3, 8, 5), np.float64, 3)
    b = rand((5, 4), np.float32, 4)
    ga = ra.asarray(a, device=device)
    # transposed and strided operands are read in place (or copied) with the same result
    close(ga.mT @ ga, a.transpose(0, 2, 1) @ a, np.float64)
    close(ga[:, ::2, :] @ ra.asarray(b, device=device), a[:, ::2, :] @ b, np.float64)
    # an integer product stays on the engine and keeps its dtype
    i = np.arange(12, dtype=np.int32).reshape(3, 4)
    got = ra.asarray(i, device=device) @ ra.asarray(i.T.copy(), device=device)
    assert got.dtype == ra.int32
    np.testing.assert_array_equal(ra.asnumpy(got), i @ i.T)


@pytest.mark.parametrize("dtype", FLOATS)
def test_tensordot_vecdot(device, dtype):
    a, b = rand((3, 4, 5), dtype, 1), rand((5, 4, 2), dtype, 2)
    ga, gb = ra.asarray(a, device=device), ra.asarray(b, device=device)
    close(ra.tensordot(ga, gb, axes=([1, 2], [1, 0])), np.tensordot(a, b, axes=([1, 2], [1, 0])), dtype)
    close(ra.linalg.tensordot(ga, ga, axes=0), np.tensordot(a, a, axes=0), dtype)
    c = rand((3, 1, 5), dtype, 3)
    close(ra.linalg.vecdot(ga, ra.asarray(c, device=device)), np.linalg.vecdot(a, c), dtype)
    close(ra.vecdot(ga, ga, axis=1), np.sum(np.conj(a) * a, axis=1), dtype, 10)


@pytest.mark.parametrize("dtype", FLOATS)
def test_solve_inv_det(device, dtype):
    a = well_conditioned((3, 6, 6), dtype, 1)
    b = rand((6, 2), dtype, 2)
    ga = ra.asarray(a, device=device)
    close(ra.linalg.solve(ga, ra.asarray(b, device=device)), np.linalg.solve(a, b), dtype)
    v = rand((6,), dtype, 3)
    close(ra.linalg.solve(ga[0], ra.asarray(v, device=device)), np.linalg.solve(a[0], v), dtype)
    close(ra.linalg.inv(ga), np.linalg.inv(a), dtype)
    d = np.linalg.det(a)
    close(ra.linalg.det(ga), d, dtype, float(np.max(np.abs(d))))
    sign, logabs = ra.linalg.slogdet(ga)
    want_sign, want_log = np.linalg.slogdet(a)
    close(sign, want_sign, dtype)
    close(logabs, want_log, dtype, 10)


def test_singular_matrices(device):
    s = ra.asarray([[1.0, 2.0], [2.0, 4.0]], device=device)
    with pytest.raises(np.linalg.LinAlgError):
        ra.linalg.solve(s, ra.asarray([1.0, 1.0], device=device))
    with pytest.raises(np.linalg.LinAlgError):
        ra.linalg.inv(s)
    with pytest.raises(np.linalg.LinAlgError):
        ra.linalg.cholesky(ra.asarray([[1.0, 2.0], [2.0, 1.0]], device=device))
    sign, logabs = ra.linalg.slogdet(s)
    assert float(sign) == 0 and float(logabs) == -math.inf
    assert float(ra.linalg.det(s)) == 0


@pytest.mark.parametrize("dtype", FLOATS)
def test_cholesky_eigh(device, dtype):
    a = hermitian_pd((2, 5, 5), dtype, 4)
    ga = ra.asarray(a, device=device)
    close(ra.linalg.cholesky(ga), np.linalg.cholesky(a), dtype)
    close(ra.linalg.cholesky(ga, upper=True), np.conj(np.swapaxes(np.linalg.cholesky(a), -1, -2)), dtype)
    w, v = ra.linalg.eigh(ga)
    close(w, np.linalg.eigvalsh(a), dtype, 10)
    v = ra.asnumpy(v)
    np.testing.assert_allclose(a @ v, v * ra.asnumpy(w)[..., None, :], rtol=tol(dtype) * 10, atol=tol(dtype) * 50)
    close(ra.linalg.eigvalsh(ga), np.linalg.eigvalsh(a), dtype, 10)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(2, 6, 4), (4, 6), (3, 3)])
def test_svd_qr(device, dtype, shape):
    a = rand(shape, dtype, 5)
    ga = ra.asarray(a, device=device)
    for full in (True, False):
        u, s, vh = ra.linalg.svd(ga, full_matrices=full)
        wu, ws, wvh = np.linalg.svd(a, full_matrices=full)
        assert u.shape == wu.shape and vh.shape == wvh.shape
        close(s, ws, dtype)
        k = min(shape[-2:])
        rebuilt = ra.asnumpy(u)[..., :, :k] * ra.asnumpy(s)[..., None, :] @ ra.asnumpy(vh)[..., :k, :]
        np.testing.assert_allclose(rebuilt, a, rtol=tol(dtype) * 5, atol=tol(dtype) * 5)
    close(ra.linalg.svdvals(ga), np.linalg.svd(a, compute_uv=False), dtype)
    for mode in ("reduced", "complete"):
        q, r = ra.linalg.qr(ga, mode=mode)
        wq, wr = np.linalg.qr(a, mode=mode)
        assert q.shape == wq.shape and r.shape == wr.shape
        qn, rn = ra.asnumpy(q), ra.asnumpy(r)
        np.testing.assert_allclose(qn @ rn, a, rtol=tol(dtype) * 5, atol=tol(dtype) * 5)
        np.testing.assert_allclose(np.conj(np.swapaxes(qn, -1, -2)) @ qn, np.broadcast_to(np.eye(qn.shape[-1]),
                                   qn.shape[:-2] + (qn.shape[-1],) * 2), atol=tol(dtype) * 5)
        np.testing.assert_array_equal(np.triu(rn), rn)


@pytest.mark.parametrize("dtype", FLOATS)
def test_pinv_rank_norms(device, dtype):
    a = rand((2, 5, 3), dtype, 6)
    ga = ra.asarray(a, device=device)
    close(ra.linalg.pinv(ga), np.linalg.pinv(a), dtype, 10)
    low = a[0] @ rand((3, 5), dtype, 7)  # rank 3 of 5
    assert int(ra.linalg.matrix_rank(ra.asarray(low, device=device))) == 3
    close(ra.linalg.matrix_rank(ga), np.linalg.matrix_rank(a), np.int64)
    for ord in ("fro", "nuc", 1, 2, -1, -2, math.inf, -math.inf):
        got = ra.linalg.matrix_norm(ga, ord=ord, keepdims=True)
        close(got, np.linalg.matrix_norm(a, ord=ord, keepdims=True), dtype, 10)
    for ord in (2, 1, 0, 3.5, math.inf, -math.inf):
        close(ra.linalg.vector_norm(ga, ord=ord), np.linalg.vector_norm(a, ord=ord), dtype, 10)
        close(ra.linalg.vector_norm(ga, axis=(0, 2), keepdims=True, ord=ord),
              np.linalg.vector_norm(a, axis=(0, 2), keepdims=True, ord=ord), dtype, 10)
    assert ra.linalg.vector_norm(ga).dtype == np.abs(a).dtype


@pytest.mark.parametrize("dtype", FLOATS)
def test_eig(device, dtype):
    a = rand((2, 4, 4), dtype, 8)
    w, v = ra.linalg.eig(ra.asarray(a, device=device))
    assert w.dtype.kind == "c" and v.dtype.kind == "c"
    w, v = ra.asnumpy(w), ra.asnumpy(v)
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=tol(dtype) * 20)
    got = np.sort_complex(ra.asnumpy(ra.linalg.eigvals(ra.asarray(a, device=device))).ravel())
    np.testing.assert_allclose(got, np.sort_complex(np.linalg.eigvals(a).ravel()), atol=tol(dtype) * 20)


@pytest.mark.parametrize("dtype", [ra.int32] + FLOATS)
def test_views_and_elementwise_functions(device, dtype):
    a = rand((2, 4, 5), dtype, 9)
    ga = ra.asarray(a, device=device)
    for k in (0, 2, -3, 7):
        np.testing.assert_array_equal(ra.asnumpy(ra.linalg.diagonal(ga, offset=k)),
                                      np.linalg.diagonal(a, offset=k))
    close(ra.linalg.trace(ga, offset=1), np.linalg.trace(a, offset=1), dtype, 10)
    np.testing.assert_array_equal(ra.asnumpy(ra.linalg.matrix_transpose(ga)), np.linalg.matrix_transpose(a))
    x, y = rand((4,), dtype, 10), rand((3,), dtype, 11)
    close(ra.linalg.outer(ra.asarray(x, device=device), ra.asarray(y, device=device)), np.linalg.outer(x, y), dtype)
    c1, c2 = rand((2, 3), dtype, 12), rand((3,), dtype, 13)
    close(ra.linalg.cross(ra.asarray(c1, device=device), ra.asarray(c2, device=device)),
          np.linalg.cross(c1, c2), dtype, 10)
    if dtype != ra.int32:
        m = well_conditioned((2, 3, 3), dtype, 14) / 3
        gm = ra.asarray(m, device=device)
        for n in (0, 1, 3, -2):
            close(ra.linalg.matrix_power(gm, n), np.linalg.matrix_power(m, n), dtype, 10)


def test_integer_input_is_computed_in_float64(device):
    a = np.array([[3, 1], [1, 2]], dtype=np.int64)
    got = ra.linalg.inv(ra.asarray(a, device=device))
    assert got.dtype == ra.float64
    np.testing.assert_allclose(ra.asnumpy(got), np.linalg.inv(a))


@pytest.mark.parametrize("call, error, match", [
    ("ra.linalg.inv(m23)", ValueError, "stack of square matrices"),
    ("ra.linalg.det(v)", ValueError, "at least 2 dimensions"),
    ("ra.linalg.cholesky(h)", TypeError, "float16 is not supported"),
    ("ra.linalg.solve(m22, v3)", ValueError, "does not match"),
    ("ra.linalg.qr(m23, mode='r')", ValueError, "mode must be 'reduced' or 'complete'"),
    ("ra.linalg.matrix_norm(m23, ord=3)", ValueError, "ord must be one of"),
    ("ra.linalg.vector_norm(m23, ord='fro')", TypeError, "ord must be a real number"),
    ("ra.linalg.outer(m23, v)", ValueError, "x1 must be 1-d"),
    ("ra.linalg.cross(m22, m22)", ValueError, "must have 3 elements"),
    ("ra.linalg.matrix_power(m22, 1.5)", TypeError, "n must be an int"),
    ("ra.linalg.diagonal(m22, offset='a')", TypeError, "offset must be an int"),
    ("ra.linalg.pinv(m22, rtol='x')", TypeError, "rtol must be a real number"),
    ("ra.linalg.svd([[1.0]])", TypeError, "must be a rocarray array"),
    ("ra.matmul(m23, m23)", ValueError, "contracted dimensions differ"),
])
def test_errors(device, call, error, match):
    env = {"ra": ra, "m23": ra.ones((2, 3), device=device), "m22": ra.ones((2, 2), device=device),
           "v": ra.ones((3,), device=device), "v3": ra.ones((3,), device=device),
           "h": ra.ones((2, 2), dtype=ra.float16, device=device)}
    with pytest.raises(error, match=match):
        eval(call, env)


def test_result_types(device):
    a = ra.asarray(hermitian_pd((3, 3), np.float64), device=device)
    assert ra.linalg.eigh(a)._fields == ("eigenvalues", "eigenvectors")
    assert ra.linalg.qr(a)._fields == ("Q", "R")
    assert ra.linalg.svd(a)._fields == ("U", "S", "Vh")
    assert ra.linalg.slogdet(a)._fields == ("sign", "logabsdet")
    assert ra.linalg.eig(a)._fields == ("eigenvalues", "eigenvectors")
