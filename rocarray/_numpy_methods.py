"""NumPy's signatures of the reductions, sorts and scans (``sum(a, axis, dtype, out,
keepdims, initial, where)``, ``std(ddof=)``, ``cumsum``, ``unique(return_counts=)``, ...), and
the ``Array`` methods NumPy users call, installed on the class here (as every op module
installs its methods: the dependency points from the op to the array).

The namespace keeps the standard's functions under the standard's names (``rocarray.sum``
is the standard's); these NumPy forms serve the methods, ``__array_function__`` (``np.sum(x,
0)``) and NumPy-only names (``cumsum``, ``amax``, ``unique``)."""

from __future__ import annotations

import operator

from . import _dtypes
from ._array_object import Array
from ._creation_functions import copy_into, zeros_like
from ._data_type_functions import astype
from ._elementwise_functions import (clip as _clip, conj as _conj, maximum as _maximum,
                                     minimum as _minimum, where as _where)
from ._indexing_functions import nonzero as _nonzero, take as _take
from ._manipulation_functions import repeat as _repeat, reshape
from ._numpy_names import _as_array, _into, _named, around, diagonal, dot, swapaxes, trace
from ._numpy_select import _take_mode
from ._set_functions import unique_all, unique_counts, unique_inverse, unique_values
from ._sorting_functions import argsort as _argsort, sort as _sort
from ._statistical_functions import (all as _all, any as _any, argmax as _argmax, argmin as _argmin,
                                     cumulative_prod, cumulative_sum, max as _max, mean as _mean, min as _min,
                                     prod as _prod, std as _std, sum as _sum, var as _var)
from ._views import broadcast_to, squeeze as _squeeze


def _where_fill(x: Array, where, fill, name: str) -> Array:
    """``x`` with the elements outside the mask ``where`` replaced by ``fill`` (the op's
    identity), which is how ``where=`` works in a reduction."""
    if where is None or where is True:
        return x
    mask = _as_array(where, name, x.device)
    if mask.dtype != _dtypes.bool:
        raise TypeError(f"{name}: where must be a bool array, not {mask.dtype}")
    return _where(mask, x, fill)


def np_sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """NumPy's ``sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None,
    where=None)`` (the standard's ``sum`` with ``out``, ``initial`` and ``where``)."""
    x = _where_fill(_as_array(a, "sum"), where, 0, "sum")
    r = _sum(x, axis=axis, dtype=dtype, keepdims=keepdims)
    if initial is not None:
        r = (r + initial).astype(r.dtype)
    return _into(r, out, "sum")


def np_prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """NumPy's ``prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None,
    where=None)``."""
    x = _where_fill(_as_array(a, "prod"), where, 1, "prod")
    r = _prod(x, axis=axis, dtype=dtype, keepdims=keepdims)
    if initial is not None:
        r = (r * initial).astype(r.dtype)
    return _into(r, out, "prod")


def _extreme(name: str, op, a, axis, out, keepdims, initial, where):
    x = _as_array(a, name)
    if where is not None and where is not True:
        if initial is None:
            raise ValueError(f"{name}: a reduction with where= needs an initial value")
        x = _where_fill(x, where, initial, name)
    r = op(x, axis=axis, keepdims=keepdims)
    if initial is not None:
        # (maximum/minimum: a NaN in the line stays NaN, as NumPy's)
        r = astype((_maximum if name == "max" else _minimum)(r, initial), r.dtype)
    return _into(r, out, name)


def amax(a, axis=None, out=None, keepdims=False, initial=None, where=None) -> Array:
    """``amax(a, axis=None, out=None, keepdims=False, initial=None, where=None)``: NumPy's
    ``max`` (``initial`` joins every line; ``where`` masks elements and needs ``initial``).

    Examples:
        >>> import rocarray as ra
        >>> ra.amax(ra.asarray([[1, 5], [3, 2]]), axis=0)
        array([3, 5])
    """
    return _extreme("max", _max, a, axis, out, keepdims, initial, where)


def amin(a, axis=None, out=None, keepdims=False, initial=None, where=None) -> Array:
    """``amin(a, axis=None, out=None, keepdims=False, initial=None, where=None)``: NumPy's
    ``min``.

    Examples:
        >>> import rocarray as ra
        >>> ra.amin(ra.asarray([[1, 5], [3, 2]]), axis=1)
        array([1, 2])
    """
    return _extreme("min", _min, a, axis, out, keepdims, initial, where)


