"""The GPU backend's column-major formulas (rocarray/vendor/gpu.py, gpufft.py) checked on
the CPU, where no GPU library exists: the backend runs over a reference implementation of
the same C API (cuSOLVER/cuBLAS/cuFFT call names and argument lists, raw pointers,
column-major matrices, 1-based pivots) built on SciPy's LAPACK and NumPy's FFT, so that the
transposes, leading dimensions, job letters and pivots are right before a GPU runs them.
The real libraries run in tests/test_linalg.py and tests/test_fft.py on a GPU."""

import ctypes
import itertools
import math
import types

import numpy as np
import pytest

import rocarray as ra
from rocarray.vendor import cuda, gpu
from rocarray.vendor.library import Library

lapack = pytest.importorskip("scipy.linalg.lapack", reason="the reference table needs SciPy's LAPACK")

DT = {"s": np.float32, "d": np.float64, "c": np.complex64, "z": np.complex128}


@pytest.fixture(autouse=True)
def _on_the_cpu():
    """The reference table reads and writes the operands through host pointers: every
    array of these tests is a CPU array, also where a GPU is the default device."""
    with ra.Device("cpu"):
        yield


def mat(ptr, rows, cols, ld, dtype):
    """The column-major rows x cols matrix at ``ptr`` (leading dimension ``ld``), in place."""
    dtype = np.dtype(dtype)
    nbytes = ((cols - 1) * ld + rows) * dtype.itemsize if rows and cols else 0
    raw = np.frombuffer((ctypes.c_char * max(nbytes, 1)).from_address(ptr), dtype=np.uint8)
    return np.lib.stride_tricks.as_strided(raw.view(dtype) if nbytes else np.empty(0, dtype),
                                           (rows, cols), (dtype.itemsize, ld * dtype.itemsize))


def vec(ptr, n, dtype):
    return mat(ptr, n, 1, max(n, 1), dtype)[:, 0]


def put_int(ptr, v):
    ctypes.c_int32.from_address(ptr).value = int(v)


def _scalar(ptr, dtype):
    return vec(ptr, 1, dtype)[0]


def reference_calls():
    ns = types.SimpleNamespace(create=lambda: 1, set_stream=lambda h, s: None)
    for t, dt in DT.items():
        cplx = t in "cz"

        def gemm(h, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, count, dt=dt):
            it = np.dtype(dt).itemsize
            for i in range(count):
                A = mat(a + i * sa * it, *((m, k) if ta == 0 else (k, m)), lda, dt)
                B = mat(b + i * sb * it, *((k, n) if tb == 0 else (n, k)), ldb, dt)
                C = mat(c + i * sc * it, m, n, ldc, dt)
                C[...] = _scalar(alpha, dt) * ((A if ta == 0 else A.T) @ (B if tb == 0 else B.T))

        def gemm_one(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, dt=dt):
            gemm(h, ta, tb, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1, dt=dt)

        def getrf(h, m, n, a, lda, work, ipiv, info, t=t, dt=dt):
            A = mat(a, m, n, lda, dt)
            lu, piv, inf = getattr(lapack, t + "getrf")(np.array(A))
            A[...] = lu
            vec(ipiv, min(m, n), np.int32)[...] = piv + 1
            put_int(info, inf)

        def getrs(h, trans, n, k, a, lda, ipiv, b, ldb, info, t=t, dt=dt):
            B = mat(b, n, k, ldb, dt)
            x, inf = getattr(lapack, t + "getrs")(np.array(mat(a, n, n, lda, dt)),
                                                  np.array(vec(ipiv, n, np.int32)) - 1, np.array(B), trans=trans)
            B[...] = x

        def potrf(h, uplo, n, a, lda, work, lwork, info, t=t, dt=dt):
            A = mat(a, n, n, lda, dt)
            c, inf = getattr(lapack, t + "potrf")(np.array(A), lower=uplo == 0, clean=0)
            A[...] = c
            put_int(info, inf)

        def syevd(h, job, uplo, n, a, lda, w, work, lwork, info, t=t, dt=dt):
            A = mat(a, n, n, lda, dt)
            name = t + ("heevd" if t in "cz" else "syevd")
            ww, v, inf = getattr(lapack, name)(np.array(A), compute_v=job, lower=uplo == 0)
            vec(w, n, ww.dtype)[...] = ww
            if job:
                A[...] = v
            put_int(info, inf)

        def gesvd(h, ju, jv, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, info, t=t, dt=dt):
            job = chr(ju)
            uu, ss, vv, inf = getattr(lapack, t + "gesvd")(np.array(mat(a, m, n, lda, dt)),
                                                           compute_uv=job != "N", full_matrices=job == "A")
            vec(s, min(m, n), ss.dtype)[...] = ss
            if job != "N":
                mat(u, m, uu.shape[1], ldu, dt)[...] = uu
                mat(vt, vv.shape[0], n, ldvt, dt)[...] = vv
            put_int(info, inf)

        def geqrf(h, m, n, a, lda, tau, work, lwork, info, t=t, dt=dt):
            A = mat(a, m, n, lda, dt)
            qr, tt, _, inf = getattr(lapack, t + "geqrf")(np.array(A))
            A[...] = qr
            vec(tau, min(m, n), dt)[...] = tt
            put_int(info, inf)

        def orgqr(h, m, n, k, a, lda, tau, work, lwork, info, t=t, dt=dt):
            A = mat(a, m, n, lda, dt)
            name = t + ("ungqr" if t in "cz" else "orgqr")
            q, _, inf = getattr(lapack, name)(np.array(A), np.array(vec(tau, k, dt)))
            A[...] = q
            put_int(info, inf)

        sy, or_ = ("he", "un") if cplx else ("sy", "or")
        setattr(ns, t + "gemm_strided_batched", gemm)
        setattr(ns, t + "gemm", gemm_one)
        for name, fn in (("getrf", getrf), ("getrs", getrs), ("potrf", potrf), (sy + "evd", syevd),
                         ("gesvd", gesvd), ("geqrf", geqrf), (or_ + "gqr", orgqr)):
            setattr(ns, t + name, fn)
        for name in ("getrf", "potrf", "geqrf", "gesvd", sy + "evd", or_ + "gqr"):
            setattr(ns, t + name + "_buffer_size", lambda *a: 1)
    return ns


