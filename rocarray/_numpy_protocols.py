"""NumPy's protocols on ``Array``: ``__array_ufunc__`` (``np.sin(x)``, ``np.add(x, y,
out=z)``, ``np.add.reduce(x)``) and ``__array_function__`` (``np.concatenate([x, x])``,
``np.sum(x, 0)``), so that NumPy hands the work to rocarray and the result stays a rocarray
array on the array's device.

Rules (docs/numpy_interop.md):
* a NumPy function or ufunc that rocarray has runs rocarray's op, with NumPy's signature;
* one it lacks is a ``TypeError`` naming it and pointing at ``.get()`` / ``asnumpy()``, on
  every device (no silent copy to the host, no NumPy array handed back in its place);
* NumPy arrays mixed with rocarray arrays are accepted on the CPU (copied into rocarray
  arrays) and a ``TypeError`` on a GPU, as CuPy does.
"""

from __future__ import annotations

import numpy as np

from . import _dtypes
from . import _numpy_methods as M
from . import _numpy_more as R
from . import _numpy_names as N
from . import _numpy_numerics as U
from . import _numpy_poly as P
from . import _numpy_select as X
from . import _numpy_stats as S
from . import _numpy_utils as T
from ._array_object import Array
from . import _elementwise_functions as E, fft, linalg
from .lib import stride_tricks
from ._creation_functions import (arange, asarray, copy_into, empty, empty_like, eye, full, full_like, meshgrid, ones,
                                  ones_like, tril, triu, zeros, zeros_like)
from ._data_type_functions import astype
from ._elementwise_functions import _rows as _elementwise_rows, where as _where
from ._indexing_functions import nonzero, searchsorted, take_along_axis
from ._linear_algebra_functions import matmul, tensordot, vecdot
from ._manipulation_functions import diff, moveaxis, roll, stack, tile, unstack
from ._set_functions import unique_all, unique_counts, unique_inverse, unique_values
from ._statistical_functions import count_nonzero, cumulative_prod, cumulative_sum
from ._views import broadcast_arrays, broadcast_to, expand_dims, flip, matrix_transpose, permute_dims

# -- __array_ufunc__ --------------------------------------------------------------------------------

#: NumPy's ufunc names that differ from rocarray's
_UFUNC_NAMES = {
    "absolute": "abs", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh",
    "arctan": "atan", "arctan2": "atan2", "arctanh": "atanh", "invert": "bitwise_invert",
    "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift", "conjugate": "conj",
    "power": "pow", "true_divide": "divide", "rint": "round", "radians": "deg2rad", "degrees": "rad2deg",
}
_UFUNCS = {}
for _name, _row in _elementwise_rows.items():
    if _name not in ("copy", "where", "clip"):
        _UFUNCS[_name] = _row.name
for _np_name, _ra_name in _UFUNC_NAMES.items():
    _UFUNCS[_np_name] = _ra_name

#: ufunc.reduce and ufunc.accumulate: the reductions and scans behind them
_REDUCE = {"add": M.np_sum, "multiply": M.np_prod, "maximum": M.amax, "minimum": M.amin,
           "logical_and": M.np_all, "logical_or": M.np_any}
_ACCUMULATE = {"add": cumulative_sum, "multiply": cumulative_prod}


def _no_host_copy(what: str, device) -> TypeError:
    return TypeError(
        f"{what}: NumPy arrays cannot be mixed with rocarray arrays on {device} (that would "
        "copy through the host silently); move them with rocarray.asarray(a, device=...) "
        "or copy the rocarray array to the host with x.get() or rocarray.asnumpy(x)")


def _find_device(values):
    for v in values:
        if isinstance(v, Array):
            return v.device
        if isinstance(v, (list, tuple)):
            d = _find_device(v)
            if d is not None:
                return d
    return None


def _convert(v, device, what: str):
    """``v`` with NumPy arrays (also inside lists and tuples) made rocarray arrays: on the
    CPU, a copy into rocarray memory; on a GPU, a TypeError."""
    if isinstance(v, np.ndarray):
        if device is not None and device.kind != "cpu":
            raise _no_host_copy(what, device)
        return asarray(v, device=device)
    if isinstance(v, list):
        return [_convert(e, device, what) for e in v]
    if isinstance(v, tuple):
        return tuple(_convert(e, device, what) for e in v)
    return v


def _ufunc_op(ufunc):
    """rocarray's function for the NumPy ufunc (looked up in the namespace's modules)."""
    if ufunc.__name__ in _PRODUCTS:
        return _PRODUCTS[ufunc.__name__]
    name = _UFUNCS.get(ufunc.__name__)
    if name is None:
        return None
    return _ELEMENTWISE.get(name)