def _np_float(x: Array, dtype) -> Array:
    """NumPy's mean/var/std compute integers and booleans in float64, or in ``dtype``."""
    if dtype is not None:
        return astype(x, dtype)
    return x if x.dtype.kind in "fc" else astype(x, _dtypes.float64)


def np_mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """NumPy's ``mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None)``:
    integer input gives float64."""
    x = _np_float(_as_array(a, "mean"), dtype)
    if where is not None and where is not True:
        mask = _as_array(where, "mean", x.device)
        s = np_sum(x, axis=axis, keepdims=keepdims, where=mask)
        n = _sum(astype(broadcast_to(mask, x.shape), _dtypes.int64), axis=axis, keepdims=keepdims)
        real = _dtypes.float32 if s.dtype == _dtypes.complex64 else _dtypes.float64
        return _into(astype(s / astype(n, s.dtype if s.dtype.kind == "f" else real), s.dtype), out, "mean")
    return _into(_mean(x, axis=axis, keepdims=keepdims), out, "mean")


def _ddof(ddof, correction, name: str):
    if correction is not None:
        if ddof != 0:
            raise ValueError(f"{name}: give ddof or correction, not both")
        return correction
    return ddof


def _np_spread(name: str, spread):
    """NumPy's ``var`` / ``std`` (``ddof=`` or the standard's ``correction=``) over the
    standard's function."""
    def np_spread(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
                  correction=None):
        if where is not None or mean is not None:
            raise TypeError(f"{name}: where= and mean= are not supported")
        x = _np_float(_as_array(a, name), dtype)
        return _into(spread(x, axis=axis, correction=_ddof(ddof, correction, name), keepdims=keepdims), out, name)

    return _named(np_spread, f"np_{name}", f"NumPy's ``{name}(a, axis=None, dtype=None, out=None, ddof=0, "
                 "keepdims=False, *, correction=None)``.")


np_var = _np_spread("var", _var)
np_std = _np_spread("std", _std)


def _arg(name: str, op, a, axis, out, keepdims):
    x = _as_array(a, name)
    if axis is None and x.ndim > 1:
        r = op(reshape(x, (-1,)))
        r = reshape(r, (1,) * x.ndim) if keepdims else r
    else:
        r = op(x, axis=axis, keepdims=keepdims)
    return _into(r, out, name)


def np_argmax(a, axis=None, out=None, *, keepdims=False):
    """NumPy's ``argmax(a, axis=None, out=None, *, keepdims=False)`` (the flat index when
    ``axis`` is None)."""
    return _arg("argmax", _argmax, a, axis, out, keepdims)


def np_argmin(a, axis=None, out=None, *, keepdims=False):
    """NumPy's ``argmin(a, axis=None, out=None, *, keepdims=False)``."""
    return _arg("argmin", _argmin, a, axis, out, keepdims)


def np_all(a, axis=None, out=None, keepdims=False, *, where=None):
    """NumPy's ``all(a, axis=None, out=None, keepdims=False, *, where=None)``."""
    x = _where_fill(_as_array(a, "all"), where, True, "all")
    return _into(_all(x, axis=axis, keepdims=keepdims), out, "all")


def np_any(a, axis=None, out=None, keepdims=False, *, where=None):
    """NumPy's ``any(a, axis=None, out=None, keepdims=False, *, where=None)``."""
    x = _where_fill(_as_array(a, "any"), where, False, "any")
    return _into(_any(x, axis=axis, keepdims=keepdims), out, "any")


def _scan(name: str, op, a, axis, dtype, out):
    x = _as_array(a, name)
    if axis is None:
        x = reshape(x, (-1,))
        axis = 0
    if x.ndim == 0:
        x = reshape(x, (1,))
    return _into(op(x, axis=axis, dtype=dtype), out, name)


def cumsum(a, axis=None, dtype=None, out=None) -> Array:
    """``cumsum(a, axis=None, dtype=None, out=None)``: the running sum along ``axis`` (of the
    flattened array when None), NumPy's name of ``cumulative_sum`` (small integers add in
    int64, as ``sum``).

    Examples:
        >>> import rocarray as ra
        >>> ra.cumsum(ra.asarray([[1, 2], [3, 4]]))
        array([ 1,  3,  6, 10])
    """
    return _scan("cumsum", cumulative_sum, a, axis, dtype, out)


