"""NumPy's statistics and numerics beside the standard's: quantiles, the NaN-skipping
reductions, histograms and counts, closeness tests, weighted averages, covariance,
interpolation and convolution, with NumPy's signatures, composed of the standard's
functions (sorts, scans, gathers, reductions, ``matmul``) so that they run on the device."""

from __future__ import annotations

import builtins
import math

import numpy as np

from . import _dtypes
from ._array_object import Array, _check_same_device
from ._creation_functions import arange, full, linspace, zeros
from ._data_type_functions import astype
from ._elementwise_functions import (abs as _abs, add, conj, divide, equal, floor_divide, greater, isfinite, isnan,
                                     less, less_equal, logical_and, logical_not, logical_or, multiply,
                                     sqrt, subtract, where)
from ._indexing_functions import searchsorted, take
from ._linear_algebra_functions import matmul
from ._manipulation_functions import concat, diff, reshape
from . import linalg
from ._numpy_names import _as_array, _into, _named, _operands, ravel
from ._sorting_functions import argsort, sort
from ._statistical_functions import cumulative_sum, max as _max, min as _min, sum as _sum
from ._views import expand_dims, flip, normalize_axes, permute_dims


def _float(x: Array) -> Array:
    """``x`` in a floating dtype: booleans and integers as float64 (NumPy's statistics)."""
    return x if x.dtype.kind in "fc" else astype(x, _dtypes.float64)


def _axes_last(x: Array, axis, name: str) -> tuple:
    """``x`` with the reduced axes moved last and merged into one, and the kept shape."""
    axes = normalize_axes(axis, x.ndim, name)
    keep = [i for i in range(x.ndim) if i not in axes]
    kept_shape = tuple(x.shape[i] for i in keep)
    xp = permute_dims(x, tuple(keep) + axes)
    return reshape(xp, kept_shape + (-1,)), kept_shape, axes


def _keepdims(r: Array, x_ndim: int, axes: tuple, lead: int) -> Array:
    """``r`` (``lead`` leading q axes, then the kept axes) with the reduced axes back as 1."""
    shape = list(r.shape[:lead])
    rest = iter(r.shape[lead:])
    for i in range(x_ndim):
        shape.append(1 if i in axes else next(rest))
    return reshape(r, tuple(shape))


_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _check_q(q, name: str, scale: float):
    qa = np.asarray(q.get() if isinstance(q, Array) else q, dtype=np.float64) / scale
    if qa.ndim > 1:
        raise ValueError(f"{name}: q must be a scalar or 1-D, got {qa.ndim} dimensions")
    if not ((qa >= 0) & (qa <= 1)).all():
        bound = "[0, 100]" if scale == 100 else "[0, 1]"
        raise ValueError(f"{name}: q must lie in {bound}")
    return qa


def _quantile(name: str, a, q, axis, out, method, keepdims, *, skip_nan: bool, scale: float = 1.0,
              weights=None):
    if weights is not None:
        raise TypeError(f"{name}: weights are not supported")
    x = _as_array(a, name)
    if x.dtype.kind == "c":
        raise TypeError(f"{name}: complex arrays have no order")
    if method not in _QUANTILE_METHODS:
        raise ValueError(f"{name}: method {method!r} is not supported; use one of {', '.join(_QUANTILE_METHODS)}")
    qa = _check_q(q, name, scale)
    x = _float(x)
    flat, kept, axes = _axes_last(x, axis, name)
    n = flat.shape[-1]
    if n == 0:
        raise ValueError(f"{name}: cannot take a quantile of an empty axis")
    s = sort(flat, axis=-1)  # NaN last
    qs = qa.reshape(-1)
    if skip_nan:
        # each line has its own count of numbers: the positions are arrays
        count = _sum(logical_not(isnan(flat)), axis=-1, keepdims=True)
        last = subtract(astype(count, _dtypes.float64), 1.0)
        results = [_take_position(s, multiply(last, float(p)), method, count) for p in qs]
    else:
        results = [_take_position(s, float(p) * (n - 1), method, None) for p in qs]
        has_nan = _any_nan(flat)
        if has_nan is not None:
            results = [where(has_nan, float("nan"), r) for r in results]
    r = concat([expand_dims(r, axis=0) for r in results], axis=0) if qa.ndim else results[0]
    lead = 1 if qa.ndim else 0
    if qa.ndim:
        r = reshape(r, (len(qs),) + kept)
    else:
        r = reshape(r, kept)
    if keepdims:
        r = _keepdims(r, x.ndim, axes, lead)
    if r.dtype != x.dtype:
        r = astype(r, x.dtype)
    return _into(r, out, name)


