"""Elementwise functions and operators against NumPy: every catalogue row, every dtype pair,
random shapes and layouts (steps, negative steps, transposes, broadcasts, 0-d, empty),
Python scalars of every kind and magnitude on either side, in-place forms, where and clip.

Where rocarray decides differently from NumPy (docs/elementwise.md, docs/dtypes.md), the
reference below encodes rocarray's documented rule, and says so."""

from __future__ import annotations

import operator

import mpmath
import numpy as np
import pytest
from hypothesis import given, strategies as st

import rocarray as ra
from rocarray._elementwise_functions import _rows

from ._support import (ACCEPTS, ALL, assert_raises_like, assert_same, broadcast_shapes, cases, dtypes,
                       python_scalars, quiet, reference, shapes)

NP_NAMES = {
    "acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh", "atan": "arctan",
    "atanh": "arctanh", "atan2": "arctan2", "bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift", "pow": "power", "conj": "conjugate",
}
SPECIAL_ROWS = ("where", "clip", "copy")
# (rows named ``_...`` are parts of composed functions, such as frexp's two results)
UNARY = sorted(r.name for r in _rows.values() if r.nin == 1 and r.name not in SPECIAL_ROWS and r.name[0] != "_")
BINARY = sorted(r.name for r in _rows.values() if r.nin == 2)
COMPLEX_ORDER = {"less", "less_equal", "greater", "greater_equal"}
COMPARISONS = COMPLEX_ORDER | {"equal", "not_equal"}
MIRRORED = {"less": "greater", "less_equal": "greater_equal", "greater": "less", "greater_equal": "less_equal"}

#: ops whose real results are exactly determined by IEEE arithmetic (and float16 computed
#: in float32, rounded once, in both libraries): compared bit for bit
EXACT = {
    "abs", "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "negative",
    "positive", "square", "sqrt", "reciprocal", "floor", "ceil", "trunc", "round", "sign",
    "maximum", "minimum", "copysign", "nextafter", "real", "imag", "conj", "equal", "not_equal",
    "less", "less_equal", "greater", "greater_equal", "isnan", "isinf", "isfinite", "signbit",
    "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_invert", "bitwise_left_shift", "bitwise_right_shift",
}
#: ops exact on reals whose complex forms are not (a product feeding a sum is one FMA on a
#: host with FMA instructions, as in NumPy's own loops; division and sqrt scale)
COMPLEX_ULPS = 4
#: libm-class functions: two implementations of a few ulps each
MATH_ULPS = {"float32": 8, "float64": 8, "complex64": 16, "complex128": 16}


def ulps(name: str, dt: np.dtype, complex_input: bool = False) -> float:
    """The tolerance for ``name``'s result of dtype ``dt``, in units of dt's epsilon."""
    dt = np.dtype(dt)
    if dt.kind not in "fc":
        return 0
    if complex_input and dt.kind == "f":  # abs of complex: a hypot
        return 0 if dt == np.float16 else COMPLEX_ULPS
    if dt == np.float16:
        # computed in float32 and rounded once: the float32 results of two libms may round
        # to neighbouring halves
        return 0 if name in EXACT else 1
    if name in EXACT:
        return 0 if dt.kind == "f" else COMPLEX_ULPS
    return MATH_ULPS[dt.name]


def _standard_floor_divide(a, b):
    """NumPy's floor_divide with the standard's special cases (an infinite operand: the IEEE
    quotient, ``inf // 2`` is inf and ``1 // -inf`` is -0, where NumPy gives NaN and -1)."""
    q = np.floor_divide(a, b)
    dt = np.asarray(q).dtype
    if dt.kind == "f":
        # (the operands as the loop sees them: a Python int beyond float16's range is inf there)
        with np.errstate(all="ignore"):
            a, b = np.asarray(a).astype(dt), np.asarray(b).astype(dt)
        special = (np.isinf(a) | np.isinf(b)) & (b != 0)
        q = np.where(special, np.true_divide(a, b), q).astype(dt)
    return q


