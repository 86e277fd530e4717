"""NumPy's and CuPy's everyday names beside the standard's: aliases, joining and splitting,
padding, diagonals and the products NumPy users call (``dot``, ``inner``, ``outer``,
``einsum``), with NumPy's signatures, built on the standard's functions (so on the device)."""

from __future__ import annotations

import builtins
import operator

import numpy as np

from . import _dtypes
from ._array_object import Array, _check_same_device
from ._creation_functions import arange, asarray, copy_into, full, meshgrid, tril, triu, zeros
from ._data_type_functions import astype
from ._elementwise_functions import add, conj, divide, floor_divide, multiply, remainder, round as _round
from ._indexing_functions import nonzero, take
from ._linear_algebra_functions import matmul, tensordot
from ._manipulation_functions import concat, reshape, stack
from ._views import as_int, broadcast_to, diagonal_view, flip, normalize_axes, permute_dims

def _as_array(a, name: str, device=None) -> Array:
    """``a`` if it is a rocarray array; Python scalars and (nested) lists become one on
    ``device`` (the default device when None); anything else is a TypeError."""
    if isinstance(a, Array):
        return a
    if isinstance(a, (bool, int, float, complex, np.generic, list, tuple)):
        return asarray(a, device=device)
    raise TypeError(f"{name}: expected a rocarray array, a Python scalar or a list, not {type(a).__name__}; "
                    "use rocarray.asarray() to move a NumPy array to a device")



def _named(fn, name: str, doc: str):
    """``fn`` (made by a factory of NumPy look-alikes) under its public ``name`` and ``doc``,
    for ``help()``, the API reference and error messages."""
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn

def _axis(axis, ndim: int, name: str) -> int:
    if isinstance(axis, builtins.bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{name}: axis must be an int, not {type(axis).__name__}")
    (ax,) = normalize_axes(int(axis), ndim, name)
    return ax


def array(obj, dtype=None, *, copy=True, ndmin=0, device=None) -> Array:
    """``array(obj, dtype=None, *, copy=True, ndmin=0, device=None)``: a new array from
    ``obj`` (an array, a NumPy array, a scalar or nested lists), NumPy's and CuPy's name.

    Differences from NumPy: no ``order``/``subok``/``like``; ``copy=False`` as the
    standard's ``asarray`` (an error when a copy is needed).

    Examples:
        >>> import rocarray as ra
        >>> ra.array([[1, 2], [3, 4]], dtype=ra.float32, ndmin=3).shape
        (1, 2, 2)
    """
    x = asarray(obj, dtype=dtype, device=device, copy=copy)
    if ndmin > x.ndim:
        x = reshape(x, (1,) * (ndmin - x.ndim) + x.shape)
    return x


def ascontiguousarray(a, dtype=None, *, device=None) -> Array:
    """``ascontiguousarray(a, dtype=None)``: ``a`` as a C-contiguous array of at least one
    dimension (a copy only where needed).

    Examples:
        >>> import rocarray as ra
        >>> ra.ascontiguousarray(ra.ones((3, 2)).T).flags["C_CONTIGUOUS"]
        True
    """
    x = asarray(a, dtype=dtype, device=device)
    if x.ndim == 0:
        x = reshape(x, (1,))
    return x if x.is_c_contiguous() else x.copy()


def concatenate(arrays, axis=0, out=None, dtype=None) -> Array:
    """``concatenate(arrays, axis=0, out=None, dtype=None)``: NumPy's name of ``concat``;
    ``axis=None`` joins the flattened arrays.

    Examples:
        >>> import rocarray as ra
        >>> ra.concatenate([ra.ones(2), ra.zeros(1)])
        array([1., 1., 0.])
    """
    arrays = list(arrays)
    if axis is None:
        arrays = [reshape(a, (-1,)) if isinstance(a, Array) else a for a in arrays]
        axis = 0
    if dtype is not None:
        arrays = [astype(a, dtype) if isinstance(a, Array) else a for a in arrays]
    return _into(concat(arrays, axis=axis), out, "concatenate")


def _into(result: Array, out, name: str) -> Array:
    """``result``, written into ``out`` (an array of its shape) when one is given."""
    if out is None:
        return result
    if not isinstance(out, Array):
        raise TypeError(f"{name}: out must be a rocarray array, not {type(out).__name__}")
    if out.shape != result.shape:
        raise ValueError(f"{name}: out has shape {out.shape}, the result has shape {result.shape}")
    copy_into(out, result)
    return out


def atleast_1d(*arys):
    """``atleast_1d(*arys)``: each array with at least one dimension (a view); one array
    alone is returned alone, several as a tuple.

    Examples:
        >>> import rocarray as ra
        >>> ra.atleast_1d(ra.asarray(3.0)).shape
        (1,)
    """
    out = tuple(_atleast(_as_array(a, "atleast_1d"), 1) for a in arys)
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys):
    """``atleast_2d(*arys)``: each array with at least two dimensions (1-D arrays become one
    row, as NumPy).

    Examples:
        >>> import rocarray as ra
        >>> ra.atleast_2d(ra.ones(3)).shape
        (1, 3)
    """
    out = tuple(_atleast(_as_array(a, "atleast_2d"), 2) for a in arys)
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys):
    """``atleast_3d(*arys)``: each array with at least three dimensions (NumPy's placement:
    ``(N,)`` becomes ``(1, N, 1)``, ``(M, N)`` becomes ``(M, N, 1)``).

    Examples:
        >>> import rocarray as ra
        >>> ra.atleast_3d(ra.ones((2, 3))).shape
        (2, 3, 1)
    """
    out = tuple(_atleast(_as_array(a, "atleast_3d"), 3) for a in arys)
    return out[0] if len(out) == 1 else out


