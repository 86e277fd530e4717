"""NumPy's polynomial functions of the top level (coefficients highest power first): ``poly``,
``polyadd``, ``polysub``, ``polymul``, ``polydiv``, ``polyder``, ``polyint``, ``polyfit``,
``roots`` and the class ``poly1d``, with NumPy's signatures and result dtypes, composed of
rocarray's device operations (``convolve``, ``linalg.lstsq``, ``linalg.eigvals``,
elementwise ops), so on the device.  ``polyval`` is in ``_numpy_numerics``."""

from __future__ import annotations

import builtins
import numbers
import operator
import warnings

import numpy as np

from . import _dtypes
from ._array_object import Array
from ._creation_functions import arange, eye, ones, zeros
from ._data_type_functions import astype
from ._elementwise_functions import (abs as abs_, add, conj, divide, equal, greater, imag, isnan, logical_not,
                                     logical_or, multiply, negative, real, sqrt, subtract)
from ._indexing_functions import nonzero
from ._linear_algebra_functions import matmul
from ._manipulation_functions import concat, reshape
from ._numpy_more import sort_complex, trim_zeros
from ._numpy_names import _as_array
from ._numpy_numerics import polyval, vander
from ._statistical_functions import all as _all, sum as _sum
from ._views import expand_dims, matrix_transpose
from . import linalg

__all__ = ["poly", "poly1d", "polyadd", "polydiv", "polyder", "polyfit", "polyint", "polymul", "polysub", "roots"]


def _coeffs(p, name: str, device=None) -> Array:
    """The 1-d coefficient array of ``p`` (a poly1d, an array, a scalar or a list)."""
    if isinstance(p, poly1d):
        return p.coeffs
    x = _as_array(p, name, device)
    if x.ndim == 0:
        x = reshape(x, (1,))
    if x.ndim != 1:
        raise ValueError(f"{name}: polynomial coefficients must be 1-D, not {x.ndim}-D (shape {x.shape})")
    return x


def _pair(a1, a2, name: str):
    c1 = _coeffs(a1, name)
    return c1, _coeffs(a2, name, c1.device)


def _inexact(x: Array) -> Array:
    """``x + 0.0`` in NumPy's terms: integers and bools become float64, the rest stay."""
    return astype(x, _dtypes.float64) if x.dtype.kind in "biu" else x


def _order(m, name: str, what: str) -> int:
    if isinstance(m, builtins.bool) or not isinstance(m, (numbers.Integral, np.integer)):
        raise TypeError(f"{name}: m must be an int, not {type(m).__name__}")
    m = operator.index(m)
    if m < 0:
        raise ValueError(f"Order of {what} must be positive (see {'polyint' if what == 'derivative' else 'polyder'})")
    return m


def _padded(c: Array, n: int, dtype) -> Array:
    """``c`` with zeros in front, to length ``n``, in ``dtype``."""
    c = astype(c, dtype) if c.dtype != dtype else c
    if c.shape[0] >= n:
        return c
    return concat([zeros((n - c.shape[0],), dtype=dtype, device=c.device), c])


# -- roots and coefficients -----------------------------------------------------------------------

def poly(seq_of_zeros):
    """The coefficients (highest power first, leading 1) of the monic polynomial whose roots
    are ``seq_of_zeros``, or of the characteristic polynomial of a square matrix, NumPy's
    ``numpy.poly``.

    A 1-d sequence gives ``prod(x - r)``; a non-empty square 2-d array its eigenvalues'
    polynomial.  Complex roots in exact conjugate pairs give real coefficients; integer roots
    give float64.  An empty sequence gives the Python float ``1.0``, as NumPy.

    Raises:
        ValueError: the input is neither 1-d nor a non-empty square 2-d array.

    Examples:
        >>> import rocarray as ra
        >>> ra.poly(ra.asarray([1.0, 2.0]))  # x^2 - 3x + 2
        array([ 1., -3.,  2.])
    """
    seq = _as_array(seq_of_zeros, "poly")
    if seq.ndim == 0:
        seq = reshape(seq, (1,))
    if seq.ndim == 2 and seq.shape[0] == seq.shape[1] and seq.shape[0] != 0:
        seq = linalg.eigvals(seq)
    elif seq.ndim == 1:
        seq = _inexact(seq)
    else:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if seq.shape[0] == 0:
        return 1.0
    dt = seq.dtype
    zero = zeros((1,), dtype=dt, device=seq.device)
    a = ones((1,), dtype=dt, device=seq.device)
    for i in range(seq.shape[0]):
        # multiplying by (x - r): a_new[j] = a[j] - r * a[j - 1]
        a = subtract(concat([a, zero]), multiply(seq[i], concat([zero, a])))
    if dt.kind == "c" and builtins.bool(_all(equal(sort_complex(seq), sort_complex(conj(seq))))):
        a = real(a).copy()
    return a


