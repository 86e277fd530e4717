"""NumPy's everyday names beyond ``_numpy_names``: blocks, rotations and axes (``block``,
``rot90``, ``rollaxis``, ``dsplit``, ``resize``, ``delete``, ``insert``, ``ix_``), diagonals
(``fill_diagonal``, ``diag_indices_from``, ``tril_indices_from``, ``triu_indices_from``),
infinities, NaNs and complex parts (``nan_to_num``, ``isposinf``, ``isneginf``,
``iscomplex``, ``isreal``, ``angle``), ``select``, ``trim_zeros``, ``sort_complex``, and
copies, shapes and memory (``copy``, ``copyto``, ``shape``, ``ndim``, ``size``,
``iscomplexobj``, ``isrealobj``, ``shares_memory``, ``may_share_memory``), with NumPy's
signatures, built on the standard's functions (so on the device)."""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from . import _dtypes
from ._array_object import Array, _check_same_device
from ._creation_functions import arange, asarray, copy_into, empty, full, full_like, zeros
from ._data_type_functions import astype
from ._elementwise_functions import atan2, imag, isinf, isnan, multiply, real, where
from ._elementwise_functions import where as _choose  # (``copyto``'s parameter is named where)
from ._indexing_functions import nonzero, take
from ._manipulation_functions import concat, reshape
from ._numpy_names import _as_array, _axis, array_split, diag_indices, ravel, tril_indices, triu_indices
from ._numpy_select import _cycled, put
from ._sorting_functions import argsort, sort
from ._statistical_functions import any as _any
from ._views import broadcast_to, flip, moveaxis, permute_dims


# -- blocks, rotations, axes ----------------------------------------------------------------------

def _depth(x, name: str) -> int:
    """How deep the lists of ``block``'s argument nest (1 for a list of arrays); the same
    at every branch, else a ValueError."""
    if not isinstance(x, list):
        return 0
    if not x:
        raise ValueError(f"{name}: lists cannot be empty")
    depths = {_depth(e, name) for e in x}
    if len(depths) != 1:
        raise ValueError(f"{name}: list depths are mismatched ({sorted(depths)})")
    return depths.pop() + 1


def block(arrays) -> Array:
    """``block(arrays)``: an array assembled from nested lists of blocks: the innermost
    lists joined along the last axis, the next along the one before, and so on (each
    block first given leading axes of length one up to the result's dimensions).

    Examples:
        >>> import rocarray as ra
        >>> a, b = ra.ones((2, 2), dtype=ra.int64), ra.zeros((2, 1), dtype=ra.int64)
        >>> ra.block([[a, b], [b.T, ra.asarray([[7]])]])
        array([[1, 1, 0],
               [1, 1, 0],
               [0, 0, 7]])
    """
    if isinstance(arrays, tuple):
        raise TypeError("block: arrays is a tuple; only lists may be used to arrange blocks")
    depth = _depth(arrays, "block")
    leaves = []

    def collect(x):
        if isinstance(x, list):
            for e in x:
                collect(e)
        else:
            leaves.append(x)
    collect(arrays)
    dev = next((a.device for a in leaves if isinstance(a, Array)), None)
    ndim = builtins.max([depth] + [_as_array(a, "block", dev).ndim for a in leaves])

    def assemble(x, level):
        if not isinstance(x, list):
            a = _as_array(x, "block", dev)
            return reshape(a, (1,) * (ndim - a.ndim) + a.shape) if a.ndim < ndim else a
        parts = [assemble(e, level + 1) for e in x]
        for p in parts[1:]:
            _check_same_device("block", parts[0], p)
        return concat(parts, axis=ndim - depth + level)
    return assemble(arrays, 0)