def _atleast(x: Array, n: int) -> Array:
    if x.ndim >= n:
        return x
    if n == 3 and x.ndim == 2:
        return reshape(x, x.shape + (1,))
    if n == 3 and x.ndim == 1:
        return reshape(x, (1,) + x.shape + (1,))
    return reshape(x, (1,) * (n - x.ndim) + x.shape)


def hstack(tup, *, dtype=None) -> Array:
    """``hstack(tup)``: arrays joined along their second axis (the first for 1-D arrays).

    Examples:
        >>> import rocarray as ra
        >>> ra.hstack([ra.ones(2), ra.zeros(2)]).shape
        (4,)
    """
    arrs = [_atleast(_as_array(a, "hstack"), 1) for a in tup]
    return concatenate(arrs, axis=0 if arrs and arrs[0].ndim == 1 else 1, dtype=dtype)


def vstack(tup, *, dtype=None) -> Array:
    """``vstack(tup)``: arrays joined along their first axis, 1-D arrays as rows.

    Examples:
        >>> import rocarray as ra
        >>> ra.vstack([ra.ones(2), ra.zeros(2)]).shape
        (2, 2)
    """
    return concatenate([_atleast(_as_array(a, "vstack"), 2) for a in tup], axis=0, dtype=dtype)


row_stack = vstack


def dstack(tup) -> Array:
    """``dstack(tup)``: arrays joined along their third axis (``atleast_3d`` first).

    Examples:
        >>> import rocarray as ra
        >>> ra.dstack([ra.ones((2, 2)), ra.zeros((2, 2))]).shape
        (2, 2, 2)
    """
    return concat([_atleast(_as_array(a, "dstack"), 3) for a in tup], axis=2)


def column_stack(tup) -> Array:
    """``column_stack(tup)``: 1-D arrays as the columns of a 2-D array (2-D ones joined
    as they are).

    Examples:
        >>> import rocarray as ra
        >>> ra.column_stack([ra.ones(3), ra.zeros(3)]).shape
        (3, 2)
    """
    arrs = []
    for a in tup:
        x = _as_array(a, "column_stack")
        arrs.append(reshape(x, (x.size, 1)) if x.ndim < 2 else x)
    return concat(arrs, axis=1)


def array_split(ary, indices_or_sections, axis=0) -> list:
    """``array_split(ary, indices_or_sections, axis=0)``: views of ``ary`` cut along ``axis``,
    into N nearly equal parts (the first ``len % N`` one longer) or at the given indices.

    Examples:
        >>> import rocarray as ra
        >>> [p.shape for p in ra.array_split(ra.arange(5), 2)]
        [(3,), (2,)]
    """
    x = _as_array(ary, "array_split")
    ax = _axis(axis, x.ndim, "array_split")
    n = x.shape[ax]
    if isinstance(indices_or_sections, (int, np.integer)) and not isinstance(indices_or_sections, builtins.bool):
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError(f"array_split: the number of sections must be larger than 0, got {sections}")
        each, extra = divmod(n, sections)
        bounds = [0]
        for i in range(sections):
            bounds.append(bounds[-1] + each + (1 if i < extra else 0))
    else:
        bounds = [0] + [int(i) for i in indices_or_sections] + [n]
    parts = []
    for start, stop in zip(bounds[:-1], bounds[1:]):
        index = [slice(None)] * x.ndim
        index[ax] = slice(start, stop)
        parts.append(x[tuple(index)])
    return parts