def _any_nan(flat: Array):
    if flat.dtype.kind != "f":
        return None
    return isnan(_max(flat, axis=-1)) if flat.shape[-1] else None  # NaN sorts and compares as the largest


def _take_position(s: Array, pos, method: str, count):
    """The quantile at ``pos`` (a float, or an array of one per line) of the sorted lines."""
    if isinstance(pos, Array):
        lo = astype(floor_divide(pos, 1.0), _dtypes.int64)
        lo = where(less(lo, 0), 0, lo)
        frac = subtract(pos, astype(lo, pos.dtype))
        hi = where(less(lo, subtract(count, 1)), add(lo, 1), lo)
        vlo = _along(s, lo)
        vhi = _along(s, hi)
        empty = equal(count, 0)
    else:
        lo_i = int(math.floor(pos))
        hi_i = builtins.min(lo_i + 1, s.shape[-1] - 1)
        frac = pos - lo_i
        vlo = s[..., lo_i]
        vhi = s[..., hi_i]
        empty = None
    if method == "lower":
        r = vlo
    elif method == "higher":
        r = where(greater(frac, 0), vhi, vlo) if isinstance(frac, Array) else (vhi if frac > 0 else vlo)
    elif method == "midpoint":
        r = where(greater(frac, 0), multiply(add(vlo, vhi), 0.5), vlo) if isinstance(frac, Array) else (
            multiply(add(vlo, vhi), 0.5) if frac > 0 else vlo)
    elif method == "nearest":
        # NumPy rounds half to even on the position
        if isinstance(frac, Array):
            up = logical_or(greater(frac, 0.5), logical_and(equal(frac, 0.5), equal(_odd(lo), 1)))
            r = where(up, vhi, vlo)
        else:
            r = vhi if (frac > 0.5 or (frac == 0.5 and lo_i % 2 == 1)) else vlo
    else:
        f = frac if not isinstance(frac, Array) else astype(frac, s.dtype) if s.dtype.kind == "f" else frac
        # NumPy's lerp: the one of the two forms that is exact at its end
        r = add(vlo, multiply(subtract(vhi, vlo), f))
    if isinstance(r, Array) and r.ndim > s.ndim - 1:
        r = reshape(r, r.shape[:-1])
    if empty is not None:
        r = where(reshape(empty, empty.shape[:-1]), float("nan"), r)
    return r


def _odd(i: Array) -> Array:
    return subtract(i, multiply(floor_divide(i, 2), 2))


def _along(s: Array, idx: Array) -> Array:
    """``s[..., idx[..., 0]]`` per line (the index array has one entry per line)."""
    lines = reshape(s, (-1, s.shape[-1]))
    flat_idx = add(multiply(arange(lines.shape[0], device=s.device), s.shape[-1]), reshape(idx, (-1,)))
    return reshape(take(reshape(lines, (-1,)), flat_idx), idx.shape)


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
             weights=None):
    """``quantile(a, q, axis=None, out=None, overwrite_input=False, method='linear',
    keepdims=False)``: the ``q``-th quantiles (``q`` in [0, 1], a scalar or 1-D) along
    ``axis``; a line holding NaN gives NaN.  Sorts on the device.  Differences from NumPy:
    methods ``linear``, ``lower``, ``higher``, ``midpoint``, ``nearest`` only; no weights.

    Examples:
        >>> import rocarray as ra
        >>> ra.quantile(ra.asarray([1.0, 2.0, 3.0, 4.0]), 0.5)
        array(2.5)
    """
    return _quantile("quantile", a, q, axis, out, method, keepdims, skip_nan=False, weights=weights)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
               weights=None):
    """``percentile(a, q, axis=None, out=None, overwrite_input=False, method='linear',
    keepdims=False)``: ``quantile`` with ``q`` in percent.

    Examples:
        >>> import rocarray as ra
        >>> ra.percentile(ra.asarray([1.0, 2.0, 3.0, 4.0]), 25)
        array(1.75)
    """
    return _quantile("percentile", a, q, axis, out, method, keepdims, skip_nan=False, scale=100.0, weights=weights)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``median(a, axis=None, out=None, overwrite_input=False, keepdims=False)``: the middle
    value (the mean of the two middle values for an even count) along ``axis``.

    Examples:
        >>> import rocarray as ra
        >>> ra.median(ra.asarray([3.0, 1.0, 2.0]))
        array(2.)
    """
    return _quantile("median", a, 0.5, axis, out, "linear", keepdims, skip_nan=False)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    """``nanquantile(...)``: ``quantile`` ignoring NaN (NaN where a line has only NaN).

    Examples:
        >>> import rocarray as ra
        >>> ra.nanquantile(ra.asarray([1.0, float("nan"), 3.0]), 0.5)
        array(2.)
    """
    return _quantile("nanquantile", a, q, axis, out, method, keepdims, skip_nan=True)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    """``nanpercentile(...)``: ``percentile`` ignoring NaN.

    Examples:
        >>> import rocarray as ra
        >>> ra.nanpercentile(ra.asarray([1.0, float("nan"), 3.0]), 50)
        array(2.)
    """
    return _quantile("nanpercentile", a, q, axis, out, method, keepdims, skip_nan=True, scale=100.0)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``nanmedian(...)``: ``median`` ignoring NaN.

    Examples:
        >>> import rocarray as ra
        >>> ra.nanmedian(ra.asarray([1.0, float("nan"), 3.0]))
        array(2.)
    """
    return _quantile("nanmedian", a, 0.5, axis, out, "linear", keepdims, skip_nan=True)


