"""Strategies and comparisons shared by the property tests: dtypes, shapes, strided views of
random data with special values, Python scalars, and NumPy-reference checks.

A drawn array is a ``Case``: NumPy values on a base array plus a layout (a slice per base
axis, with steps and negative steps; integer indices that drop axes; a transpose; a
broadcast).  ``Case.make(device)`` builds the same view over a copy of the base in NumPy
and in rocarray, so the rocarray operand has the strides, offset and broadcast of the NumPy
one and the reference computes on exactly the same values.
"""

from __future__ import annotations

import math
import warnings
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import rocarray as ra

ALL = tuple(np.dtype(n) for n in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128"))
#: the kind letters of the catalogue's ``accepts`` field (kernels/elementwise.py)
ACCEPTS = {"any": "biufc", "numeric": "iufc", "real": "biuf", "integer": "iu",
           "integer_or_bool": "biu", "floating": "fc", "real_floating": "f", "bool": "biuf"}

MAX_SIZE = 48        # elements of a drawn array (the tests run on 2 cores in CI)
MAX_BASE = 4096      # elements of the base array a view is cut from


def dtypes(kinds: str = "biufc"):
    return st.sampled_from([d for d in ALL if d.kind in kinds])


@st.composite
def shapes(draw, min_dims: int = 0, max_dims: int = 6, min_side: int = 0, max_side: int = 5,
           max_size: int = MAX_SIZE):
    """A shape of ``min_dims..max_dims`` axes with at most ``max_size`` elements (an axis of
    length 0 allowed when ``min_side`` is 0; such shapes are empty)."""
    ndim = draw(st.integers(min_dims, max_dims))
    out = []
    room = max_size
    for _ in range(ndim):
        side = draw(st.integers(min_side, max(min_side, min(max_side, room))))
        out.append(side)
        room = max(1, room // max(side, 1))
    return tuple(out)


@st.composite
def broadcast_shapes(draw, n: int, result=None):
    """``n`` shapes that broadcast to ``result`` (drawn when None): each drops some leading
    axes and has some axes of length 1."""
    if result is None:
        result = draw(shapes(max_size=32))
    out = []
    for _ in range(n):
        lead = draw(st.integers(0, len(result)))
        out.append(tuple(1 if draw(st.integers(0, 3)) == 0 else m for m in result[lead:]))
    return tuple(out)


# -- values ------------------------------------------------------------------------------------

def _float_specials(dt: np.dtype) -> list:
    fi = np.finfo(dt)
    return [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.5, -1.5,
            float(fi.max), float(-fi.max), float(fi.smallest_normal), float(fi.smallest_subnormal),
            float(fi.eps), 3.0, -7.0]


def special_values(dt: np.dtype):
    """Edge values of ``dt`` (and anything of ``dt``, from Hypothesis)."""
    if dt.kind == "b":
        return st.booleans()
    if dt.kind in "iu":
        info = np.iinfo(dt)
        edges = [int(info.min), int(info.max), 0, 1, int(info.max) - 1]
        if dt.kind == "i":
            edges += [-1, int(info.min) + 1]
        return st.sampled_from(edges) | hnp.from_dtype(dt)
    real = np.dtype(f"f{dt.itemsize // 2}") if dt.kind == "c" else dt
    part = st.sampled_from(_float_specials(real)) | hnp.from_dtype(real)
    if dt.kind == "f":
        return part
    return st.builds(complex, part, part)


#: how the background values of an array are spread ("ints": integer-valued floats, which
#: exercise rounding ties, floor/remainder exactness and sorting ties)
FLOAT_SCALES = ("unit", "small", "wide", "ints")
INT_SCALES = ("small", "full")


def _background(rng: np.random.Generator, dt: np.dtype, shape: tuple, scale: str) -> np.ndarray:
    if dt.kind == "b":
        return rng.random(shape) < rng.uniform(0.2, 0.8)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        if scale == "small":
            lo, hi = max(int(info.min), -10), min(int(info.max), 10)
        else:
            lo, hi = int(info.min), int(info.max)
        return rng.integers(lo, hi, size=shape, dtype=dt, endpoint=True)
    if dt.kind == "c":
        real = np.dtype(f"f{dt.itemsize // 2}")
        re = _background(rng, real, shape, scale)
        im = _background(rng, real, shape, scale)
        return (re + 1j * im).astype(dt)
    if scale == "unit":
        v = rng.uniform(-1, 1, shape)
    elif scale == "small":
        v = rng.uniform(-10, 10, shape)
    elif scale == "ints":
        v = rng.integers(-8, 8, size=shape).astype(np.float64) / rng.choice([1, 2], size=shape)
    else:  # "wide": log-uniform magnitudes over most of the dtype's range
        top = math.log10(float(np.finfo(dt).max)) * 0.9
        v = np.sign(rng.uniform(-1, 1, shape)) * 10.0 ** rng.uniform(-top, top, shape)
    return v.astype(dt)


@st.composite
def values(draw, dt: np.dtype, shape: tuple, *, scales=None, specials: bool = True):
    """A C-contiguous NumPy array of ``dt``: a seeded random background at one of the scales,
    with a few of its elements replaced by edge values (NaN, infinities, -0.0, extremes)."""
    dt = np.dtype(dt)
    seed = draw(st.integers(0, 2**32 - 1))
    if scales is None:
        scales = INT_SCALES if dt.kind in "iu" else FLOAT_SCALES
    scale = draw(st.sampled_from(scales))
    # (np.array, not np.ascontiguousarray, which makes 0-d arrays 1-d)
    a = np.array(_background(np.random.default_rng(seed), dt, shape, scale), dtype=dt, order="C")
    size = a.size
    if specials and size and dt.kind != "b":
        flat = a.reshape(-1)
        for _ in range(draw(st.integers(0, min(size, 4)))):
            flat[draw(st.integers(0, size - 1))] = draw(special_values(dt))
    return a


# -- layouts: the same view in NumPy and rocarray -------------------------------------------------

class Case(NamedTuple):
    """NumPy ``base`` values and the view of them the operand is: ``base[key]``, then
    ``permute_dims(perm)``, then ``broadcast_to(shape)`` (when ``broadcast``)."""

    base: np.ndarray
    key: tuple
    perm: tuple
    shape: tuple
    broadcast: bool

    def make(self, device):
        """(NumPy view, rocarray view): the same layout over two copies of the base."""
        nb = self.base.copy()
        rb = ra.asarray(self.base.copy(), device=device)
        return self._apply(nb, np.transpose, np.broadcast_to), self._apply(rb, ra.permute_dims, ra.broadcast_to)

    def _apply(self, b, permute, broadcast):
        # (a trailing Ellipsis: NumPy then gives a 0-d view, not a scalar, for all-integer keys)
        v = b[self.key + (Ellipsis,)] if self.key else b
        if self.perm != tuple(range(len(self.perm))):
            v = permute(v, self.perm)
        if self.broadcast:
            v = broadcast(v, self.shape)
        return v

    def __repr__(self):
        return (f"Case(dtype={self.base.dtype}, base_shape={self.base.shape}, key={self.key!r}, "
                f"perm={self.perm}, shape={self.shape}, broadcast={self.broadcast}, "
                f"base={np.array2string(self.base.reshape(-1), threshold=80, precision=17)})")


STEPS = (1, 1, 1, 2, -1, -1, -2, 3)


@st.composite
def _axis_slice(draw, n: int):
    """(base length, slice) such that ``base[slice]`` has ``n`` elements."""
    step = draw(st.sampled_from(STEPS))
    pad = draw(st.integers(0, 2))
    if n == 0:
        start = draw(st.integers(0, pad))
        return pad, slice(start, start, step)
    span = abs(step) * (n - 1) + 1
    length = span + pad
    lead = draw(st.integers(0, pad))
    if step > 0:
        return length, slice(lead, lead + span, step)
    start = length - 1 - lead
    stop = start - span
    return length, slice(start, None if stop < 0 else stop, step)


@st.composite
def cases(draw, dt, shape, *, writable: bool = False, layout: bool = True, stretched: bool = False,
          **value_kw):
    """A ``Case`` of dtype ``dt`` and final shape ``shape``.  ``writable``: no broadcast (a
    broadcast view cannot be written to); ``layout=False``: a plain C-contiguous array;
    ``stretched``: a broadcast view with an axis longer than 1 stretched (elements that
    share memory), if ``shape`` has one."""
    dt = np.dtype(dt)
    shape = tuple(shape)
    longer = [i for i, n in enumerate(shape) if n > 1]
    stretched = stretched and bool(longer)
    if not stretched and (not layout or not draw(st.integers(0, 3))):  # a quarter plain
        return Case(draw(values(dt, shape, **value_kw)), (), tuple(range(len(shape))), shape, False)
    pre = list(shape)
    broadcast = False
    if stretched or not writable and shape and draw(st.booleans()):
        # broadcast: some axes of length 1 (or missing leading axes) stretched
        broadcast = True
        lead = draw(st.integers(0, len(shape)))
        pre = [1 if draw(st.booleans()) else n for n in shape[lead:]]
        if stretched and not any(shape[lead + i] > 1 and p == 1 for i, p in enumerate(pre)) and lead <= longer[-1]:
            pre[longer[-1] - lead] = 1
    perm = tuple(draw(st.permutations(range(len(pre)))))
    # sliced[perm[i]] = pre[i], so permute_dims(sliced, perm) has the shape ``pre``
    sliced = [0] * len(pre)
    for i, p in enumerate(perm):
        sliced[p] = pre[i]
    base_shape, key = [], []
    for n in sliced:
        if draw(st.integers(0, 5)) == 0:  # an integer index: an axis that the view drops
            length = draw(st.integers(1, 3))
            base_shape.append(length)
            key.append(draw(st.integers(-length, length - 1)))
        length, sl = draw(_axis_slice(n))
        base_shape.append(length)
        key.append(sl)
    if math.prod(base_shape) > MAX_BASE:  # keep the base small: unit steps, no padding
        base_shape, key = list(sliced), [slice(None)] * len(sliced)
    base = draw(values(dt, tuple(base_shape), **value_kw))
    return Case(base, tuple(key), perm, shape, broadcast)


# -- Python scalars --------------------------------------------------------------------------------

def python_scalars(kinds: str = "bifc"):
    """Python scalars of every kind and magnitude: small and huge ints (past int64 and
    uint64), floats with NaN, infinities, -0.0 and magnitudes past float32, complex."""
    parts = []
    if "b" in kinds:
        parts.append(st.booleans())
    if "i" in kinds:
        parts.append(st.integers(-10, 10))
        parts.append(st.sampled_from([127, 128, -129, 255, 256, 32767, 65536, 2**31, -2**31 - 1,
                                      2**32, 2**63 - 1, 2**63, -2**63, -2**63 - 1, 2**64 - 1, 2**64,
                                      2**70, -2**70]))
        parts.append(st.integers(-2**65, 2**65))
    if "f" in kinds:
        parts.append(st.floats(-10, 10))
        parts.append(st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan, 0.5, -2.5,
                                      1e-30, 1e30, 1e39, -1e39, 65504.0, 70000.0, 1e300, 5e-324]))
        parts.append(st.floats(allow_nan=True, allow_infinity=True))
    if "c" in kinds:
        small = st.floats(-10, 10)
        parts.append(st.builds(complex, small, small))
        parts.append(st.builds(complex, st.sampled_from([0.0, -0.0, 1.0, math.inf, math.nan, 1e39]),
                               st.sampled_from([0.0, -0.0, -1.0, math.inf, math.nan, 1e39])))
    return st.one_of(parts)


