"""The spec's statistical and utility reductions, from the reduction catalogue (the
``Array`` methods of the same names, with NumPy's signatures, are rocarray/_numpy_methods.py's)."""

from __future__ import annotations

import inspect

from . import _dtypes
from ._array_object import Array
from ._elementwise_functions import abs as _abs, divide, not_equal, sqrt, square, subtract
from ._reduction import _reduction, _scan_plans, scan
from ._views import normalize_axes

_ARGS = """
Args:
    x: an array{accepts}.
    axis: None (every axis), an int or a tuple of distinct ints in ``[-x.ndim, x.ndim)``{axis_note}.
    keepdims: keep the reduced axes with length 1 (the result then broadcasts against ``x``).{dtype_arg}

Raises:
    IndexError: an axis out of range.
    ValueError: a repeated axis{empty}.
    TypeError: a dtype the reduction does not accept.

Examples:
    >>> import rocarray as ra
    >>> x = ra.asarray([[1, 5, 2], [4, 0, 6]])
    >>> {example}
"""

_DOCS = {
    "sum": ("The sum of the elements over ``axis``.",
            "Bools and signed integers sum in ``int64``, unsigned integers in ``uint64``; floats keep "
            "their dtype, ``float16`` accumulating in ``float32``. Floating sums are added in a tree "
            "order, not NumPy's pairwise order (equal within rounding).",
            "ra.sum(x, axis=0)\n    array([5, 5, 8])"),
    "prod": ("The product of the elements over ``axis``.",
             "Result dtypes as ``sum``'s (NumPy's ``prod`` accumulates ``float16`` in ``float16``).",
             "ra.prod(x, axis=1)\n    array([10,  0])"),
    "max": ("The largest element over ``axis``; NaN if any element is NaN.",
            "Complex arrays are refused (no order). A reduction over no elements is a ``ValueError`` "
            "(no identity), unless the result is empty too.",
            "ra.max(x, axis=1)\n    array([5, 6])"),
    "min": ("The smallest element over ``axis``; NaN if any element is NaN.",
            "Complex arrays are refused (no order). A reduction over no elements is a ``ValueError`` "
            "(no identity), unless the result is empty too.",
            "ra.min(x)\n    array(0)"),
    "all": ("Whether every element over ``axis`` is true (non-zero); True for no elements.",
            "The result is ``bool``.",
            "ra.all(x, axis=1)\n    array([ True, False])"),
    "any": ("Whether any element over ``axis`` is true (non-zero); False for no elements.",
            "The result is ``bool``.",
            "ra.any(x == 0)\n    array(True)"),
    "argmax": ("The index of the largest element over ``axis`` (of the flattened array if None): the "
               "first occurrence, or the first NaN.",
               "``axis`` is an int or None (not a tuple); the result is ``int64``. Complex arrays are "
               "refused.",
               "ra.argmax(x, axis=1)\n    array([1, 2])"),
    "argmin": ("The index of the smallest element over ``axis`` (of the flattened array if None): the "
               "first occurrence, or the first NaN.",
               "``axis`` is an int or None (not a tuple); the result is ``int64``. Complex arrays are "
               "refused.",
               "ra.argmin(x)\n    array(4)"),
}


def _documented(name: str):
    op = _reduction(name)
    summary, note, example = _DOCS[name]
    has_dtype = name in ("sum", "prod")
    op.__module__ = __name__  # where the documentation finds it (the class lives in _reduction)
    op.__signature__ = inspect.signature(type(op).__call__).replace(
        parameters=list(inspect.signature(type(op).__call__).parameters.values())[1:])
    op.__doc__ = summary + "\n" + _ARGS.format(
        accepts=" of numbers or bools" if name not in ("max", "min", "argmax", "argmin")
        else " of bools, integers or real floats",
        axis_note=" (argmax/argmin: an int or None)" if name.startswith("arg") else "",
        dtype_arg="\n    dtype: the dtype to accumulate and return in (the elements are cast to it first)."
        if has_dtype else "",
        empty=", or no elements to reduce" if name in ("max", "min", "argmax", "argmin") else "",
        example=example) + "\nNote:\n    " + note + "\n"
    return op


sum = _documented("sum")  # noqa: A001 - the spec's names
prod = _documented("prod")
max = _documented("max")  # noqa: A001
min = _documented("min")  # noqa: A001
all = _documented("all")  # noqa: A001
any = _documented("any")  # noqa: A001
argmax = _documented("argmax")
argmin = _documented("argmin")


# the Array methods (sum, mean, std, ...) take NumPy's signatures: rocarray/_numpy_methods.py


def _floating(x, name: str, axis) -> int:
    """How many elements each result of ``name`` (mean, var, std) reduces; a bad array or
    axis is an error in ``name``'s own words (before the sums they are made of run)."""
    if not isinstance(x, Array):
        raise TypeError(f"{name}: expected a rocarray array, got {type(x).__name__}")
    if x.dtype.kind not in "fc":
        raise TypeError(f"{name}: expected a floating-point array, got {x.dtype}")
    n = 1
    for a in normalize_axes(axis, x.ndim, name):
        n *= x.shape[a]
    return n


# float16 statistics compute in float32 and round once at the end (NumPy's mean does so):
# a float16 sum of 73 x 951.5 is already inf, and so would be its mean; a float16 square of
# a deviation past 256 too.