# -- NaN-skipping reductions ----------------------------------------------------------------------


def _nan_to(x: Array, value) -> Array:
    return where(isnan(x), value, x) if x.dtype.kind in "fc" else x


def nansum(a, axis=None, dtype=None, out=None, keepdims=False):
    """``nansum(a, axis=None, dtype=None, out=None, keepdims=False)``: ``sum`` with NaN
    counted as zero.

    Examples:
        >>> import rocarray as ra
        >>> ra.nansum(ra.asarray([1.0, float("nan"), 2.0]))
        array(3.)
    """
    x = _as_array(a, "nansum")
    return _into(_sum(_nan_to(x, 0), axis=axis, dtype=dtype, keepdims=keepdims), out, "nansum")


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False):
    """``nanprod(...)``: ``prod`` with NaN counted as one.

    Examples:
        >>> import rocarray as ra
        >>> ra.nanprod(ra.asarray([2.0, float("nan"), 3.0]))
        array(6.)
    """
    x = _as_array(a, "nanprod")
    return _into(_nan_to(x, 1).prod(axis=axis, dtype=dtype, keepdims=keepdims), out, "nanprod")


def _nan_extreme(name: str, a, axis, out, keepdims, pick, fill):
    x = _as_array(a, name)
    if x.dtype.kind not in "f":
        return _into(pick(x, axis=axis, keepdims=keepdims), out, name)
    nan = isnan(x)
    r = pick(where(nan, fill, x), axis=axis, keepdims=keepdims)
    # a line of NaN only is NaN (NumPy warns and gives NaN)
    r = where(nan.all(axis=axis, keepdims=keepdims), float("nan"), r)
    return _into(r, out, name)


def nanmax(a, axis=None, out=None, keepdims=False):
    """``nanmax(a, axis=None, out=None, keepdims=False)``: ``max`` ignoring NaN (NaN for a
    line of NaN only, without NumPy's warning).

    Examples:
        >>> import rocarray as ra
        >>> ra.nanmax(ra.asarray([1.0, float("nan"), 2.0]))
        array(2.)
    """
    return _nan_extreme("nanmax", a, axis, out, keepdims, _max, -float("inf"))


def nanmin(a, axis=None, out=None, keepdims=False):
    """``nanmin(a, axis=None, out=None, keepdims=False)``: ``min`` ignoring NaN.

    Examples:
        >>> import rocarray as ra
        >>> ra.nanmin(ra.asarray([1.0, float("nan"), 2.0]))
        array(1.)
    """
    return _nan_extreme("nanmin", a, axis, out, keepdims, _min, float("inf"))


def _nan_input(a, name: str, dtype) -> Array:
    """The operand of a NaN-ignoring statistic: a floating array (integers as float64), in
    ``dtype`` when given."""
    x = _float(_as_array(a, name))
    return x if dtype is None else astype(x, dtype)


def _nan_count(x: Array, axis, keepdims):
    return _sum(logical_not(isnan(x)), axis=axis, keepdims=keepdims)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False):
    """``nanmean(a, axis=None, dtype=None, out=None, keepdims=False)``: the mean of the
    numbers that are not NaN (NaN for none).

    Examples:
        >>> import rocarray as ra
        >>> ra.nanmean(ra.asarray([1.0, float("nan"), 3.0]))
        array(2.)
    """
    x = _nan_input(a, "nanmean", dtype)
    s = _sum(_nan_to(x, 0), axis=axis, keepdims=keepdims)
    n = _nan_count(x, axis, keepdims)
    return _into(astype(divide(s, astype(n, _real(x.dtype))), s.dtype), out, "nanmean")