def rot90(m, k=1, axes=(0, 1)) -> Array:
    """``rot90(m, k=1, axes=(0, 1))``: ``m`` rotated by 90 degrees ``k`` times in the plane
    of ``axes``, from the first axis towards the second (a view).

    Examples:
        >>> import rocarray as ra
        >>> ra.rot90(ra.asarray([[1, 2], [3, 4]]))
        array([[2, 4],
               [1, 3]])
    """
    x = _as_array(m, "rot90")
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("rot90: len(axes) must be 2")
    if x.ndim < 2:
        raise ValueError(f"rot90: the array must have at least 2 dimensions, not {x.ndim}")
    a0, a1 = _axis(axes[0], x.ndim, "rot90"), _axis(axes[1], x.ndim, "rot90")
    if a0 == a1:
        raise ValueError("rot90: the axes must be different")
    k = operator.index(k) % 4
    if k == 0:
        return x[...]
    if k == 2:
        return flip(flip(x, axis=a0), axis=a1)
    order = list(range(x.ndim))
    order[a0], order[a1] = order[a1], order[a0]
    if k == 1:
        return permute_dims(flip(x, axis=a1), tuple(order))
    return flip(permute_dims(x, tuple(order)), axis=a1)


def rollaxis(a, axis, start=0) -> Array:
    """``rollaxis(a, axis, start=0)``: ``a`` with ``axis`` moved to before ``start`` (NumPy's
    older form of ``moveaxis``; a view).

    Examples:
        >>> import rocarray as ra
        >>> ra.rollaxis(ra.ones((3, 4, 5, 6)), 3, 1).shape
        (3, 6, 4, 5)
    """
    x = _as_array(a, "rollaxis")
    n = x.ndim
    ax = _axis(axis, n, "rollaxis")
    start = operator.index(start)
    if not -n <= start <= n:
        raise ValueError(f"rollaxis: start {start} must be in [{-n}, {n}]")
    start = start + n if start < 0 else start
    if ax < start:
        start -= 1
    if ax == start:
        return x[...]
    order = [d for d in range(n) if d != ax]
    order.insert(start, ax)
    return permute_dims(x, tuple(order))


def dsplit(ary, indices_or_sections) -> list:
    """``dsplit(ary, indices_or_sections)``: ``split`` along the third axis (arrays of three
    or more dimensions).

    Examples:
        >>> import rocarray as ra
        >>> [p.shape for p in ra.dsplit(ra.ones((2, 2, 4)), 2)]
        [(2, 2, 2), (2, 2, 2)]
    """
    x = _as_array(ary, "dsplit")
    if x.ndim < 3:
        raise ValueError(f"dsplit: only arrays of 3 or more dimensions split along the third axis, not {x.ndim}")
    if isinstance(indices_or_sections, (int, np.integer)) and x.shape[2] % int(indices_or_sections or 1):
        raise ValueError(f"dsplit: an axis of length {x.shape[2]} does not split into {indices_or_sections} equal "
                         "parts")
    return array_split(x, indices_or_sections, 2)


def resize(a, new_shape) -> Array:
    """``resize(a, new_shape)``: a new array of ``new_shape`` filled with the flattened ``a``
    repeated as often as needed (zeros where ``a`` is empty).

    Examples:
        >>> import rocarray as ra
        >>> ra.resize(ra.asarray([[0, 1], [2, 3]]), (2, 3))
        array([[0, 1, 2],
               [3, 0, 1]])
    """
    x = _as_array(a, "resize")
    shape = (operator.index(new_shape),) if not isinstance(new_shape, (tuple, list)) else \
        tuple(map(operator.index, new_shape))
    if any(s < 0 for s in shape):
        raise ValueError(f"resize: all elements of new_shape must be non-negative, not {shape}")
    n = math.prod(shape)
    if x.size == 0 or n == 0:
        return zeros(shape, dtype=x.dtype, device=x.device)
    return reshape(_cycled(x, n, x.dtype), shape)


