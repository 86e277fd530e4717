"""NumPy's ``numpy.linalg`` functions beyond the array API standard -- ``lstsq``, ``norm``,
``cond``, ``multi_dot``, ``tensorinv`` and ``tensorsolve`` -- with NumPy's signatures and
results, composed of the extension's device operations (SVD, inverse, solve, products) and
rocarray's elementwise ops and reductions, so that they run on every device."""

from __future__ import annotations

import builtins
import math
import numbers
import operator

from numpy.linalg import LinAlgError

from .. import _dtypes
from .._array_object import Array
from .._creation_functions import full, zeros
from .._data_type_functions import astype
from .._elementwise_functions import (abs as _abs, conj, divide, greater, isnan, logical_and, logical_not, multiply,
                                      square, subtract, where)
from .._linear_algebra_functions import matmul
from .._manipulation_functions import reshape, stack
from .._statistical_functions import any as _any, count_nonzero, max as _max, min as _min, sum as _sum
from .._views import expand_dims, matrix_transpose, normalize_axes, permute_dims
from ._standard import _array, _floating, _real, inv, solve, svd, svdvals, vector_norm

__all__ = ["lstsq", "norm", "cond", "multi_dot", "tensorinv", "tensorsolve"]


def _mH(x: Array) -> Array:
    """The conjugate transpose of each matrix (a view for real dtypes)."""
    t = matrix_transpose(x)
    return conj(t) if x.dtype.kind == "c" else t


def _same_device(name: str, *arrays: Array) -> None:
    devices = {a.device for a in arrays}
    if len(devices) > 1:
        raise TypeError(f"linalg.{name}: the arrays are on different devices ({', '.join(map(str, devices))}); "
                        "use .to_device()")


def _real_number(v, name: str, what: str) -> float:
    if isinstance(v, builtins.bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"linalg.{name}: {what} must be a real number or None, not {type(v).__name__}")
    return float(v)


# -- lstsq ----------------------------------------------------------------------------------------

def lstsq(a: Array, b: Array, rcond=None):
    """The least-squares solution ``x`` of ``a @ x = b``, as ``(x, residuals, rank, s)``, NumPy's
    ``numpy.linalg.lstsq``.

    ``a`` is one matrix (M, N) and ``b`` a vector (M,) or a matrix (M, K) (NumPy takes no stacks
    here either).  ``x`` has shape (N,) or (N, K); ``residuals`` holds the squared 2-norm of
    each column of ``b - a @ x`` (shape (1,) for a 1-d ``b``, (K,) otherwise) and is empty when
    ``rank < N`` or ``M <= N``; ``rank`` (a Python int) counts the singular values of ``a`` above
    ``rcond`` times the largest, and ``s`` holds them all, descending.  ``rcond`` defaults to
    ``eps * max(M, N)`` with float64's eps (NumPy 2's default); a negative ``rcond`` means eps.

    The minimum-norm solution comes from the SVD of ``a``, computed in float64 / complex128 as
    NumPy does (so the rank of float32 input is the one NumPy finds); ``x`` and the residuals
    are returned in the inputs' common dtype (float32 / complex64 only when both are; integers
    count as float64) and its real dtype.

    Raises:
        LinAlgError: ``a`` is not 2-d, ``b`` not 1-d or 2-d, their row counts differ, or the
            SVD does not converge.

    Examples:
        >>> import rocarray as ra
        >>> a = ra.asarray([[0.0, 1.0], [1.0, 1.0], [2.0, 1.0], [3.0, 1.0]])
        >>> x, res, rank, s = ra.linalg.lstsq(a, ra.asarray([-1.0, 0.2, 0.9, 2.1]))
        >>> x  # (slope, intercept)
        array([ 1.  , -0.95])
    """
    a = _floating(a, "lstsq", "a")
    b = _floating(b, "lstsq", "b")
    _same_device("lstsq", a, b)
    vector = b.ndim == 1
    bm = expand_dims(b, axis=1) if vector else b
    for name, v in (("a", a), ("b", bm)):
        if v.ndim != 2:
            raise LinAlgError(f"linalg.lstsq: {v.ndim}-dimensional array given. Array must be two-dimensional "
                              f"({name}: a is (M, N), b is (M,) or (M, K))")
    m, n = a.shape
    if bm.shape[0] != m:
        raise LinAlgError(f"linalg.lstsq: Incompatible dimensions: a has {m} rows, b has {bm.shape[0]}")
    result_t = _dtypes.result_type(a.dtype, b.dtype)
    real_t = _real(result_t)
    # NumPy computes every lstsq in double precision: its ranks and cutoffs are float64's
    work_t = _dtypes.complex128 if result_t.kind == "c" else _dtypes.float64
    eps = float(_dtypes.finfo(_dtypes.float64).eps)
    rcond = eps * max(m, n) if rcond is None else _real_number(rcond, "lstsq", "rcond")
    if rcond < 0:  # (LAPACK's convention for gelsd)
        rcond = eps
    aw, bw = astype(a, work_t), astype(bm, work_t)
    k, nrhs = min(m, n), bm.shape[1]
    if k == 0:
        s = zeros((0,), dtype=_dtypes.float64, device=a.device)
        x = zeros((n, nrhs), dtype=work_t, device=a.device)
        rank = 0
    else:
        u, s, vh = svd(aw, full_matrices=False)
        keep = greater(s, multiply(s[0], rcond))
        # the rank and the count of NaN singular values in one read-back: where LAPACK
        # reports an SVD that did not converge (NaN or inf input), a GPU's solver returns NaN
        rank, nans = (int(v) for v in stack([count_nonzero(keep), count_nonzero(isnan(s))]).get())
        if nans:
            raise LinAlgError("linalg.lstsq: SVD did not converge in Linear Least Squares (a holds NaN or inf)")
        # 1/s where kept, 0 elsewhere (the dropped values may be exact zeros)
        inv_s = where(keep, divide(1.0, where(keep, s, 1.0)), 0.0)
        x = matmul(_mH(vh), multiply(matmul(_mH(u), bw), expand_dims(inv_s, axis=1)))
    if rank == n and m > n:
        r = subtract(bw, matmul(aw, x))
        residuals = astype(_sum(square(_abs(r)), axis=0), real_t)
    else:
        residuals = zeros((0,), dtype=real_t, device=a.device)
    if vector:
        x = reshape(x, (n,))
    return astype(x, result_t), residuals, rank, astype(s, real_t)