def np_func(name):
    if name == "floor_divide":
        return _standard_floor_divide
    return getattr(np, NP_NAMES.get(name, name))


def _has_body(row, dt: np.dtype) -> bool:
    if isinstance(row.body, str):
        return True
    return dt.name in row.body or any(dt.kind in k for k in row.body if set(k) <= set("biufc"))


def loop_kind(row, operands) -> str:
    """The kind of the loop dtype rocarray computes ``row`` in (docs/dtypes.md)."""
    t = ra.result_type(*operands)
    if row.compute in ("float", "true_divide") and t.kind in "biu":
        return "f"
    return "b" if row.compute == "bool" else t.kind


def rocarray_supports(row, operands) -> bool:
    """Whether rocarray's catalogue takes these operands (arrays or Python scalars): the
    standard's dtype kinds for the op (rocarray refuses, say, ``sin`` of bool, which NumPy
    computes in float16), a body for the loop's kind, and no order on complex numbers."""
    allowed = ACCEPTS[row.accepts]
    if any(isinstance(o, ra.Array) and o.dtype.kind not in allowed for o in operands):
        return False
    kind = loop_kind(row, operands)
    if row.name in COMPLEX_ORDER and kind == "c":
        return False
    t = ra.result_type(*operands)
    dt = {"f": np.dtype(np.promote_types(t, np.float16)) if t.kind in "biu" else t,
          "b": np.dtype(bool)}.get(kind, t)
    return _has_body(row, dt)


def int_out_of_range(ops) -> OverflowError | None:
    """The OverflowError rocarray raises for a Python int that its operands' result dtype,
    an integer one, cannot hold (docs/dtypes.md), or None."""
    arrays = [np.asarray(o).dtype for o in ops if isinstance(o, np.ndarray)]
    ints = [o for o in ops if type(o) is int]
    if not arrays or not ints:
        return None
    t = ra.result_type(*arrays, *ints)
    if t.kind not in "iu":
        return None
    info = np.iinfo(t)
    for v in ints:
        if not info.min <= v <= info.max:
            return OverflowError(f"Python integer {v} out of bounds for {t}")
    return None


def numpy_reference(name, *ops):
    """NumPy's result, with rocarray's documented rules where they differ (in-place
    corrections on NumPy's output; ``ops`` are NumPy arrays or Python scalars)."""
    fn = np_func(name)
    if name == "sinc" and np.asarray(ops[0]).dtype == np.float16:
        # float16 computed in float32 and rounded once (docs/numpy_interop.md); NumPy's
        # rounds pi x to float16 first (and gives NaN at 0)
        res, exc = reference(fn, np.asarray(ops[0]).astype(np.float32))
        return (None, exc) if exc is not None else (np.asarray(res).astype(np.float16), None)
    if name == "pow":
        exc = int_out_of_range(ops)
        if exc is not None:
            return None, exc
        x, y = ops
        ya = np.asarray(y)
        if ya.dtype.kind in "iu" and type(y) is not bool and (ya < 0).any():
            # an integer result with a negative exponent: NumPy raises; rocarray gives
            # 1 / base truncated (docs/elementwise.md)
            y0 = np.where(ya < 0, 0, ya).astype(ya.dtype) if isinstance(y, np.ndarray) else 0
            res, exc = reference(fn, x, y0)
            if exc is None and np.asarray(res).dtype.kind in "iu":
                xb, yb = np.broadcast_arrays(np.asarray(x), ya)
                neg = yb < 0
                res = np.array(res, copy=True)
                res[neg] = np.where(xb[neg] == 1, 1, np.where(xb[neg] == -1, np.where(yb[neg] & 1, -1, 1), 0))
                return res, None
    if name == "expm1" and np.asarray(ops[0]).dtype.kind == "c":
        # complex expm1 at a non-finite argument: exp's special values (C99 Annex G, the
        # standard) less 1 on the real part; NumPy's expm1 gives NaN parts there
        # (docs/elementwise.md)
        x = np.asarray(ops[0])
        res, exc = reference(fn, x)
        with quiet():
            e = np.exp(x)
            special = np.empty_like(x)  # (parts set apart: 1j * nan would spoil the real part)
            special.real = e.real - 1
            special.imag = e.imag
        return np.where(np.isfinite(x), res, special), exc
    if name == "log1p" and np.asarray(ops[0]).dtype.kind == "c":
        # NumPy's complex log1p is log(1 + z), whose real part rounding 1 + z loses for a
        # small z (docs/elementwise.md): finite arguments against mpmath instead
        x = np.asarray(ops[0])
        res, exc = reference(fn, x)
        res = np.array(res, copy=True)
        with mpmath.workprec(256):
            for i in np.ndindex(x.shape):
                if np.isfinite(x[i]):
                    w = mpmath.log1p(mpmath.mpc(float(x[i].real), float(x[i].imag)))
                    res[i] = complex(float(w.real), float(w.imag))
        return res, exc
    if name == "reciprocal" and np.asarray(ops[0]).dtype.kind == "c":
        # complex reciprocal is 1 / x, the standard's rule and NumPy's division (NumPy's own
        # reciprocal loop gives NaN for 0; docs/elementwise.md)
        x = np.asarray(ops[0])
        return reference(np.divide, x.dtype.type(1), x)
    res, exc = reference(fn, *ops)
    if exc is None and name in ("maximum", "minimum") and res.dtype.kind == "f":
        # -0.0 against +0.0: the first argument wins the tie (docs/elementwise.md)
        x, y = np.broadcast_arrays(*(np.asarray(o) for o in ops))
        tie = (x == 0) & (y == 0)
        if tie.any():
            res = np.array(res, copy=True)
            res[tie] = x[tie]
    return res, exc