def delete(arr, obj, axis=None) -> Array:
    """``delete(arr, obj, axis=None)``: a new array without the entries ``obj`` (an index, a
    slice, indices, or a boolean mask of the axis's length) along ``axis`` (of the
    flattened ``arr`` when None).

    Examples:
        >>> import rocarray as ra
        >>> ra.delete(ra.arange(6), [0, -1])
        array([1, 2, 3, 4])
    """
    x = _as_array(arr, "delete")
    if axis is None:
        x, ax = ravel(x), 0
    else:
        ax = _axis(axis, x.ndim, "delete")
    n = x.shape[ax]
    keep = full((n,), True, dtype=_dtypes.bool, device=x.device)
    if isinstance(obj, slice):
        keep[obj] = False
    else:
        o = _as_array(obj, "delete", x.device)
        if o.dtype == _dtypes.bool:
            if o.shape != (n,):
                raise ValueError(f"delete: a boolean obj must have the axis's length {n}, not shape {o.shape}")
            keep = ~o
        elif o.dtype.kind in "iu":
            if o.size:
                keep[ravel(o)] = False  # (an index out of range: the IndexError of the put)
        else:
            raise IndexError(f"delete: obj must be integers, a slice or a boolean mask, not {o.dtype}")
    return take(x, nonzero(keep)[0], axis=ax)


def insert(arr, obj, values, axis=None) -> Array:
    """``insert(arr, obj, values, axis=None)``: a new array with ``values`` inserted before
    the entries ``obj`` along ``axis`` (of the flattened ``arr`` when None).  One index
    inserts ``values`` as a block (its first axis turned to ``axis``, as NumPy's); indices
    or a slice insert one entry before each, in their order where they are equal.

    Examples:
        >>> import rocarray as ra
        >>> ra.insert(ra.asarray([[0, 1], [2, 3]]), 1, 9, axis=1)
        array([[0, 9, 1],
               [2, 9, 3]])
    """
    x = _as_array(arr, "insert")
    if axis is None:
        x, ax = ravel(x), 0
    else:
        ax = _axis(axis, x.ndim, "insert")
    n = x.shape[ax]
    v = _as_array(values, "insert", x.device)
    _check_same_device("insert", x, v)
    if v.dtype.kind == "c" and x.dtype.kind != "c":
        raise TypeError(f"insert: cannot cast complex values to {x.dtype}")
    v = astype(v, x.dtype, copy=False)
    if v.ndim < x.ndim:
        v = reshape(v, (1,) * (x.ndim - v.ndim) + v.shape)
    idx = arange(*obj.indices(n), dtype=_dtypes.int64, device=x.device) if isinstance(obj, slice) else \
        _as_array(obj, "insert", x.device)
    if idx.dtype.kind not in "iu" or idx.ndim > 1:
        raise IndexError(f"insert: obj must be an integer, integers (1-D) or a slice, not {idx.dtype} of "
                         f"{idx.ndim} dimensions")
    before = (slice(None),) * ax
    if idx.ndim == 0:  # (one place: ``values`` a block there)
        k = int(idx)
        if not -n <= k <= n:
            raise IndexError(f"index {k} is out of bounds for axis {ax} with size {n}")
        k += n if k < 0 else 0
        block = moveaxis(v, 0, ax)
        shape = x.shape[:ax] + (block.shape[ax],) + x.shape[ax + 1:]
        return concat([x[before + (slice(0, k),)], broadcast_to(block, shape), x[before + (slice(k, None),)]], axis=ax)
    m = idx.shape[0]
    if m == 0:
        return x.copy()
    idx = astype(idx, _dtypes.int64, copy=False)
    bad = (idx < -n) | (idx > n)
    if bool(_any(bad)):
        raise IndexError(f"index {int(idx[bad][0])} is out of bounds for axis {ax} with size {n}")
    idx = where(idx < 0, idx + n, idx)
    # each new entry's place in the result: its index, plus the new entries placed before it
    order = argsort(idx)
    places = zeros((m,), dtype=_dtypes.int64, device=x.device)
    places[order] = take(idx, order, axis=0) + arange(m, dtype=_dtypes.int64, device=x.device)
    keep = full((n + m,), True, dtype=_dtypes.bool, device=x.device)
    keep[places] = False
    out = empty(x.shape[:ax] + (n + m,) + x.shape[ax + 1:], dtype=x.dtype, device=x.device)
    out[before + (places,)] = v
    out[before + (nonzero(keep)[0],)] = x
    return out


