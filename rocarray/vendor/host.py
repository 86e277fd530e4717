"""The CPU's linear algebra and FFT backend: NumPy's LAPACK/BLAS and pocketfft on the host
buffers of rocarray's arrays, without a copy in or out.

A CPU array views as a NumPy array (``Array._host``) and NumPy's result is wrapped back
(``wrap_numpy``), so a call costs NumPy's own time plus a few microseconds.  The arguments
arrive checked by ``rocarray.linalg`` / ``rocarray.fft``; errors NumPy raises for the data
(``LinAlgError`` for a singular matrix) pass through unchanged.
"""

from __future__ import annotations

import numpy as np

from .._array_object import Array
from .._transfer import wrap_numpy

name = "host (NumPy LAPACK/BLAS, pocketfft)"


def _np(x: Array) -> np.ndarray:
    return x._host()


def _wrap(a, dtype=None) -> Array:
    a = np.asarray(a)
    if dtype is not None and a.dtype != dtype:
        a = a.astype(dtype)  # (NumPy < 2 computes float32 FFTs in float64)
    return wrap_numpy(a)


# -- products ------------------------------------------------------------------------------

def matmul(a: Array, b: Array) -> Array:
    """``numpy.matmul`` of two (..., M, K) @ (..., K, N) arrays of one dtype."""
    return _wrap(np.matmul(_np(a), _np(b)))


# -- factorizations and solvers ------------------------------------------------------------

def cholesky(x: Array, upper: bool) -> Array:
    """``numpy.linalg.cholesky``; ``upper`` gives ``L^H``."""
    lower = np.linalg.cholesky(_np(x))
    return _wrap(np.conj(np.swapaxes(lower, -1, -2)) if upper else lower)


def solve(a: Array, b: Array) -> Array:
    """``numpy.linalg.solve`` of (..., M, M) and (..., M, K) stacks of one shape."""
    return _wrap(np.linalg.solve(_np(a), _np(b)))


def inv(x: Array) -> Array:
    """``numpy.linalg.inv``."""
    return _wrap(np.linalg.inv(_np(x)))


def det(x: Array) -> Array:
    """``numpy.linalg.det``."""
    return _wrap(np.linalg.det(_np(x)))


def slogdet(x: Array):
    """``numpy.linalg.slogdet``: (sign, logabsdet)."""
    sign, logabs = np.linalg.slogdet(_np(x))
    return _wrap(sign), _wrap(logabs)


def eigh(x: Array):
    """``numpy.linalg.eigh``: (eigenvalues, eigenvectors)."""
    w, v = np.linalg.eigh(_np(x))
    return _wrap(w), _wrap(v)


def eigvalsh(x: Array) -> Array:
    """``numpy.linalg.eigvalsh``."""
    return _wrap(np.linalg.eigvalsh(_np(x)))


def eig(x: Array):
    """``numpy.linalg.eig``, always complex (complex64 for float32 input)."""
    w, v = np.linalg.eig(_np(x))
    ctype = np.result_type(x.dtype, np.complex64)
    return _wrap(w, ctype), _wrap(v, ctype)


def eigvals(x: Array) -> Array:
    """``numpy.linalg.eigvals``, always complex."""
    return _wrap(np.linalg.eigvals(_np(x)), np.result_type(x.dtype, np.complex64))


def qr(x: Array, mode: str):
    """``numpy.linalg.qr`` in mode "reduced" or "complete": (Q, R)."""
    q, r = np.linalg.qr(_np(x), mode=mode)
    return _wrap(q), _wrap(r)


def svd(x: Array, full_matrices: bool):
    """``numpy.linalg.svd``: (U, S, Vh)."""
    u, s, vh = np.linalg.svd(_np(x), full_matrices=full_matrices)
    return _wrap(u), _wrap(s), _wrap(vh)


def svdvals(x: Array) -> Array:
    """The singular values, descending."""
    return _wrap(np.linalg.svd(_np(x), compute_uv=False))


def pinv(x: Array, rtol) -> Array:
    """``numpy.linalg.pinv`` with the relative cutoff ``rtol`` (a float or an array)."""
    return _wrap(np.linalg.pinv(_np(x), rcond=rtol))


def matrix_rank(x: Array, rtol) -> Array:
    """Singular values above ``rtol`` times the largest, counted (int64); ``rtol`` None:
    ``max(M, N) * eps``."""
    a = _np(x)
    s = np.linalg.svd(a, compute_uv=False)
    if rtol is None:
        rtol = max(a.shape[-2:]) * np.finfo(s.dtype).eps
    elif isinstance(rtol, Array):
        rtol = _np(rtol)[..., np.newaxis]
    tol = np.max(s, axis=-1, keepdims=True) * rtol
    return _wrap(np.count_nonzero(s > tol, axis=-1).astype(np.int64))


# -- norms -------------------------------------------------------------------------------------

def vector_norm(x: Array, axis, keepdims: bool, ord) -> Array:
    """The ``ord``-norm over the tuple of axes ``axis``, in the real dtype of ``x``."""
    a = _np(x)
    absa = np.abs(a)
    if ord == np.inf:
        r = np.max(absa, axis=axis, keepdims=keepdims)
    elif ord == -np.inf:
        r = np.min(absa, axis=axis, keepdims=keepdims)
    elif ord == 0:
        r = np.sum(absa != 0, axis=axis, keepdims=keepdims).astype(absa.dtype)
    elif ord == 1:
        r = np.sum(absa, axis=axis, keepdims=keepdims)
    elif ord == 2:
        r = np.sqrt(np.sum(np.real(a * np.conj(a)), axis=axis, keepdims=keepdims))
    else:
        r = np.sum(absa ** ord, axis=axis, keepdims=keepdims) ** (1.0 / ord)
    return _wrap(r, absa.dtype)


def matrix_norm(x: Array, keepdims: bool, ord) -> Array:
    """``numpy.linalg.norm`` over the last two axes, in the real dtype of ``x``."""
    a = _np(x)
    r = np.linalg.norm(a, ord=ord, axis=(-2, -1), keepdims=keepdims)
    return _wrap(r, np.abs(a[..., :0, :0]).dtype)


# -- FFTs ----------------------------------------------------------------------------------

def fft(kind: str, x: Array, s, axes, norm: str, out_dtype) -> Array:
    """``kind`` is the name of the ``numpy.fft`` function; ``s`` and ``axes`` are checked
    tuples (``s`` is None when every length is the input's)."""
    a = _np(x)
    f = getattr(np.fft, kind)
    if kind in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
        r = f(a, n=None if s is None else s[0], axis=axes[0], norm=norm)
    else:
        r = f(a, s=s, axes=axes, norm=norm)
    return _wrap(r, out_dtype)