def _real(dt):
    return {np.dtype(np.complex64): _dtypes.float32, np.dtype(np.complex128): _dtypes.float64}.get(dt, dt)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """``nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False)``: the variance
    of the numbers that are not NaN.

    Examples:
        >>> import rocarray as ra
        >>> ra.nanvar(ra.asarray([1.0, float("nan"), 3.0]))
        array(1.)
    """
    x = _nan_input(a, "nanvar", dtype)
    n = astype(_nan_count(x, axis, True), _real(x.dtype))
    m = divide(_sum(_nan_to(x, 0), axis=axis, keepdims=True), n)
    d = _nan_to(subtract(x, m), 0)
    d2 = multiply(d, conj(d)) if x.dtype.kind == "c" else multiply(d, d)
    s = _sum(d2, axis=axis, keepdims=keepdims)
    if x.dtype.kind == "c":
        s = s.real if hasattr(s, "real") else s
    dof = subtract(astype(_nan_count(x, axis, keepdims), _real(x.dtype)), float(ddof))
    r = divide(s, where(greater(dof, 0), dof, float("nan")))
    return _into(r, out, "nanvar")


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """``nanstd(...)``: the square root of ``nanvar``.

    Examples:
        >>> import rocarray as ra
        >>> ra.nanstd(ra.asarray([1.0, float("nan"), 3.0]))
        array(1.)
    """
    return _into(sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)), out, "nanstd")


def _nan_arg(name: str, method: str, fill: float, doc: str):
    """NumPy's ``nanargmax`` / ``nanargmin``: NaN replaced by the value that never wins; a
    slice of NaN only is a ValueError, as NumPy."""
    def nan_arg(a, axis=None, out=None, keepdims=False):
        x = _as_array(a, name)
        if x.dtype.kind == "f":
            if bool(isnan(x).all(axis=axis).any()):
                raise ValueError(f"{name}: a slice holds only NaN")
            x = _nan_to(x, fill)
        return _into(getattr(x, method)(axis=axis, keepdims=keepdims), out, name)

    return _named(nan_arg, name, doc)


nanargmax = _nan_arg("nanargmax", "argmax", -float("inf"), """\
    ``nanargmax(a, axis=None, ...)``: ``argmax`` ignoring NaN (a line of NaN only is a
    ValueError, as NumPy).

    Examples:
        >>> import rocarray as ra
        >>> ra.nanargmax(ra.asarray([1.0, float("nan"), 2.0]))
        array(2)
    """)
nanargmin = _nan_arg("nanargmin", "argmin", float("inf"), """\
    ``nanargmin(a, axis=None, ...)``: ``argmin`` ignoring NaN.

    Examples:
        >>> import rocarray as ra
        >>> ra.nanargmin(ra.asarray([1.0, float("nan"), 0.5]))
        array(2)
    """)


# -- counts and histograms ------------------------------------------------------------------------


def bincount(x, weights=None, minlength=0) -> Array:
    """``bincount(x, weights=None, minlength=0)``: how many times each value ``0..max(x)``
    occurs in the 1-D non-negative integer array ``x`` (int64), or the sum of ``weights``
    (float64, complex128 for complex weights) at each.  Sorts ``x`` on the device and
    finds each value's run with ``searchsorted``; weights are summed through a running
    sum (its differences), so float sums may differ from NumPy's in the last bits.

    Examples:
        >>> import rocarray as ra
        >>> ra.bincount(ra.asarray([0, 1, 1, 3]))
        array([1, 2, 0, 1])
    """
    v = _as_array(x, "bincount")
    if v.ndim != 1:
        raise ValueError(f"bincount: x must be 1-D, got {v.ndim} dimensions")
    if v.dtype.kind not in "biu":
        raise TypeError(f"bincount: x must hold integers, not {v.dtype}")
    minlength = int(minlength)
    if minlength < 0:
        raise ValueError("bincount: minlength must be non-negative")
    if v.size and v.dtype.kind == "i" and int(_min(v)) < 0:
        raise ValueError("bincount: x must not hold negative values")
    n = builtins.max(int(_max(v)) + 1 if v.size else 0, minlength)
    edges = arange(n + 1, dtype=v.dtype if v.dtype.kind != "b" else _dtypes.int64, device=v.device)
    if v.dtype.kind == "b":
        v = astype(v, _dtypes.int64)
    if weights is None:
        bounds = searchsorted(sort(v), edges, side="left")
        return diff(bounds)
    w = _as_array(weights, "bincount", v.device)
    if w.shape != v.shape:
        raise ValueError(f"bincount: weights of shape {w.shape} do not match x of shape {v.shape}")
    order = argsort(v)
    bounds = searchsorted(take(v, order), edges, side="left")
    wt = _dtypes.complex128 if w.dtype.kind == "c" else _dtypes.float64
    cs = cumulative_sum(astype(take(w, order), wt), include_initial=True)
    return subtract(take(cs, bounds[1:]), take(cs, bounds[:-1]))