def ix_(*args) -> tuple:
    """``ix_(*args)``: open index arrays from 1-D sequences (booleans become the indices
    that hold), each shaped to index its own axis, for ``x[ra.ix_(rows, cols)]``.

    Examples:
        >>> import rocarray as ra
        >>> r, c = ra.ix_(ra.asarray([0, 2]), ra.asarray([1, 3]))
        >>> r.shape, c.shape
        ((2, 1), (1, 2))
    """
    dev = next((a.device for a in args if isinstance(a, Array)), None)
    out = []
    for d, a in enumerate(args):
        x = _as_array(a, "ix_", dev)
        if x.ndim != 1:
            raise ValueError(f"ix_: cross index must be 1-dimensional, not {x.ndim}-D (argument {d})")
        if x.dtype == _dtypes.bool:
            x = nonzero(x)[0]
        elif x.dtype.kind not in "iu" and x.size:
            raise TypeError(f"ix_: arguments must be integers or booleans, not {x.dtype}")
        out.append(reshape(x, (1,) * d + (x.shape[0],) + (1,) * (len(args) - d - 1)))
    return tuple(out)


# -- diagonals ------------------------------------------------------------------------------------

def fill_diagonal(a, val, wrap=False) -> None:
    """``fill_diagonal(a, val, wrap=False)``: the main diagonal of ``a`` (2-D, or of any
    dimensions all of one length) set to ``val`` in place, its values repeated as needed;
    ``wrap`` continues a tall matrix's diagonal after every ``columns + 1`` rows.

    Examples:
        >>> import rocarray as ra
        >>> a = ra.zeros((3, 3), dtype=ra.int64)
        >>> ra.fill_diagonal(a, 5)
        >>> a
        array([[5, 0, 0],
               [0, 5, 0],
               [0, 0, 5]])
    """
    if not isinstance(a, Array):
        raise TypeError(f"fill_diagonal: the array written must be a rocarray array, not {type(a).__name__}")
    if a.ndim < 2:
        raise ValueError(f"fill_diagonal: the array must be at least 2-D, not {a.ndim}-D")
    if a.ndim == 2:
        step = a.shape[1] + 1
        end = a.size if wrap else a.shape[1] * a.shape[1]
    else:
        if len(set(a.shape)) != 1:
            raise ValueError(f"fill_diagonal: all dimensions of the input must be of equal length, not {a.shape}")
        step = 1 + sum(a.shape[0] ** d for d in range(1, a.ndim))
        end = a.size
    positions = arange(0, builtins.min(end, a.size), step, dtype=_dtypes.int64, device=a.device)
    if positions.shape[0]:
        put(a, positions, val)


def _indices_from(name: str, make, arr, k=None) -> tuple:
    x = _as_array(arr, name)
    if x.ndim != 2:
        raise ValueError(f"{name}: the input array must be 2-D, not {x.ndim}-D")
    return make(x.shape[-2], k=k, m=x.shape[-1], device=x.device)


def tril_indices_from(arr, k=0) -> tuple:
    """``tril_indices_from(arr, k=0)``: ``tril_indices`` of the 2-D ``arr``'s shape.

    Examples:
        >>> import rocarray as ra
        >>> ra.tril_indices_from(ra.ones((2, 3)))
        (array([0, 1, 1]), array([0, 0, 1]))
    """
    return _indices_from("tril_indices_from", tril_indices, arr, k)