def cumprod(a, axis=None, dtype=None, out=None) -> Array:
    """``cumprod(a, axis=None, dtype=None, out=None)``: the running product, NumPy's name of
    ``cumulative_prod``.

    Examples:
        >>> import rocarray as ra
        >>> ra.cumprod(ra.asarray([1, 2, 3]))
        array([1, 2, 6])
    """
    return _scan("cumprod", cumulative_prod, a, axis, dtype, out)


def _nan_scan(name: str, scan, identity, doc: str):
    """NumPy's ``nancumsum`` / ``nancumprod``: the scan with NaN read as its identity."""
    def nan_scan(a, axis=None, dtype=None, out=None) -> Array:
        x = _as_array(a, name)
        if x.dtype.kind in "fc":
            x = _where(x != x, identity, x)
        return _scan(name, scan, x, axis, dtype, out)

    return _named(nan_scan, name, doc)


nancumsum = _nan_scan("nancumsum", cumulative_sum, 0, """\
    ``nancumsum(a, axis=None, dtype=None, out=None)``: ``cumsum`` with NaN as zero.

    Examples:
        >>> import rocarray as ra
        >>> ra.nancumsum(ra.asarray([1.0, float("nan"), 2.0]))
        array([1., 1., 3.])
    """)
nancumprod = _nan_scan("nancumprod", cumulative_prod, 1, """\
    ``nancumprod(a, axis=None, dtype=None, out=None)``: ``cumprod`` with NaN as one.

    Examples:
        >>> import rocarray as ra
        >>> ra.nancumprod(ra.asarray([2.0, float("nan"), 2.0]))
        array([2., 2., 4.])
    """)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           sorted=True):  # noqa: A002 - NumPy's names
    """``unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
    *, equal_nan=True, sorted=True)``: the sorted distinct values of the flattened ``ar``,
    and as asked the first index of each, the inverse (``ar``'s shape, as NumPy 2) and the
    counts, as a tuple when any is asked.  Built on the standard's ``unique_*``.
    Differences from NumPy: no ``axis``; NaN values are each distinct (the standard's rule;
    NumPy's ``equal_nan=True`` merges them).

    Examples:
        >>> import rocarray as ra
        >>> ra.unique(ra.asarray([3, 1, 3, 2]), return_counts=True)
        (array([1, 2, 3]), array([1, 1, 2]))
    """
    x = _as_array(ar, "unique")
    if axis is not None:
        raise TypeError("unique: axis is not supported; unique works on the flattened array")
    if x.ndim == 0:
        x = reshape(x, (1,))
    flat = reshape(x, (-1,))
    if return_index:
        r = unique_all(flat)
        out = [r.values, r.indices]
        if return_inverse:
            out.append(reshape(r.inverse_indices, x.shape))
        if return_counts:
            out.append(r.counts)
        return tuple(out)
    if return_inverse:
        r = unique_inverse(flat)
        out = [r.values, reshape(r.inverse_indices, x.shape)]
        if return_counts:
            out.append(unique_counts(flat).counts)
        return tuple(out)
    if return_counts:
        r = unique_counts(flat)
        return r.values, r.counts
    return unique_values(flat)


def _np_sorting(name: str, sorting):
    """NumPy's ``sort`` / ``argsort`` over the standard's (``kind=`` is ignored: the sort is
    always stable; ``axis=None`` sorts the flattened array)."""
    def np_sorting(a, axis=-1, kind=None, order=None, *, stable=None):
        if order is not None:
            raise TypeError(f"{name}: order= (structured arrays) is not supported")
        x = _as_array(a, name)
        if axis is None:
            x, axis = reshape(x, (-1,)), 0
        return sorting(x, axis=axis)

    return _named(np_sorting, f"np_{name}", f"NumPy's ``{name}(a, axis=-1, kind=None, order=None, *, "
                 "stable=None)`` (always stable; ``axis=None`` sorts the flattened array).")


np_sort = _np_sorting("sort", _sort)
np_argsort = _np_sorting("argsort", _argsort)