def _bin_edges(x: Array, bins, range_, name: str) -> Array:
    if isinstance(bins, str):
        raise ValueError(f"{name}: bins={bins!r} (a rule by name) is not supported; give a count or edges")
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        if bins < 1:
            raise ValueError(f"{name}: bins must be a positive count, got {bins}")
        if range_ is not None:
            lo, hi = float(range_[0]), float(range_[1])
            if lo > hi:
                raise ValueError(f"{name}: range must be (min, max) with min <= max, got {range_}")
        elif x.size:
            lo, hi = float(_min(x)), float(_max(x))
        else:
            lo, hi = 0.0, 1.0
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise ValueError(f"{name}: the range [{lo}, {hi}] is not finite")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        dt = x.dtype if x.dtype.kind == "f" else _dtypes.float64
        return linspace(lo, hi, int(bins) + 1, dtype=dt, device=x.device)
    edges = _as_array(bins, name, x.device)
    if edges.ndim != 1 or edges.size < 2:
        raise ValueError(f"{name}: bin edges must be a 1-D array of at least 2 values")
    if bool(less(diff(edges), 0).any()):
        raise ValueError(f"{name}: bin edges must increase monotonically")
    return edges


def histogram(a, bins=10, range=None, density=None, weights=None):  # noqa: A002 - NumPy's name
    """``histogram(a, bins=10, range=None, density=None, weights=None)``: the counts (int64;
    the sums of ``weights``; a density with ``density=True``) of ``a`` in ``bins`` (a count
    of equal bins over ``range``, default the data's min to max, or the edges), and the
    edges.  The last bin includes its right edge; values outside are left out.  Bins on
    the device: ``searchsorted`` on the edges, then ``bincount``.  Differences from NumPy:
    no named bin rules (``'auto'``, ...).

    Examples:
        >>> import rocarray as ra
        >>> h, e = ra.histogram(ra.asarray([1.0, 2.0, 2.0, 3.0]), bins=2)
        >>> h
        array([1, 3])
    """
    x = ravel(_as_array(a, "histogram"))
    if x.dtype.kind == "c":
        raise TypeError("histogram: complex arrays have no order")
    edges = _bin_edges(x, bins, range, "histogram")
    nb = edges.size - 1
    xv = x if x.dtype.kind == "f" else astype(x, edges.dtype)
    ev = edges if edges.dtype == xv.dtype else astype(edges, xv.dtype)
    idx = subtract(searchsorted(ev, xv, side="right"), 1)
    idx = where(equal(xv, ev[nb]), nb - 1, idx)  # the last edge belongs to the last bin
    # out of range (below: -1, above: nb) and NaN go to two spare bins, cut off after
    idx = where(logical_or(less(xv, ev[0]), greater(xv, ev[nb])), -1, idx)
    idx = where(isnan(xv), -1, idx) if xv.dtype.kind == "f" else idx
    idx = add(idx, 1)
    w = None if weights is None else ravel(_as_array(weights, "histogram", x.device))
    counts = bincount(idx, w, minlength=nb + 2)[1:nb + 1]
    if density:
        widths = diff(edges) if edges.dtype.kind == "f" else astype(diff(edges), _dtypes.float64)
        counts = divide(divide(astype(counts, widths.dtype), _sum(counts)), widths)
    return counts, edges


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """``histogram_bin_edges(a, bins=10, range=None)``: the edges ``histogram`` would use.

    Examples:
        >>> import rocarray as ra
        >>> ra.histogram_bin_edges(ra.asarray([0.0, 1.0]), bins=2)
        array([0. , 0.5, 1. ])
    """
    return _bin_edges(ravel(_as_array(a, "histogram_bin_edges")), bins, range, "histogram_bin_edges")