def triu_indices_from(arr, k=0) -> tuple:
    """``triu_indices_from(arr, k=0)``: ``triu_indices`` of the 2-D ``arr``'s shape.

    Examples:
        >>> import rocarray as ra
        >>> ra.triu_indices_from(ra.ones((2, 2)))
        (array([0, 0, 1]), array([0, 1, 1]))
    """
    return _indices_from("triu_indices_from", triu_indices, arr, k)


def diag_indices_from(arr) -> tuple:
    """``diag_indices_from(arr)``: ``diag_indices`` of ``arr`` (at least 2-D, all dimensions
    of one length).

    Examples:
        >>> import rocarray as ra
        >>> ra.diag_indices_from(ra.ones((2, 2)))
        (array([0, 1]), array([0, 1]))
    """
    x = _as_array(arr, "diag_indices_from")
    if x.ndim < 2:
        raise ValueError(f"diag_indices_from: the input array must be at least 2-D, not {x.ndim}-D")
    if len(set(x.shape)) != 1:
        raise ValueError(f"diag_indices_from: all dimensions of the input must be of equal length, not {x.shape}")
    return diag_indices(x.shape[0], x.ndim, device=x.device)


# -- infinities, NaNs, complex parts --------------------------------------------------------------

def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None) -> Array:
    """``nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None)``: ``x`` with NaN made
    ``nan``, +inf ``posinf`` and -inf ``neginf`` (by default the dtype's largest and
    smallest finite values), the real and imaginary parts alike; integers and bools as
    they are.  ``copy=False`` writes ``x`` in place and returns it.

    Examples:
        >>> import rocarray as ra
        >>> ra.nan_to_num(ra.asarray([float("nan"), float("inf"), -1.5]), posinf=9.0)
        array([ 0. ,  9. , -1.5])
    """
    a = _as_array(x, "nan_to_num")
    if a.dtype.kind not in "fc":
        return a.copy() if copy else a

    def fixed(part: Array) -> Array:
        info = np.finfo(part.dtype)
        hi = info.max if posinf is None else posinf
        lo = info.min if neginf is None else neginf
        out = where(isnan(part), full_like(part, nan), part)
        out = where(isinf(out) & (out > 0), full_like(part, hi), out)
        return where(isinf(out) & (out < 0), full_like(part, lo), out)

    if a.dtype.kind == "c":
        result = astype(fixed(real(a)), a.dtype) + multiply(astype(fixed(imag(a)), a.dtype), 1j)
    else:
        result = fixed(a)
    if copy:
        return result
    a[...] = result
    return a


def _signed_inf(name: str, x, out, positive: bool) -> Array:
    """``isposinf`` / ``isneginf`` (``positive``) of the real ``x``."""
    if out is not None:
        raise TypeError(f"{name}: out= is not supported")
    a = _as_array(x, name)
    if a.dtype.kind == "c":
        raise TypeError(f"{name}: complex values have no sign of infinity (NumPy's TypeError too)")
    return isinf(a) & ((a > 0) if positive else (a < 0))


def isposinf(x, out=None) -> Array:
    """``isposinf(x, out=None)``: whether each element is +inf (real dtypes).

    Examples:
        >>> import rocarray as ra
        >>> ra.isposinf(ra.asarray([float("inf"), -float("inf"), 1.0]))
        array([ True, False, False])
    """
    return _signed_inf("isposinf", x, out, True)


def isneginf(x, out=None) -> Array:
    """``isneginf(x, out=None)``: whether each element is -inf (real dtypes).

    Examples:
        >>> import rocarray as ra
        >>> ra.isneginf(ra.asarray([float("inf"), -float("inf"), 1.0]))
        array([False,  True, False])
    """
    return _signed_inf("isneginf", x, out, False)


def iscomplex(x) -> Array:
    """``iscomplex(x)``: whether each element has a non-zero imaginary part.

    Examples:
        >>> import rocarray as ra
        >>> ra.iscomplex(ra.asarray([1 + 1j, 1 + 0j]))
        array([ True, False])
    """
    a = _as_array(x, "iscomplex")
    return imag(a) != 0 if a.dtype.kind == "c" else full(a.shape, False, dtype=_dtypes.bool, device=a.device)


