"""The GPU backend: ``matmul`` and the ``linalg`` functions on BLAS/LAPACK-style vendor
libraries, one implementation for CUDA and ROCm over a ``Library`` table.

Layout: the libraries are column-major and rocarray's arrays C-ordered, so a C-ordered
matrix is handed over as its transpose and the formulas are turned around (``A @ B`` is
computed as ``(B^T A^T)^T``; ``solve`` factors ``A^T`` and solves with ``trans=T``;
``svd`` of a wide matrix reads ``U`` and ``Vh`` from each other's places).  GEMM reads
strided operands and transposed views in place; the factorizations work on a fresh copy
(they overwrite their input).  One matrix runs the plain GEMM, a stack one
strided-batched GEMM call (no Python per matrix); the factorizations run one library call
per matrix.  The triangle a factorization leaves unused (``cholesky``'s, ``qr``'s R) is
zeroed by one kernel (``_triangle``).

Handles are made once per device and thread and bound to a stream only when the thread's
current stream changed since their last call; work sizes are asked once per shape;
workspaces come from rocarray's memory pool.  Status arrays (``info``) are read back once
per call where NumPy raises: a singular matrix (``solve``, ``inv``) or one not positive
definite (``cholesky``) raises ``numpy.linalg.LinAlgError`` as on the CPU, at the price
of one device-to-host copy and synchronisation (a few microseconds) per call.  ``eig``/``eigvals`` have no vendor routine on both GPU kinds:
they run NumPy's LAPACK on a host copy and copy the result back.
"""

from __future__ import annotations

import ctypes
import math
import threading

import numpy as np
from numpy.linalg import LinAlgError

from .. import _dtypes
from .._array_object import Array
from .._copy import copy_to_device
from .._creation_functions import arange, eye, zeros
from .._data_type_functions import astype
from .._elementwise import copy_elements
from .._elementwise_functions import (abs as _abs, conj, divide, equal, greater, log, multiply, not_equal,
                                      pow as _pow, sqrt, square, where)
from .._manipulation_functions import reshape
from .._transfer import wrap_numpy
from .._user_kernels import ElementwiseKernel
from .._statistical_functions import count_nonzero, max as _max, min as _min, prod, sum as _sum
from .._views import broadcast_shapes, broadcast_to, expand_dims
from . import gpufft
from .library import Library

_SCALARS = {"f": ctypes.c_float, "d": ctypes.c_double}


_ONE_AND_ZERO: dict = {}


def _one_and_zero(dtype):
    """Host addresses of the GEMM's alpha = 1 and beta = 0 (float32 for float16's compute),
    made once per dtype: the libraries read host scalars during the call."""
    found = _ONE_AND_ZERO.get(dtype)
    if found is not None:
        return found[0]
    kind = {np.dtype(np.float16): ("f", 1), np.dtype(np.float32): ("f", 1), np.dtype(np.float64): ("d", 1),
            np.dtype(np.complex64): ("f", 2), np.dtype(np.complex128): ("d", 2)}[np.dtype(dtype)]
    ctype = _SCALARS[kind[0]] * kind[1]
    one, zero = ctype(), ctype()
    one[0] = 1
    addresses = (ctypes.addressof(one), ctypes.addressof(zero))
    _ONE_AND_ZERO[dtype] = (addresses, one, zero)  # (the scalars kept alive with their addresses)
    return addresses


#: ``y = x`` on and below (``lower``) or on and above the diagonal of each rows x cols
#: matrix, zero elsewhere: one kernel, in place when ``y`` is ``x`` (the factorizations'
#: unused triangle, in place of ``tril``/``triu``'s index vectors and mask).
_triangle = ElementwiseKernel(
    "T x, int64 rows, int64 cols, bool lower", "T y",
    "long c = i % cols; long r = (i / cols) % rows; bool keep = lower ? c <= r : c >= r; y = keep ? x : (T)0;",
    "rk_linalg_triangle")


def _fresh(x: Array) -> Array:
    """A new C-contiguous copy of ``x`` (the factorizations overwrite their input)."""
    out = Array._empty(x.shape, x.dtype, x.device)
    if x.size:
        copy_elements(x, out)
    return out


def _mT(x: Array) -> Array:
    return x._view(x.shape[:-2] + (x.shape[-1], x.shape[-2]), x.strides[:-2] + (x.strides[-1], x.strides[-2]),
                   x._offset)


def _batch(shape) -> int:
    return math.prod(shape[:-2])