def split(ary, indices_or_sections, axis=0) -> list:
    """``split(ary, indices_or_sections, axis=0)``: as ``array_split``, but N sections must
    divide the axis evenly (a ValueError otherwise, as NumPy).

    Examples:
        >>> import rocarray as ra
        >>> [p.shape for p in ra.split(ra.arange(6), 3)]
        [(2,), (2,), (2,)]
    """
    x = _as_array(ary, "split")
    if isinstance(indices_or_sections, (int, np.integer)) and not isinstance(indices_or_sections, builtins.bool):
        n = x.shape[_axis(axis, x.ndim, "split")]
        if indices_or_sections <= 0 or n % int(indices_or_sections):
            raise ValueError(f"split: an axis of length {n} does not split into {indices_or_sections} equal parts; "
                             "use array_split")
    return array_split(x, indices_or_sections, axis)


def hsplit(ary, indices_or_sections) -> list:
    """``hsplit(ary, indices_or_sections)``: ``split`` along the second axis (the first for
    1-D arrays).

    Examples:
        >>> import rocarray as ra
        >>> len(ra.hsplit(ra.ones((2, 4)), 2))
        2
    """
    x = _as_array(ary, "hsplit")
    return split(x, indices_or_sections, axis=1 if x.ndim > 1 else 0)


def vsplit(ary, indices_or_sections) -> list:
    """``vsplit(ary, indices_or_sections)``: ``split`` along the first axis.

    Examples:
        >>> import rocarray as ra
        >>> len(ra.vsplit(ra.ones((4, 2)), 2))
        2
    """
    return split(_as_array(ary, "vsplit"), indices_or_sections, axis=0)


def transpose(a, axes=None) -> Array:
    """``transpose(a, axes=None)``: the axes reversed, or permuted as ``axes`` says (a view).

    Examples:
        >>> import rocarray as ra
        >>> ra.transpose(ra.ones((2, 3))).shape
        (3, 2)
    """
    x = _as_array(a, "transpose")
    return permute_dims(x, tuple(range(x.ndim - 1, -1, -1)) if axes is None else tuple(axes))


def swapaxes(a, axis1, axis2) -> Array:
    """``swapaxes(a, axis1, axis2)``: a view with two axes exchanged.

    Examples:
        >>> import rocarray as ra
        >>> ra.swapaxes(ra.ones((2, 3, 4)), 0, 2).shape
        (4, 3, 2)
    """
    x = _as_array(a, "swapaxes")
    order = list(range(x.ndim))
    i, j = _axis(axis1, x.ndim, "swapaxes"), _axis(axis2, x.ndim, "swapaxes")
    order[i], order[j] = order[j], order[i]
    return permute_dims(x, tuple(order))


def ravel(a, order="C") -> Array:
    """``ravel(a, order='C')``: ``a`` as a 1-D array (a view when its layout allows).
    Only C order.

    Examples:
        >>> import rocarray as ra
        >>> ra.ravel(ra.ones((2, 3))).shape
        (6,)
    """
    if order != "C":
        raise ValueError(f"ravel: only order='C' is supported, not {order!r}")
    return reshape(_as_array(a, "ravel"), (-1,))


def argwhere(a) -> Array:
    """``argwhere(a)``: the indices of the non-zero elements, one row each (``(N, a.ndim)``,
    int64).

    Examples:
        >>> import rocarray as ra
        >>> ra.argwhere(ra.asarray([0, 3, 0, 5]))
        array([[1],
               [3]])
    """
    x = _as_array(a, "argwhere")
    if x.ndim == 0:
        # NumPy: a 0-d array gives shape (1, 0) when true, (0, 0) when false
        n = nonzero(reshape(x, (1,)))[0].shape[0]
        return zeros((n, 0), dtype=_dtypes.int64, device=x.device)
    return stack(nonzero(x), axis=-1)


def flatnonzero(a) -> Array:
    """``flatnonzero(a)``: the indices of the non-zero elements of ``ravel(a)``.

    Examples:
        >>> import rocarray as ra
        >>> ra.flatnonzero(ra.asarray([[0, 1], [2, 0]]))
        array([1, 2])
    """
    return nonzero(ravel(_as_array(a, "flatnonzero")))[0]


