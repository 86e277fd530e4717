"""The standard's products (``matmul``, ``tensordot``, ``vecdot``, ``@``): floating and
complex operands through the device's BLAS (``rocarray.vendor``), integers through the
reduction engine (rocarray/_reduction.py).

Float and complex: ``matmul`` hands the backend operands of at least two dimensions in the
result dtype (NumPy's ``matmul`` on the CPU; a strided-batched GEMM on GPUs, float16 with
float32 compute); ``tensordot`` and ``vecdot`` are reshaped into ``matmul``.  Integers and
bools: each product is a sum of elementwise products -- the operands are viewed (no copy)
with the free axes of one broadcast against the other's and the contracted axes last, and
one ``ReductionDef`` ("a = x * y", sum) folds the contracted axes on every device.
"""

from __future__ import annotations

from . import _dtypes
from ._array_object import Array, check_size
from ._data_type_functions import astype
from ._elementwise_functions import conj
from ._manipulation_functions import reshape
from ._reduction import ReductionDef, reduce
from ._views import broadcast_shapes, broadcast_to, normalize_axes, permute_dims
from . import vendor

_defs: dict = {}


def _product_sum(dtype, conj_first: bool) -> ReductionDef:
    """sum over the reduced axes of ``x * y`` (``conj(x) * y`` for ``vecdot``) in ``dtype``."""
    key = (dtype, conj_first)
    rdef = _defs.get(key)
    if rdef is None:
        acc = _dtypes.float32 if dtype == _dtypes.float16 else dtype
        mul = "conj(x) * y" if conj_first and dtype.kind == "c" else "x * y"
        rdef = ReductionDef("vecdot" if conj_first else "matmul", [("x", dtype), ("y", dtype)],
                            [("a", "b", acc)], "a = 0;", f"a = {mul};", "a = a + b;",
                            [("out0", dtype)], "out0 = a;")
        rdef = _defs.setdefault(key, rdef)
    return rdef


def _operands(name: str, x1, x2):
    if not isinstance(x1, Array) or not isinstance(x2, Array):
        bad = x1 if not isinstance(x1, Array) else x2
        raise TypeError(f"{name}: expected rocarray arrays, got {type(bad).__name__}")
    if x1.device != x2.device:
        raise TypeError(f"{name}: arrays on different devices ({x1.device} and {x2.device}); "
                        "move them with .to_device()")
    if x1.dtype is x2.dtype and x1.dtype.kind in "iufc":  # (the common case: no promotion to look up)
        return x1.dtype
    for x in (x1, x2):
        if x.dtype.kind not in "iufc":
            raise TypeError(f"{name}: expected numeric arrays, got {x.dtype}")
    return _dtypes.result_type(x1.dtype, x2.dtype)


def _view(x: Array, shape: tuple, strides: tuple) -> Array:
    return x._view(shape, strides, x._offset)