def _check_int32(name: str, *dims) -> None:
    if max(dims) >= 2 ** 31:
        raise ValueError(f"linalg.{name}: a dimension of {max(dims)} passes the libraries' 32-bit limit")


def _real(dtype):
    return np.dtype(np.float32) if dtype in (np.float32, np.complex64) else np.dtype(np.float64)


class GPUBackend:
    """The backend of one GPU runtime kind (``rocarray.vendor.backend`` makes one each):
    the functions of ``rocarray.vendor.host`` as methods, with the same arguments and
    results (their docstrings there), on device arrays."""

    def __init__(self, library: Library):
        self.lib = library
        self.name = f"{library.kind} vendor libraries"
        self._local = threading.local()
        self._lworks: dict = {}
        self.fft = gpufft.FFT(library, self._stream).fft

    # -- handles and streams ---------------------------------------------------------------

    def _stream(self, device) -> int:
        """Make ``device`` current and return its current stream's address (0: null stream)."""
        rt = device.runtime
        rt.set_device(device.index)
        return rt.current_stream(device.index).ptr

    def _handle(self, device, which: str) -> int:
        """The thread's ``which`` ("blas" or "solver") handle on ``device``, bound to the
        current stream; the binding call is made only when the stream changed since this
        handle's last call (one library call less per operation)."""
        handles = self._local.__dict__.get(which)
        if handles is None:
            handles = self._local.__dict__[which] = {}
        stream = self._stream(device)
        entry = handles.get(device.index)
        if entry is None:
            entry = handles[device.index] = [self.lib.call(f"{which}_create")(), None]
        if entry[1] != stream:
            self.lib.call(f"{which}_set_stream")(entry[0], stream)
            entry[1] = stream
        return entry[0]

    def _lwork(self, op: str, x: Array, dims: tuple, *args) -> int:
        """The work size that ``op`` (a ``*_size`` entry) returns for ``args``, asked once per
        device, dtype and ``dims`` (the arguments it depends on: the sizes, never the data)."""
        key = (op, x.dtype, x.device.index, dims)
        found = self._lworks.get(key)
        if found is None:
            found = self._lworks[key] = int(self.lib.call(op, x.dtype)(*args))
        return found

    def _work(self, device, elements: int, dtype) -> Array:
        return Array._empty((max(int(elements), 1),), np.dtype(dtype), device)

    def _check_info(self, info: Array, name: str, message: str) -> None:
        bad = info.get()
        if (bad < 0).any():
            raise RuntimeError(f"linalg.{name}: the library rejected argument {-int(bad.min())} "
                               "(an internal error of rocarray)")
        if (bad > 0).any():
            raise LinAlgError(message)

    # -- GEMM ----------------------------------------------------------------------------------

    def _operand(self, x: Array, batch: tuple):
        """(op, leading dimension, batch stride in elements, array) for a GEMM operand, read
        in place when its matrices are row- or column-major and its stack one stride."""
        it = x.itemsize
        rows, cols = x.shape[-2:]
        if x.shape[:-2] == batch and x.is_c_contiguous():  # (the common case, read as it is)
            return "OP_N", max(cols, 1), rows * cols if batch else 0, x
        if x.shape[:-2] != batch:
            x = broadcast_to(x, batch + (rows, cols))
        s0, s1 = x.strides[-2:]
        layout = None
        if (s1 == it or cols == 1) and (rows == 1 or (s0 > 0 and s0 % it == 0 and s0 // it >= cols)):
            layout = ("OP_N", s0 // it if rows > 1 else max(cols, 1))
        elif (s0 == it or rows == 1) and (cols == 1 or (s1 > 0 and s1 % it == 0 and s1 // it >= rows)):
            layout = ("OP_T", s1 // it if cols > 1 else max(rows, 1))
        stride = self._stack_stride(x)
        if layout is None or stride is None:
            x = _fresh(x)
            layout, stride = ("OP_N", max(cols, 1)), rows * cols
        return layout[0], layout[1], stride, x

    @staticmethod
    def _stack_stride(x: Array):
        """The one stride (elements) of the stack axes, or None when they need two."""
        dims = [(n, s) for n, s in zip(x.shape[:-2], x.strides[:-2]) if n > 1]
        if not dims:
            return 0
        for (_, outer), (n, inner) in zip(dims, dims[1:]):
            if outer != inner * n:
                return None
        s = dims[-1][1]
        return s // x.itemsize if s >= 0 and s % x.itemsize == 0 else None

    def matmul(self, a: Array, b: Array) -> Array:
        dtype = a.dtype
        m, k = a.shape[-2:]
        n = b.shape[-1]
        batch = a.shape[:-2] if a.shape[:-2] == b.shape[:-2] else broadcast_shapes(a.shape[:-2], b.shape[:-2])
        out = Array._empty(batch + (m, n), dtype, a.device)
        if out.size == 0:
            return out
        if k == 0:
            return zeros(out.shape, dtype=dtype, device=a.device)
        _check_int32("matmul", m, n, k)
        op_a, lda, sa, a = self._operand(a, batch)
        op_b, ldb, sb, b = self._operand(b, batch)
        lib = self.lib
        h = self._handle(a.device, "blas")
        e = lib.enums
        one, zero = _one_and_zero(dtype)
        count = math.prod(batch)
        # row-major C = A @ B is column-major C^T = B^T @ A^T: B first, then A.  One matrix
        # runs the plain GEMM (the peers' call: the strided-batched entry may pick another
        # kernel), a stack one strided-batched call
        if dtype == _dtypes.float16:
            r16 = e["R_16F"]
            if count == 1:
                lib.call("gemm_ex_one")(h, e[op_b], e[op_a], n, m, k, one, b.data_ptr, r16, ldb, a.data_ptr, r16,
                                        lda, zero, out.data_ptr, r16, n, e["COMPUTE_32F"], e["GEMM_DEFAULT"])
            else:
                lib.call("gemm_ex")(h, e[op_b], e[op_a], n, m, k, one, b.data_ptr, r16, ldb, sb, a.data_ptr, r16,
                                    lda, sa, zero, out.data_ptr, r16, n, m * n, count, e["COMPUTE_32F"],
                                    e["GEMM_DEFAULT"])
        elif count == 1:
            lib.call("gemm_one", dtype)(h, e[op_b], e[op_a], n, m, k, one, b.data_ptr, ldb, a.data_ptr, lda, zero,
                                        out.data_ptr, n)
        else:
            lib.call("gemm", dtype)(h, e[op_b], e[op_a], n, m, k, one, b.data_ptr, ldb, sb, a.data_ptr, lda, sa,
                                    zero, out.data_ptr, n, m * n, count)
        return out

    # -- LU: solve, inv, det, slogdet --------------------------------------------------------

    def _lu(self, x: Array, name: str):
        """LU factors of each ``x^T`` (in a fresh C-ordered copy of ``x``), pivots, info."""
        lu = _fresh(x)
        n = x.shape[-1]
        _check_int32(name, n)
        count = _batch(x.shape)
        ipiv = Array._empty((count, n), _dtypes.int32, x.device)
        info = Array._empty((count,), _dtypes.int32, x.device)
        if lu.size:
            h = self._handle(x.device, "solver")
            lwork = self._lwork("getrf_size", x, (n,), h, n, n, lu.data_ptr, n)
            work = self._work(x.device, lwork, x.dtype)
            getrf = self.lib.call("getrf", x.dtype)
            step = n * n * x.itemsize
            for i in range(count):
                getrf(h, n, n, lu.data_ptr + i * step, n, work.data_ptr, ipiv.data_ptr + 4 * i * n,
                      info.data_ptr + 4 * i)
        return lu, ipiv, info

    def solve(self, a: Array, b: Array) -> Array:
        n, k = b.shape[-2:]
        lu, ipiv, info = self._lu(a, "solve")
        out = _fresh(_mT(b))  # C-ordered (..., K, N): column-major B
        if out.size:
            self._check_info(info, "solve", "Singular matrix")
            h = self._handle(a.device, "solver")
            getrs = self.lib.call("getrs", a.dtype)
            trans = self.lib.enums["SOLVER_OP_T"]
            status = Array._empty((1,), _dtypes.int32, a.device)
            step_a, step_b = n * n * a.itemsize, n * k * a.itemsize
            for i in range(_batch(lu.shape)):
                getrs(h, trans, n, k, lu.data_ptr + i * step_a, n, ipiv.data_ptr + 4 * i * n,
                      out.data_ptr + i * step_b, n, status.data_ptr)
        return _mT(out)

    def inv(self, x: Array) -> Array:
        ident = broadcast_to(eye(x.shape[-1], dtype=x.dtype, device=x.device), x.shape)
        return self.solve(x, ident)

    def _lu_parts(self, x: Array):
        """(diagonal of U, sign of the row permutation) of each matrix."""
        n = x.shape[-1]
        lu, ipiv, _ = self._lu(x, "det")
        diag = lu._view(lu.shape[:-1], lu.strides[:-2] + (lu.strides[-1] + lu.strides[-2],), lu._offset)
        swaps = count_nonzero(not_equal(ipiv, arange(1, n + 1, dtype=_dtypes.int32, device=x.device)), axis=-1)
        parity = 1 - 2 * (swaps % 2)
        return diag, astype(reshape(parity, x.shape[:-2]), x.dtype)

    def det(self, x: Array) -> Array:
        if x.shape[-1] == 0:
            return zeros(x.shape[:-2], dtype=x.dtype, device=x.device) + 1
        diag, sign = self._lu_parts(x)
        return multiply(prod(diag, axis=-1), sign)

    def slogdet(self, x: Array):
        if x.shape[-1] == 0:
            one = zeros(x.shape[:-2], dtype=x.dtype, device=x.device) + 1
            return one, zeros(x.shape[:-2], dtype=_real(x.dtype), device=x.device)
        diag, sign = self._lu_parts(x)
        mag = _abs(diag)
        unit = where(equal(mag, 0), zeros((), dtype=x.dtype, device=x.device), divide(diag, mag))
        return multiply(prod(unit, axis=-1), sign), _sum(log(mag), axis=-1)

    # -- Cholesky, eigh ---------------------------------------------------------------------------

    def cholesky(self, x: Array, upper: bool) -> Array:
        a = _fresh(x)
        n = x.shape[-1]
        _check_int32("cholesky", n)
        if a.size:
            # potrf(UPPER) of the column-major x^T leaves L in the lower triangle read C-ordered
            h = self._handle(x.device, "solver")
            uplo = self.lib.enums["SOLVER_FILL_UPPER"]
            lwork = self._lwork("potrf_size", x, (n,), h, uplo, n, a.data_ptr, n)
            work = self._work(x.device, lwork, x.dtype)
            info = Array._empty((_batch(x.shape),), _dtypes.int32, x.device)
            potrf = self.lib.call("potrf", x.dtype)
            step = n * n * x.itemsize
            for i in range(_batch(x.shape)):
                potrf(h, uplo, n, a.data_ptr + i * step, n, work.data_ptr, lwork, info.data_ptr + 4 * i)
            self._check_info(info, "cholesky", "Matrix is not positive definite")
        else:
            return a if not upper else _fresh(_mT(a))
        # the other triangle still holds x's elements: zeroed by one kernel (in place, or
        # in the transposing copy of the upper factor)
        if upper and x.dtype.kind != "c":
            return _triangle(_mT(a), n, n, False)
        _triangle(a, n, n, True, a)
        return conj(_mT(a)) if upper else a

    def _syevd(self, x: Array, vectors: bool):
        a = _fresh(x)
        n = x.shape[-1]
        _check_int32("eigh", n)
        w = Array._empty(x.shape[:-1], _real(x.dtype), x.device)
        if a.size:
            # the lower triangle of x is the upper one of the column-major x^T = conj(x)
            h = self._handle(x.device, "solver")
            e = self.lib.enums
            job = e["EIG_VECTOR" if vectors else "EIG_NOVECTOR"]
            uplo = e["SOLVER_FILL_UPPER"]
            lwork = self._lwork("syevd_size", x, (vectors, n), h, job, uplo, n, a.data_ptr, n, w.data_ptr)
            work = self._work(x.device, lwork, x.dtype)
            info = Array._empty((_batch(x.shape),), _dtypes.int32, x.device)
            syevd = self.lib.call("syevd", x.dtype)
            step, wstep = n * n * x.itemsize, n * w.itemsize
            for i in range(_batch(x.shape)):
                syevd(h, job, uplo, n, a.data_ptr + i * step, n, w.data_ptr + i * wstep, work.data_ptr, lwork,
                      info.data_ptr + 4 * i)
            self._check_info(info, "eigh", "Eigenvalues did not converge")
        return w, a

    def eigh(self, x: Array):
        w, a = self._syevd(x, True)
        # rows of the C-ordered result are eigenvectors of conj(x): conjugate and transpose
        v = conj(_mT(a)) if x.dtype.kind == "c" else _mT(a)
        return w, v

    def eigvalsh(self, x: Array) -> Array:
        return self._syevd(x, False)[0]

    # -- SVD ---------------------------------------------------------------------------------------

    def _gesvd(self, x: Array, job: str):
        """(U, S, Vh) of each matrix of ``x``; ``job`` is 'A' (full), 'S' (reduced) or 'N'
        (values only: U and Vh are None)."""
        m, n = x.shape[-2:]
        k = min(m, n)
        stack = x.shape[:-2]
        count = _batch(x.shape)
        wide = m <= n
        # the library wants rows >= columns: a wide x is its own transpose column-major
        a = _fresh(x) if wide else _fresh(_mT(x))
        rows, cols = (n, m) if wide else (m, n)
        s = Array._empty(stack + (k,), _real(x.dtype), x.device)
        ucols = rows if job == "A" else k
        u = vt = None
        if job != "N":
            u = Array._empty(stack + (ucols, rows), x.dtype, x.device)   # column-major rows x ucols
            vt = Array._empty(stack + (cols, cols) if job == "A" else stack + (cols, k), x.dtype, x.device)
        _check_int32("svd", rows, cols)
        if a.size:
            h = self._handle(x.device, "solver")
            jobc = self.lib.enums["JOB"](job)
            lwork = self._lwork("gesvd_size", x, (rows, cols), h, rows, cols)
            work = self._work(x.device, lwork, x.dtype)
            info = Array._empty((count,), _dtypes.int32, x.device)
            gesvd = self.lib.call("gesvd", x.dtype)
            ldvt = cols if job != "N" else 1
            for i in range(count):
                gesvd(h, jobc, jobc, rows, cols, a.data_ptr + i * rows * cols * x.itemsize, rows,
                      s.data_ptr + i * k * s.itemsize,
                      0 if u is None else u.data_ptr + i * rows * ucols * x.itemsize, rows,
                      0 if vt is None else vt.data_ptr + i * vt.shape[-1] * vt.shape[-2] * x.itemsize, ldvt,
                      work.data_ptr, lwork, 0, info.data_ptr + 4 * i)
            self._check_info(info, "svd", "SVD did not converge")
        elif job != "N" and u.size + vt.size:
            u = _identity_stack(u)
            vt = _identity_stack(vt)
        if job == "N":
            return None, s, None
        if wide:  # x^T = U' S V'^H: U = V'^H read C-ordered, Vh = U' read C-ordered
            return vt, s, u
        return _mT(u), s, _mT(vt)

    def svd(self, x: Array, full_matrices: bool):
        return self._gesvd(x, "A" if full_matrices else "S")

    def svdvals(self, x: Array) -> Array:
        return self._gesvd(x, "N")[1]

    def pinv(self, x: Array, rtol) -> Array:
        u, s, vh = self._gesvd(x, "S")
        if isinstance(rtol, Array):
            rtol = expand_dims(rtol, axis=-1)
        if s.shape[-1] == 0:
            return zeros(x.shape[:-2] + (x.shape[-1], x.shape[-2]), dtype=x.dtype, device=x.device)
        cutoff = multiply(_max(s, axis=-1, keepdims=True), rtol)
        keep = greater(s, cutoff)
        inv_s = where(keep, divide(1.0, s), zeros((), dtype=s.dtype, device=s.device))
        scaled = multiply(_mT(vh) if x.dtype.kind != "c" else conj(_mT(vh)), expand_dims(inv_s, axis=-2))
        uh = conj(_mT(u)) if x.dtype.kind == "c" else _mT(u)
        return self.matmul(scaled, astype(uh, x.dtype))

    def matrix_rank(self, x: Array, rtol) -> Array:
        s = self.svdvals(x)
        if s.shape[-1] == 0:
            return zeros(x.shape[:-2], dtype=_dtypes.int64, device=x.device)
        if rtol is None:
            rtol = max(x.shape[-2:]) * float(np.finfo(s.dtype).eps)
        elif isinstance(rtol, Array):
            rtol = expand_dims(rtol, axis=-1)
        tol = multiply(_max(s, axis=-1, keepdims=True), rtol)
        return astype(count_nonzero(greater(s, tol), axis=-1), _dtypes.int64)

    # -- QR ------------------------------------------------------------------------------------------

    def qr(self, x: Array, mode: str):
        m, n = x.shape[-2:]
        k = min(m, n)
        stack = x.shape[:-2]
        count = _batch(x.shape)
        a = _fresh(_mT(x))  # C-ordered (n, m): column-major x
        tau = Array._empty(stack + (max(k, 1),), x.dtype, x.device)
        _check_int32("qr", m, n)
        h = self._handle(x.device, "solver") if x.size else None
        info = Array._empty((max(count, 1),), _dtypes.int32, x.device)
        if x.size:
            lwork = self._lwork("geqrf_size", x, (m, n), h, m, n, a.data_ptr, m)
            work = self._work(x.device, lwork, x.dtype)
            geqrf = self.lib.call("geqrf", x.dtype)
            for i in range(count):
                geqrf(h, m, n, a.data_ptr + i * m * n * x.itemsize, m, tau.data_ptr + i * tau.shape[-1] * x.itemsize,
                      work.data_ptr, lwork, info.data_ptr + 4 * i)
        qcols = m if mode == "complete" else k
        rrows = m if mode == "complete" else k
        full = _mT(a)
        r = full._view(stack + (rrows, n), full.strides, full._offset)
        r = _triangle(r, rrows, n, False) if r.size else _fresh(r)
        if qcols <= n:
            q = a  # the reflectors' columns become Q's, in place
        else:
            q = zeros(stack + (qcols, m), dtype=x.dtype, device=x.device)
            q[..., :n, :] = a
        if x.size and k:
            lwork = self._lwork("orgqr_size", x, (m, qcols, k), h, m, qcols, k, q.data_ptr, m, tau.data_ptr)
            work = self._work(x.device, lwork, x.dtype)
            orgqr = self.lib.call("orgqr", x.dtype)
            step = q.shape[-1] * q.shape[-2] * x.itemsize
            for i in range(count):
                orgqr(h, m, qcols, k, q.data_ptr + i * step, m, tau.data_ptr + i * tau.shape[-1] * x.itemsize,
                      work.data_ptr, lwork, info.data_ptr + 4 * i)
        elif not k:
            q = _identity_stack(Array._empty(stack + (qcols, m), x.dtype, x.device)) if qcols == m else q
        qv = q._view(stack + (qcols, m), q.strides, q._offset)
        return _mT(qv), r

    # -- eig: NumPy's LAPACK on a host copy (no vendor geev on both GPU kinds) ----------------------

    def eig(self, x: Array):
        w, v = np.linalg.eig(x.get())
        ctype = np.result_type(x.dtype, np.complex64)
        return (copy_to_device(wrap_numpy(w.astype(ctype)), x.device),
                copy_to_device(wrap_numpy(v.astype(ctype)), x.device))

    def eigvals(self, x: Array) -> Array:
        w = np.linalg.eigvals(x.get())
        return copy_to_device(wrap_numpy(w.astype(np.result_type(x.dtype, np.complex64))), x.device)

    # -- norms (rocarray's reductions) -------------------------------------------------------------

    def vector_norm(self, x: Array, axes: tuple, keepdims: bool, ord) -> Array:
        a = _abs(x)
        if x.size == 0 and ord in (math.inf, -math.inf):
            raise ValueError("linalg.vector_norm: the max/min norm of an empty array is undefined")
        if ord == math.inf:
            return _max(a, axis=axes, keepdims=keepdims)
        if ord == -math.inf:
            return _min(a, axis=axes, keepdims=keepdims)
        if ord == 0:
            return astype(count_nonzero(a, axis=axes, keepdims=keepdims), a.dtype)
        if ord == 1:
            return _sum(a, axis=axes, keepdims=keepdims)
        if ord == 2:
            return sqrt(_sum(square(a), axis=axes, keepdims=keepdims))
        return _pow(_sum(_pow(a, float(ord)), axis=axes, keepdims=keepdims), 1.0 / ord)

    def matrix_norm(self, x: Array, keepdims: bool, ord) -> Array:
        if ord == "fro":
            r = sqrt(_sum(square(_abs(x)), axis=(-2, -1)))
        elif ord in ("nuc", 2, -2):
            s = self.svdvals(x)
            r = _sum(s, axis=-1) if ord == "nuc" else (_max if ord == 2 else _min)(s, axis=-1)
        else:
            axis = -2 if ord in (1, -1) else -1
            sums = _sum(_abs(x), axis=axis)
            r = (_max if ord > 0 else _min)(sums, axis=-1)
        if keepdims:
            r = r._view(r.shape + (1, 1), r.strides + (0, 0), r._offset)
        return r


def _identity_stack(x: Array) -> Array:
    """Identity matrices of ``x``'s shape (the factors of empty matrices)."""
    ident = eye(x.shape[-2], x.shape[-1], dtype=x.dtype, device=x.device)
    return _fresh(broadcast_to(ident, x.shape))
