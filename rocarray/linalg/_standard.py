"""The standard's linear algebra functions of ``rocarray.linalg`` (the package's docstring
says how they divide the work between the checks here and the device's backend)."""

from __future__ import annotations

import builtins
import math
import operator
from typing import NamedTuple

from .. import _dtypes
from .._array_object import Array
from .._creation_functions import eye
from .._data_type_functions import astype
from .._elementwise_functions import multiply, subtract
# (matmul, tensordot, vecdot, matrix_transpose and LinAlgError are the package's names too)
from .._linear_algebra_functions import matmul, tensordot, vecdot
from .._manipulation_functions import reshape, stack
from .._statistical_functions import sum as _sum
from .._views import (as_int, broadcast_shapes, broadcast_to, diagonal_view, expand_dims, matrix_transpose,
                      normalize_axes)
from .._copy import contiguous
from .. import vendor
from numpy.linalg import LinAlgError


class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class EigResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


# -- argument checks ---------------------------------------------------------------------------

def _array(x, name: str, argname: str = "x") -> Array:
    if not isinstance(x, Array):
        raise TypeError(f"linalg.{name}: {argname} must be a rocarray array, not {type(x).__name__}")
    return x


def _floating(x, name: str, argname: str = "x") -> Array:
    """``x`` as a float32/64 or complex64/128 array (integers and bools in float64, as NumPy)."""
    x = _array(x, name, argname)
    kind = x.dtype.kind
    if kind in "biu":
        return astype(x, _dtypes.default_float)
    if kind not in "fc":
        raise TypeError(f"linalg.{name}: expected a numeric array, got {x.dtype}")
    if x.dtype == _dtypes.float16:
        raise TypeError(f"linalg.{name}: float16 is not supported (LAPACK has no half precision); "
                        "use astype(x, float32)")
    return x