def roots(p) -> Array:
    """The roots of the polynomial with coefficients ``p`` (highest power first), NumPy's
    ``numpy.roots``: the eigenvalues of its companion matrix (``linalg.eigvals``), after
    the leading zeros of ``p`` are dropped; each trailing zero of ``p`` is a root 0.

    Real when ``p`` is real and every root is (float64 for integer ``p``), complex
    otherwise; the order is the eigensolver's.  All-zero or constant ``p``: no roots.

    Raises:
        ValueError: ``p`` is not 1-d.

    Examples:
        >>> import rocarray as ra
        >>> ra.roots(ra.asarray([1.0, -3.0, 2.0]))  # 2 and 1
        array([2., 1.])
    """
    p = _as_array(p, "roots")
    if p.ndim == 0:
        p = reshape(p, (1,))
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    found = nonzero(p)[0]
    if found.shape[0] == 0:
        return zeros((0,), dtype=_dtypes.float64, device=p.device)
    first, last = (int(v) for v in concat([found[:1], found[-1:]]).tolist())
    trailing = p.shape[0] - last - 1
    p = _inexact(p[first:last + 1])
    n = p.shape[0]
    if n > 1:
        # the companion matrix: ones below the diagonal, -p[1:] / p[0] in the first row
        comp = eye(n - 1, n - 1, k=-1, dtype=p.dtype, device=p.device)
        comp[0, :] = negative(divide(p[1:], p[0]))
        r = linalg.eigvals(comp)
        if p.dtype.kind != "c" and not builtins.bool(_any_nonzero(imag(r))):
            r = real(r).copy()
    else:
        r = zeros((0,), dtype=p.dtype, device=p.device)
    if trailing:
        r = concat([r, zeros((trailing,), dtype=r.dtype, device=r.device)])
    return r


def _any_nonzero(x: Array) -> Array:
    return logical_not(_all(equal(x, 0)))


# -- arithmetic -----------------------------------------------------------------------------------

def _add_or_sub(a1, a2, name: str, op):
    true_poly = isinstance(a1, poly1d) or isinstance(a2, poly1d)
    c1, c2 = _pair(a1, a2, name)
    n = max(c1.shape[0], c2.shape[0])
    dt = _dtypes.result_type(c1.dtype, c2.dtype)
    val = op(_padded(c1, n, dt), _padded(c2, n, dt))
    return poly1d(val) if true_poly else val


def polyadd(a1, a2):
    """The sum of two polynomials (coefficients highest power first; the shorter one padded
    with leading zeros), NumPy's ``numpy.polyadd``; a ``poly1d`` operand gives a ``poly1d``.

    Examples:
        >>> import rocarray as ra
        >>> ra.polyadd(ra.asarray([1, 2]), ra.asarray([9, 5, 4]))
        array([9, 6, 6])
    """
    return _add_or_sub(a1, a2, "polyadd", add)


def polysub(a1, a2):
    """The difference ``a1 - a2`` of two polynomials, NumPy's ``numpy.polysub``; a ``poly1d``
    operand gives a ``poly1d``.

    Examples:
        >>> import rocarray as ra
        >>> ra.polysub(ra.asarray([2, 10, -2]), ra.asarray([3, 10, -4]))
        array([-1,  0,  2])
    """
    return _add_or_sub(a1, a2, "polysub", subtract)