def check_op(name, operands_np, call):
    """Compare ``call()`` (rocarray) with NumPy on ``operands_np``: the same values, or an
    exception of the same kind where NumPy raises."""
    expected, exc = numpy_reference(name, *operands_np)
    if exc is not None:
        assert_raises_like(exc, call)
        return
    compare(name, call(), expected, operands_np)


#: complex results whose zero parts have a sign the formula decides (z / z is 1 + 0j or
#: 1 - 0j by the order of its products: Smith's algorithm in NumPy, Baudin and Smith's here)
COMPLEX_ZERO_SIGN_OPEN = {"divide", "reciprocal", "pow"}


def compare(name, got, expected, operands_np, what=None):
    """``got`` against NumPy's ``expected`` with the tolerance of ``name`` for these
    operands (complex operands compared where NumPy is a reference)."""
    expected = np.asarray(expected)
    cin = any(np.asarray(o).dtype.kind == "c" for o in operands_np)
    tol = ulps(name, expected.dtype, cin)
    where = None
    signed_zeros = True
    if cin or expected.dtype.kind == "c":
        where = moderate_complex(operands_np, expected)
        signed_zeros = name not in COMPLEX_ZERO_SIGN_OPEN
    if name == "pow" and expected.dtype.kind == "c":
        # exp(b log a), or repeated squaring for an integer b: the error grows with
        # |b| (1 + |log a|) in any implementation (docs/elementwise.md's bound; NumPy's too).
        # Non-finite operands: the standard asks for exp(b log a)'s special values, NumPy
        # does not follow it (compared in tests/test_complex_functions.py)
        # A result outside the normal range: NumPy's repeated squaring over- or underflows
        # on the way (0 or NaN parts), rocarray takes exp(b log a) (docs/elementwise.md)
        with quiet():
            a, b = (np.asarray(o).astype(np.complex128) for o in operands_np)
            la = np.log(np.where(a == 0, 1, a))
            w = np.abs(b) * (1 + np.abs(la))
            size = np.real(b * la)  # log |a^b|
            fi = np.finfo(np.dtype(f"f{expected.dtype.itemsize // 2}"))
            normal = (size > np.log(fi.tiny) + 2) & (size < np.log(fi.max) - 2) | (a == 0)
            where = where & np.broadcast_to(np.isfinite(a) & np.isfinite(b) & normal, where.shape)
        tol = tol * (1 + np.where(np.isfinite(w), w, 0))
    assert_same(got, expected, ulps=tol, signed_zeros=signed_zeros, where=where, what=what or name)