def _matrices(x, name: str, *, square: bool, argname: str = "x") -> Array:
    x = _floating(x, name, argname)
    if x.ndim < 2:
        raise ValueError(f"linalg.{name}: {argname} must have at least 2 dimensions (..., M, N); "
                         f"got shape {x.shape}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"linalg.{name}: {argname} must be a stack of square matrices; got shape {x.shape}")
    return x


def _backend(x: Array):
    return vendor.backend(x.device)


def _rtol(rtol, name: str, x: Array):
    if rtol is None or isinstance(rtol, Array):
        if isinstance(rtol, Array) and rtol.device != x.device:
            raise TypeError(f"linalg.{name}: rtol is on {rtol.device}, x on {x.device}")
        return rtol
    if isinstance(rtol, builtins.bool) or not isinstance(rtol, (int, float)):
        raise TypeError(f"linalg.{name}: rtol must be a real number, an array or None, "
                        f"not {type(rtol).__name__}")
    return float(rtol)


# -- factorizations and solvers (the backends') ----------------------------------------------

def cholesky(x: Array, /, *, upper: bool = False) -> Array:
    """Cholesky factor of each Hermitian positive-definite matrix of ``x`` (..., M, M): the
    lower ``L`` with ``x = L @ L^H``, or the upper ``U = L^H`` with ``upper=True``.

    Raises ``LinAlgError`` when a matrix is not positive definite (on GPUs too: the
    library's status is read back once per call).

    >>> import rocarray as ra
    >>> ra.linalg.cholesky(ra.asarray([[4.0, 2.0], [2.0, 3.0]]))
    array([[2.        , 0.        ],
           [1.        , 1.41421356]])
    """
    x = _matrices(x, "cholesky", square=True)
    return _backend(x).cholesky(x, builtins.bool(upper))


def solve(x1: Array, x2: Array, /) -> Array:
    """The solution ``X`` of ``x1 @ X = x2`` for each square matrix of ``x1`` (..., M, M).

    ``x2`` is one vector (M,) when it is 1-d, else a stack of matrices (..., M, K) whose
    leading axes broadcast against ``x1``'s (the 2023.12 rule; NumPy 2 does the same).
    Raises ``LinAlgError`` for a singular matrix.

    >>> ra.linalg.solve(ra.asarray([[3.0, 1.0], [1.0, 2.0]]), ra.asarray([9.0, 8.0]))
    array([2., 3.])
    """
    a = _matrices(x1, "solve", square=True, argname="x1")
    b = _floating(x2, "solve", "x2")
    if a.device != b.device:
        raise TypeError(f"linalg.solve: x1 is on {a.device}, x2 on {b.device}; use .to_device()")
    dtype = _dtypes.result_type(a.dtype, b.dtype)
    a, b = astype(a, dtype) if a.dtype != dtype else a, astype(b, dtype) if b.dtype != dtype else b
    n = a.shape[-1]
    vector = b.ndim == 1
    if vector:
        b = expand_dims(b, axis=1)
    if b.ndim < 2 or b.shape[-2] != n:
        raise ValueError(f"linalg.solve: x2 of shape {x2.shape} does not match x1 of shape {x1.shape} "
                         f"(x2 must be (M,) or (..., M, K) with M = {n})")
    try:
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise ValueError(f"linalg.solve: the stacks of x1 {x1.shape} and x2 {x2.shape} cannot be "
                         "broadcast together") from None
    a = broadcast_to(a, batch + a.shape[-2:])
    b = broadcast_to(b, batch + b.shape[-2:])
    out = _backend(a).solve(a, b)
    return reshape(out, out.shape[:-1]) if vector else out


def inv(x: Array, /) -> Array:
    """The inverse of each square matrix of ``x`` (..., M, M); ``LinAlgError`` if singular.

    >>> ra.linalg.inv(ra.asarray([[2.0, 0.0], [0.0, 4.0]]))
    array([[0.5 , 0.  ],
           [0.  , 0.25]])
    """
    x = _matrices(x, "inv", square=True)
    return _backend(x).inv(x)


def det(x: Array, /) -> Array:
    """The determinant of each square matrix of ``x`` (..., M, M), shape (...).

    >>> ra.linalg.det(ra.asarray([[1.0, 2.0], [3.0, 4.0]]))
    array(-2.)
    """
    x = _matrices(x, "det", square=True)
    return _backend(x).det(x)


def slogdet(x: Array, /) -> SlogdetResult:
    """``(sign, logabsdet)`` of each square matrix: ``det = sign * exp(logabsdet)``, without
    overflow.  A singular matrix gives sign 0 and logabsdet -inf (no error, as NumPy).

    >>> ra.linalg.slogdet(ra.asarray([[1.0, 2.0], [3.0, 4.0]]))
    SlogdetResult(sign=array(-1.), logabsdet=array(0.69314718))
    """
    x = _matrices(x, "slogdet", square=True)
    return SlogdetResult(*_backend(x).slogdet(x))


def eigh(x: Array, /) -> EighResult:
    """Eigenvalues (ascending, real) and eigenvectors (columns) of each Hermitian matrix of
    ``x``; only the lower triangle is read (NumPy's default).

    >>> w, v = ra.linalg.eigh(ra.asarray([[2.0, 1.0], [1.0, 2.0]]))
    >>> w
    array([1., 3.])
    """
    x = _matrices(x, "eigh", square=True)
    return EighResult(*_backend(x).eigh(x))


def eigvalsh(x: Array, /) -> Array:
    """The eigenvalues (ascending, real) of each Hermitian matrix of ``x``.

    >>> ra.linalg.eigvalsh(ra.asarray([[2.0, 1.0], [1.0, 2.0]]))
    array([1., 3.])
    """
    x = _matrices(x, "eigvalsh", square=True)
    return _backend(x).eigvalsh(x)


def eig(x: Array, /) -> EigResult:
    """Eigenvalues and right eigenvectors (columns, unit norm) of each square matrix of ``x``
    (2025.12).  Always complex (complex64 for float32 input), unlike NumPy which returns
    real arrays when every eigenvalue is real; the order is LAPACK's, unsorted.

    >>> w, v = ra.linalg.eig(ra.asarray([[0.0, -1.0], [1.0, 0.0]]))
    >>> w
    array([0.+1.j, 0.-1.j])
    """
    x = _matrices(x, "eig", square=True)
    return EigResult(*_backend(x).eig(x))


def eigvals(x: Array, /) -> Array:
    """The eigenvalues (complex, unsorted) of each square matrix of ``x`` (2025.12).

    >>> ra.linalg.eigvals(ra.asarray([[2.0, 0.0], [0.0, 3.0]]))
    array([2.+0.j, 3.+0.j])
    """
    x = _matrices(x, "eigvals", square=True)
    return _backend(x).eigvals(x)


def qr(x: Array, /, *, mode: str = "reduced") -> QRResult:
    """QR factorization of each matrix of ``x`` (..., M, N): ``Q`` with orthonormal columns,
    ``R`` upper triangular; ``mode`` is ``"reduced"`` (Q (..., M, K), R (..., K, N),
    K = min(M, N)) or ``"complete"`` (Q (..., M, M), R (..., M, N)).

    >>> q, r = ra.linalg.qr(ra.asarray([[1.0, 2.0], [3.0, 4.0]]))
    """
    x = _matrices(x, "qr", square=False)
    if mode not in ("reduced", "complete"):
        raise ValueError(f"linalg.qr: mode must be 'reduced' or 'complete', not {mode!r}")
    return QRResult(*_backend(x).qr(x, mode))


def svd(x: Array, /, *, full_matrices: bool = True) -> SVDResult:
    """Singular value decomposition ``x = U @ diag(S) @ Vh`` of each matrix (..., M, N); S
    descending and real.  ``full_matrices=False`` gives the reduced U (..., M, K) and Vh
    (..., K, N).

    >>> u, s, vh = ra.linalg.svd(ra.asarray([[3.0, 0.0], [0.0, 4.0]]))
    >>> s
    array([4., 3.])
    """
    x = _matrices(x, "svd", square=False)
    return SVDResult(*_backend(x).svd(x, builtins.bool(full_matrices)))


def svdvals(x: Array, /) -> Array:
    """The singular values (descending) of each matrix of ``x``.

    >>> ra.linalg.svdvals(ra.asarray([[3.0, 0.0], [0.0, 4.0]]))
    array([4., 3.])
    """
    x = _matrices(x, "svdvals", square=False)
    return _backend(x).svdvals(x)


def pinv(x: Array, /, *, rtol=None) -> Array:
    """The Moore-Penrose pseudo-inverse of each matrix of ``x`` (..., M, N), singular values
    at most ``rtol * largest`` dropped (default ``max(M, N) * eps``, the standard's; NumPy's
    ``pinv`` defaults to 1e-15).

    >>> ra.linalg.pinv(ra.asarray([[1.0, 2.0], [2.0, 4.0]]))
    array([[0.04, 0.08],
           [0.08, 0.16]])
    """
    x = _matrices(x, "pinv", square=False)
    rtol = _rtol(rtol, "pinv", x)
    if rtol is None:
        rtol = max(x.shape[-2:]) * float(_dtypes.finfo(_real(x.dtype)).eps)
    return _backend(x).pinv(x, rtol)


def matrix_rank(x: Array, /, *, rtol=None) -> Array:
    """The number of singular values above ``rtol * largest`` of each matrix (int64; default
    ``rtol = max(M, N) * eps``).

    >>> ra.linalg.matrix_rank(ra.asarray([[1.0, 2.0], [2.0, 4.0]]))
    array(1)
    """
    x = _matrices(x, "matrix_rank", square=False)
    return _backend(x).matrix_rank(x, _rtol(rtol, "matrix_rank", x))


def _real(dtype):
    return {"c8": _dtypes.float32, "c16": _dtypes.float64}.get(f"{dtype.kind}{dtype.itemsize}", dtype)


# -- norms ---------------------------------------------------------------------------------

_MATRIX_ORDS = ("fro", "nuc", 1, 2, -1, -2, math.inf, -math.inf)


def vector_norm(x: Array, /, *, axis=None, keepdims: bool = False, ord=2) -> Array:
    """The vector ``ord``-norm of ``x`` over ``axis`` (None: all axes, as one vector; an int
    or a tuple of ints), real-valued; ``ord`` any real number or +-inf (0 counts non-zeros).

    >>> ra.linalg.vector_norm(ra.asarray([3.0, 4.0]))
    array(5.)
    """
    x = _floating(x, "vector_norm")
    if isinstance(ord, builtins.bool) or not isinstance(ord, (int, float)):
        raise TypeError(f"linalg.vector_norm: ord must be a real number or +-inf, not {type(ord).__name__}")
    if axis is None:
        axes = tuple(range(x.ndim))
    else:
        axes = normalize_axes(axis, x.ndim, "linalg.vector_norm")
    return _backend(x).vector_norm(x, axes, builtins.bool(keepdims), ord)


def matrix_norm(x: Array, /, *, keepdims: bool = False, ord="fro") -> Array:
    """The matrix norm of each matrix of ``x`` (..., M, N): ``ord`` is ``"fro"`` (Frobenius),
    ``"nuc"`` (sum of singular values), 1 / -1 (max / min column sum), 2 / -2 (largest /
    smallest singular value), inf / -inf (max / min row sum).

    >>> ra.linalg.matrix_norm(ra.asarray([[3.0, 0.0], [0.0, 4.0]]))
    array(5.)
    """
    x = _matrices(x, "matrix_norm", square=False)
    if isinstance(ord, builtins.bool) or ord not in _MATRIX_ORDS:
        raise ValueError(f"linalg.matrix_norm: ord must be one of 'fro', 'nuc', 1, 2, -1, -2, inf, "
                         f"-inf; got {ord!r}")
    return _backend(x).matrix_norm(x, builtins.bool(keepdims), ord)


# -- the rest: views and elementwise ops, the same on every device -----------------------------

def diagonal(x: Array, /, *, offset: int = 0) -> Array:
    """The ``offset``-th diagonal of each matrix of ``x`` (..., M, N), as a view (no copy;
    NumPy's ``linalg.diagonal`` returns a read-only view too).

    >>> ra.linalg.diagonal(ra.asarray([[1, 2], [3, 4]]))
    array([1, 4])
    """
    x = _array(x, "diagonal")
    if x.ndim < 2:
        raise ValueError(f"linalg.diagonal: x must have at least 2 dimensions; got shape {x.shape}")
    return diagonal_view(x, as_int(offset, "linalg.diagonal", "offset"), x.ndim - 2, x.ndim - 1)


def trace(x: Array, /, *, offset: int = 0, dtype=None) -> Array:
    """The sum of the ``offset``-th diagonal of each matrix of ``x`` (the standard's dtype
    rules of ``sum``).

    >>> ra.linalg.trace(ra.asarray([[1, 2], [3, 4]]))
    array(5)
    """
    return _sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def outer(x1: Array, x2: Array, /) -> Array:
    """The outer product of the vectors ``x1`` (M,) and ``x2`` (N,): shape (M, N).

    >>> ra.linalg.outer(ra.asarray([1, 2]), ra.asarray([3, 4]))
    array([[3, 4],
           [6, 8]])
    """
    for name, v in (("x1", x1), ("x2", x2)):
        _array(v, "outer", name)
        if v.ndim != 1:
            raise ValueError(f"linalg.outer: {name} must be 1-d; got shape {v.shape}")
    return multiply(expand_dims(x1, axis=1), x2)


def cross(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """The cross product of 3-element vectors along ``axis`` (the other axes broadcast).

    >>> ra.linalg.cross(ra.asarray([1.0, 0, 0]), ra.asarray([0.0, 1, 0]))
    array([0., 0., 1.])
    """
    _array(x1, "cross", "x1")
    _array(x2, "cross", "x2")
    if isinstance(axis, builtins.bool) or not isinstance(axis, int):
        raise TypeError(f"linalg.cross: axis must be an int, not {type(axis).__name__}")
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("linalg.cross: operands must have at least one dimension")
    n = min(x1.ndim, x2.ndim)
    if not -n <= axis < n:
        raise IndexError(f"linalg.cross: axis {axis} is out of bounds for operands of {x1.ndim} and "
                         f"{x2.ndim} dimensions (allowed: {-n} to {n - 1})")
    back = axis if axis < 0 else axis - n
    if x1.shape[back] != 3 or x2.shape[back] != 3:
        raise ValueError(f"linalg.cross: the axis must have 3 elements in both operands; got shapes "
                         f"{x1.shape} and {x2.shape}")
    try:
        shape = broadcast_shapes(x1.shape, x2.shape)
    except ValueError:
        raise ValueError(f"linalg.cross: shapes {x1.shape} and {x2.shape} cannot be broadcast") from None
    ax = len(shape) + back
    a, b = broadcast_to(x1, shape), broadcast_to(x2, shape)

    def part(v, i):
        return v._view(v.shape[:ax] + v.shape[ax + 1:], v.strides[:ax] + v.strides[ax + 1:],
                       v._offset + i * v.strides[ax])

    a0, a1, a2 = (part(a, i) for i in range(3))
    b0, b1, b2 = (part(b, i) for i in range(3))
    return stack([subtract(multiply(a1, b2), multiply(a2, b1)),
                  subtract(multiply(a2, b0), multiply(a0, b2)),
                  subtract(multiply(a0, b1), multiply(a1, b0))], axis=ax)


def matrix_power(x: Array, n: int, /) -> Array:
    """``x`` (..., M, M) raised to the integer power ``n`` by repeated squaring (n = 0: the
    identity; n < 0: the power of the inverse).

    >>> ra.linalg.matrix_power(ra.asarray([[1.0, 1.0], [0.0, 1.0]]), 3)
    array([[1., 3.],
           [0., 1.]])
    """
    x = _array(x, "matrix_power")
    if isinstance(n, builtins.bool):
        raise TypeError("linalg.matrix_power: n must be an int, not bool")
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"linalg.matrix_power: n must be an int, not {type(n).__name__}") from None
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"linalg.matrix_power: x must be a stack of square matrices; got {x.shape}")
    if n == 0:
        ident = eye(x.shape[-1], dtype=x.dtype, device=x.device)
        return contiguous(broadcast_to(ident, x.shape))
    if n < 0:
        x = inv(x)
        n = -n
    result = None
    base = x
    while True:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if not n:
            break
        base = matmul(base, base)
    return result.copy() if result is x else result