def isreal(x) -> Array:
    """``isreal(x)``: whether each element's imaginary part is zero.

    Examples:
        >>> import rocarray as ra
        >>> ra.isreal(ra.asarray([1 + 1j, 1 + 0j]))
        array([False,  True])
    """
    a = _as_array(x, "isreal")
    return imag(a) == 0 if a.dtype.kind == "c" else full(a.shape, True, dtype=_dtypes.bool, device=a.device)


def angle(z, deg=False) -> Array:
    """``angle(z, deg=False)``: the argument of each element, in radians (degrees with
    ``deg``): ``atan2(imag, real)``, so a negative real number's is pi.

    Examples:
        >>> import rocarray as ra
        >>> ra.angle(ra.asarray([1.0 + 1j, -2.0 + 0j]), deg=True)
        array([ 45., 180.])
    """
    a = _as_array(z, "angle")
    if a.dtype.kind == "c":
        r, i = real(a), imag(a)
    else:
        r = a if a.dtype.kind == "f" else astype(a, _dtypes.float64)
        i = full_like(r, 0)
    out = atan2(i, r)
    return multiply(out, 180.0 / math.pi) if deg else out


# -- selection -------------------------------------------------------------------------------------

def select(condlist, choicelist, default=0) -> Array:
    """``select(condlist, choicelist, default=0)``: at each place, the element of the choice
    whose condition holds first there, else ``default`` (all broadcast together; the dtype
    of the choices and the default together).

    Examples:
        >>> import rocarray as ra
        >>> x = ra.arange(6)
        >>> ra.select([x < 3, x > 4], [x, x ** 2], default=-1)
        array([ 0,  1,  2, -1, -1, 25])
    """
    conds, choices = list(condlist), list(choicelist)
    if len(conds) != len(choices):
        raise ValueError(f"select: list of cases must be same length as list of conditions ({len(choices)} and "
                         f"{len(conds)})")
    if not choices:
        raise ValueError("select: select with an empty condition list is not possible")
    dev = next((a.device for a in conds + choices if isinstance(a, Array)), None)
    conds = [_as_array(c, "select", dev) for c in conds]
    choices = [_as_array(c, "select", dev) for c in choices]
    for i, c in enumerate(conds):
        if c.dtype != _dtypes.bool:
            raise TypeError(f"select: invalid entry {i} in condlist: should be boolean, not {c.dtype}")
    if isinstance(default, (builtins.bool, int, float, complex)):  # (a Python scalar is weak, as in NumPy 2)
        dt = _dtypes.result_type(*(c.dtype for c in choices), default)
        out = asarray(default, dtype=dt, device=dev)
    else:
        d = _as_array(default, "select", dev)
        dt = _dtypes.result_type(*(c.dtype for c in choices), d.dtype)
        out = astype(d, dt)
    for c, v in zip(reversed(conds), reversed(choices)):
        out = where(c, astype(v, dt, copy=False), out)
    return out


def trim_zeros(filt, trim="fb") -> Array:
    """``trim_zeros(filt, trim='fb')``: the 1-D ``filt`` without its leading ('f') and
    trailing ('b') zeros (a view).

    Examples:
        >>> import rocarray as ra
        >>> ra.trim_zeros(ra.asarray([0, 0, 1, 2, 0, 3, 0]))
        array([1, 2, 0, 3])
    """
    x = _as_array(filt, "trim_zeros")
    if x.ndim != 1:
        raise ValueError(f"trim_zeros: filt must be 1-D, not {x.ndim}-D")
    mode = trim.lower() if isinstance(trim, str) else ""
    if not mode or set(mode) - {"f", "b"}:
        raise ValueError(f"trim_zeros: trim must be 'f', 'b' or 'fb', not {trim!r}")
    found = nonzero(x)[0]
    if found.shape[0] == 0:
        return x[:0]
    first, last = (int(v) for v in concat([found[:1], found[-1:]]).tolist())
    return x[first if "f" in mode else 0:last + 1 if "b" in mode else x.shape[0]]