def around(a, decimals=0, out=None) -> Array:
    """``around(a, decimals=0, out=None)``: ``a`` rounded half to even to ``decimals``
    decimals (scaled by ``10**decimals`` as NumPy does, so the same results).

    Examples:
        >>> import rocarray as ra
        >>> ra.around(ra.asarray([1.2345, 2.5]), 2)
        array([1.23, 2.5 ])
    """
    x = _as_array(a, "around")
    if not isinstance(decimals, (int, np.integer)) or isinstance(decimals, builtins.bool):
        raise TypeError(f"around: decimals must be an int, not {type(decimals).__name__}")
    if decimals == 0 or x.dtype.kind in "biu" and decimals > 0:
        r = _round(x)
    elif x.dtype.kind in "iu":
        scale = 10 ** -int(decimals)
        r = multiply(_round(divide(x, float(scale))), float(scale)).astype(x.dtype)
    else:
        scale = 10.0 ** int(decimals)
        r = divide(_round(multiply(x, scale)), scale)
    return _into(r, out, "around")


# -- diagonals and products -----------------------------------------------------------------------


def diagonal(a, offset=0, axis1=0, axis2=1) -> Array:
    """``diagonal(a, offset=0, axis1=0, axis2=1)``: a view of the diagonal of the planes
    ``(axis1, axis2)``, as the last axis (NumPy's layout; NumPy's view is read-only).

    Examples:
        >>> import rocarray as ra
        >>> ra.diagonal(ra.reshape(ra.arange(9), (3, 3)), 1)
        array([1, 5])
    """
    x = _as_array(a, "diagonal")
    if x.ndim < 2:
        raise ValueError(f"diagonal: the array must have at least 2 dimensions, got {x.ndim}")
    i, j = _axis(axis1, x.ndim, "diagonal"), _axis(axis2, x.ndim, "diagonal")
    if i == j:
        raise ValueError("diagonal: axis1 and axis2 cannot be the same")
    return diagonal_view(x, as_int(offset, "diagonal", "offset"), i, j)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None) -> Array:
    """``trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None)``: the sum of the
    diagonal (dtype as ``sum``: small integers in int64).

    Examples:
        >>> import rocarray as ra
        >>> ra.trace(ra.eye(3))
        array(3.)
    """
    d = diagonal(a, offset, axis1, axis2)
    return _into(d.sum(axis=-1, dtype=dtype), out, "trace")


def diag(v, k=0) -> Array:
    """``diag(v, k=0)``: a 2-D array with the 1-D ``v`` on its ``k``-th diagonal, or a copy
    of the ``k``-th diagonal of the 2-D ``v``.

    Examples:
        >>> import rocarray as ra
        >>> ra.diag(ra.asarray([1, 2]))
        array([[1, 0],
               [0, 2]])
    """
    x = _as_array(v, "diag")
    if x.ndim == 1:
        n = x.shape[0] + builtins.abs(operator.index(k))
        out = zeros((n, n), dtype=x.dtype, device=x.device)
        copy_into(diagonal(out, k), x)
        return out
    if x.ndim == 2:
        return diagonal(x, k).copy()
    raise ValueError(f"diag: the input must be 1-D or 2-D, got {x.ndim} dimensions")


def diagflat(v, k=0) -> Array:
    """``diagflat(v, k=0)``: ``diag`` of ``v`` flattened.

    Examples:
        >>> import rocarray as ra
        >>> ra.diagflat(ra.ones((1, 2))).shape
        (2, 2)
    """
    return diag(ravel(_as_array(v, "diagflat")), k)


def _operands(name: str, a, b):
    dev = a.device if isinstance(a, Array) else b.device if isinstance(b, Array) else None
    x, y = _as_array(a, name, dev), _as_array(b, name, dev)
    _check_same_device(name, x, y)
    return x, y


def dot(a, b, out=None) -> Array:
    """``dot(a, b, out=None)``: NumPy's dot product: ``a * b`` when either is 0-d, ``matmul``
    when ``b`` has one or two dimensions, else the sum over the last axis of ``a`` and the
    second-to-last of ``b`` (``tensordot``).

    Examples:
        >>> import rocarray as ra
        >>> ra.dot(ra.asarray([1.0, 2.0]), ra.asarray([3.0, 4.0]))
        array(11.)
    """
    x, y = _operands("dot", a, b)
    if x.ndim == 0 or y.ndim == 0:
        r = multiply(x, y)
    elif y.ndim <= 2:
        r = matmul(x, y)
    else:
        r = tensordot(x, y, axes=((x.ndim - 1,), (y.ndim - 2,)))
    return _into(r, out, "dot")