def _missing(kind: str, name: str) -> TypeError:
    return TypeError(
        f"rocarray has no {kind} numpy.{name}; copy the array to the host with x.get() or "
        f"rocarray.asnumpy(x) and call NumPy there")


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """``np.<ufunc>(...)`` on rocarray arrays: rocarray's op, on the arrays' device."""
    name = ufunc.__name__
    for v in inputs + tuple(kwargs.get("out", ()) or ()):
        if not isinstance(v, (Array, np.ndarray)) and hasattr(type(v), "__array_ufunc__"):
            return NotImplemented  # another array type: let it (or NumPy) decide
    device = _find_device(inputs) or _find_device(kwargs.get("out", ()) or ())
    what = f"numpy.{name}" + ("" if method == "__call__" else f".{method}")
    inputs = tuple(_convert(v, device, what) for v in inputs)
    out = kwargs.pop("out", None)
    if name in _TWO_RESULTS and method == "__call__":  # (divmod, modf: a pair of results)
        _no_more({k: v for k, v in kwargs.items() if not (k == "where" and v is True)}, what)
        out = None if out is None or all(o is None for o in out) else _convert(out, device, what)
        return _TWO_RESULTS[name](*inputs, out=out)
    if out is not None:
        out = _convert(out, device, what)
        if len(out) != 1:
            raise TypeError(f"{what}: one output expected, got {len(out)}")
        out = out[0]
    if method == "__call__":
        return _ufunc_call(ufunc, name, inputs, out, kwargs, what)
    if method == "reduce":
        op = _REDUCE.get(name)
        if op is None:
            raise _missing("reduction", f"{name}.reduce")
        return _ufunc_reduce(op, inputs, out, kwargs, what)
    if method == "accumulate":
        op = _ACCUMULATE.get(name)
        if op is None:
            raise _missing("scan", f"{name}.accumulate")
        axis = kwargs.pop("axis", 0)
        dtype = kwargs.pop("dtype", None)
        _no_more(kwargs, what)
        return N._into(op(inputs[0], axis=axis, dtype=dtype), out, what)
    if method == "outer":
        fn = _ufunc_op(ufunc)
        if fn is None or len(inputs) != 2:
            raise _missing("ufunc", name)
        a, b = (N._as_array(v, what, device) for v in inputs)
        _no_more(kwargs, what)
        return N._into(fn(N.reshape(a, a.shape + (1,) * b.ndim), b), out, what)
    raise _missing("ufunc method", f"{name}.{method}")


def _no_more(kwargs: dict, what: str) -> None:
    for k, v in kwargs.items():
        if k == "casting" and v == "same_kind" or k == "order" and v in ("K", "C") or k == "subok" and v:
            continue
        if k == "signature" and v is None:
            continue
        raise TypeError(f"{what}: argument {k}={v!r} is not supported")


def _ufunc_call(ufunc, name, inputs, out, kwargs, what):
    fn = _ufunc_op(ufunc)
    if fn is None:
        raise _missing("ufunc", name)
    where = kwargs.pop("where", True)
    dtype = kwargs.pop("dtype", None)
    _no_more(kwargs, what)
    if dtype is not None:
        dt = _dtypes.as_dtype(dtype)
        inputs = tuple(astype(v, dt) if isinstance(v, Array) else asarray(v, dtype=dt, device=_find_device(inputs))
                       for v in inputs)
    if name in _PRODUCTS:  # (generalized ufuncs: no out= or where= of their own)
        if where is not True:
            raise TypeError(f"{what}: where= is not supported")
        return N._into(fn(*(N._as_array(v, what, _find_device(inputs)) for v in inputs)), out, what)
    if where is True:
        if out is None:
            return fn(*inputs)
        if not isinstance(out, Array):
            raise TypeError(f"{what}: out must be a rocarray array, not {type(out).__name__}")
        return fn(*inputs, out=out)
    # where=: the result where the mask holds, out's old values elsewhere (NumPy leaves the
    # other elements of a new result unspecified; here they are the result's too)
    r = fn(*inputs)
    if out is None:
        return r
    mask = N._as_array(where, what, out.device)
    copy_into(out, _where(mask, r, out))
    return out


def _ufunc_reduce(op, inputs, out, kwargs, what):
    if len(inputs) != 1:
        raise TypeError(f"{what}: one input expected")
    axis = kwargs.pop("axis", 0)
    keepdims = kwargs.pop("keepdims", False)
    dtype = kwargs.pop("dtype", None)
    initial = kwargs.pop("initial", None)
    where = kwargs.pop("where", True)
    _no_more(kwargs, what)
    args = {"axis": axis, "out": out, "keepdims": keepdims}
    if op in (M.np_sum, M.np_prod):
        args.update(dtype=dtype, initial=initial, where=None if where is True else where)
    elif op in (M.amax, M.amin):
        args.update(initial=initial, where=None if where is True else where)
    else:
        if dtype is not None and _dtypes.as_dtype(dtype) != _dtypes.bool or initial is not None:
            raise TypeError(f"{what}: dtype and initial are not supported")
        args.update(where=None if where is True else where)
    return op(inputs[0], **args)