def sort_complex(a) -> Array:
    """``sort_complex(a)``: ``a`` sorted (real part first, then imaginary) as complex
    numbers: complex64 for 8- and 16-bit integers, complex128 for other real dtypes.

    Examples:
        >>> import rocarray as ra
        >>> ra.sort_complex(ra.asarray([5, 3, 6, 2, 1]))
        array([1.+0.j, 2.+0.j, 3.+0.j, 5.+0.j, 6.+0.j])
    """
    x = sort(_as_array(a, "sort_complex"))
    if x.dtype.kind == "c":
        return x
    small = x.dtype.kind in "iub" and x.dtype.itemsize <= 2
    return astype(x, _dtypes.complex64 if small else _dtypes.complex128)


# -- copies, shapes and memory ----------------------------------------------------------------------

def copyto(dst, src, casting="same_kind", where=True) -> None:
    """``copyto(dst, src, casting='same_kind', where=True)``: write ``src`` (broadcast to
    ``dst``'s shape) into ``dst``, where ``where`` holds, NumPy's and CuPy's name.

    ``casting`` is NumPy's rule, checked as NumPy checks it (a Python scalar is weak: ``5``
    fits an int8 array, ``1.5`` does not under ``'same_kind'``).

    Raises:
        TypeError: ``dst`` not a rocarray array, a cast the rule does not allow, a
            ``where`` that is not boolean.
        ValueError: a read-only or broadcast ``dst``, shapes that do not broadcast, an
            unknown ``casting``.
        OverflowError: a Python integer out of ``dst``'s range.

    Examples:
        >>> import rocarray as ra
        >>> a = ra.zeros(3, dtype=ra.int32)
        >>> ra.copyto(a, ra.asarray([1, 2, 3]), where=ra.asarray([True, False, True]))
        >>> a
        array([1, 0, 3], dtype=int32)
    """
    if not isinstance(dst, Array):
        raise TypeError(f"copyto: the destination must be a rocarray array, not {type(dst).__name__}")
    dst._check_writable("copyto's destination")
    # (NumPy's own rule on empty stand-ins: its errors and messages, nothing allocated; a
    # Python scalar stays one, weak as NumPy takes it: 2**70 fits a float array)
    weak = isinstance(src, (bool, int, float, complex)) and not isinstance(src, np.generic)
    s = src if weak else _as_array(src, "copyto", dst.device)
    np.copyto(np.empty(0, dst.dtype), src if weak else np.empty(0, s.dtype), casting=casting)
    if not weak and s.shape != dst.shape:
        try:
            s = broadcast_to(s, dst.shape)
        except ValueError:
            raise ValueError(f"could not broadcast input array from shape {s.shape} into shape {dst.shape}") from None
    if where is True:
        copy_into(dst, s)
        return
    mask = _as_array(where, "copyto", dst.device)
    if mask.dtype != _dtypes.bool:
        raise TypeError(f"copyto: where must be a boolean array, not {mask.dtype}")
    copy_into(dst, _choose(mask, s if weak else astype(s, dst.dtype), dst))


def copy(a, order="K", subok=False) -> Array:
    """``copy(a, order='K', subok=False)``: a new array with ``a``'s elements (C-contiguous),
    NumPy's and CuPy's name.

    Raises:
        ValueError: ``order='F'`` (rocarray makes C-contiguous arrays).

    Examples:
        >>> import rocarray as ra
        >>> ra.copy(ra.asarray([1, 2]))
        array([1, 2])
    """
    if order not in ("K", "A", "C"):
        raise ValueError(f"copy: order must be 'K', 'A' or 'C' (rocarray makes C-contiguous copies), not {order!r}")
    return asarray(_as_array(a, "copy"), copy=True)