def digitize(x, bins, right=False) -> Array:
    """``digitize(x, bins, right=False)``: the index of the bin of each value of ``x``
    (``bins`` increasing; ``searchsorted`` with the side NumPy picks).

    Examples:
        >>> import rocarray as ra
        >>> ra.digitize(ra.asarray([0.5, 1.5]), ra.asarray([0.0, 1.0, 2.0]))
        array([1, 2])
    """
    v = _as_array(x, "digitize")
    b = _as_array(bins, "digitize", v.device)
    if b.ndim != 1:
        raise ValueError("digitize: bins must be 1-D")
    return searchsorted(b, v, side="left" if right else "right")


# -- closeness ------------------------------------------------------------------------------------


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> Array:
    """``isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)``: elementwise
    ``|a - b| <= atol + rtol * |b|`` (infinities close only to themselves; NaN to NaN only
    with ``equal_nan``).

    Examples:
        >>> import rocarray as ra
        >>> ra.isclose(ra.asarray([1.0, 2.0]), ra.asarray([1.0 + 1e-9, 2.1]))
        array([ True, False])
    """
    x, y = _operands("isclose", a, b)
    if x.dtype.kind not in "fc":
        x = astype(x, _dtypes.float64)
    if y.dtype.kind not in "fc":
        y = astype(y, _dtypes.float64)
    fin = logical_and(isfinite(x), isfinite(y))
    close = less_equal(_abs(subtract(x, y)), add(multiply(_abs(y), float(rtol)), float(atol)))
    r = where(fin, close, equal(x, y))
    if equal_nan:
        r = logical_or(r, logical_and(isnan(x), isnan(y)))
    return r


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """``allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)``: whether ``isclose`` holds
    everywhere (a Python bool, as NumPy).

    Examples:
        >>> import rocarray as ra
        >>> ra.allclose(ra.ones(3), ra.ones(3) + 1e-10)
        True
    """
    return builtins.bool(isclose(a, b, rtol, atol, equal_nan).all())


def array_equal(a1, a2, equal_nan=False) -> bool:
    """``array_equal(a1, a2, equal_nan=False)``: whether the shapes match and every element
    is equal (a Python bool).

    Examples:
        >>> import rocarray as ra
        >>> ra.array_equal(ra.ones(2), ra.ones(2))
        True
    """
    x, y = _operands("array_equal", a1, a2)
    if x.shape != y.shape:
        return False
    eq = equal(x, y)
    if equal_nan and x.dtype.kind in "fc" and y.dtype.kind in "fc":
        eq = logical_or(eq, logical_and(isnan(x), isnan(y)))
    return builtins.bool(eq.all())


def array_equiv(a1, a2) -> bool:
    """``array_equiv(a1, a2)``: whether the arrays broadcast together and are equal.

    Examples:
        >>> import rocarray as ra
        >>> ra.array_equiv(ra.ones(2), ra.ones((3, 2)))
        True
    """
    x, y = _operands("array_equiv", a1, a2)
    try:
        return builtins.bool(equal(x, y).all())
    except ValueError:
        return False


# -- weighted averages, covariance ----------------------------------------------------------------


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """``average(a, axis=None, weights=None, returned=False, *, keepdims=False)``: the mean,
    or the ``weights``-weighted mean (weights of ``a``'s shape, or 1-D along one ``axis``);
    with ``returned`` also the sum of the weights.

    Examples:
        >>> import rocarray as ra
        >>> ra.average(ra.asarray([1.0, 3.0]), weights=ra.asarray([3.0, 1.0]))
        array(1.5)
    """
    x = _float(_as_array(a, "average"))
    if weights is None:
        r = x.mean(axis=axis, keepdims=keepdims)
        n = x.size // builtins.max(r.size, 1) if x.size else 0
        wsum = full(r.shape, float(n), dtype=r.dtype if r.dtype.kind == "f" else _dtypes.float64, device=x.device)
    else:
        w = _float(_as_array(weights, "average", x.device))
        if w.shape != x.shape:
            if axis is None:
                raise TypeError("average: axis must be given when the weights' shape differs from a's")
            if w.ndim != 1:
                raise TypeError("average: 1-D weights expected when shapes differ")
            (ax,) = normalize_axes(axis, x.ndim, "average")
            if w.shape[0] != x.shape[ax]:
                raise ValueError("average: the weights' length differs from the axis'")
            shape = [1] * x.ndim
            shape[ax] = w.shape[0]
            w = reshape(w, tuple(shape))
        wsum = _sum(multiply(w, _ones_for(x)), axis=axis, keepdims=keepdims)
        if bool(equal(wsum, 0).any()):
            raise ZeroDivisionError("average: the weights sum to zero, so they cannot be normalized")
        r = divide(_sum(multiply(x, w), axis=axis, keepdims=keepdims), wsum)
    return (r, wsum) if returned else r