def moderate_complex(operands_np, expected) -> np.ndarray:
    """Where NumPy's complex results are a reference: every part of every operand (real ones
    too: they are the real parts of the complex loop's operands) zero, infinite, NaN, or of
    a magnitude whose products stay normal numbers.  Past that (a part below sqrt(tiny) or
    above sqrt(max)) NumPy's textbook formulas over- or underflow in their intermediates,
    and rocarray computes what the standard asks instead (docs/elementwise.md: accuracy is
    measured against mpmath there, in tests/test_complex_functions.py)."""
    ok = np.ones(np.shape(expected), dtype=bool)
    rt = np.dtype(f"f{np.asarray(expected).dtype.itemsize // 2}") if np.asarray(expected).dtype.kind == "c" \
        else np.dtype(np.float64)
    for o in operands_np:
        a = np.asarray(o)
        if a.dtype.kind not in "fc":
            continue
        r = np.dtype(f"f{a.dtype.itemsize // 2}") if a.dtype.kind == "c" else a.dtype
        real = rt if rt.itemsize < r.itemsize else r
        real = np.dtype(np.float32) if real == np.float16 else real
        lo, hi = np.sqrt(np.finfo(real).tiny) * 4, np.sqrt(np.finfo(real).max) / 4
        for part in ((np.real(a), np.imag(a)) if a.dtype.kind == "c" else (a,)):
            m = np.abs(part.astype(np.float64))
            fine = (m == 0) | ~np.isfinite(m) | ((m >= lo) & (m <= hi))
            ok &= np.broadcast_to(fine, ok.shape)
    return ok


def check_refused(name, call):
    """rocarray refuses the operands: a TypeError that names the op and what it accepts."""
    with pytest.raises(TypeError, match=f"^{name}: .*(not supported|needs a complex|must be)"):
        call()


# -- unary --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", UNARY)
@given(data=st.data())
def test_unary(device, name, data):
    row = _rows[name]
    dt = data.draw(dtypes(), label="dtype")
    case = data.draw(cases(dt, data.draw(shapes(), label="shape")), label="x")
    xn, xr = case.make(device)
    if not rocarray_supports(row, [xr]):
        check_refused(name, lambda: getattr(ra, name)(xr))
        return
    check_op(name, [xn], lambda: getattr(ra, name)(xr))


UNARY_OPERATORS = {"negative": operator.neg, "positive": operator.pos, "abs": abs,
                   "bitwise_invert": operator.invert}


@pytest.mark.parametrize("name", sorted(UNARY_OPERATORS))
@given(data=st.data())
def test_unary_operator(device, name, data):
    row = _rows[name]
    dt = data.draw(dtypes(ACCEPTS[row.accepts]), label="dtype")
    xn, xr = data.draw(cases(dt, data.draw(shapes(), label="shape")), label="x").make(device)
    if not rocarray_supports(row, [xr]):
        check_refused(name, lambda: UNARY_OPERATORS[name](xr))
        return
    check_op(name, [xn], lambda: UNARY_OPERATORS[name](xr))


# -- binary ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", BINARY)
@given(data=st.data())
def test_binary(device, name, data):
    row = _rows[name]
    sa, sb = data.draw(broadcast_shapes(2), label="shapes")
    da = data.draw(dtypes(), label="dtype1")
    db = data.draw(dtypes(), label="dtype2")
    an, ar = data.draw(cases(da, sa), label="x1").make(device)
    bn, br = data.draw(cases(db, sb), label="x2").make(device)
    call = lambda: getattr(ra, name)(ar, br)  # noqa: E731
    if not rocarray_supports(row, [ar, br]):
        check_refused(name, call)
        return
    check_op(name, [an, bn], call)


BINARY_OPERATORS = {r.name: r.dunder for r in _rows.values() if r.nin == 2 and r.dunder}