# -- NumPy reference and comparisons ----------------------------------------------------------------

@contextmanager
def quiet():
    """NumPy without its floating-point warnings (rocarray has none to compare with)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def reference(fn, *args, **kwargs):
    """``fn(*args)`` in NumPy: (result, None), or (None, exception) where NumPy raises."""
    with quiet():
        try:
            return fn(*args, **kwargs), None
        except (TypeError, ValueError, IndexError, OverflowError, ZeroDivisionError) as e:
            return None, e


def eps(dt: np.dtype) -> float:
    dt = np.dtype(dt)
    if dt.kind == "c":
        dt = np.dtype(f"f{dt.itemsize // 2}")
    return float(np.finfo(dt).eps)


def to_numpy(x) -> np.ndarray:
    assert isinstance(x, ra.Array), f"expected a rocarray array, got {type(x).__name__}"
    return x.get()


def assert_same(got, expected, *, ulps: float = 0, atol: float = 0.0, signed_zeros: bool = True,
                check_dtype: bool = True, where=None, what: str = ""):
    """``got`` (a rocarray array) equals the NumPy ``expected``: same shape and dtype;
    integers and bools exactly; floats within ``ulps`` units of the dtype's epsilon relative
    to the expected value (``ulps`` a number, or an array of the result's shape; plus
    ``atol``), NaNs at the same places, infinities equal, and
    the signs of zeros equal where ``signed_zeros``; complex numbers part by part, each
    within the tolerance relative to the expected magnitude.  ``where``: a mask of the
    elements to compare."""
    expected = np.asarray(expected)
    g = to_numpy(got) if isinstance(got, ra.Array) else np.asarray(got)
    tag = f"{what}: " if what else ""
    assert g.shape == expected.shape, f"{tag}shape {g.shape}, expected {expected.shape}"
    if check_dtype:
        assert g.dtype == expected.dtype, f"{tag}dtype {g.dtype}, expected {expected.dtype}"
    if where is not None:  # (compared only there; shapes and dtypes everywhere)
        where = np.broadcast_to(where, expected.shape)
        g, expected = g[where], expected[where]
        if np.ndim(ulps):
            ulps = np.broadcast_to(ulps, where.shape)[where]
    kind = expected.dtype.kind
    if kind not in "fc":
        np.testing.assert_array_equal(g, expected, err_msg=tag)
        return
    g = g.astype(expected.dtype)
    rtol = ulps * eps(expected.dtype)
    if kind == "c":
        scale = np.abs(expected)
        scale = np.where(np.isfinite(scale), scale, 0)
        for part in (np.real, np.imag):
            _close(part(g), part(expected), rtol, atol, scale, signed_zeros, tag)
    else:
        _close(g, expected, rtol, atol, np.abs(expected), signed_zeros, tag)


def _close(g, e, rtol, atol, scale, signed_zeros, tag):
    g = np.asarray(g, dtype=np.float64)
    e = np.asarray(e, dtype=np.float64)
    gn, en = np.isnan(g), np.isnan(e)
    bad = gn != en
    fin = ~en & ~gn
    inf = fin & (np.isinf(e) | np.isinf(g))
    bad |= inf & (g != e)
    num = fin & ~inf
    with quiet():
        err = np.abs(g - e)
        bad |= num & (err > rtol * np.where(np.isfinite(scale), scale, 0) + atol)
    if signed_zeros:
        zero = num & (e == 0) & (g == 0)
        bad |= zero & (np.signbit(g) != np.signbit(e))
    if bad.any():
        idx = np.argwhere(bad)[:8]
        lines = [f"  at {tuple(int(i) for i in ix)}: got {g[tuple(ix)]!r}, expected {e[tuple(ix)]!r}"
                 for ix in idx]
        raise AssertionError(f"{tag}{int(bad.sum())} of {bad.size} elements differ "
                             f"(rtol up to {np.max(rtol):.3g}, atol {atol:.3g}):\n" + "\n".join(lines))


def assert_raises_like(exc: BaseException, fn, *args, also: tuple = (), **kwargs):
    """NumPy raised ``exc``; rocarray must raise an exception of the same kind (TypeError,
    ValueError, IndexError or OverflowError; or one of ``also``), not crash or return a
    result."""
    kinds = (OverflowError, IndexError, TypeError, ValueError)
    want = (next(k for k in kinds + (ZeroDivisionError,) if isinstance(exc, k)), *also)
    if isinstance(exc, np.exceptions.AxisError):  # NumPy's is both; the standard says neither
        want += (ValueError,)
    try:
        r = fn(*args, **kwargs)
    except want:
        return
    except Exception as e:  # noqa: BLE001 - any other kind is the failure reported
        raise AssertionError(f"NumPy raised {type(exc).__name__}({exc}); rocarray raised "
                             f"{type(e).__name__}({e}) instead") from e
    raise AssertionError(f"NumPy raised {type(exc).__name__}({exc}); rocarray returned {r!r}")


def order_bound(ed: np.dtype, n, scale, expected):
    """The error bound of a sum (or product) of ``n`` terms in any order, ``scale`` the sum
    of their magnitudes (or the magnitude of the product).  float16 accumulates in float32
    (docs/reductions.md, as NumPy): the float32 bound plus the roundings to float16 (of
    the result, and of a mean's sum before its division)."""
    if np.dtype(ed) == np.float16:
        e = np.abs(np.asarray(expected, dtype=np.float64))
        return 4 * n * eps(np.float32) * scale + 2 * eps(np.float16) * np.where(np.isfinite(e), e, 0)
    return 4 * n * eps(ed) * scale


def within_bound(g, e, bound, name):
    """``g`` equals ``e`` (NumPy arrays) within ``bound`` per element (real and imaginary
    parts each), NaNs at the same places, infinities equal."""
    g = np.asarray(g)
    e = np.asarray(e)
    for part in ((np.real, np.imag) if e.dtype.kind == "c" else (lambda v: v,)):
        gp, ep = part(g).astype(np.float64), part(e).astype(np.float64)
        same_nan = np.isnan(gp) == np.isnan(ep)
        assert same_nan.all(), f"{name}: NaN at {np.argwhere(~same_nan)[:5].tolist()}: got {gp}, expected {ep}"
        fin = ~np.isnan(ep)
        inf = fin & (np.isinf(ep) | np.isinf(gp))
        assert (gp[inf] == ep[inf]).all(), f"{name}: got {gp[inf]}, expected {ep[inf]}"
        num = fin & ~inf
        with quiet():
            err = np.abs(gp[num] - ep[num])
        bad = err > bound[num]
        assert not bad.any(), (f"{name}: {int(bad.sum())} elements beyond the order bound: got "
                               f"{gp[num][bad][:5]}, expected {ep[num][bad][:5]}, bound {bound[num][bad][:5]}")