def matmul(x1: Array, x2: Array, /) -> Array:
    """The matrix product ``x1 @ x2`` of (..., M, K) and (..., K, N) arrays, with NumPy's
    rules: a 1-d operand is promoted to a row (x1) or a column (x2) and the added axis
    removed from the result; the leading (stack) axes broadcast.

    Floating and complex products run in the device's BLAS (float16 accumulates in
    float32 on GPUs); integer products in rocarray's reduction engine.

    >>> import rocarray as ra
    >>> ra.matmul(ra.asarray([[1.0, 2.0], [3.0, 4.0]]), ra.asarray([1.0, 1.0]))
    array([3., 7.])
    """
    dtype = _operands("matmul", x1, x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("matmul: operands must have at least one dimension (use multiply for scalars)")
    if dtype.kind in "fc":
        return _blas_matmul(x1, x2, dtype)
    a_shape, a_str = (x1.shape, x1.strides) if x1.ndim > 1 else ((1,) + x1.shape, (0,) + x1.strides)
    b_shape, b_str = (x2.shape, x2.strides) if x2.ndim > 1 else (x2.shape + (1,), x2.strides + (0,))
    m, k = a_shape[-2:]
    k2, n = b_shape[-2:]
    if k != k2:
        raise ValueError(f"matmul: the contracted dimensions differ: {x1.shape} @ {x2.shape} "
                         f"({k} != {k2})")
    try:
        batch = broadcast_shapes(a_shape[:-2], b_shape[:-2])
    except ValueError:
        raise ValueError(f"matmul: batch dimensions of {x1.shape} and {x2.shape} cannot be "
                         "broadcast together") from None
    # A as (..., M, 1, K), B as (..., 1, N, K): reduce the last axis
    a = _view(x1, a_shape[:-2] + (m, 1, k), a_str[:-2] + (a_str[-2], 0, a_str[-1]))
    b = _view(x2, b_shape[:-2] + (1, n, k), b_str[:-2] + (0, b_str[-1], b_str[-2]))
    a, b = (_cast(v, dtype) for v in (a, b))
    nb = len(batch)
    a = _pad(a, nb + 3)
    b = _pad(b, nb + 3)
    (out,) = reduce(_product_sum(dtype, False), [a, b], axis=nb + 2)
    shape = batch + ((m,) if x1.ndim > 1 else ()) + ((n,) if x2.ndim > 1 else ())
    if out.shape == shape:
        return out
    return reshape(out, shape)


def _blas_matmul(x1: Array, x2: Array, dtype) -> Array:
    """``matmul`` of float or complex operands in ``dtype`` through the backend's GEMM."""
    a = x1 if x1.ndim > 1 else _view(x1, (1,) + x1.shape, (0,) + x1.strides)
    b = x2 if x2.ndim > 1 else _view(x2, x2.shape + (1,), x2.strides + (0,))
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"matmul: the contracted dimensions differ: {x1.shape} @ {x2.shape} "
                         f"({a.shape[-1]} != {b.shape[-2]})")
    batch = a.shape[:-2]
    if batch != b.shape[:-2]:
        try:
            batch = broadcast_shapes(batch, b.shape[:-2])
        except ValueError:
            raise ValueError(f"matmul: batch dimensions of {x1.shape} and {x2.shape} cannot be "
                             "broadcast together") from None
    check_size(batch + (a.shape[-2], b.shape[-1]), dtype)  # rocarray's error, before any library's
    out = vendor.backend(a.device).matmul(_cast(a, dtype), _cast(b, dtype))
    if x1.ndim == 1 or x2.ndim == 1:
        shape = out.shape[:-2] + ((out.shape[-2],) if x1.ndim > 1 else ()) + \
            ((out.shape[-1],) if x2.ndim > 1 else ())
        out = reshape(out, shape)
    return out


def _pad(x: Array, ndim: int) -> Array:
    """``x`` with leading axes of extent 1 up to ``ndim`` dimensions (a view)."""
    extra = ndim - x.ndim
    return x if extra <= 0 else _view(x, (1,) * extra + x.shape, (0,) * extra + x.strides)


def _cast(x: Array, dtype) -> Array:
    if x.dtype == dtype:
        return x
    return astype(x, dtype)


def tensordot(x1: Array, x2: Array, /, *, axes=2) -> Array:
    """Sum of products over ``axes`` (an int: the last ``axes`` of ``x1`` with the first of
    ``x2``; or two sequences of axes, paired in order); the result has the free axes of
    ``x1`` then those of ``x2``.  Floating and complex operands become one BLAS ``matmul``.

    >>> ra.tensordot(ra.ones((2, 3)), ra.ones((3, 4)), axes=1).shape
    (2, 4)
    """
    dtype = _operands("tensordot", x1, x2)
    if isinstance(axes, bool):
        raise TypeError("tensordot: axes must be an int or a pair of axis sequences, not a bool")
    if isinstance(axes, int):
        if axes < 0 or axes > min(x1.ndim, x2.ndim):
            raise ValueError(f"tensordot: axes={axes} must be between 0 and the smaller ndim "
                             f"({min(x1.ndim, x2.ndim)})")
        ax1 = tuple(range(x1.ndim - axes, x1.ndim))
        ax2 = tuple(range(axes))
    else:
        try:
            ax1, ax2 = (tuple(int(a) for a in seq) for seq in axes)
        except (TypeError, ValueError):
            raise TypeError("tensordot: axes must be an int or a pair of axis sequences") from None
        if len(ax1) != len(ax2):
            raise ValueError(f"tensordot: {len(ax1)} axes of x1 paired with {len(ax2)} of x2")
    ax1 = tuple(normalize_axes(a, x1.ndim, "tensordot")[0] for a in ax1)
    ax2 = tuple(normalize_axes(a, x2.ndim, "tensordot")[0] for a in ax2)
    if len(set(ax1)) != len(ax1) or len(set(ax2)) != len(ax2):
        raise ValueError("tensordot: an axis is contracted twice")
    for a, b in zip(ax1, ax2):
        if x1.shape[a] != x2.shape[b] and 1 not in (x1.shape[a], x2.shape[b]):
            raise ValueError(f"tensordot: axis {a} of x1 (size {x1.shape[a]}) does not match axis "
                             f"{b} of x2 (size {x2.shape[b]})")
    free1 = [d for d in range(x1.ndim) if d not in ax1]
    free2 = [d for d in range(x2.ndim) if d not in ax2]
    if dtype.kind in "fc":
        # (free1, contracted) @ (contracted, free2) as one matrix product
        csize = tuple(max(x1.shape[a], x2.shape[b]) for a, b in zip(ax1, ax2))
        a = permute_dims(x1, tuple(free1) + ax1)
        b = permute_dims(x2, ax2 + tuple(free2))
        a = broadcast_to(a, a.shape[:len(free1)] + csize)
        b = broadcast_to(b, csize + b.shape[len(ax2):])
        fshape1, fshape2 = a.shape[:len(free1)], b.shape[len(ax2):]
        k = _size(csize)
        prod = matmul(reshape(_cast(a, dtype), (_size(fshape1), k)),
                      reshape(_cast(b, dtype), (k, _size(fshape2))))
        return reshape(prod, fshape1 + fshape2)
    nc = len(ax1)
    # x1 as (free1..., 1 per free2 axis, contracted...), x2 as (1 per free1 axis, free2..., contracted...)
    a = _view(x1, tuple(x1.shape[d] for d in free1) + (1,) * len(free2) + tuple(x1.shape[d] for d in ax1),
              tuple(x1.strides[d] for d in free1) + (0,) * len(free2) + tuple(x1.strides[d] for d in ax1))
    b = _view(x2, (1,) * len(free1) + tuple(x2.shape[d] for d in free2) + tuple(x2.shape[d] for d in ax2),
              (0,) * len(free1) + tuple(x2.strides[d] for d in free2) + tuple(x2.strides[d] for d in ax2))
    a, b = (_cast(v, dtype) for v in (a, b))
    nf = len(free1) + len(free2)
    (out,) = reduce(_product_sum(dtype, False), [a, b], axis=tuple(range(nf, nf + nc)))
    return out