def _ones_for(x: Array) -> Array:
    return full(x.shape, 1.0, dtype=_dtypes.float64 if x.dtype.kind != "f" else x.dtype, device=x.device)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None) -> Array:
    """``cov(m, y=None, rowvar=True, bias=False, ddof=None, *, dtype=None)``: the covariance
    matrix of the variables (rows of ``m``, or columns when ``rowvar`` is false), centred
    and multiplied with ``matmul`` on the device.  Differences from NumPy: no
    ``fweights``/``aweights``.

    Examples:
        >>> import rocarray as ra
        >>> ra.cov(ra.asarray([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).tolist()
        [[1.0, -1.0], [-1.0, 1.0]]
    """
    if fweights is not None or aweights is not None:
        raise TypeError("cov: fweights and aweights are not supported")
    x = _as_array(m, "cov")
    if x.ndim > 2:
        raise ValueError("cov: m has more than 2 dimensions")
    x = _float(x) if dtype is None else astype(x, dtype)
    x = reshape(x, (1, -1)) if x.ndim < 2 else x
    if not rowvar and x.shape[0] != 1:
        x = permute_dims(x, (1, 0))
    if y is not None:
        yv = _as_array(y, "cov", x.device)
        yv = _float(yv) if dtype is None else astype(yv, dtype)
        yv = reshape(yv, (1, -1)) if yv.ndim < 2 else yv
        if not rowvar and yv.shape[0] != 1:
            yv = permute_dims(yv, (1, 0))
        x = concat([x, astype(yv, x.dtype) if yv.dtype != x.dtype else yv], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    n = x.shape[1]
    c = subtract(x, x.mean(axis=1, keepdims=True))
    r = matmul(c, permute_dims(conj(c) if c.dtype.kind == "c" else c, (1, 0)))
    dof = n - ddof
    r = divide(r, float(dof) if dof > 0 else 0.0)
    return reshape(r, ()) if r.shape == (1, 1) else r


def corrcoef(x, y=None, rowvar=True, *, dtype=None) -> Array:
    """``corrcoef(x, y=None, rowvar=True, *, dtype=None)``: Pearson correlation
    coefficients, ``cov`` normalised by the standard deviations (clipped to [-1, 1] for
    real input, as NumPy).

    Examples:
        >>> import rocarray as ra
        >>> ra.corrcoef(ra.asarray([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).tolist()
        [[1.0, -1.0], [-1.0, 1.0]]
    """
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return divide(c, c)
    d = sqrt(_diag_real(c))
    r = divide(divide(c, reshape(d, (-1, 1))), reshape(d, (1, -1)))
    if r.dtype.kind == "f":
        r = where(greater(r, 1.0), 1.0, where(less(r, -1.0), -1.0, r))
    return r


def _diag_real(c: Array) -> Array:
    n = c.shape[0]
    d = take(reshape(c, (-1,)), arange(0, n * n, n + 1, device=c.device))
    return d.real if c.dtype.kind == "c" and hasattr(d, "real") else d


# -- interpolation and convolution ---------------------------------------------------------------


def interp(x, xp, fp, left=None, right=None, period=None) -> Array:
    """``interp(x, xp, fp, left=None, right=None, period=None)``: the piecewise linear
    interpolant of the points ``(xp, fp)`` (``xp`` increasing) at ``x``; ``left``/``right``
    (default ``fp[0]``/``fp[-1]``) outside.  Differences from NumPy: no ``period``.

    Examples:
        >>> import rocarray as ra
        >>> ra.interp(ra.asarray([0.5, 2.5]), ra.asarray([0.0, 1.0, 2.0]),
        ...                 ra.asarray([0.0, 10.0, 20.0]))
        array([ 5., 20.])
    """
    if period is not None:
        raise TypeError("interp: period is not supported")
    xv = _as_array(x, "interp")
    xpv = _as_array(xp, "interp", xv.device)
    fpv = _as_array(fp, "interp", xv.device)
    _check_same_device("interp", xv, xpv, fpv)
    if xpv.ndim != 1 or fpv.ndim != 1 or xpv.shape != fpv.shape:
        raise ValueError("interp: xp and fp must be 1-D of the same length")
    if xpv.size == 0:
        raise ValueError("interp: xp and fp cannot be empty")
    ft = _dtypes.complex128 if fpv.dtype.kind == "c" else _dtypes.float64
    xv, xpv, fpv = astype(xv, _dtypes.float64), astype(xpv, _dtypes.float64), astype(fpv, ft)
    n = xpv.size
    if n == 1:
        r = full(xv.shape, 0, dtype=ft, device=xv.device)
        r = add(r, fpv[0])
    else:
        j = searchsorted(xpv, xv, side="right")
        j = where(less(j, 1), 1, where(greater(j, n - 1), n - 1, j))
        x0, x1 = take(xpv, subtract(j, 1)), take(xpv, j)
        f0, f1 = take(fpv, subtract(j, 1)), take(fpv, j)
        slope = divide(subtract(f1, f0), subtract(x1, x0))
        r = add(f0, multiply(slope, subtract(xv, x0)))
        r = where(equal(xv, x1), f1, r)  # exact at the points (a zero-width step too)
    lo = fpv[0] if left is None else left
    hi = fpv[n - 1] if right is None else right
    r = where(less(xv, xpv[0]), lo, r)
    r = where(greater(xv, xpv[n - 1]), hi, r)
    return r


def _windows(a: Array, m: int) -> Array:
    """The ``(len(a) - m + 1, m)`` view of every window of ``m`` elements of the 1-D ``a``."""
    n = a.shape[0] - m + 1
    s = a.strides[0]
    return a._view((n, m), (s, s), a._offset)


def convolve(a, v, mode="full") -> Array:
    """``convolve(a, v, mode='full')``: the discrete linear convolution of two 1-D arrays;
    ``mode`` ``'full'`` (length ``n + m - 1``), ``'same'`` (``max(n, m)``) or ``'valid'``.
    One ``matmul`` of the windows of the zero-padded ``a`` (a strided view, no copy) with
    ``v`` reversed.

    Examples:
        >>> import rocarray as ra
        >>> ra.convolve(ra.asarray([1.0, 2.0, 3.0]), ra.asarray([0.0, 1.0, 0.5]))
        array([0. , 1. , 2.5, 4. , 1.5])
    """
    x, w = _operands("convolve", a, v)
    if x.ndim != 1 or w.ndim != 1:
        raise ValueError("convolve: both inputs must be 1-D")
    if x.size == 0 or w.size == 0:
        raise ValueError("convolve: inputs cannot be empty")
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"convolve: mode must be 'full', 'same' or 'valid', not {mode!r}")
    if w.size > x.size:
        x, w = w, x
    n, m = x.size, w.size
    dt = _dtypes.result_type(x.dtype, w.dtype)
    padded = zeros((n + 2 * (m - 1),), dtype=dt, device=x.device)
    padded[m - 1:m - 1 + n] = x
    full_r = matmul(_windows(padded, m), astype(flip(w), dt) if w.dtype != dt else flip(w))
    if mode == "full":
        return full_r
    if mode == "same":
        start = (m - 1) // 2
        return full_r[start:start + n]
    return full_r[m - 1:n]