# -- __array_function__ -------------------------------------------------------------------------


def _np_like(fn, by_shape, fill: bool = False):
    """NumPy's ``zeros_like(a, dtype=None, order='K', subok=True, shape=None, *, device)``
    (and ``full_like(a, fill_value, ...)``): ``shape`` makes a new shape of ``a``'s dtype."""
    def like(a, *args, dtype=None, order="K", subok=True, shape=None, device=None):
        x = N._as_array(a, fn.__name__)
        if fill:
            if not args:
                raise TypeError("full_like: fill_value is required")
            value, args = args[0], args[1:]
        if args:
            dtype = args[0]
        if shape is None:
            return fn(x, value, dtype=dtype, device=device) if fill else fn(x, dtype=dtype, device=device)
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        dt = x.dtype if dtype is None else dtype
        dev = x.device if device is None else device
        return by_shape(shape, value, dtype=dt, device=dev) if fill else by_shape(shape, dtype=dt, device=dev)
    return like


def _np_stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    arrays = [N._as_array(a, "stack") for a in arrays]
    if dtype is not None:
        arrays = [astype(a, dtype) for a in arrays]
    return N._into(stack(arrays, axis=axis), out, "stack")


def _np_meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    if sparse:
        raise TypeError("meshgrid: sparse=True is not supported")
    return meshgrid(*xi, indexing=indexing)


def _np_real(val):
    x = N._as_array(val, "real")
    return x.real


def _np_imag(val):
    x = N._as_array(val, "imag")
    return x.imag


def _creation(like_device):
    """NumPy's creation functions called with ``like=x``: made on ``x``'s device."""
    def np_asarray(a, dtype=None, order=None, *, device=None, copy=None):
        return asarray(a, dtype=dtype, device=device or like_device, copy=copy)

    def np_array(obj, dtype=None, *, copy=True, order="K", subok=False, ndmin=0):
        return N.array(obj, dtype, copy=copy, ndmin=ndmin, device=like_device)

    def np_zeros(shape, dtype=None, order="C", *, device=None):
        return zeros(shape, dtype=dtype, device=device or like_device)

    def np_ones(shape, dtype=None, order="C", *, device=None):
        return ones(shape, dtype=dtype, device=device or like_device)

    def np_empty(shape, dtype=None, order="C", *, device=None):
        return empty(shape, dtype=dtype, device=device or like_device)

    def np_full(shape, fill_value, dtype=None, order="C", *, device=None):
        return full(shape, fill_value, dtype=dtype, device=device or like_device)

    def np_arange(start, stop=None, step=1, dtype=None, *, device=None):
        return arange(start, stop, step, dtype=dtype, device=device or like_device)

    def np_eye(N, M=None, k=0, dtype=None, order="C", *, device=None):  # noqa: N803 - NumPy's names
        return eye(N, M, k=k, dtype=dtype, device=device or like_device)

    def np_identity(n, dtype=None):
        return eye(n, dtype=dtype, device=like_device)

    return {"asarray": np_asarray, "asanyarray": np_asarray, "ascontiguousarray": np_asarray,
            "array": np_array, "zeros": np_zeros, "ones": np_ones, "empty": np_empty, "full": np_full,
            "arange": np_arange, "eye": np_eye, "identity": np_identity}


_CREATION = {getattr(np, name): name for name in _creation(None)}