def vecdot(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Sum over ``axis`` of ``conj(x1) * x2`` (the dot product of vectors along ``axis``),
    the other axes broadcast.  Floating and complex operands become a batched ``matmul``.

    >>> ra.vecdot(ra.asarray([1.0, 2.0]), ra.asarray([3.0, 4.0]))
    array(11.)
    """
    dtype = _operands("vecdot", x1, x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("vecdot: operands must have at least one dimension")
    try:
        shape = broadcast_shapes(x1.shape, x2.shape)
    except ValueError:
        raise ValueError(f"vecdot: shapes {x1.shape} and {x2.shape} cannot be broadcast together") from None
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"vecdot: axis must be an int, not {type(axis).__name__}")
    n = min(x1.ndim, x2.ndim)
    if not -n <= axis < n:
        raise IndexError(f"vecdot: axis {axis} is out of bounds for operands of {x1.ndim} and "
                         f"{x2.ndim} dimensions (allowed: {-n} to {n - 1})")
    (ax,) = normalize_axes(axis, len(shape), "vecdot")
    back = ax - len(shape)  # the same axis counted from the end of each operand
    if x1.shape[back] != x2.shape[back]:
        raise ValueError(f"vecdot: the axes differ in size ({x1.shape[back]} and {x2.shape[back]})")
    a, b = (_cast(broadcast_to(v, shape), dtype) for v in (x1, x2))
    if dtype.kind in "fc":
        # a batch of (1, K) @ (K, 1) products, the axis moved last
        order = tuple(d for d in range(len(shape)) if d != ax) + (ax,)
        a, b = permute_dims(a, order), permute_dims(b, order)
        if dtype.kind == "c":
            a = conj(a)
        k = shape[ax]
        rows = _view(a, a.shape[:-1] + (1, k), a.strides[:-1] + (0, a.strides[-1]))
        cols = _view(b, b.shape[:-1] + (k, 1), b.strides[:-1] + (b.strides[-1], 0))
        out = matmul(rows, cols)
        return reshape(out, out.shape[:-2])
    (out,) = reduce(_product_sum(dtype, True), [a, b], axis=ax)
    return out


def _size(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _matmul_method(self, other):
    if not isinstance(other, Array):
        return NotImplemented
    return matmul(self, other)


def _rmatmul_method(self, other):
    if not isinstance(other, Array):
        return NotImplemented
    return matmul(other, self)


def _imatmul_method(self, other):
    result = matmul(self, other)
    if result.shape != self.shape or result.dtype != self.dtype:
        raise ValueError(f"@=: the product has shape {result.shape} and dtype {result.dtype}; "
                         f"it cannot be stored in place into {self.shape} {self.dtype}")
    self[...] = result
    return self


Array.__matmul__ = _matmul_method
Array.__rmatmul__ = _rmatmul_method
Array.__imatmul__ = _imatmul_method