def polymul(a1, a2):
    """The product of two polynomials (the convolution of their coefficients, leading zeros
    dropped first as NumPy's ``poly1d`` does), NumPy's ``numpy.polymul``; a ``poly1d``
    operand gives a ``poly1d``.

    Examples:
        >>> import rocarray as ra
        >>> ra.polymul(ra.asarray([1, 2, 3]), ra.asarray([9, 5, 1]))
        array([ 9, 23, 38, 17,  3])
    """
    from ._numpy_stats import convolve  # (imports the namespace's later modules)

    true_poly = isinstance(a1, poly1d) or isinstance(a2, poly1d)
    c1, c2 = _pair(a1, a2, "polymul")
    val = convolve(poly1d(c1).coeffs, poly1d(c2).coeffs)
    return poly1d(val) if true_poly else val


def polydiv(u, v):
    """The quotient and remainder ``(q, r)`` of the polynomial division ``u / v``, NumPy's
    ``numpy.polydiv``: ``u = q * v + r`` with ``len(r) < len(v)`` or ``r`` of length 1.

    Long division, one step per quotient coefficient; leading remainder coefficients of
    magnitude at most 1e-8 are dropped (at least one kept), as NumPy.  Integers divide in
    float64; ``poly1d`` operands give ``poly1d`` results.

    Examples:
        >>> import rocarray as ra
        >>> ra.polydiv(ra.asarray([3.0, 5.0, 2.0]), ra.asarray([2.0, 1.0]))
        (array([1.5 , 1.75]), array([0.25]))
    """
    true_poly = isinstance(u, poly1d) or isinstance(v, poly1d)
    cu, cv = _pair(u, v, "polydiv")
    cu, cv = _inexact(cu), _inexact(cv)
    dt = _dtypes.result_type(cu.dtype, cv.dtype)
    m, n = cu.shape[0] - 1, cv.shape[0] - 1
    scale = divide(1.0, astype(cv[0], dt))
    q = zeros((max(m - n + 1, 1),), dtype=dt, device=cu.device)
    r = astype(cu, dt, copy=True)
    for k in range(m - n + 1):
        d = multiply(scale, r[k])
        q[k] = d
        r[k:k + n + 1] = subtract(r[k:k + n + 1], multiply(d, cv))
    # drop leading remainder coefficients that vanish (|c| <= 1e-8, NaN kept)
    big = logical_or(greater(abs_(r), 1e-8), isnan(r))
    found = nonzero(big[:-1])[0]
    start = int(found[0]) if found.shape[0] else r.shape[0] - 1
    r = r[start:]
    if true_poly:
        return poly1d(q), poly1d(r)
    return q, r


# -- calculus -------------------------------------------------------------------------------------

def polyder(p, m=1):
    """The ``m``-th derivative of the polynomial ``p``, NumPy's ``numpy.polyder`` (integer
    coefficients stay integers; float32 becomes float64, as NumPy's product with int64);
    a ``poly1d`` gives a ``poly1d``.

    Raises:
        ValueError: ``m`` is negative.

    Examples:
        >>> import rocarray as ra
        >>> ra.polyder(ra.asarray([1, 1, 1, 1]))  # 3x^2 + 2x + 1
        array([3, 2, 1])
    """
    m = _order(m, "polyder", "derivative")
    true_poly = isinstance(p, poly1d)
    c = _coeffs(p, "polyder")
    for _ in range(m):
        n = c.shape[0] - 1
        c = multiply(c[:-1], arange(n, 0, -1, dtype=_dtypes.int64, device=c.device))
    return poly1d(c) if true_poly else c