#: NumPy function -> rocarray's implementation with NumPy's signature
_FUNCTIONS = {
    "sum": M.np_sum, "prod": M.np_prod, "max": M.amax, "amax": M.amax, "min": M.amin, "amin": M.amin,
    "mean": M.np_mean, "var": M.np_var, "std": M.np_std, "argmax": M.np_argmax, "argmin": M.np_argmin,
    "all": M.np_all, "any": M.np_any, "cumsum": M.cumsum, "cumprod": M.cumprod, "nancumsum": M.nancumsum,
    "nancumprod": M.nancumprod, "cumulative_sum": cumulative_sum, "cumulative_prod": cumulative_prod,
    "sort": M.np_sort, "argsort": M.np_argsort, "take": M.np_take, "repeat": M.np_repeat, "clip": M.np_clip,
    "squeeze": M.np_squeeze, "where": M.where, "round": M.np_round, "around": N.around, "reshape": M.np_reshape,
    "unique": M.unique, "unique_values": unique_values, "unique_counts": unique_counts,
    "unique_inverse": unique_inverse, "unique_all": unique_all,
    "concat": N.concatenate, "stack": _np_stack, "diff": diff, "meshgrid": _np_meshgrid,
    "tril": lambda m, k=0: tril(m, k=k), "triu": lambda m, k=0: triu(m, k=k),
    "flip": lambda m, axis=None: flip(N._as_array(m, "flip"), axis=axis),
    "tensordot": lambda a, b, axes=2: tensordot(*N._operands("tensordot", a, b), axes=axes),
    "searchsorted": lambda a, v, side="left", sorter=None: searchsorted(a, v, side=side, sorter=sorter),
    "matmul": matmul, "vecdot": vecdot, "count_nonzero": count_nonzero, "nonzero": nonzero,
    "take_along_axis": lambda arr, indices, axis=-1: take_along_axis(arr, indices, axis=axis),
    "broadcast_to": lambda array, shape, subok=False: broadcast_to(array, shape),
    "broadcast_arrays": lambda *args, subok=False: broadcast_arrays(*args),
    "expand_dims": expand_dims, "moveaxis": moveaxis, "roll": roll, "tile": tile, "unstack": unstack,
    "permute_dims": permute_dims, "matrix_transpose": matrix_transpose, "astype": astype,
    "zeros_like": _np_like(zeros_like, zeros), "ones_like": _np_like(ones_like, ones),
    "empty_like": _np_like(empty_like, empty), "full_like": _np_like(full_like, full, fill=True),
    "real": _np_real, "imag": _np_imag, "sinc": E.sinc,
}
for _module in (N, S, X, R, U, P, T):
    for _name in dir(_module):
        _fn = getattr(_module, _name)
        if not _name.startswith("_") and callable(_fn) and _name not in _FUNCTIONS and \
                getattr(_fn, "__module__", None) == _module.__name__:
            _FUNCTIONS[_name] = _fn

#: the NumPy callables themselves (what __array_function__ is given) -> implementation
_HANDLED = {getattr(np, name): fn for name, fn in _FUNCTIONS.items() if callable(getattr(np, name, None))}
# numpy.linalg, numpy.fft and numpy.lib.stride_tricks: the functions of the same names (the standard's
# signatures; NumPy-only arguments are the extension's TypeError)
for _np_module, _ra_module in ((np.linalg, linalg), (np.fft, fft), (np.lib.stride_tricks, stride_tricks)):
    for _name in dir(_ra_module):
        _np_fn, _fn = getattr(_np_module, _name, None), getattr(_ra_module, _name)
        if not _name.startswith("_") and callable(_np_fn) and not isinstance(_np_fn, type) and callable(_fn):
            _HANDLED.setdefault(_np_fn, _fn)


def _array_function(self, func, types, args, kwargs):
    """``np.<function>(...)`` on rocarray arrays: rocarray's implementation with NumPy's
    signature, or a TypeError naming the function when rocarray has none."""
    for t in types:
        if not issubclass(t, (Array, np.ndarray)):
            return NotImplemented
    if func in _CREATION:  # np.asarray(..., like=x): on x's device
        return _creation(self.device)[_CREATION[func]](*args, **kwargs)
    fn = _HANDLED.get(func)
    module = getattr(func, "__module__", None) or "numpy"
    name = getattr(func, "__name__", str(func))
    if fn is None:
        raise _missing("function", f"{module.removeprefix('numpy').lstrip('.')}.{name}".lstrip("."))
    device = _find_device(args) or _find_device(tuple(kwargs.values()))
    what = f"numpy.{name}"
    args = tuple(_convert(v, device, what) for v in args)
    kwargs = {k: _convert(v, device, what) for k, v in kwargs.items()}
    return fn(*args, **kwargs)


#: NumPy's generalized ufuncs that are rocarray's products
_PRODUCTS = {"matmul": matmul, "vecdot": vecdot, "matvec": T.matvec, "vecmat": T.vecmat}
_ELEMENTWISE = {name: getattr(E, name) for name in set(_UFUNCS.values()) if hasattr(E, name)}
_UFUNCS["float_power"] = "float_power"  # (a composition: float64 or complex128 operands, then pow)
_ELEMENTWISE["float_power"] = U.float_power
#: NumPy's ufuncs of two results (compositions returning a pair)
_TWO_RESULTS = {"divmod": U.divmod, "modf": U.modf, "frexp": U.frexp}
# NumPy's ufuncs whose rocarray functions are compositions of catalogue rows
_ELEMENTWISE.update(ldexp=U.ldexp, spacing=U.spacing, bitwise_count=U.bitwise_count)

Array.__array_ufunc__ = _array_ufunc
Array.__array_function__ = _array_function