def correlate(a, v, mode="valid") -> Array:
    """``correlate(a, v, mode='valid')``: the cross-correlation ``sum(a[n + k] * conj(v[k]))``
    of two 1-D arrays (``convolve`` with ``v`` reversed and conjugated).

    Examples:
        >>> import rocarray as ra
        >>> ra.correlate(ra.asarray([1.0, 2.0, 3.0]), ra.asarray([0.0, 1.0, 0.5]))
        array([3.5])
    """
    x, w = _operands("correlate", a, v)
    if w.ndim != 1:
        raise ValueError("correlate: both inputs must be 1-D")
    wr = flip(conj(w) if w.dtype.kind == "c" else w)
    return convolve(x, wr, mode)


def ptp(a, axis=None, out=None, keepdims=False) -> Array:
    """``ptp(a, axis=None, out=None, keepdims=False)``: ``max - min`` along ``axis``.

    Examples:
        >>> import rocarray as ra
        >>> ra.ptp(ra.asarray([3, 1, 7]))
        array(6)
    """
    x = _as_array(a, "ptp")
    return _into(subtract(_max(x, axis=axis, keepdims=keepdims), _min(x, axis=axis, keepdims=keepdims)), out,
                 "ptp")


def cross(a, b, axis=-1) -> Array:
    """``cross(a, b, axis=-1)``: the cross product of 3-vectors along ``axis``.

    Examples:
        >>> import rocarray as ra
        >>> ra.cross(ra.asarray([1.0, 0, 0]), ra.asarray([0.0, 1, 0]))
        array([0., 0., 1.])
    """
    x, y = _operands("cross", a, b)
    return linalg.cross(x, y, axis=axis)  # (3-vectors only: NumPy's 2-vector form is not offered)