@pytest.mark.parametrize("name", sorted(BINARY_OPERATORS))
@given(data=st.data())
def test_binary_operator_with_scalar(device, name, data):
    """``x op s``, ``s op x`` (the reflected operator) and ``op(x, s)`` with a Python scalar
    of any kind and magnitude: weak promotion, OverflowError for an int out of range."""
    row = _rows[name]
    dunder = BINARY_OPERATORS[name]
    dt = data.draw(dtypes(ACCEPTS[row.accepts]), label="dtype")
    xn, xr = data.draw(cases(dt, data.draw(shapes(), label="shape")), label="x").make(device)
    s = data.draw(python_scalars(), label="scalar")
    reflected = data.draw(st.booleans(), label="reflected")
    called = name  # the op whose message a refusal carries
    if reflected:
        ops_np, ops_ra = [s, xn], [s, xr]
        if name in COMPARISONS:  # ``s < x`` is ``x > s``: Python has no reflected comparisons
            called = MIRRORED.get(name, name)
            call = lambda: getattr(xr, _rows[called].dunder)(s)  # noqa: E731
        else:
            call = lambda: getattr(xr, "__r" + dunder[2:])(s)  # noqa: E731
    else:
        ops_np, ops_ra = [xn, s], [xr, s]
        call = lambda: getattr(xr, dunder)(s)  # noqa: E731
    if not rocarray_supports(row, ops_ra):
        check_refused(called, call)
        check_refused(name, lambda: getattr(ra, name)(*ops_ra))
        return
    check_op(name, ops_np, call)
    check_op(name, ops_np, lambda: getattr(ra, name)(*ops_ra))


@pytest.mark.parametrize("name", sorted(BINARY_OPERATORS))
@given(data=st.data())
def test_binary_operator_arrays(device, name, data):
    row = _rows[name]
    sa, sb = data.draw(broadcast_shapes(2), label="shapes")
    da = data.draw(dtypes(ACCEPTS[row.accepts]), label="dtype1")
    db = data.draw(dtypes(ACCEPTS[row.accepts]), label="dtype2")
    an, ar = data.draw(cases(da, sa), label="x1").make(device)
    bn, br = data.draw(cases(db, sb), label="x2").make(device)
    op = getattr(operator, BINARY_OPERATORS[name])
    if not rocarray_supports(row, [ar, br]):
        check_refused(name, lambda: op(ar, br))
        return
    check_op(name, [an, bn], lambda: op(ar, br))