def vdot(a, b) -> Array:
    """``vdot(a, b)``: the dot product of the flattened arrays, ``a`` conjugated.

    Examples:
        >>> import rocarray as ra
        >>> ra.vdot(ra.asarray([1j, 2]), ra.asarray([1j, 1]))
        array(3.+0.j)
    """
    x, y = _operands("vdot", a, b)
    x, y = ravel(x), ravel(y)
    if x.dtype.kind == "c":
        x = conj(x)
    return matmul(x, y)


def inner(a, b) -> Array:
    """``inner(a, b)``: the sum of products over the last axes of ``a`` and ``b`` (no
    conjugation; ``a * b`` when either is 0-d).

    Examples:
        >>> import rocarray as ra
        >>> ra.inner(ra.ones((2, 3)), ra.ones(3))
        array([3., 3.])
    """
    x, y = _operands("inner", a, b)
    if x.ndim == 0 or y.ndim == 0:
        return multiply(x, y)
    return tensordot(x, y, axes=((x.ndim - 1,), (y.ndim - 1,)))


def outer(a, b, out=None) -> Array:
    """``outer(a, b, out=None)``: ``a[i] * b[j]`` of the flattened arrays.

    Examples:
        >>> import rocarray as ra
        >>> ra.outer(ra.asarray([1, 2]), ra.asarray([1, 10])).tolist()
        [[1, 10], [2, 20]]
    """
    x, y = _operands("outer", a, b)
    return _into(multiply(reshape(x, (-1, 1)), reshape(y, (1, -1))), out, "outer")


def kron(a, b) -> Array:
    """``kron(a, b)``: the Kronecker product (blocks ``a[i, j] * b``).

    Examples:
        >>> import rocarray as ra
        >>> ra.kron(ra.eye(2), ra.ones((2, 2))).shape
        (4, 4)
    """
    x, y = _operands("kron", a, b)
    nd = builtins.max(x.ndim, y.ndim)
    x = reshape(x, (1,) * (nd - x.ndim) + x.shape)
    y = reshape(y, (1,) * (nd - y.ndim) + y.shape)
    # interleave the axes: x on the even ones, y on the odd ones, then merge each pair
    xs = reshape(x, tuple(s for n in x.shape for s in (n, 1)))
    ys = reshape(y, tuple(s for n in y.shape for s in (1, n)))
    return reshape(multiply(xs, ys), tuple(p * q for p, q in zip(x.shape, y.shape)))


def _einsum_parse(subscripts: str, operands) -> tuple:
    """The operands' terms and the output's, ``...`` spelled out as letters of its own."""
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum: subscripts must be a str, not {type(subscripts).__name__}")
    s = subscripts.replace(" ", "")
    lhs, arrow, rhs = s.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise ValueError(f"einsum: {len(terms)} operand subscripts for {len(operands)} operands")
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in s]
    width = 0
    for k, (t, x) in enumerate(zip(terms, operands)):
        if "..." in t:
            n = x.ndim - (len(t) - 3)
            if n < 0 or t.count("...") > 1:
                raise ValueError(f"einsum: subscripts {t!r} do not fit an array of {x.ndim} dimensions")
            width = builtins.max(width, n)
            terms[k] = t.replace("...", "".join(spare[width - n:width]) if n else "")
    ell = "".join(spare[:width])
    for t, x in zip(terms, operands):
        if not all(c.isalpha() for c in t):
            raise ValueError(f"einsum: subscripts must be letters or '...', got {t!r}")
        if len(t) != x.ndim:
            raise ValueError(f"einsum: subscripts {t!r} name {len(t)} axes of an array of {x.ndim} dimensions")
    if arrow:
        rhs = rhs.replace("...", ell)
    else:
        counts = {}
        for c in "".join(terms):
            counts[c] = counts.get(c, 0) + 1
        rhs = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    joined = "".join(terms)
    if len(set(rhs)) != len(rhs) or any(c not in joined for c in rhs):
        raise ValueError(f"einsum: output subscripts {rhs!r} must be distinct letters of the inputs")
    # each letter's length: an axis of 1 broadcasts against the others (as NumPy's '...')
    size = {}
    for t, x in zip(terms, operands):
        for c, n in zip(t, x.shape):
            if size.get(c, 1) != 1 and n not in (1, size[c]):
                raise ValueError(f"einsum: axis {c!r} has lengths {size[c]} and {n}")
            if n != 1 or c not in size:
                size[c] = n
    xs = [x if all(size[c] == n for c, n in zip(t, x.shape)) else broadcast_to(x, tuple(size[c] for c in t))
          for t, x in zip(terms, operands)]
    return xs, terms, rhs