def np_take(a, indices, axis=None, out=None, mode="raise"):
    """NumPy's ``take(a, indices, axis=None, out=None, mode='raise')`` (the flattened array
    when ``axis`` is None; ``mode`` 'wrap' and 'clip' bring the indices into range, as
    ``_numpy_select._take_mode``)."""
    x = _as_array(a, "take")
    idx = _as_array(indices, "take", x.device)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    if mode != "raise" and isinstance(axis, int) and not isinstance(axis, bool) and -x.ndim <= axis < x.ndim:
        idx = _take_mode(idx, x.shape[axis], mode, "take")  # (another axis: take's own error)
    scalar = idx.ndim == 0
    r = _take(x, reshape(idx, (1,)) if scalar else idx, axis=axis)
    if scalar:
        r = _squeeze(r, axis=axis if axis >= 0 else axis + x.ndim)
    return _into(r, out, "take")


def np_repeat(a, repeats, axis=None):
    """NumPy's ``repeat(a, repeats, axis=None)``."""
    return _repeat(_as_array(a, "repeat"), repeats, axis=axis)


def np_clip(a, a_min=None, a_max=None, out=None, *, min=None, max=None):  # noqa: A002 - NumPy's names
    """NumPy's ``clip(a, a_min, a_max, out=None, *, min=None, max=None)``."""
    lo = a_min if min is None else min
    hi = a_max if max is None else max
    return _into(_clip(_as_array(a, "clip"), lo, hi), out, "clip")


def np_squeeze(a, axis=None):
    """NumPy's ``squeeze(a, axis=None)`` (every axis of length 1 when ``axis`` is None)."""
    x = _as_array(a, "squeeze")
    if axis is None:
        axis = tuple(i for i, n in enumerate(x.shape) if n == 1)
    return _squeeze(x, axis=axis)


def where(condition, x1=None, x2=None, /):
    """``where(condition, x1, x2, /)``: elements of ``x1`` where ``condition`` is true, else
    of ``x2`` (broadcast; the standard's).  With the condition alone, NumPy's
    ``nonzero(condition)`` (scikit-learn writes ``xp.where(mask)``).

    Examples:
        >>> import rocarray as ra
        >>> ra.where(ra.asarray([True, False]), 1.0, 2.0)
        array([1., 2.])
    """
    if x1 is None and x2 is None:
        return _nonzero(_as_array(condition, "where"))
    if x1 is None or x2 is None:
        raise TypeError("where: give both x1 and x2, or neither (NumPy's nonzero form)")
    return _where(condition, x1, x2)


def np_round(a, decimals=0, out=None):
    """NumPy's ``round(a, decimals=0, out=None)``."""
    return around(a, decimals, out)


def np_reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    """NumPy's ``reshape(a, shape, order='C', *, copy=None)`` (C order only)."""
    if order != "C":
        raise ValueError(f"reshape: only order='C' is supported, not {order!r}")
    return reshape(_as_array(a, "reshape"), shape if shape is not None else newshape, copy=copy)


# -- Array methods with NumPy's signatures --------------------------------------------------------