def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative of the polynomial ``p``, NumPy's ``numpy.polyint``: the
    integration constants ``k`` (a scalar or a sequence of ``m``; zeros when None) are the
    constant terms, the first one added first.  The result is float64 for integer and
    float32 coefficients (as NumPy's division by int64); a ``poly1d`` gives a ``poly1d``.

    Raises:
        ValueError: ``m`` is negative, or ``k`` has fewer than ``m`` values (and more than 1).

    Examples:
        >>> import rocarray as ra
        >>> ra.polyint(ra.asarray([3.0, 2.0, 1.0]))  # x^3 + x^2 + x
        array([1., 1., 1., 0.])
    """
    m = _order(m, "polyint", "integral")
    true_poly = isinstance(p, poly1d)
    c = _coeffs(p, "polyint")
    if k is None:
        consts = zeros((m,), dtype=_dtypes.float64, device=c.device)
    else:
        consts = _coeffs(k, "polyint", c.device)
        if consts.shape[0] == 1 and m > 1:
            consts = multiply(consts[0], ones((m,), dtype=_dtypes.float64, device=c.device))
    if consts.shape[0] < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    for i in range(m):
        c = divide(c, arange(c.shape[0], 0, -1, dtype=_dtypes.int64, device=c.device))
        c = concat([c, consts[i:i + 1]])
    return poly1d(c) if true_poly else c


# -- fitting --------------------------------------------------------------------------------------

def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """The least-squares polynomial fit of degree ``deg`` to the points ``(x, y)``, NumPy's
    ``numpy.polyfit``: coefficients highest power first (one column per column of a 2-d ``y``).

    The Vandermonde matrix (weighted by ``w``, each column scaled to unit norm) is solved by
    ``linalg.lstsq`` with ``rcond`` (default ``len(x) * eps`` of ``x``'s precision).
    ``full=True`` returns ``(p, residuals, rank, singular_values, rcond)``; ``cov=True``
    returns ``(p, V)`` with V the coefficients' covariance, scaled by ``residuals / (len(x) -
    deg - 1)`` unless ``cov="unscaled"`` (shape (deg+1, deg+1), or (deg+1, deg+1, K) for a
    2-d ``y``).  A rank-deficient fit warns ``numpy.exceptions.RankWarning`` unless ``full``.

    Raises:
        ValueError: ``deg`` is negative, or too few points to scale the covariance.
        TypeError: ``x`` is not a non-empty 1-d vector, ``y`` not 1-d or 2-d, ``w`` not 1-d,
            or their lengths differ (NumPy's error types).

    Examples:
        >>> import rocarray as ra
        >>> x = ra.asarray([0.0, 1.0, 2.0, 3.0])
        >>> ra.polyfit(x, 2 * x + 1, 1)
        array([2., 1.])
    """
    if isinstance(deg, builtins.bool) or not isinstance(deg, (numbers.Real, np.number)):
        raise TypeError(f"polyfit: deg must be an int, not {type(deg).__name__}")
    order = int(deg) + 1
    x = _inexact(_as_array(x, "polyfit"))
    y = _inexact(_as_array(y, "polyfit", x.device))
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = x.shape[0] * float(_dtypes.finfo(_real(x.dtype)).eps)
    lhs = vander(x, order)
    rhs = y
    if w is not None:
        w = _inexact(_as_array(w, "polyfit", x.device))
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        if w.dtype.kind == "c" and (lhs.dtype.kind != "c" or rhs.dtype.kind != "c"):
            raise TypeError("polyfit: complex weights need complex x and y (the weighted terms keep "
                            "their dtypes, as NumPy's in-place products)")
        lhs = astype(multiply(lhs, expand_dims(w, axis=1)), lhs.dtype)
        rhs = astype(multiply(rhs, expand_dims(w, axis=1) if rhs.ndim == 2 else w), rhs.dtype)
    # unit-norm columns improve the conditioning (NumPy's sum of squares, not of |.|^2)
    scale = sqrt(_sum(multiply(lhs, lhs), axis=0))
    lhs = divide(lhs, scale)
    c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = divide(c, expand_dims(scale, axis=1) if c.ndim == 2 else scale)
    if rank != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", np.exceptions.RankWarning, stacklevel=2)
    if full:
        return c, resids, rank, s, rcond
    if not cov:
        return c
    base = linalg.inv(matmul(matrix_transpose(lhs), lhs))
    base = divide(base, multiply(expand_dims(scale, axis=1), scale))
    if isinstance(cov, str) and cov == "unscaled":
        fac = 1.0
    else:
        if x.shape[0] <= order:
            raise ValueError("the number of data points must exceed order to scale the covariance matrix")
        fac = divide(resids, x.shape[0] - order)
    if y.ndim == 1:
        return c, multiply(base, fac)
    return c, multiply(expand_dims(base, axis=2), fac)


def _real(dtype):
    return {"c8": _dtypes.float32, "c16": _dtypes.float64}.get(f"{dtype.kind}{dtype.itemsize}", dtype)


# -- poly1d ---------------------------------------------------------------------------------------

def _is_scalar(v) -> bool:
    return isinstance(v, (numbers.Number, np.generic)) and not isinstance(v, builtins.bool)


class poly1d:  # noqa: N801 - NumPy's name
    """A one-variable polynomial, NumPy's ``numpy.poly1d``: its coefficients (highest power
    first, leading zeros dropped) held as a rocarray array on its device.

    ``poly1d(c)`` from coefficients, ``poly1d(r, r=True)`` from roots; ``p(x)`` evaluates
    (a ``poly1d`` argument composes), ``+``, ``-``, ``*``, ``/`` (by a scalar, or a
    polynomial division giving ``(q, r)``) and ``**`` (non-negative ints) as NumPy's;
    ``p[k]`` is the coefficient of ``x**k``; ``coeffs``/``c``/``coef``/``coefficients``,
    ``order``/``o``, ``roots``/``r``, ``variable``, ``deriv(m)``, ``integ(m, k)``.

    Examples:
        >>> import rocarray as ra
        >>> p = ra.poly1d([1.0, 2.0, 3.0])
        >>> p(0.5), p.deriv(), p.roots
        (array(4.25), poly1d([2., 2.]), array([-1.+1.41421356j, -1.-1.41421356j]))
    """

    __hash__ = None  # mutable, compared by value (as NumPy's)

    def __init__(self, c_or_r, r=False, variable=None):
        if isinstance(c_or_r, poly1d):
            self._coeffs, self._variable = c_or_r._coeffs, c_or_r._variable
            if variable is not None:
                self._variable = variable
            return
        if r:
            c_or_r = poly(c_or_r)
        c = _as_array(c_or_r, "poly1d")
        if c.ndim == 0:
            c = reshape(c, (1,))
        if c.ndim > 1:
            raise ValueError("Polynomial must be 1d only.")
        c = trim_zeros(c, trim="f")
        if c.shape[0] == 0:
            c = zeros((1,), dtype=c.dtype, device=c.device)
        self._coeffs = c
        if variable is not None and not isinstance(variable, str):
            raise TypeError(f"poly1d: variable must be a string, not {type(variable).__name__}")
        self._variable = "x" if variable is None else variable

    # -- attributes ------------------------------------------------------------------------------
    @property
    def coeffs(self) -> Array:
        """The coefficients, highest power first."""
        return self._coeffs

    c = coef = coefficients = coeffs

    @property
    def variable(self) -> str:
        """The name of the variable (for printing)."""
        return self._variable

    @property
    def order(self) -> int:
        """The degree (the number of coefficients less one)."""
        return self._coeffs.shape[0] - 1

    o = order

    @property
    def roots(self) -> Array:
        """The roots, ``rocarray.roots`` of the coefficients."""
        return roots(self._coeffs)

    r = roots

    def __len__(self) -> int:
        return self.order

    def __iter__(self):
        return iter(self._coeffs)

    def __repr__(self) -> str:
        text = repr(self._coeffs)
        inner = text[text.index("(") + 1:text.rindex(")")] if "(" in text else text
        return f"poly1d({inner})"

    def __str__(self) -> str:
        terms = []
        values = self._coeffs.tolist()
        n = len(values) - 1
        for i, v in enumerate(values):
            power = n - i
            if v == 0 and n > 0:
                continue
            var = "" if power == 0 else self._variable if power == 1 else f"{self._variable}**{power}"
            terms.append(f"{v:g}" + (f" {var}" if var else "") if not isinstance(v, complex) else
                         f"({v:g})" + (f" {var}" if var else ""))
        return " + ".join(terms) if terms else "0"

    # -- evaluation and calculus -----------------------------------------------------------------
    def __call__(self, val):
        if isinstance(val, poly1d):
            # composition by Horner's scheme in polynomial arithmetic
            out = poly1d(zeros((1,), dtype=self._coeffs.dtype, device=self._coeffs.device))
            for i in range(self._coeffs.shape[0]):
                out = out * val + poly1d(self._coeffs[i:i + 1])
            return out
        return polyval(self._coeffs, val)

    def deriv(self, m=1) -> "poly1d":
        """The ``m``-th derivative, a ``poly1d``."""
        return poly1d(polyder(self._coeffs, m))

    def integ(self, m=1, k=0) -> "poly1d":
        """The ``m``-th antiderivative with integration constants ``k``, a ``poly1d``."""
        return poly1d(polyint(self._coeffs, m=m, k=k))

    # -- arithmetic --------------------------------------------------------------------------------
    def _other(self, other) -> "poly1d":
        return other if isinstance(other, poly1d) else poly1d(_as_array(other, "poly1d", self._coeffs.device))

    def __neg__(self):
        return poly1d(negative(self._coeffs))

    def __pos__(self):
        return self

    def __add__(self, other):
        return poly1d(polyadd(self._coeffs, self._other(other).coeffs))

    def __radd__(self, other):
        return poly1d(polyadd(self._other(other).coeffs, self._coeffs))

    def __sub__(self, other):
        return poly1d(polysub(self._coeffs, self._other(other).coeffs))

    def __rsub__(self, other):
        return poly1d(polysub(self._other(other).coeffs, self._coeffs))

    def __mul__(self, other):
        if _is_scalar(other):
            return poly1d(multiply(self._coeffs, other))
        return poly1d(polymul(self._coeffs, self._other(other).coeffs))

    def __rmul__(self, other):
        if _is_scalar(other):
            return poly1d(multiply(other, self._coeffs))
        return poly1d(polymul(self._other(other).coeffs, self._coeffs))

    def __truediv__(self, other):
        if _is_scalar(other):
            return poly1d(divide(self._coeffs, other))
        return polydiv(self, self._other(other))

    def __rtruediv__(self, other):
        if _is_scalar(other):
            return poly1d(divide(other, self._coeffs))
        return polydiv(self._other(other), self)

    def __pow__(self, val):
        if not _is_scalar(val) or int(val) != val or val < 0:
            raise ValueError("Power to non-negative integers only.")
        out = ones((1,), dtype=_dtypes.int64, device=self._coeffs.device)  # (NumPy's [1]: p**0 is int)
        for _ in range(int(val)):
            out = polymul(self._coeffs, out)
        return poly1d(out)

    def __eq__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        if self._coeffs.shape != other._coeffs.shape:
            return False
        return builtins.bool(_all(equal(self._coeffs, other._coeffs)))

    def __ne__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        return not self.__eq__(other)

    # -- coefficients by power -----------------------------------------------------------------------
    def __getitem__(self, power):
        power = operator.index(power)
        if power > self.order or power < 0:
            return zeros((), dtype=self._coeffs.dtype, device=self._coeffs.device)
        return self._coeffs[self.order - power]

    def __setitem__(self, power, val):
        power = operator.index(power)
        if power < 0:
            raise ValueError("Does not support negative powers.")
        if power > self.order:
            self._coeffs = _padded(self._coeffs, power + 1, self._coeffs.dtype)
        else:
            self._coeffs = self._coeffs.copy()  # (the array may be shared with another poly1d)
        self._coeffs[self.order - power] = val