def _einsum_diagonals(x: Array, term: str) -> tuple:
    """A letter repeated in one term is a diagonal: taken as a view, the letter kept once."""
    while len(set(term)) != len(term):
        c = next(c for c in term if term.count(c) > 1)
        i = term.index(c)
        j = term.index(c, i + 1)
        x = diagonal(x, 0, i, j)
        term = "".join(t for k, t in enumerate(term) if k not in (i, j)) + c
    return x, term


def _einsum_pair(x: Array, tx: str, y: Array, ty: str, keep: set) -> tuple:
    """The product of two terms as one ``matmul``: the letters of both that are kept are the
    batch, those of both that are not are contracted, the rest are the rows and columns."""
    batch = [c for c in tx if c in ty and c in keep]
    contract = [c for c in tx if c in ty and c not in keep]
    left = [c for c in tx if c not in ty]
    right = [c for c in ty if c not in tx]
    size = {c: n for c, n in zip(tx, x.shape)}
    size.update({c: n for c, n in zip(ty, y.shape)})
    for c in tx:
        if c in ty and x.shape[tx.index(c)] != y.shape[ty.index(c)] and 1 not in (x.shape[tx.index(c)],
                                                                                 y.shape[ty.index(c)]):
            raise ValueError(f"einsum: axis {c!r} has lengths {x.shape[tx.index(c)]} and {y.shape[ty.index(c)]}")

    def prod(cs):
        n = 1
        for c in cs:
            n *= size[c]
        return n

    xp = permute_dims(x, tuple(tx.index(c) for c in batch + left + contract))
    yp = permute_dims(y, tuple(ty.index(c) for c in batch + contract + right))
    bshape = tuple(size[c] for c in batch)
    xm = reshape(xp, bshape + (prod(left), prod(contract)))
    ym = reshape(yp, bshape + (prod(contract), prod(right)))
    r = matmul(xm, ym)
    return reshape(r, bshape + tuple(size[c] for c in left + right)), "".join(batch + left + right)


def einsum(subscripts, *operands, out=None, dtype=None, optimize=False) -> Array:
    """``einsum(subscripts, *operands, out=None, dtype=None, optimize=False)``: Einstein
    summation: ``'ij,jk->ik'`` is a matrix product, ``'ii->i'`` a diagonal, ``'ij->'`` a sum.
    Operands are folded left to right, each pair as one ``matmul`` (letters in both and in
    the output are its batch); a letter in one operand only and not in the output is summed
    first; ``...`` stands for the axes not named (broadcast).  Differences from NumPy:
    ``optimize`` is accepted and ignored (the order is always left to right).

    Examples:
        >>> import rocarray as ra
        >>> a = ra.reshape(ra.arange(6.0), (2, 3))
        >>> ra.einsum("ij,kj->ik", a, a)
        array([[ 5., 14.],
               [14., 50.]])
    """
    if not operands:
        raise ValueError("einsum: at least one operand is required")
    dev = next((o.device for o in operands if isinstance(o, Array)), None)
    xs = [_as_array(o, "einsum", dev) for o in operands]
    _check_same_device("einsum", *xs)
    xs, terms, rhs = _einsum_parse(subscripts, xs)
    if dtype is not None:
        xs = [astype(x, dtype) for x in xs]
    pairs = [_einsum_diagonals(x, t) for x, t in zip(xs, terms)]
    # sum away each letter that only one operand has and the output does not keep
    reduced = []
    for k, (x, t) in enumerate(pairs):
        others = "".join(u for m, (_, u) in enumerate(pairs) if m != k) + rhs
        gone = [i for i, c in enumerate(t) if c not in others]
        if gone:
            x = x.sum(axis=tuple(gone)) if x.dtype.kind not in "biu" else x.sum(axis=tuple(gone), dtype=x.dtype)
            t = "".join(c for i, c in enumerate(t) if i not in gone)
        reduced.append((x, t))
    x, t = reduced[0]
    for k in range(1, len(reduced)):
        y, u = reduced[k]
        keep = set(rhs) | {c for _, v in reduced[k + 1:] for c in v}
        x, t = _einsum_pair(x, t, y, u, keep)
    gone = tuple(i for i, c in enumerate(t) if c not in rhs)
    if gone:
        x = x.sum(axis=gone) if x.dtype.kind not in "biu" else x.sum(axis=gone, dtype=x.dtype)
        t = "".join(c for i, c in enumerate(t) if i not in gone)
    r = permute_dims(x, tuple(t.index(c) for c in rhs)) if t != rhs else x
    if len(operands) == 1 and r._buf is xs[0]._buf:
        r = r.copy()  # NumPy returns a new array (a view only when it is asked for through out)
    return _into(r, out, "einsum")