def _m_sum(self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """``x.sum(axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None)``:
    NumPy's ``sum`` (``np_sum``)."""
    return np_sum(self, axis, dtype, out, keepdims, initial, where)


def _m_prod(self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """``x.prod(axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None)``: NumPy's ``prod``."""
    return np_prod(self, axis, dtype, out, keepdims, initial, where)


def _m_max(self, axis=None, out=None, keepdims=False, initial=None, where=None):
    """``x.max(axis=None, out=None, keepdims=False, initial=None, where=None)``: NumPy's ``max`` (``amax``)."""
    return amax(self, axis, out, keepdims, initial, where)


def _m_min(self, axis=None, out=None, keepdims=False, initial=None, where=None):
    """``x.min(axis=None, out=None, keepdims=False, initial=None, where=None)``: NumPy's ``min`` (``amin``)."""
    return amin(self, axis, out, keepdims, initial, where)


def _m_mean(self, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """``x.mean(axis=None, dtype=None, out=None, keepdims=False, *, where=None)``: NumPy's ``mean``."""
    # Note: the standard's mean rejects integer arrays; the method follows NumPy (float64)
    return np_mean(self, axis, dtype, out, keepdims, where=where)


def _m_var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=None):
    """``x.var(axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=None)``: NumPy's ``var``."""
    return np_var(self, axis, dtype, out, ddof, keepdims, correction=correction)


def _m_std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=None):
    """``x.std(axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=None)``: NumPy's ``std``."""
    return np_std(self, axis, dtype, out, ddof, keepdims, correction=correction)


def _m_argmax(self, axis=None, out=None, *, keepdims=False):
    """``x.argmax(axis=None, out=None, *, keepdims=False)``:
    the index of the largest element (flat when ``axis`` is None)."""
    return np_argmax(self, axis, out, keepdims=keepdims)


def _m_argmin(self, axis=None, out=None, *, keepdims=False):
    """``x.argmin(axis=None, out=None, *, keepdims=False)``:
    the index of the smallest element (flat when ``axis`` is None)."""
    return np_argmin(self, axis, out, keepdims=keepdims)


def _m_all(self, axis=None, out=None, keepdims=False, *, where=None):
    """``x.all(axis=None, out=None, keepdims=False, *, where=None)``: whether every element is true."""
    return np_all(self, axis, out, keepdims, where=where)


def _m_any(self, axis=None, out=None, keepdims=False, *, where=None):
    """``x.any(axis=None, out=None, keepdims=False, *, where=None)``: whether any element is true."""
    return np_any(self, axis, out, keepdims, where=where)


def _m_cumsum(self, axis=None, dtype=None, out=None):
    """``x.cumsum(axis=None, dtype=None, out=None)``: the running sum (of the flattened array when ``axis`` is None)."""
    return cumsum(self, axis, dtype, out)


def _m_cumprod(self, axis=None, dtype=None, out=None):
    """``x.cumprod(axis=None, dtype=None, out=None)``:
    the running product (of the flattened array when ``axis`` is None)."""
    return cumprod(self, axis, dtype, out)


def _m_sort(self, axis=-1, kind=None, order=None, *, stable=None):
    """Sorts in place, as NumPy's method does."""
    copy_into(self, np_sort(self, axis, kind, order, stable=stable))


def _m_argsort(self, axis=-1, kind=None, order=None, *, stable=None):
    """``x.argsort(axis=-1, kind=None, order=None, *, stable=None)``: the indices that sort ``x`` (always stable)."""
    return np_argsort(self, axis, kind, order, stable=stable)


def _m_clip(self, min=None, max=None, out=None):  # noqa: A002
    return np_clip(self, min, max, out)


def _m_round(self, decimals=0, out=None):
    """``x.clip(min=None, max=None, out=None)``: ``x`` limited to ``[min, max]``."""
    return around(self, decimals, out)


def _m_dot(self, b, out=None):
    """``x.dot(b, out=None)``: NumPy's ``dot(x, b)``."""
    return dot(self, b, out)


def _m_nonzero(self):
    """``x.nonzero()``: the indices of the non-zero elements, one array per axis."""
    return _nonzero(self)


def _m_fill(self, value):
    """Sets every element to ``value``, in place."""
    copy_into(self, value)


def _m_item(self, *args):
    """``x.item(*index)``:
    one element as a Python scalar: the only one, the ``i``-th of the flattened array, or the one at ``(i, j, ...)``."""
    if not args:
        return self._scalar("scalar")
    if len(args) == 1 and isinstance(args[0], tuple):
        args = args[0]
    if len(args) == 1:
        i = operator.index(args[0])
        if not -self.size <= i < self.size:
            raise IndexError(f"item: index {i} is out of bounds for an array of size {self.size}")
        return reshape(self, (-1,))[i]._scalar("scalar")
    return self[tuple(operator.index(i) for i in args)]._scalar("scalar")


def _m_squeeze(self, axis=None):
    """``x.squeeze(axis=None)``: ``x`` without its axes of length 1 (all of them when ``axis`` is None)."""
    return np_squeeze(self, axis)


def _m_swapaxes(self, axis1, axis2):
    """``x.swapaxes(axis1, axis2)``: a view with two axes exchanged."""
    return swapaxes(self, axis1, axis2)


def _m_repeat(self, repeats, axis=None):
    """``x.repeat(repeats, axis=None)``: each element repeated (of the flattened array when ``axis`` is None)."""
    return np_repeat(self, repeats, axis)


def _m_take(self, indices, axis=None, out=None, mode="raise"):
    """``x.take(indices, axis=None, out=None, mode='raise')``: NumPy's ``take``."""
    return np_take(self, indices, axis, out, mode)


def _m_diagonal(self, offset=0, axis1=0, axis2=1):
    """``x.diagonal(offset=0, axis1=0, axis2=1)``: a view of the diagonal (``rocarray.diagonal``)."""
    return diagonal(self, offset, axis1, axis2)


def _m_trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """``x.trace(offset=0, axis1=0, axis2=1, dtype=None, out=None)``: the sum of the diagonal."""
    return trace(self, offset, axis1, axis2, dtype, out)


def _m_conj(self):
    """``x.conj()`` / ``x.conjugate()``: the complex conjugate (``x`` itself for real arrays)."""
    return _conj(self) if self.dtype.kind == "c" else self


def _m_view(self, dtype=None, type=None):  # noqa: A002 - NumPy's names
    """A view of the same memory with another dtype of the same item size (or the same
    dtype); the last axis must be contiguous when the item size differs."""
    if type is not None:
        raise TypeError("view: type= is not supported (rocarray has one array type)")
    if dtype is None:
        return self._view(self.shape, self.strides, self._offset)
    dt = _dtypes.as_dtype(dtype)
    if dt.itemsize == self.dtype.itemsize:
        return Array._new(self._buf, self.shape, self.strides, self._offset, dt)
    if self.ndim == 0 or self.strides[-1] != self.itemsize:
        raise ValueError("view: a dtype of another size needs a contiguous last axis")
    last = self.shape[-1] * self.itemsize
    if last % dt.itemsize:
        raise ValueError(f"view: the last axis ({last} bytes) does not divide into {dt} elements")
    shape = self.shape[:-1] + (last // dt.itemsize,)
    strides = self.strides[:-1] + (dt.itemsize,)
    return Array._new(self._buf, shape, strides, self._offset, dt)


def _m_tobytes(self, order="C"):
    """``x.tobytes(order='C')``: the elements' bytes, copied to the host."""
    return self.get().tobytes(order=order)


def _part(self, which: int) -> Array:
    """The real (``which`` 0) or imaginary (1) parts of a complex array: a view with the
    complex array's strides, as NumPy's and CuPy's ``.real`` and ``.imag``."""
    part = _dtypes.float32 if self.dtype == _dtypes.complex64 else _dtypes.float64
    return Array._new(self._buf, self.shape, self.strides, self._offset + which * part.itemsize, part)


def _real_prop(self):
    """``x.real``: the real parts, a view of ``x`` (``x`` itself for real arrays)."""
    return _part(self, 0) if self.dtype.kind == "c" else self


def _real_set(self, value):
    """``x.real = v``: ``v`` written into the real parts of ``x``."""
    _real_prop(self)[...] = value


def _imag_prop(self):
    """``x.imag``: the imaginary parts, a view of ``x`` (zeros for real arrays)."""
    if self.dtype.kind == "c":
        return _part(self, 1)
    return zeros_like(self)


def _imag_set(self, value):
    """``x.imag = v``: ``v`` written into the imaginary parts of ``x``; a TypeError for a
    real ``x`` (it has none, as in NumPy)."""
    if self.dtype.kind != "c":
        raise TypeError(f"x.imag = ...: a {self.dtype} array has no imaginary part to set")
    _part(self, 1)[...] = value


# NumPy's array methods, installed on Array by name (the array core imports no op)
for _name, _method in {
        "sum": _m_sum,
        "prod": _m_prod,
        "max": _m_max,
        "min": _m_min,
        "mean": _m_mean,
        "var": _m_var,
        "std": _m_std,
        "argmax": _m_argmax,
        "argmin": _m_argmin,
        "all": _m_all,
        "any": _m_any,
        "cumsum": _m_cumsum,
        "cumprod": _m_cumprod,
        "sort": _m_sort,
        "argsort": _m_argsort,
        "clip": _m_clip,
        "round": _m_round,
        "dot": _m_dot,
        "nonzero": _m_nonzero,
        "fill": _m_fill,
        "item": _m_item,
        "squeeze": _m_squeeze,
        "swapaxes": _m_swapaxes,
        "repeat": _m_repeat,
        "take": _m_take,
        "diagonal": _m_diagonal,
        "trace": _m_trace,
        "conj": _m_conj,
        "conjugate": _m_conj,
        "view": _m_view,
        "tobytes": _m_tobytes,
        "real": property(_real_prop, _real_set),
        "imag": property(_imag_prop, _imag_set),
}.items():
    setattr(Array, _name, _method)