def reference_fft():
    ns = types.SimpleNamespace()
    plans = {}
    ids = itertools.count(1)

    def create():
        plan = next(ids)
        plans[plan] = None
        return plan

    def make_plan_many64(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, kind, batch):
        plans[plan] = (tuple(n), kind, batch)
        return 0

    def run(plan, src, dst, direction=None):
        n, kind, batch = plans[plan]
        half = n[:-1] + (n[-1] // 2 + 1,)
        cdt = np.complex64 if kind in ("C2C", "R2C", "C2R") else np.complex128
        rdt = np.float32 if cdt == np.complex64 else np.float64
        axes = tuple(range(1, len(n) + 1))
        if kind in ("C2C", "Z2Z"):
            x = vec(src, batch * math.prod(n), cdt).reshape((batch,) + n)
            y = np.fft.fftn(x, axes=axes) if direction == -1 else np.fft.ifftn(x, axes=axes, norm="forward")
            vec(dst, batch * math.prod(n), cdt)[...] = y.ravel()
        elif kind in ("R2C", "D2Z"):
            x = vec(src, batch * math.prod(n), rdt).reshape((batch,) + n)
            vec(dst, batch * math.prod(half), cdt)[...] = np.fft.rfftn(x, axes=axes).ravel()
        else:
            x = vec(src, batch * math.prod(half), cdt).reshape((batch,) + half)
            y = np.fft.irfftn(x, s=n, axes=axes, norm="forward")
            vec(dst, batch * math.prod(n), rdt)[...] = y.ravel()

    ns.create = create
    ns.make_plan_many64 = make_plan_many64
    ns.destroy = lambda plan: plans.pop(plan)
    ns.set_auto_allocation = ns.set_work_area = ns.set_stream = lambda *a: None
    for name in ("c2c", "z2z"):
        setattr(ns, "exec_" + name, run)
    for name in ("r2c", "d2z", "c2r", "z2d"):
        setattr(ns, "exec_" + name, lambda plan, src, dst: run(plan, src, dst))
    return ns


class ReferenceLibrary(Library):
    """cuda.LIBRARY's names and calling convention over the reference calls."""

    def load(self):
        if self._modules is None:
            calls = reference_calls()
            self._modules = {"blas": calls, "solver": calls, "fft": reference_fft()}
            self.enums = dict(OP_N=0, OP_T=1, SOLVER_OP_T=1, SOLVER_FILL_UPPER=1, EIG_NOVECTOR=0, EIG_VECTOR=1,
                              JOB=ord, FFT_LENGTHS=list, FFT_FORWARD=-1, FFT_INVERSE=1,
                              **{f"FFT_{k}": k for k in ("C2C", "Z2Z", "R2C", "D2Z", "C2R", "Z2D")})


class HostStreams(gpu.GPUBackend):
    def _stream(self, device):
        return 0


@pytest.fixture(scope="module")
def backend():
    lib = ReferenceLibrary("reference", {}, cuda.LIBRARY._names, cuda._snake, {}, cuda._unpack, "SciPy")
    return HostStreams(lib)


FLOATS = [np.float32, np.float64, np.complex64, np.complex128]


def tol(dtype):
    return 2e-3 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-9


def rand(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.uniform(-1, 1, shape)
    return a.astype(dtype)


def near(got, want, dtype, scale=1.0):
    np.testing.assert_allclose(ra.asnumpy(got), want, rtol=tol(dtype), atol=tol(dtype) * scale)


@pytest.mark.parametrize("dtype", FLOATS)
def test_gemm_layouts(backend, dtype):
    a, b = rand((3, 4, 5), dtype, 1), rand((5, 6), dtype, 2)
    ga, gb = ra.asarray(a), ra.asarray(b)
    near(backend.matmul(ga, gb), a @ b, dtype)
    near(backend.matmul(ga[1], gb), a[1] @ b, dtype)
    near(backend.matmul(ga[1].mT, ga[2]), a[1].T @ a[2], dtype)
    near(backend.matmul(ga.mT, ga), a.transpose(0, 2, 1) @ a, dtype)
    near(backend.matmul(ga[:, ::2, :], gb[:, 1::2]), a[:, ::2, :] @ b[:, 1::2], dtype)
    c = rand((2, 1, 4, 5), dtype, 3)
    near(backend.matmul(ra.asarray(c), ra.broadcast_to(gb, (3, 5, 6))), c @ np.broadcast_to(b, (3, 5, 6)), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_factorizations(backend, dtype):
    n = 5
    x = rand((2, n, n), dtype, 4)
    a = (x + n * np.eye(n)).astype(dtype)
    h = (x @ np.conj(x.transpose(0, 2, 1)) + n * np.eye(n)).astype(dtype)
    b = rand((2, n, 3), dtype, 5)
    ga, gh = ra.asarray(a), ra.asarray(h)
    near(backend.solve(ga, ra.asarray(b)), np.linalg.solve(a, b), dtype)
    near(backend.inv(ga), np.linalg.inv(a), dtype)
    near(backend.det(ga), np.linalg.det(a), dtype, float(np.abs(np.linalg.det(a)).max()))
    sign, logabs = backend.slogdet(ga)
    near(sign, np.linalg.slogdet(a)[0], dtype)
    near(logabs, np.linalg.slogdet(a)[1], dtype, 10)
    near(backend.cholesky(gh, False), np.linalg.cholesky(h), dtype)
    near(backend.cholesky(gh, True), np.conj(np.linalg.cholesky(h).transpose(0, 2, 1)), dtype)
    w, v = backend.eigh(gh)
    near(w, np.linalg.eigvalsh(h), dtype, 10)
    v = ra.asnumpy(v)
    np.testing.assert_allclose(h @ v, v * ra.asnumpy(w)[..., None, :], atol=tol(dtype) * 50)
    with pytest.raises(np.linalg.LinAlgError):
        backend.solve(ra.asarray(np.ones((2, 2), dtype)), ra.asarray(np.ones((2, 1), dtype)))
    with pytest.raises(np.linalg.LinAlgError):
        backend.cholesky(ra.asarray(-np.eye(3, dtype=dtype)), False)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(2, 6, 4), (4, 6), (3, 3)])
def test_svd_qr_pinv(backend, dtype, shape):
    a = rand(shape, dtype, 6)
    ga = ra.asarray(a)
    for full in (True, False):
        u, s, vh = backend.svd(ga, full)
        wu, ws, wvh = np.linalg.svd(a, full_matrices=full)
        assert u.shape == wu.shape and vh.shape == wvh.shape
        near(s, ws, dtype)
        k = min(shape[-2:])
        rebuilt = ra.asnumpy(u)[..., :, :k] * ra.asnumpy(s)[..., None, :] @ ra.asnumpy(vh)[..., :k, :]
        np.testing.assert_allclose(rebuilt, a, atol=tol(dtype) * 5)
    near(backend.svdvals(ga), np.linalg.svd(a, compute_uv=False), dtype)
    for mode in ("reduced", "complete"):
        q, r = backend.qr(ga, mode)
        wq, wr = np.linalg.qr(a, mode=mode)
        assert q.shape == wq.shape and r.shape == wr.shape
        np.testing.assert_allclose(ra.asnumpy(q) @ ra.asnumpy(r), a, atol=tol(dtype) * 5)
        np.testing.assert_array_equal(np.triu(ra.asnumpy(r)), ra.asnumpy(r))
    eps = max(shape[-2:]) * np.finfo(np.abs(a).dtype).eps
    near(backend.pinv(ga, eps), np.linalg.pinv(a), dtype, 10)
    near(backend.matrix_rank(ga, None), np.linalg.matrix_rank(a), np.float64)
    for ord in ("fro", "nuc", 1, 2, -1, -2, math.inf, -math.inf):
        near(backend.matrix_norm(ga, False, ord), np.linalg.matrix_norm(a, ord=ord), dtype, 10)
    for ord in (2, 1, 0, 3.5, math.inf, -math.inf):
        near(backend.vector_norm(ga, (0,), True, ord), np.linalg.vector_norm(a, axis=0, keepdims=True, ord=ord),
             dtype, 10)


@pytest.mark.parametrize("dtype", FLOATS)
def test_fft_plans(backend, dtype):
    a = rand((4, 6, 8, 2), dtype, 7)
    g = ra.asarray(a)
    real = np.dtype(dtype).kind == "f"
    cases = [("fftn", (4, 6, 8, 2), (0, 1, 2, 3)), ("ifftn", (5, 10), (1, 2)), ("fft", (12,), (1,)),
             ("ifft", (3,), (0,))]
    if real:
        cases += [("rfftn", (4, 6, 8, 2), (0, 1, 2, 3)), ("rfft", (10,), (2,)), ("ihfft", (6,), (1,)),
                  ("rfftn", (4, 4), (2, 0))]
    else:
        cases += [("irfftn", (4, 6, 8, 2), (0, 1, 2, 3)), ("irfft", (10,), (2,)), ("hfft", (6,), (1,)),
                  ("irfftn", (4, 4), (2, 0))]
    for kind, s, axes in cases:
        for norm in ("backward", "ortho", "forward"):
            want = getattr(np.fft, kind)(a, *((s[0], axes[0]) if len(axes) == 1 and not kind.endswith("n")
                                              else (s, axes)), norm=norm)
            widen = real and kind in ("fft", "ifft", "fftn", "ifftn")  # (the layer's conversion)
            got = backend.fft(kind, ra.astype(g, np.result_type(dtype, np.complex64)) if widen else g, s, axes,
                              norm, None)
            scale = max(1.0, float(np.abs(want).max()))
            np.testing.assert_allclose(ra.asnumpy(got), want, rtol=tol(dtype), atol=tol(dtype) * scale)


def _bindings(library):
    try:
        library.load()
    except ImportError as e:
        pytest.skip(f"the {library.kind} bindings are not installed ({e})")


@pytest.mark.parametrize("kind", ["cuda", "hip"])
def test_every_table_entry_is_in_the_bindings(kind):
    """Every C name of the table, for every dtype, is a function of the installed bindings,
    and every enum resolves (no GPU needed: the bindings load their libraries lazily)."""
    from rocarray.vendor import LIBRARIES

    library = LIBRARIES[kind]
    _bindings(library)
    for op, (module, template) in library._names.items():
        dtypes = [None] if "{" not in template else FLOATS
        for dtype in dtypes:
            assert callable(getattr(library._modules[module], library._attr(library.c_name(op, dtype))))
    assert set(library.enums) >= {"OP_N", "OP_T", "SOLVER_OP_T", "SOLVER_FILL_UPPER", "EIG_VECTOR", "R_16F",
                                  "COMPUTE_32F", "GEMM_DEFAULT", "FFT_C2C", "FFT_LENGTHS", "JOB"}


def test_table_names_and_the_hip_convention():
    from rocarray.vendor import hip

    lib = hip.LIBRARY
    assert lib.c_name("getrf", np.float64) == "hipsolverDnDgetrf"
    assert lib.c_name("syevd", np.complex64) == "hipsolverDnCheevd"
    assert lib.c_name("orgqr_size", np.complex128) == "hipsolverDnZungqr_bufferSize"
    assert cuda.LIBRARY.c_name("gemm", np.float32) == "cublasSgemmStridedBatched"
    assert cuda._snake("cusolverDnZungqr_bufferSize") == "zungqr_buffer_size"
    assert cuda._snake("cufftExecZ2D") == "exec_z2d"
    # hip-python returns (status, outputs...): a failure names the call
    assert hip._unpack("hipblasCreate", lambda: (0, 1234), ()) == 1234
    assert hip._unpack("hipfftExecC2C", lambda *a: (0,), (1, 2, 3, -1)) is None
    with pytest.raises(RuntimeError, match="hipsolverDnSgetrf failed with status 3"):
        hip._unpack("hipsolverDnSgetrf", lambda *a: (3,), ())
    assert list(hip._lengths((4, 8))) == [4, 8]