# -- padding --------------------------------------------------------------------------------------


def _pad_widths(pad_width, ndim: int) -> list:
    w = np.asarray(pad_width)
    if w.dtype.kind not in "iu":
        raise TypeError(f"pad: pad_width must hold integers, not {w.dtype}")
    try:
        w = np.broadcast_to(w, (ndim, 2))
    except ValueError:
        raise ValueError(f"pad: pad_width of shape {np.shape(pad_width)} does not fit an array of "
                         f"{ndim} dimensions; give (before, after) per axis") from None
    if (w < 0).any():
        raise ValueError("pad: pad_width cannot be negative")
    return [(int(b), int(a)) for b, a in w]


def _pad_index(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """The source index of every position of one padded axis (host integers, no data)."""
    i = np.arange(-before, n + after)
    if mode == "edge":
        return np.clip(i, 0, n - 1)
    if mode == "wrap":
        return i % n
    if mode == "symmetric":
        p = i % (2 * n)
        return np.where(p < n, p, 2 * n - 1 - p)
    # reflect: the edge value is not repeated
    if n == 1:
        return np.zeros_like(i)
    p = i % (2 * n - 2)
    return np.where(p < n, p, 2 * n - 2 - p)


_PAD_MODES = ("constant", "edge", "wrap", "reflect", "symmetric")


def pad(array, pad_width, mode="constant", *, constant_values=0) -> Array:
    """``pad(array, pad_width, mode='constant', *, constant_values=0)``: ``array`` widened by
    ``pad_width`` (an int, a ``(before, after)`` pair, or one pair per axis).  Modes:
    ``'constant'`` (one value), ``'edge'``, ``'wrap'``, ``'reflect'``, ``'symmetric'``.
    Differences from NumPy: no statistic modes (``'mean'``, ``'linear_ramp'``, ...), one
    constant for every side.

    Examples:
        >>> import rocarray as ra
        >>> ra.pad(ra.asarray([1, 2, 3]), (1, 2), mode="edge")
        array([1, 1, 2, 3, 3, 3])
    """
    x = _as_array(array, "pad")
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: mode {mode!r} is not supported; use one of {', '.join(_PAD_MODES)}")
    widths = _pad_widths(pad_width, x.ndim)
    if mode == "constant":
        if not isinstance(constant_values, (bool, int, float, complex, np.generic)):
            raise TypeError("pad: constant_values must be one scalar here")
        shape = tuple(n + b + a for n, (b, a) in zip(x.shape, widths))
        out = full(shape, constant_values, dtype=x.dtype, device=x.device)
        copy_into(out[tuple(slice(b, b + n) for n, (b, _) in zip(x.shape, widths))], x)
        return out
    for ax, (b, a) in enumerate(widths):
        if not (b or a):
            continue
        if x.shape[ax] == 0:
            raise ValueError(f"pad: mode {mode!r} cannot pad an empty axis")
        idx = asarray(_pad_index(x.shape[ax], b, a, mode), device=x.device)
        x = take(x, idx, axis=ax)
    return x if x is not array else x.copy()


def flipud(m) -> Array:
    """``flipud(m)``: ``m`` reversed along its first axis (a view).

    Examples:
        >>> import rocarray as ra
        >>> ra.flipud(ra.asarray([1, 2, 3]))
        array([3, 2, 1])
    """
    return flip(_as_array(m, "flipud"), axis=0)


def fliplr(m) -> Array:
    """``fliplr(m)``: ``m`` reversed along its second axis (a view).

    Examples:
        >>> import rocarray as ra
        >>> ra.fliplr(ra.eye(2)).tolist()
        [[0.0, 1.0], [1.0, 0.0]]
    """
    return flip(_as_array(m, "fliplr"), axis=1)


def append(arr, values, axis=None) -> Array:
    """``append(arr, values, axis=None)``: ``values`` joined after ``arr`` (both flattened when
    ``axis`` is None).

    Examples:
        >>> import rocarray as ra
        >>> ra.append(ra.asarray([1, 2]), [3])
        array([1, 2, 3])
    """
    x = _as_array(arr, "append")
    v = _as_array(values, "append", x.device)
    return concatenate([x, v], axis=axis)



# -- index arrays ---------------------------------------------------------------------------------


def unravel_index(indices, shape, order="C") -> tuple:
    """``unravel_index(indices, shape, order='C')``: the coordinates in an array of ``shape``
    of each flat index (a tuple of int64 arrays of ``indices``' shape; C order only).

    Examples:
        >>> import rocarray as ra
        >>> ra.unravel_index(ra.asarray([5, 7]), (2, 4))
        (array([1, 1]), array([1, 3]))
    """
    if order != "C":
        raise ValueError(f"unravel_index: only order='C' is supported, not {order!r}")
    idx = _as_array(indices, "unravel_index")
    if idx.dtype.kind not in "iu":
        raise TypeError(f"unravel_index: indices must be integers, not {idx.dtype}")
    shape = (operator.index(shape),) if not isinstance(shape, (tuple, list)) else tuple(map(operator.index, shape))
    size = 1
    for n in shape:
        size *= n
    if idx.size and (builtins.bool((idx < 0).any()) or builtins.bool((idx >= size).any())):
        raise ValueError(f"unravel_index: an index is out of bounds for an array of size {size}")
    idx = astype(idx, _dtypes.int64)
    out = []
    for n in reversed(shape):
        out.append(remainder(idx, n))
        idx = floor_divide(idx, n)
    return tuple(reversed(out))


def ravel_multi_index(multi_index, dims, mode="raise", order="C") -> Array:
    """``ravel_multi_index(multi_index, dims, mode='raise', order='C')``: the flat index of
    each coordinate tuple in an array of shape ``dims`` (C order, out-of-bounds raising).

    Examples:
        >>> import rocarray as ra
        >>> ra.ravel_multi_index((ra.asarray([1, 1]), ra.asarray([1, 3])), (2, 4))
        array([5, 7])
    """
    if mode != "raise" or order != "C":
        raise ValueError("ravel_multi_index: only mode='raise' and order='C' are supported")
    coords = [astype(_as_array(c, "ravel_multi_index"), _dtypes.int64) for c in multi_index]
    if len(coords) != len(dims):
        raise ValueError(f"ravel_multi_index: {len(coords)} coordinate arrays for {len(dims)} dimensions")
    flat = None
    for c, n in zip(coords, dims):
        if c.size and (builtins.bool((c < 0).any()) or builtins.bool((c >= n).any())):
            raise ValueError(f"ravel_multi_index: a coordinate is out of bounds for a dimension of {n}")
        flat = c if flat is None else add(multiply(flat, int(n)), c)
    return flat


def indices(dimensions, dtype=None, *, device=None) -> Array:
    """``indices(dimensions, dtype=int64)``: the grid of coordinates, shape
    ``(len(dimensions), *dimensions)``.

    Examples:
        >>> import rocarray as ra
        >>> ra.indices((2, 3))[1]
        array([[0, 1, 2],
               [0, 1, 2]])
    """
    dt = _dtypes.int64 if dtype is None else dtype
    axes = [arange(int(n), dtype=dt, device=device) for n in dimensions]
    if not axes:
        return zeros((0,), dtype=dt, device=device)
    return stack(meshgrid(*axes, indexing="ij"), axis=0)


def _triangle_indices(name: str, n, k, m, lower: bool, device) -> tuple:
    m = n if m is None else m
    ones_ = full((operator.index(n), operator.index(m)), True, dtype=_dtypes.bool, device=device)
    mask = tril(ones_, k=operator.index(k)) if lower else triu(ones_, k=operator.index(k))
    return nonzero(mask)


def tril_indices(n, k=0, m=None, *, device=None) -> tuple:
    """``tril_indices(n, k=0, m=None)``: the (row, column) indices of the lower triangle of an
    ``(n, m)`` array, row by row.

    Examples:
        >>> import rocarray as ra
        >>> ra.tril_indices(2)
        (array([0, 1, 1]), array([0, 0, 1]))
    """
    return _triangle_indices("tril_indices", n, k, m, True, device)


def triu_indices(n, k=0, m=None, *, device=None) -> tuple:
    """``triu_indices(n, k=0, m=None)``: the (row, column) indices of the upper triangle.

    Examples:
        >>> import rocarray as ra
        >>> ra.triu_indices(2)
        (array([0, 0, 1]), array([0, 1, 1]))
    """
    return _triangle_indices("triu_indices", n, k, m, False, device)


def diag_indices(n, ndim=2, *, device=None) -> tuple:
    """``diag_indices(n, ndim=2)``: ``ndim`` copies of ``arange(n)``, the main diagonal's
    indices.

    Examples:
        >>> import rocarray as ra
        >>> ra.diag_indices(2)
        (array([0, 1]), array([0, 1]))
    """
    i = arange(operator.index(n), dtype=_dtypes.int64, device=device)
    return (i,) * ndim