# -- norm and cond --------------------------------------------------------------------------------

_MATRIX_ORDS = (None, "fro", "f", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def _norm_input(x, name: str):
    """``x`` in the dtype its norm is computed in, and the dtype of the result (float16 is
    computed in float32 and returned in float16, as NumPy keeps float16)."""
    x = _array(x, name)
    if x.dtype == _dtypes.float16:
        return astype(x, _dtypes.float32), _dtypes.float16
    x = _floating(x, name)
    return x, _real(x.dtype)


def _is_ord(ord, value) -> bool:
    return not isinstance(ord, str) and ord is not None and ord == value


def _extreme(t: Array, axis: int, largest: bool, what: str) -> Array:
    """max (0 over nothing, NumPy's ``initial=0``) or min (an error over nothing) of ``t``."""
    if t.shape[axis] == 0:
        shape = t.shape[:axis] + t.shape[axis + 1:]
        if not largest and math.prod(shape):
            raise ValueError(f"linalg.norm: the {what} norm of an empty matrix is undefined "
                             "(a minimum over no elements)")
        return zeros(shape, dtype=t.dtype, device=t.device)
    return (_max if largest else _min)(t, axis=axis)


def norm(x: Array, ord=None, axis=None, keepdims: bool = False) -> Array:
    """A vector or matrix norm of ``x``, NumPy's ``numpy.linalg.norm``.

    ``axis`` None: the 2-norm of ``x`` flattened when ``ord`` is None (or ``ord`` is "fro" for
    a 2-d ``x``, 2 for a 1-d ``x``), else the vector norm of a 1-d or the matrix norm of a 2-d
    ``x``.  An int ``axis`` gives vector norms along it, a pair of axes matrix norms over them.

    Vector ``ord``: None or 2 (Euclidean), inf / -inf (max / min of ``abs``), 0 (the count of
    non-zeros), any other real p (``sum(abs(x)**p)**(1/p)``).  Matrix ``ord``: None or
    "fro" / "f" (Frobenius), "nuc" (sum of singular values), 2 / -2 (largest / smallest
    singular value), 1 / -1 (max / min column sum of ``abs``), inf / -inf (max / min row
    sum).  The result is real (float32 for float32 and complex64, float64 for integers).

    Raises:
        ValueError: an ``ord`` that does not apply ("Invalid norm order ... for vectors" /
            "Invalid norm order for matrices."), duplicate axes, or more than two axes
            ("Improper number of dimensions to norm.").
        TypeError: ``axis`` is not None, an int or a tuple of ints.

    Examples:
        >>> import rocarray as ra
        >>> ra.linalg.norm(ra.asarray([[1.0, 2.0], [3.0, 4.0]]), ord=1)
        array(6.)
    """
    x, out_t = _norm_input(x, "norm")
    if ord is not None and not isinstance(ord, (str, numbers.Real)):
        raise TypeError(f"linalg.norm: ord must be None, a real number or a string ('fro', 'nuc'), "
                        f"not {type(ord).__name__}")
    nd = x.ndim
    if axis is None:
        if ord is None or (ord in ("f", "fro") and nd == 2) or (_is_ord(ord, 2) and nd == 1):
            r = vector_norm(x, ord=2)
            if keepdims:
                r = reshape(r, (1,) * nd)
            return astype(r, out_t)
        axes = tuple(range(nd))
    elif isinstance(axis, tuple):
        axes = axis
    else:
        try:
            axes = (operator.index(axis),)
        except TypeError:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from None
    if len(axes) == 1:
        if isinstance(ord, str):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        (ax,) = normalize_axes(axes[0], nd, "linalg.norm")
        p = 2.0 if ord is None else float(ord)
        out_shape = x.shape[:ax] + ((1,) if keepdims else ()) + x.shape[ax + 1:]
        if x.shape[ax] == 0 and p in (math.inf, -math.inf):
            if p == -math.inf and math.prod(out_shape):
                raise ValueError("linalg.norm: the -inf norm of an empty vector is undefined "
                                 "(a minimum over no elements)")
            return zeros(out_shape, dtype=out_t, device=x.device)
        return astype(vector_norm(x, axis=ax, keepdims=builtins.bool(keepdims), ord=p), out_t)
    if len(axes) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    row, col = (normalize_axes(a, nd, "linalg.norm")[0] for a in axes)
    if row == col:
        raise ValueError("Duplicate axes given.")
    if not any(ord == o and (isinstance(ord, str) == isinstance(o, str)) for o in _MATRIX_ORDS):
        raise ValueError("Invalid norm order for matrices.")
    if ord in (None, "fro", "f"):
        r = vector_norm(x, axis=(row, col), ord=2)
    elif ord in ("nuc", 2, -2):
        if out_t == _dtypes.float16:
            raise TypeError("linalg.norm: float16 is not supported by the SVD norms ('nuc', 2, -2); "
                            "use astype(x, float32)")
        others = [i for i in range(nd) if i not in (row, col)]
        s = svdvals(permute_dims(x, tuple(others) + (row, col)))
        if ord == "nuc":
            r = _sum(s, axis=-1)
        else:
            r = _extreme(s, s.ndim - 1, ord == 2, str(ord))
    else:
        # 1 / -1: column sums (over the rows); inf / -inf: row sums (over the columns)
        summed, other = (row, col) if abs(ord) == 1 else (col, row)
        sums = _sum(_abs(x), axis=summed)
        r = _extreme(sums, other - (other > summed), ord > 0, str(ord))
    if keepdims:
        shape = list(x.shape)
        shape[row] = shape[col] = 1
        r = reshape(r, tuple(shape))
    return astype(r, out_t)


def _inverses_or_nan(x: Array) -> Array:
    """The inverse of each matrix of ``x``, NaN-filled where one is singular (NumPy's
    ``cond`` inverts with errors ignored and turns the NaNs into inf afterwards)."""
    try:
        return inv(x)
    except LinAlgError:
        if x.ndim == 2:
            return full(x.shape, math.nan, dtype=x.dtype, device=x.device)
    flat = reshape(x, (-1,) + x.shape[-2:])
    return reshape(stack([_inverses_or_nan(flat[i]) for i in range(flat.shape[0])]), x.shape)


def cond(x: Array, p=None) -> Array:
    """The condition number of each matrix of ``x`` (..., M, N) in the norm ``p``, NumPy's
    ``numpy.linalg.cond``.

    ``p`` None, 2 or -2: the ratio of the largest to the smallest singular value (-2: the
    inverse ratio), for any M, N; ``p`` "fro", "nuc", 1, -1, inf or -inf:
    ``norm(x, p) * norm(inv(x), p)``, for square matrices.  A singular matrix gives inf (as
    NumPy, which turns the NaNs of the failed inverse into inf unless ``x`` itself holds NaN).

    Raises:
        LinAlgError: ``x`` has fewer than 2 dimensions, its matrices are empty, or they are
            not square for a ``p`` other than None / 2 / -2.
        ValueError: ``p`` is not a matrix norm order.

    Examples:
        >>> import rocarray as ra
        >>> ra.linalg.cond(ra.asarray([[1.0, 0.0], [0.0, 4.0]]))
        array(4.)
    """
    x = _array(x, "cond")
    if x.ndim < 2:
        raise LinAlgError(f"linalg.cond: {x.ndim}-dimensional array given. Array must be at least "
                          "two-dimensional")
    if x.size == 0 and x.shape[-1] * x.shape[-2] == 0:
        raise LinAlgError("cond is not defined on empty arrays")
    x = _floating(x, "cond")
    if p is None or _is_ord(p, 2) or _is_ord(p, -2):
        s = svdvals(x)
        hi, lo = s[..., 0], s[..., -1]
        r = divide(lo, hi) if _is_ord(p, -2) else divide(hi, lo)
    else:
        if x.shape[-1] != x.shape[-2]:
            raise LinAlgError(f"linalg.cond: Last 2 dimensions of the array must be square for p={p!r}; "
                              f"got shape {x.shape}")
        if isinstance(p, (str, numbers.Real)) and not any(
                p == o and isinstance(p, str) == isinstance(o, str) for o in _MATRIX_ORDS):
            raise ValueError("Invalid norm order for matrices.")
        r = multiply(norm(x, p, axis=(-2, -1)), norm(_inverses_or_nan(x), p, axis=(-2, -1)))
    # NaN from a singular matrix means an infinite condition number; NaN input stays NaN
    nan_r = isnan(r)
    if builtins.bool(_any(nan_r)):
        r = where(logical_and(nan_r, logical_not(_any(isnan(x), axis=(-2, -1)))), math.inf, r)
    return r


# -- products and tensor inverses -----------------------------------------------------------------

def _chain_order(dims: list) -> list:
    """The split points of the cheapest parenthesisation of the matrix chain whose matrix i
    is dims[i] x dims[i + 1] (the classic O(n^3) dynamic programme over chain lengths):
    ``split[i][j]`` is the k of ``(A_i..A_k)(A_k+1..A_j)``."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            best = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if best is None or c < best:
                    best, split[i][j] = c, k
            cost[i][j] = best
    return split


def _chain_product(arrays: list, split: list, i: int, j: int) -> Array:
    if i == j:
        return arrays[i]
    k = split[i][j]
    return matmul(_chain_product(arrays, split, i, k), _chain_product(arrays, split, k + 1, j))


def multi_dot(arrays, *, out=None) -> Array:
    """The product of two or more arrays in the cheapest order of multiplication, NumPy's
    ``numpy.linalg.multi_dot``.

    The matrices are 2-d, except that the first may be a 1-d row vector and the last a 1-d
    column vector (the result is then 1-d, or 0-d when both are).  The order comes from the
    classic dynamic programme over the shapes (``A @ B @ C`` with A 10x100, B 100x5, C 5x50
    runs as ``(A @ B) @ C``: 7500 multiplications instead of 75000).  Two arrays are NumPy's
    ``dot`` of them.  ``out``, when given, receives the result.

    Raises:
        ValueError: fewer than two arrays, or shapes that do not chain.
        LinAlgError: a middle array (or an end one) is not 2-d (1-d).

    Examples:
        >>> import rocarray as ra
        >>> a, b, c = ra.ones((10, 100)), ra.ones((100, 5)), ra.ones((5, 50))
        >>> ra.linalg.multi_dot([a, b, c]).shape
        (10, 50)
    """
    from .._numpy_names import _into, dot  # (the NumPy-names layer imports this package)

    arrays = list(arrays)
    if len(arrays) < 2:
        raise ValueError("Expecting at least two arrays.")
    for i, v in enumerate(arrays):
        _array(v, "multi_dot", f"arrays[{i}]")
    _same_device("multi_dot", *arrays)
    if len(arrays) == 2:
        return dot(arrays[0], arrays[1], out=out)
    first_vector, last_vector = arrays[0].ndim == 1, arrays[-1].ndim == 1
    if first_vector:
        arrays[0] = reshape(arrays[0], (1, arrays[0].shape[0]))
    if last_vector:
        arrays[-1] = reshape(arrays[-1], (arrays[-1].shape[0], 1))
    for i, v in enumerate(arrays):
        if v.ndim != 2:
            raise LinAlgError(f"linalg.multi_dot: {v.ndim}-dimensional array given (arrays[{i}]). Array must be "
                              "two-dimensional (the first and last may be 1-d)")
    for i in range(len(arrays) - 1):
        if arrays[i].shape[1] != arrays[i + 1].shape[0]:
            raise ValueError(f"linalg.multi_dot: shapes {arrays[i].shape} (arrays[{i}]) and "
                             f"{arrays[i + 1].shape} (arrays[{i + 1}]) not aligned")
    dims = [arrays[0].shape[0]] + [v.shape[1] for v in arrays]
    result = _chain_product(arrays, _chain_order(dims), 0, len(arrays) - 1)
    if first_vector and last_vector:
        result = reshape(result, ())
    elif first_vector or last_vector:
        result = reshape(result, (result.size,))
    return _into(result, out, "linalg.multi_dot")


def tensorinv(a: Array, ind: int = 2) -> Array:
    """The inverse of ``a`` with respect to ``tensordot(.., .., ind)``, NumPy's
    ``numpy.linalg.tensorinv``: ``a`` reshaped to a (prod(shape[:ind]), prod(shape[ind:]))
    matrix, inverted, and given the shape ``a.shape[ind:] + a.shape[:ind]``.

    Raises:
        ValueError: ``ind`` is not positive.
        LinAlgError: the two products differ (the matrix is not square) or it is singular.

    Examples:
        >>> import rocarray as ra
        >>> ra.linalg.tensorinv(ra.reshape(ra.eye(24), (4, 6, 8, 3)), ind=2).shape
        (8, 3, 4, 6)
    """
    a = _array(a, "tensorinv", "a")
    if isinstance(ind, builtins.bool):
        raise TypeError("linalg.tensorinv: ind must be an int, not bool")
    try:
        ind = operator.index(ind)
    except TypeError:
        raise TypeError(f"linalg.tensorinv: ind must be an int, not {type(ind).__name__}") from None
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    rows, cols = math.prod(a.shape[:ind]), math.prod(a.shape[ind:])
    if rows != cols:
        raise LinAlgError(f"linalg.tensorinv: Last 2 dimensions of the array must be square: a of shape {a.shape} "
                          f"is a {rows} x {cols} matrix with ind={ind} (prod(a.shape[:ind]) must equal "
                          "prod(a.shape[ind:]))")
    return reshape(inv(reshape(a, (rows, cols))), a.shape[ind:] + a.shape[:ind])


def tensorsolve(a: Array, b: Array, axes=None) -> Array:
    """The ``x`` of ``tensordot(a, x, axes=x.ndim) = b``, NumPy's ``numpy.linalg.tensorsolve``:
    ``x`` has shape ``a.shape[b.ndim:]`` and ``a`` must be "square" (``prod(a.shape[b.ndim:])
    == prod(b.shape)``).  ``axes``: axes of ``a`` moved to the end, in that order, first.

    Raises:
        LinAlgError: ``a`` is not square in that sense, or the matrix is singular.

    Examples:
        >>> import rocarray as ra
        >>> a = ra.reshape(ra.eye(6), (6, 2, 3))
        >>> ra.linalg.tensorsolve(a, ra.ones((6,))).shape
        (2, 3)
    """
    a = _array(a, "tensorsolve", "a")
    b = _array(b, "tensorsolve", "b")
    _same_device("tensorsolve", a, b)
    if axes is not None:
        given = [normalize_axes(k, a.ndim, "linalg.tensorsolve")[0]
                 for k in (axes if isinstance(axes, (tuple, list)) else (axes,))]
        if len(set(given)) != len(given):
            raise ValueError(f"linalg.tensorsolve: repeated axis in axes={axes!r}")
        # the given axes move to the end, in the order given
        a = permute_dims(a, tuple([i for i in range(a.ndim) if i not in given] + given))
    # NumPy's x shape: the trailing a.ndim - b.ndim axes (all of a's when the counts agree)
    xshape = a.shape[b.ndim:] if a.ndim > b.ndim else a.shape
    n = math.prod(xshape)
    if a.size != n * n:
        raise LinAlgError("Input arrays must satisfy the requirement prod(a.shape[b.ndim:]) == "
                          f"prod(a.shape[:b.ndim]); got a of shape {a.shape} and b of shape {b.shape}")
    if b.size != n:
        raise ValueError(f"linalg.tensorsolve: b of shape {b.shape} has {b.size} elements, a of shape {a.shape} "
                         f"needs {n}")
    return reshape(solve(reshape(a, (n, n)), reshape(b, (n,))), xshape)