INPLACE = sorted(n for n, d in BINARY_OPERATORS.items()
                 if d not in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"))


def _inplace_reference(name, xn, other):
    """NumPy's ``x op= other`` (same-kind casting into x), with rocarray's documented rules;
    (the new x, None) or (None, the exception)."""
    res, exc = numpy_reference(name, xn, other)
    if exc is not None:
        return None, exc
    if res.shape != xn.shape:
        return None, ValueError(f"result shape {res.shape} does not fit x {xn.shape}")
    if not np.can_cast(res.dtype, xn.dtype, casting="same_kind"):
        return None, TypeError(f"cannot cast {res.dtype} to {xn.dtype}")
    out = xn.copy()
    with quiet():
        np.copyto(out, res, casting="same_kind")
    return out, None


@pytest.mark.parametrize("name", INPLACE)
@given(data=st.data())
def test_inplace_operator(device, name, data):
    """``x op= y`` writes into x (same-kind casts only), y an array broadcast to x's shape
    (possibly a view of x's own buffer) or a Python scalar."""
    row = _rows[name]
    op = getattr(operator, "__i" + BINARY_OPERATORS[name][2:])
    shape = data.draw(shapes(), label="shape")
    dt = data.draw(dtypes(ACCEPTS[row.accepts]), label="dtype")
    xcase = data.draw(cases(dt, shape, writable=True), label="x")
    xn, xr = xcase.make(device)
    kind = data.draw(st.sampled_from(["array", "scalar", "overlap"]), label="operand")
    if kind == "scalar":
        yn = yr = data.draw(python_scalars(), label="scalar")
    elif kind == "overlap" and xcase.key and xn.size:
        # y: the same elements of x's buffer read in reverse (x[...] op= x[::-1, ...]):
        # NumPy's result is as if y were copied first
        yn = xn[(slice(None, None, -1),) * xn.ndim]
        yr = xr[(slice(None, None, -1),) * xn.ndim]
    else:
        ys = data.draw(broadcast_shapes(1, shape), label="y shape")[0]
        yd = data.draw(dtypes(ACCEPTS[row.accepts]), label="y dtype")
        yn, yr = data.draw(cases(yd, ys), label="y").make(device)
    if not rocarray_supports(row, [xr, yr]):
        with pytest.raises(TypeError):
            op(xr, yr)
        return
    expected, exc = _inplace_reference(name, xn, yn if kind != "overlap" else yn.copy())
    if exc is not None:
        also = ()
        if isinstance(exc, OverflowError) and kind == "scalar" and not np.can_cast(
                ra.result_type(xr, yr), xr.dtype, casting="same_kind"):
            also = (TypeError,)  # two faults (the int's range, the cast): either is reported
        assert_raises_like(exc, op, xr, yr, also=also)
        return
    before = xr
    r = op(xr, yr)
    assert r is before
    compare(name, r, expected, [xn, yn], what=f"{name} in place")


# -- where and clip ----------------------------------------------------------------------------------

@given(data=st.data())
def test_where(device, data):
    sc, s1, s2 = data.draw(broadcast_shapes(3), label="shapes")
    cn, cr = data.draw(cases(np.dtype(bool), sc), label="condition").make(device)
    ops_np, ops_ra = [cn], [cr]
    for k, sh in ((1, s1), (2, s2)):
        # (a Python scalar for either, not both: one array gives the result's device)
        if data.draw(st.integers(0, 3), label=f"x{k} scalar?") == 0 and (k == 1 or isinstance(ops_ra[1], ra.Array)):
            v = data.draw(python_scalars(), label=f"x{k}")
            ops_np.append(v)
            ops_ra.append(v)
        else:
            n, r = data.draw(cases(data.draw(dtypes(), label=f"dtype{k}"), sh), label=f"x{k}").make(device)
            ops_np.append(n)
            ops_ra.append(r)
    expected, exc = reference(np.where, *ops_np)
    if exc is None:
        # a Python int out of the result's integer range: NumPy's where wraps it silently,
        # rocarray raises OverflowError as its other functions do (docs/dtypes.md)
        exc = int_out_of_range([np.asarray(expected), *[o for o in ops_np[1:] if type(o) is int]])
    if exc is not None:
        assert_raises_like(exc, ra.where, *ops_ra)
        return
    assert_same(ra.where(*ops_ra), expected, what="where")


@given(data=st.data())
def test_clip(device, data):
    """clip keeps x's dtype; a Python int bound out of an integer dtype's range saturates;
    a missing bound is the dtype's extreme; a float bound on an integer array is refused
    (docs/elementwise.md)."""
    sx, slo, shi = data.draw(broadcast_shapes(3), label="shapes")
    dt = data.draw(dtypes("iuf"), label="dtype")
    xn, xr = data.draw(cases(dt, sx), label="x").make(device)
    bounds_np, bounds_ra = [], []
    for label, sh in (("min", slo), ("max", shi)):
        how = data.draw(st.sampled_from(["none", "array", "scalar"]), label=f"{label} kind")
        if how == "none":
            bounds_np.append(None)
            bounds_ra.append(None)
        elif how == "array":
            n, r = data.draw(cases(dt, sh), label=label).make(device)
            bounds_np.append(n)
            bounds_ra.append(r)
        else:
            v = data.draw(python_scalars("if" if dt.kind == "f" else "i"), label=label)
            bounds_ra.append(v)
            if dt.kind in "iu":
                info = np.iinfo(dt)
                v = min(max(v, int(info.min)), int(info.max))  # saturated (documented)
            bounds_np.append(v)
    lo, hi = bounds_np
    if lo is None and hi is None:
        expected = xn.copy()
    else:
        with quiet():
            expected = np.clip(xn, lo, hi)
        if dt.kind == "f":
            # NaN in x or a bound gives NaN (documented; NumPy's clip agrees)
            nan = np.isnan(xn)
            for b in (lo, hi):
                if isinstance(b, (float, np.ndarray)):
                    nan = nan | np.isnan(b)
            expected = np.where(nan, np.nan, expected).astype(dt)
        expected = expected.astype(dt)
    assert_same(ra.clip(xr, *bounds_ra), expected, signed_zeros=False, what="clip")


@pytest.mark.parametrize("name", sorted(COMPARISONS))
@given(data=st.data())
def test_compare_integers_of_mixed_signedness(device, name, data):
    """Signed against unsigned integers compare by value, exactly (their common dtype may be
    float64, which cannot tell 2**62 from 2**62 + 1): values close together near the top of
    the narrower range, and negatives."""
    # (int64 with uint64, whose common dtype is float64, half the time)
    signed = data.draw(st.sampled_from([d for d in ALL if d.kind == "i"] + [np.dtype(np.int64)] * 3), label="signed")
    unsigned = data.draw(st.sampled_from([d for d in ALL if d.kind == "u"] + [np.dtype(np.uint64)] * 3),
                         label="unsigned")
    top = min(int(np.iinfo(signed).max), int(np.iinfo(unsigned).max))
    anchor = data.draw(st.sampled_from([top, top - 7, top // 2 + 1, 2**53 + 1 if top > 2**53 else top, 0]),
                       label="anchor")
    n = data.draw(st.integers(1, 12), label="n")
    deltas = st.lists(st.integers(-3, 3), min_size=n, max_size=n)
    sv = np.clip(anchor + np.array(data.draw(deltas, label="signed deltas"), dtype=object),
                 int(np.iinfo(signed).min), top).astype(signed)
    if data.draw(st.booleans(), label="negatives"):
        sv[: n // 2] = -sv[: n // 2] - 1
    uv = np.clip(anchor + np.array(data.draw(deltas, label="unsigned deltas"), dtype=object), 0, top).astype(unsigned)
    pair = [sv, uv] if data.draw(st.booleans(), label="signed first") else [uv, sv]
    expected = np_func(name)(*pair)
    got = getattr(ra, name)(*(ra.asarray(v, device=device) for v in pair))
    assert_same(got, expected, what=f"{name}({pair[0].dtype}, {pair[1].dtype})")


@given(data=st.data())
def test_float16_sums_accumulate_in_float32(device, data):
    """A float16 sum (reduction, scan) is accumulated in float32 and rounded once (docs/
    reductions.md): one large term and many small ones, which a float16 accumulator loses."""
    n = data.draw(st.integers(8, 48), label="n")
    big = data.draw(st.sampled_from([1024.0, 2048.0, 4096.0, -2048.0]), label="big")
    small = data.draw(st.lists(st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0]), min_size=n, max_size=n), label="small")
    a = np.array([big] + small, dtype=np.float16)
    a = a[np.random.default_rng(data.draw(st.integers(0, 2**31), label="seed")).permutation(a.size)]
    x = ra.asarray(a, device=device)
    wide = a.astype(np.float32)
    assert_same(ra.sum(x), np.float16(wide.sum()), what="sum")
    assert_same(ra.mean(x), np.float16(wide.mean()), ulps=2, what="mean")
    assert_same(ra.cumulative_sum(x), np.cumsum(wide).astype(np.float16), what="cumulative_sum")
    m = a[: (a.size // 4) * 4].reshape(4, -1)
    assert_same(ra.sum(ra.asarray(m, device=device), axis=1), m.astype(np.float32).sum(axis=1).astype(np.float16),
                what="sum(axis=1)")
    assert_same(ra.sum(ra.asarray(m.T.copy(), device=device).T, axis=1),
                m.astype(np.float32).sum(axis=1).astype(np.float16), what="sum over a strided axis")