def shape(a) -> tuple:
    """``shape(a)``: the shape of ``a`` (an array, a scalar or nested lists).

    Examples:
        >>> import rocarray as ra
        >>> ra.shape(ra.zeros((2, 3)))
        (2, 3)
    """
    return _as_array(a, "shape").shape


def ndim(a) -> int:
    """``ndim(a)``: the number of dimensions of ``a`` (an array, a scalar or nested lists).

    Examples:
        >>> import rocarray as ra
        >>> ra.ndim(ra.zeros((2, 3)))
        2
    """
    return _as_array(a, "ndim").ndim


def size(a, axis=None) -> int:
    """``size(a, axis=None)``: the number of elements of ``a``, or its length along ``axis``.

    Examples:
        >>> import rocarray as ra
        >>> ra.size(ra.zeros((2, 3))), ra.size(ra.zeros((2, 3)), 1)
        (6, 3)
    """
    x = _as_array(a, "size")
    return x.size if axis is None else x.shape[_axis(axis, x.ndim, "size")]


def iscomplexobj(x) -> bool:
    """``iscomplexobj(x)``: whether ``x``'s dtype is complex (whatever its values).

    Examples:
        >>> import rocarray as ra
        >>> ra.iscomplexobj(ra.asarray([1.0])), ra.iscomplexobj(ra.asarray([1 + 0j]))
        (False, True)
    """
    return _as_array(x, "iscomplexobj").dtype.kind == "c"


def isrealobj(x) -> bool:
    """``isrealobj(x)``: whether ``x``'s dtype is not complex (whatever its values).

    Examples:
        >>> import rocarray as ra
        >>> ra.isrealobj(ra.asarray([1.0]))
        True
    """
    return not iscomplexobj(x)


class _Addresses:
    """An ``__array_interface__`` over an array's device addresses, never read: NumPy's
    overlap tests take a view's bounds and strides alone."""

    def __init__(self, x: Array):
        self.__array_interface__ = {"data": (x._buf.ptr + x._offset, True), "shape": x.shape,
                                    "strides": x.strides, "typestr": f"|V{x.itemsize}", "version": 3}


def _overlap_views(a, b):
    """NumPy views at the addresses of the rocarray arrays ``a`` and ``b``; None where they
    cannot share memory (not both rocarray arrays, or on different devices)."""
    if not (isinstance(a, Array) and isinstance(b, Array)) or a._buf.device is not b._buf.device:
        return None
    return np.asarray(_Addresses(a)), np.asarray(_Addresses(b))


def shares_memory(a, b, max_work=None) -> bool:
    """``shares_memory(a, b, max_work=None)``: whether some element of ``a`` and some of
    ``b`` are the same memory, decided exactly as NumPy decides it (``x[::2]`` and
    ``x[1::2]`` do not); ``max_work`` as NumPy's (``numpy.exceptions.TooHardError`` past it).

    Examples:
        >>> import rocarray as ra
        >>> x = ra.arange(10)
        >>> ra.shares_memory(x[::2], x[1::2]), ra.shares_memory(x[::2], x[2:5])
        (False, True)
    """
    views = _overlap_views(a, b)
    return views is not None and bool(np.shares_memory(*views, max_work=max_work))


def may_share_memory(a, b, max_work=None) -> bool:
    """``may_share_memory(a, b, max_work=None)``: whether the memory ``a`` and ``b`` span
    overlaps (NumPy's bounds test: ``x[::2]`` and ``x[1::2]`` may).

    Examples:
        >>> import rocarray as ra
        >>> x = ra.arange(10)
        >>> ra.may_share_memory(x[::2], x[1::2]), ra.may_share_memory(x[:5], x[5:])
        (True, False)
    """
    views = _overlap_views(a, b)
    return views is not None and bool(np.may_share_memory(*views, max_work=max_work))