def mean(x, /, *, axis=None, keepdims=False):
    """The arithmetic mean of the elements over ``axis``.

    Args:
        x: a floating-point array (the standard; NumPy converts integers).
        axis: None (every axis), an int or a tuple of distinct ints.
        keepdims: keep the reduced axes with length 1.

    Returns:
        An array of ``x``'s dtype; NaN for a reduction over no elements, as NumPy. ``float16``
        is computed in ``float32`` and rounded once.

    Examples:
        >>> import rocarray as ra
        >>> ra.mean(ra.asarray([[1.0, 2.0], [3.0, 5.0]]), axis=0)
        array([2. , 3.5])
    """
    n = _floating(x, "mean", axis)
    if x.dtype == _dtypes.float16:
        return _mean(x, axis, keepdims, _dtypes.float32, n).astype(_dtypes.float16)
    return _mean(x, axis, keepdims, None, n)


def _mean(x, axis, keepdims, dtype, n: int):
    s = sum(x, axis=axis, keepdims=keepdims, dtype=dtype)
    return divide(s, float(n)) if n else divide(s, float("nan"))


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    """The variance of the elements over ``axis``, with ``correction`` degrees of freedom removed.

    Computed in two passes (the mean, then the mean square deviation). ``correction=1`` gives
    the sample variance (NumPy's ``ddof=1``). When ``N - correction <= 0`` the result is NaN
    (the standard), where NumPy divides by zero.

    Args:
        x: a floating-point array.
        axis: None, an int or a tuple of distinct ints.
        correction: the degrees of freedom subtracted from the count.
        keepdims: keep the reduced axes with length 1.

    Examples:
        >>> import rocarray as ra
        >>> ra.var(ra.asarray([1.0, 2.0, 3.0, 4.0]), correction=1)
        array(1.66666667)
    """
    n = _floating(x, "var", axis)
    if x.dtype == _dtypes.float16:
        return _var(x.astype(_dtypes.float32), axis, correction, keepdims, n).astype(_dtypes.float16)
    return _var(x, axis, correction, keepdims, n)


def _var(x, axis, correction, keepdims, n: int):
    m = _mean(x, axis, True, None, n)
    d = subtract(x, m)
    d2 = square(_abs(d)) if x.dtype.kind == "c" else square(d)
    s = sum(d2, axis=axis, keepdims=keepdims)
    dof = n - correction
    return divide(s, float(dof) if dof > 0 else float("nan"))


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    """The standard deviation over ``axis``: the square root of ``var`` (same arguments).

    Examples:
        >>> import rocarray as ra
        >>> ra.std(ra.asarray([1.0, 3.0]))
        array(1.)
    """
    n = _floating(x, "std", axis)
    if x.dtype == _dtypes.float16:
        return sqrt(_var(x.astype(_dtypes.float32), axis, correction, keepdims, n)).astype(_dtypes.float16)
    return sqrt(_var(x, axis, correction, keepdims, n))


def count_nonzero(x, /, *, axis=None, keepdims=False):
    """How many elements of ``x`` over ``axis`` are non-zero (True, and NaN, count); ``int64``.

    Examples:
        >>> import rocarray as ra
        >>> ra.count_nonzero(ra.asarray([[0, 1], [2, 0]]), axis=1)
        array([1, 1])
    """
    if not isinstance(x, Array):
        raise TypeError(f"count_nonzero: expected a rocarray array, got {type(x).__name__}")
    normalize_axes(axis, x.ndim, "count_nonzero")  # (a bad axis in its own name, not sum's)

    return sum(not_equal(x, 0 if x.dtype.kind != "b" else False), axis=axis, keepdims=keepdims)


def _cumulative(op, name: str):
    def cumulative(x, /, *, axis=None, dtype=None, include_initial=False):
        # the warm path: a layout seen before goes straight to its launch plan
        try:
            key = (cumulative, dtype, axis, include_initial, x._shape, x._strides, x._dtype, x._buf.device)
            plan = _scan_plans.get(key)
        except (AttributeError, TypeError):  # not an array, or an unhashable argument
            plan = key = None
        if plan is not None and plan.code is plan.kernel.code:
            return plan.run(x)
        if not isinstance(x, Array):
            raise TypeError(f"{name}: expected a rocarray array, got {type(x).__name__}")
        if x.ndim == 0:
            raise ValueError(f"{name}: expected an array of at least one dimension, got a 0-d array")
        if axis is None:
            if x.ndim != 1:
                raise ValueError(f"{name}: axis must be given for a {x.ndim}-d array (None is "
                                 "allowed only for 1-d arrays)")
            axis = 0
        if not isinstance(axis, int):
            raise TypeError(f"{name}: axis must be an int or None, not {type(axis).__name__}")
        (axis,) = normalize_axes(axis, x.ndim, name)
        acc_dt, out_dt = op.dtypes(x.dtype, dtype)
        include_initial = bool(include_initial)
        return scan(op.scan_definition(x.dtype, acc_dt, out_dt, include_initial), x, axis, include_initial,
                    plan_alias=key)

    cumulative.__name__ = cumulative.__qualname__ = name  # (a module-level name for the reference)
    cumulative.__doc__ = (f"The running ``{op.__name__}`` along ``axis`` (required unless ``x`` is 1-d); "
                          "``include_initial`` starts with the identity. Dtypes as ``"
                          f"{op.__name__}``.")
    return cumulative


cumulative_sum = _cumulative(sum, "cumulative_sum")
cumulative_prod = _cumulative(prod, "cumulative_prod")
