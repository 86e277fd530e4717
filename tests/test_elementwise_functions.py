"""Every elementwise function against NumPy, for every dtype it accepts, on every device."""

import warnings
import zlib

import numpy as np
import pytest

import rocarray as ra
from conftest import ALL_DTYPES, random_array
from rocarray._elementwise_functions import _rows

NP_NAMES = {
    "acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh", "atan": "arctan",
    "atanh": "arctanh", "atan2": "arctan2", "bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift", "pow": "power", "conj": "conjugate",
}
ACCEPTS = {
    "any": "biufc", "numeric": "iufc", "real": "biuf", "integer": "iu",
    "integer_or_bool": "biu", "floating": "fc", "real_floating": "f", "bool": "b",
}
# Ops whose body has no loop for a kind NumPy supports, or whose NumPy result differs by
# design (documented in docs/elementwise.md).
SKIP = {
    ("floor_divide", "b"), ("remainder", "b"), ("clip", "b"), ("sign", "b"), ("subtract", "b"),
    ("where", "b"), ("copy", "b"), ("fmod", "b"),
    # ldexp takes integer exponents only (float ones and uint64 are NumPy's TypeError):
    # tests/test_numpy_elementwise_more.py checks its pairs of dtypes
    ("ldexp", "f"), ("ldexp", "u"),
}
SPECIAL_F = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 2.0, 1e-30]


def _standard_floor_divide(a, b):
    """NumPy's floor_divide with the standard's special cases: an infinite operand gives the
    IEEE quotient (``inf // 2`` is inf, ``1 // -inf`` is -0; NumPy gives NaN and -1)."""
    q = np.floor_divide(a, b)
    if q.dtype.kind == "f":
        special = (np.isinf(a) | np.isinf(b)) & (b != 0)
        q = np.where(special, np.true_divide(a, b), q)
    return q


def _sinc_in_float(x):
    """NumPy's sinc, float16 computed in float32 and rounded once, as rocarray's float16
    functions are (NumPy's float16 rounds ``pi * x`` to float16 first, and gives NaN at 0)."""
    if x.dtype == np.float16:
        return np.sinc(x.astype(np.float32)).astype(np.float16)
    return np.sinc(x)


def _i0_of_infinities(x):
    """NumPy's i0 with I0(+-inf) = inf (NumPy's formula gives NaN there; rocarray's inf),
    float16 computed in float64 and rounded once, as rocarray's (NumPy's is in float16)."""
    with np.errstate(all="ignore"):
        y = x.astype(np.float64) if x.dtype == np.float16 else x
        return np.where(np.isinf(y), np.inf, np.i0(y)).astype(np.i0(x[:1]).dtype)


def np_func(name):
    if name == "i0":
        return _i0_of_infinities
    if name == "floor_divide":
        return _standard_floor_divide
    if name == "sinc":
        return _sinc_in_float
    return getattr(np, NP_NAMES.get(name, name))


def tolerance(dtype, name):
    dt = np.dtype(dtype)
    if dt.kind in "biu":
        return dict(rtol=0, atol=0)
    base = {2: 2e-3, 4: 2e-6, 8: 1e-13}[dt.itemsize if dt.kind == "f" else dt.itemsize // 2]
    if name in ("pow", "expm1", "log1p", "tan", "atanh", "acosh", "asinh", "logaddexp", "logaddexp2",
                "sinc") or dt.kind == "c":
        base *= 8
    return dict(rtol=base, atol=base * 1e-3 if dt.kind == "c" else 0)


def make_inputs(row, dtype, rng, size=37):
    dt = np.dtype(dtype)
    ins = []
    for k in range(row.nin):
        if row.name in ("bitwise_left_shift", "bitwise_right_shift") and k == 1:
            bits = 8 * dt.itemsize
            a = rng.integers(0, 2 * bits, size=size).astype(dt)
        elif row.name == "pow" and k == 1 and dt.kind in "iu":
            a = rng.integers(0, 6, size=size).astype(dt)
        elif row.name == "pow" and k == 0 and dt.kind in "iu":
            a = random_array(size, dt, rng, low=-5, high=5)
        elif row.name == "where" and k == 0:
            a = rng.random(size) < 0.5
        else:
            a = random_array(size, dt, rng, low=-10, high=10)
            if dt.kind == "f":
                a[: len(SPECIAL_F)] = np.array(SPECIAL_F, dtype=dt)[rng.permutation(len(SPECIAL_F))]
        ins.append(a)
    return ins


CASES = []
for _row in _rows.values():
    if _row.name in ("copy", "clip", "where") or _row.name.startswith("_"):
        continue  # (rows named "_..." are parts of a composition: frexp's)
    for _dt in ALL_DTYPES:
        if _dt.kind in ACCEPTS[_row.accepts] and (_row.name, _dt.kind) not in SKIP:
            CASES.append((_row.name, _dt))


@pytest.mark.parametrize("name,dtype", CASES, ids=lambda v: str(v))
def test_matches_numpy(device, name, dtype):
    row = _rows[name]
    rng = np.random.default_rng(zlib.crc32(f"{name}-{dtype}".encode()))  # stable across runs
    ins = make_inputs(row, dtype, rng)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = np_func(name)(*ins)
    got = getattr(ra, name)(*[ra.asarray(a, device=device) for a in ins])
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    g = got.get()
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(g, expected, equal_nan=True, **tolerance(expected.dtype, name))
        if expected.dtype.kind == "f" and name not in ("maximum", "minimum"):
            # (the spec leaves max(-0, +0) open; NumPy's SIMD loops differ by dtype)
            # signed zeros and NaN positions agree too
            finite_zero = expected == 0
            np.testing.assert_array_equal(np.signbit(g[finite_zero]), np.signbit(expected[finite_zero]))
    else:
        np.testing.assert_array_equal(g, expected)


def test_every_spec_function_is_there():
    spec = """abs acos acosh add asin asinh atan atan2 atanh bitwise_and bitwise_left_shift
    bitwise_invert bitwise_or bitwise_right_shift bitwise_xor ceil clip conj copysign cos cosh
    divide equal exp expm1 floor floor_divide greater greater_equal hypot imag isfinite isinf
    isnan less less_equal log log1p log2 log10 logaddexp logical_and logical_not logical_or
    logical_xor maximum minimum multiply negative nextafter not_equal positive pow real
    reciprocal remainder round sign signbit sin sinh square sqrt subtract tan tanh trunc""".split()
    missing = [n for n in spec if not callable(getattr(ra, n, None))]
    assert not missing


LAYOUTS = {
    "strided": lambda a: a[::2, 1::3],
    "reversed": lambda a: a[::-1, ::-1],
    "transposed": lambda a: a.T,
    "zero-d": lambda a: a[1, 2],
    "empty": lambda a: a[:0],
    "column": lambda a: a[:, 3:4],
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("name", ["add", "multiply", "sin", "less", "floor_divide"])
def test_layouts(device, layout, name):
    rng = np.random.default_rng(7)
    a = random_array((12, 10), np.float32, rng)
    b = random_array((12, 10), np.float32, rng)
    if name == "sin":
        x = LAYOUTS[layout](ra.asarray(a, device=device))
        expected = np.sin(LAYOUTS[layout](a))
        got = ra.sin(x)
    else:
        x = LAYOUTS[layout](ra.asarray(a, device=device))
        y = LAYOUTS[layout](ra.asarray(b, device=device))
        with np.errstate(all="ignore"):
            expected = np_func(name)(LAYOUTS[layout](a), LAYOUTS[layout](b))
        got = getattr(ra, name)(x, y)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got.get(), expected, rtol=1e-6)


@pytest.mark.parametrize("dtype", [ra.int32, ra.int64, ra.uint32, ra.uint64], ids=str)
def test_shifts_by_every_count(device, dtype):
    """Counts past the width, negative ones, and 64-bit counts whose low 32 bits are small
    (2**32 + 1: the GPU's shift instruction takes 32 bits) give what NumPy gives."""
    dt = np.dtype(dtype)
    info = np.iinfo(dt)
    counts = [0, 1, 5, dt.itemsize * 8 - 1, dt.itemsize * 8, dt.itemsize * 8 + 1, 1000]
    if dt.itemsize == 8:
        counts += [2**32, 2**32 + 1, 2**32 + 63, 2**63 - 1 if dt.kind == "i" else 2**64 - 1]
    if dt.kind == "i":
        counts += [-1, -64, int(info.min)]
    x = np.array([3, info.max, info.min, 1] * len(counts), dtype=dt)
    c = np.repeat(np.array(counts, dtype=dt), 4)
    xs, cs = ra.asarray(x, device=device), ra.asarray(c, device=device)
    np.testing.assert_array_equal(ra.bitwise_left_shift(xs, cs).get(), np.left_shift(x, c))
    np.testing.assert_array_equal(ra.bitwise_right_shift(xs, cs).get(), np.right_shift(x, c))


def test_broadcasting(device):
    rng = np.random.default_rng(3)
    a = random_array((4, 1, 5), np.float64, rng)
    b = random_array((3, 1), np.float64, rng)
    np.testing.assert_allclose((ra.asarray(a, device=device) - ra.asarray(b, device=device)).get(), a - b)
    c = random_array((5,), np.int16, rng)
    np.testing.assert_array_equal(
        ra.maximum(ra.asarray(a, device=device)[:, 0, :] > 0, ra.asarray(c, device=device)).get(),
        np.maximum(a[:, 0, :] > 0, c))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        ra.add(ra.zeros((2, 3), device=device), ra.zeros((4,), device=device))


def test_many_dims(device):
    # more dimensions than the kernel takes after merging: split on the host
    a = random_array((2,) * 10, np.int32)
    x = ra.asarray(a, device=device)
    v = x[::-1, :, ::-1, :, ::-1, :, ::-1, :, ::-1, :]
    w = a[::-1, :, ::-1, :, ::-1, :, ::-1, :, ::-1, :]
    np.testing.assert_array_equal((v * 3).get(), w * 3)


def test_python_scalars(device):
    a = random_array((6,), np.float32)
    x = ra.asarray(a, device=device)
    assert (x + 1).dtype == ra.float32
    np.testing.assert_allclose((x + 1.5).get(), a + np.float32(1.5))
    np.testing.assert_allclose((2 - x).get(), 2 - a)
    np.testing.assert_allclose((3.0 / x).get(), np.float32(3) / a, rtol=1e-6)
    assert (x * 1j).dtype == ra.complex64
    i = ra.asarray(np.arange(5, dtype=np.int8), device=device)
    assert (i + 1).dtype == ra.int8
    assert (i + 1.5).dtype == ra.float64
    np.testing.assert_array_equal((i < 2.5).get(), np.arange(5) < 2.5)
    np.testing.assert_array_equal((i == np.int64(3)).get(), np.arange(5) == 3)
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        i + 1000
    b = ra.asarray([True, False], device=device)
    assert (b + 1).dtype == ra.int64
    with pytest.raises(TypeError, match="only Python scalars"):
        ra.add(1, 2)


_SCALARS = {"b": True, "i": -7, "u": 9, "f": -2.75, "c": 1.5 - 0.25j}


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("n", [1000, 5000], ids=["direct", "packed"])
def test_python_scalars_on_the_warm_path(device, dtype, n):
    """A contiguous array and a Python scalar, called again and again (the warm path: the
    runner writes the scalar into its parameter area, or packs it above the direct
    launch's size on the host), in both orders, for each kind of scalar the dtype takes
    without an error; each call matches NumPy, with the scalar's new value."""
    dt = np.dtype(dtype)
    a = random_array((n,), dt, np.random.default_rng(5))
    x = ra.asarray(a, device=device)
    kinds = {"b": "b", "i": "bi", "u": "bu", "f": "bif", "c": "bifc"}[dt.kind]
    for kind in kinds:
        s = _SCALARS[kind]
        for k in range(3):  # the first call plans; the next ones take the warm path
            v = type(s)(s * (k + 1)) if kind != "b" else bool(k % 2)
            for got, want in ((x * v, a * v), (v - x, v - a) if dt.kind != "b" else (x | v, a | v)):
                got = got.get()
                assert got.dtype == want.dtype, (kind, v)
                if dt.kind in "fc":
                    np.testing.assert_allclose(got, want, rtol=2e-3 if dt.itemsize <= 4 else 1e-12)
                else:
                    np.testing.assert_array_equal(got, want)
    if dt.kind in "iu":
        big = int(np.iinfo(dt).max) + 1
        for _ in range(2):  # the error on the warm path too
            with pytest.raises(OverflowError, match=f"out of bounds for {dt}"):
                x + big


def test_operators(device):
    rng = np.random.default_rng(11)
    a = random_array((5, 4), np.int32, rng, low=1, high=50)
    b = random_array((5, 4), np.int32, rng, low=1, high=50)
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
    pairs = [
        (x + y, a + b), (x - y, a - b), (x * y, a * b), (x / y, a / b), (x // y, a // b),
        (x % y, a % b), (x ** 2, a ** 2), (x & y, a & b), (x | y, a | b), (x ^ y, a ^ b),
        (x << 2, a << 2), (x >> 1, a >> 1), (-x, -a), (+x, +a), (~x, ~a), (abs(-x), abs(-a)),
        (x < y, a < b), (x <= y, a <= b), (x > y, a > b), (x >= y, a >= b), (x == y, a == b), (x != y, a != b),
        (5 - x, 5 - a), (2 ** x[:1, :2], 2 ** a[:1, :2]), (100 // x, 100 // a), (7 % x, 7 % a),
    ]
    for got, exp in pairs:
        assert got.dtype == exp.dtype
        np.testing.assert_allclose(got.get(), exp)


def test_inplace(device):
    rng = np.random.default_rng(12)
    a = random_array((6, 3), np.float32, rng)
    b = random_array((3,), np.float32, rng)
    x = ra.asarray(a.copy(), device=device)  # on the CPU asarray shares NumPy's memory
    buf = x._buf
    x += ra.asarray(b, device=device)
    x *= 2
    x -= 1.5
    a = (a + b) * 2 - np.float32(1.5)
    assert x._buf is buf  # written in place
    np.testing.assert_allclose(x.get(), a, rtol=1e-6)
    i = ra.asarray(np.arange(4, dtype=np.int64), device=device)
    with pytest.raises(TypeError, match="cannot cast"):
        i += 1.5
    f = ra.asarray(np.ones(3, dtype=np.float32), device=device)
    f += ra.asarray(np.ones(3), device=device)  # float64 into float32: same kind, allowed
    assert f.dtype == ra.float32 and f.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(ValueError, match="shape"):
        v = ra.zeros(3, device=device)
        v += ra.zeros((2, 3), device=device)
    # overlapping in-place update reads the old values, as NumPy does
    z = ra.asarray(np.arange(8.0), device=device)
    z[1:] += z[:-1]
    e = np.arange(8.0)
    e[1:] += e[:-1].copy()
    np.testing.assert_array_equal(z.get(), e)


def _in_place_kernels(dt, names) -> dict:
    """reads_out -> the tiers of the loaded kernels of the ops ``names`` of array operands
    of ``dt`` that read inputs through their output."""
    from rocarray import _launch

    found: dict = {}
    for k in list(_launch._loaded.values()):
        spec = k.spec
        if spec.reads_out and spec.name in names and all(op.kind != "scalar" and op.dtype == dt
                                                         for op in spec.operands):
            found.setdefault(spec.reads_out, set()).add(k.code.tier)
    return found


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_in_place_calls_read_through_the_output(device, dtype):
    """An op whose input is its output (``x += y``, ``x *= x``, ``subtract(y, x, out=x)``) runs,
    on the host, a kernel that reads that input through the output's address (vectorised:
    ``KernelSpec.reading_out``) -- in contiguous, strided, transposed and tiled layouts, with a
    broadcast operand; NumPy's results at the quick tier and at the compiled one.  A call whose
    output is no input keeps the op's kernel; GPUs make no such kernel."""
    from rocarray.compiler import cache as cache_module

    rng = np.random.default_rng(31)
    dt = np.dtype(dtype)
    first, second = (ra.logical_xor, ra.logical_or) if dt.kind == "b" else (ra.add, ra.multiply)
    np_first, np_second = (np.logical_xor, np.logical_or) if dt.kind == "b" else (np.add, np.multiply)
    a = random_array((300, 300), dt, rng, low=-9, high=9)
    b = random_array((300, 300), dt, rng, low=-9, high=9)
    row = random_array((300,), dt, rng, low=-9, high=9)

    def steps(x, y, r, f, g, sub):
        f(x, y, out=x)  # contiguous
        g(x, x, out=x)  # both inputs the output
        v = x[::2, 1::3]
        f(v, y[::2, 1::3], out=v)  # strided
        t = x.T
        f(t, y.T, out=t)  # transposed: the same walk
        f(x, y.T, out=x)  # the other operand transposed: tiles on the host
        f(x, r, out=x)  # broadcast
        sub(y, x, out=x)  # the output the second input
        return x

    sub, np_sub = (ra.logical_xor, np.logical_xor) if dt.kind == "b" else (ra.subtract, np.subtract)
    want = steps(a.copy(), b, row, np_first, np_second, np_sub)
    kwargs = {"rtol": 2e-3} if dt == np.float16 else {"rtol": 1e-6}
    y, r = ra.asarray(b, device=device), ra.asarray(row, device=device)
    for _ in range(2):  # the first kernels' tier, then the compiled code's
        got = steps(ra.asarray(a.copy(), device=device), y, r, first, second, sub).get()
        if dt.kind in "biu":
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, **kwargs)
        cache_module.drain_background()
    names = {first.__name__, second.__name__, sub.__name__}
    made = _in_place_kernels(dt, names)
    if device.kind != "cpu":
        assert not made
        return
    assert {((0, 2),), ((0, 2), (1, 2)), ((1, 2),)} <= set(made)  # ((input, output) operands)
    assert all(tiers == {"full"} for tiers in made.values())  # (what the second round ran)
    out = ra.empty((300, 300), dtype=dt, device=device)
    first(y, y, out=out)  # (the output no input: the op's own kernel)
    assert _in_place_kernels(dt, names) == made


def test_out_argument(device):
    x = ra.asarray(np.arange(4.0), device=device)
    out = ra.empty(4, dtype=ra.float32, device=device)
    r = ra.multiply(x, x, out=out)
    assert r is out and out.tolist() == [0.0, 1.0, 4.0, 9.0]
    with pytest.raises(TypeError, match="out must be"):
        ra.add(x, x, out=np.empty(4))


def test_where_and_clip(device):
    rng = np.random.default_rng(13)
    a = random_array((7,), np.float64, rng)
    b = random_array((7,), np.float32, rng)
    c = a > 0
    got = ra.where(ra.asarray(c, device=device), ra.asarray(a, device=device), ra.asarray(b, device=device))
    np.testing.assert_array_equal(got.get(), np.where(c, a, b))
    np.testing.assert_array_equal(ra.where(ra.asarray(c, device=device), ra.asarray(a, device=device), 0.0).get(),
                                  np.where(c, a, 0.0))
    np.testing.assert_array_equal(ra.where(ra.asarray(c, device=device), 1, 0.5).get(), np.where(c, 1, 0.5))
    with pytest.raises(TypeError, match="condition"):
        ra.where(ra.asarray(a, device=device), 1.0, 2.0)
    for dt in (np.int8, np.uint16, np.float32, np.float64):
        v = random_array((9,), dt, rng)
        x = ra.asarray(v, device=device)
        np.testing.assert_array_equal(ra.clip(x, 0, 5).get(), np.clip(v, 0, 5).astype(dt))
        np.testing.assert_array_equal(ra.clip(x, max=3).get(), np.clip(v, None, 3).astype(dt))
        np.testing.assert_array_equal(ra.clip(x, min=-2).get(), np.clip(v, -2, None).astype(dt))
        np.testing.assert_array_equal(ra.clip(x).get(), v)
        lo = ra.asarray(random_array((9,), dt, rng), device=device)
        np.testing.assert_array_equal(ra.clip(x, lo).get(), np.maximum(v, lo.get()))
    # bounds may widen the shape: the result has the broadcast shape
    z = ra.clip(ra.zeros((3,), device=device), min=ra.ones((2, 3), device=device))
    assert z.shape == (2, 3) and z.get().tolist() == [[1.0] * 3] * 2
    assert ra.clip(ra.zeros((2, 1), dtype=ra.uint8, device=device),
                   max=ra.zeros((0,), dtype=ra.uint8, device=device)).shape == (2, 0)
    f = ra.asarray(np.array([np.nan, 1.0, 10.0]), device=device)
    np.testing.assert_array_equal(ra.clip(f, 0.0, 5.0).get(), [np.nan, 1.0, 5.0])


def test_errors(device):
    f = ra.asarray(np.ones(3), device=device)
    i = ra.asarray(np.ones(3, dtype=np.int32), device=device)
    with pytest.raises(TypeError, match="bitwise_and: real floating dtype float64 is not supported"):
        ra.bitwise_and(f, f)
    with pytest.raises(TypeError, match="complex"):
        ra.less(f * 1j, f)
    with pytest.raises(TypeError, match="takes 2 positional"):
        ra.add(f)
    with pytest.raises(TypeError, match="asarray"):
        ra.add(f, np.ones(3))
    with pytest.raises(TypeError, match="logical_and"):
        ra.logical_and(f * 1j, i)
    with pytest.raises(TypeError):
        f + "a"


def test_astype_all_pairs(device):
    rng = np.random.default_rng(21)
    for src in ALL_DTYPES:
        a = random_array((11,), src, rng, low=-100, high=100)
        x = ra.asarray(a, device=device)
        for dst in ALL_DTYPES:
            if src.kind == "c" and dst.kind != "c":
                with pytest.raises(TypeError, match="imaginary"):
                    x.astype(dst)
                continue
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                expected = a.astype(dst)
            got = x.astype(dst).get()
            if src.kind == "f" and dst.kind in "iu":
                ok = (a >= np.iinfo(dst).min) & (a <= np.iinfo(dst).max)  # in range: exact
                np.testing.assert_array_equal(got[ok], expected[ok])
            else:
                np.testing.assert_array_equal(got, expected)


def test_complex_expm1_special_values(device):
    # the standard's special cases (C99 Annex G, as for exp) and small arguments
    inf, nan = np.inf, np.nan
    z = np.array([complex(inf, 0), complex(-inf, inf), complex(inf, inf), complex(-inf, nan),
                  complex(inf, nan), complex(nan, 0), 1e-9 + 1e-9j], dtype=np.complex128)
    got = ra.expm1(ra.asarray(z, device=device)).get()
    expected = [complex(inf, 0), complex(-1, 0), complex(inf, nan), complex(-1, 0),
                complex(inf, nan), complex(nan, 0), complex(1e-9, 1e-9)]
    for g, e in zip(got, expected):
        for gp, ep in ((g.real, e.real), (g.imag, e.imag)):
            if np.isnan(ep):
                assert np.isnan(gp)
            else:
                assert gp == pytest.approx(ep, rel=1e-6, abs=1e-20)


@pytest.mark.parametrize("dtype", [ra.int8, ra.float32, ra.float64, ra.uint16])
def test_large_arrays_every_trip_of_the_vector_path(device, dtype):
    # Large enough that a GPU's grid-stride vector loop makes its unrolled trips (several
    # vectors per thread), then single vectors, then the scalar tail; odd sizes and a
    # misaligned view take the scalar paths.  Checked on every device against NumPy.
    n = (1 << 22) + 37
    x = random_array((n,), dtype)
    y = random_array((n,), dtype, np.random.default_rng(7))
    a, b = ra.asarray(x, device=device), ra.asarray(y, device=device)
    np.testing.assert_array_equal(ra.asnumpy(a + b), x + y)
    np.testing.assert_array_equal(ra.asnumpy(ra.maximum(a[1:], b[:-1])), np.maximum(x[1:], y[:-1]))
    if dtype.kind == "f":
        np.testing.assert_allclose(ra.asnumpy(ra.exp(a / 50)), np.exp(x / dtype.type(50)),
                                   rtol=4 * np.finfo(dtype).eps)


@pytest.mark.parametrize("dtype", [ra.bool, ra.int8, ra.uint8, ra.int64, ra.uint64], ids=str)
def test_python_int_out_of_range_with_empty_arrays(device, dtype):
    """An int the result dtype cannot hold is an OverflowError whatever the size: an empty
    array (contiguous, strided, broadcast) raises as NumPy does, in every form of the call
    (found by tests/property)."""
    dt = np.dtype(dtype)
    res = ra.result_type(dt, 1)
    big = int(np.iinfo(res).max) + 1
    x = ra.asarray(np.zeros((0, 3), dtype=dt), device=device)
    views = (x, x.T, x[:, ::-2], ra.broadcast_to(x[:, :1], (0, 3)))
    for v in views:
        for call in (lambda: v + big, lambda: big * v, lambda: ra.subtract(v, big) if dt.kind != "b" else v | big):
            with pytest.raises(OverflowError, match="out of bounds"):
                call()
        with pytest.raises(OverflowError, match="out of bounds"):
            ra.where(ra.asarray(np.zeros(v.shape, dtype=bool), device=device), v, big)
    if dt.kind != "b":
        with pytest.raises(OverflowError, match="out of bounds"):
            x += big
        with pytest.raises(OverflowError, match="out of bounds"):
            x -= -big - 1
    # in range, the empty result is fine
    assert (x + 1).shape == (0, 3) and (x.T + 1).shape == (3, 0)


def test_clip_min_above_max(device):
    """``min > max``: the result is ``max`` everywhere, NumPy's ``minimum(maximum(x, min),
    max)`` (the standard leaves it unspecified; found by tests/property)."""
    rng = np.random.default_rng(29)
    for dt in (np.int8, np.uint32, np.float16, np.float32, np.float64):
        v = random_array((11,), dt, rng)
        x = ra.asarray(v, device=device)
        lo = random_array((11,), dt, rng, low=20, high=40)
        hi = random_array((11,), dt, rng, low=0, high=19)
        got = ra.clip(x, ra.asarray(lo, device=device), ra.asarray(hi, device=device))
        np.testing.assert_array_equal(got.get(), np.clip(v, lo, hi))
        np.testing.assert_array_equal(ra.clip(x, 30, 10).get(), np.full(11, 10, dtype=dt))


@pytest.mark.parametrize("name", ["less", "less_equal", "greater", "greater_equal", "maximum",
                                  "floor_divide", "atan2", "copysign"])
def test_complex_python_scalar_with_a_real_only_op(device, name):
    """A complex Python scalar with an op that takes no complex dtype is the op's own
    TypeError (as for a complex array), never a kernel-language error (found by
    tests/property)."""
    x = ra.asarray(random_array((4,), np.float32), device=device)
    fn = getattr(ra, name)
    for call in (lambda: fn(x, 1j), lambda: fn(2 + 0j, x)):
        with pytest.raises(TypeError, match=f"^{name}: complex floating dtype complex64 is not supported"):
            call()
    if name.startswith(("less", "greater")):
        with pytest.raises(TypeError, match="complex floating dtype complex64 is not supported"):
            x < 1j
        with pytest.raises(TypeError, match="complex floating dtype complex64 is not supported"):
            1j >= x


def test_no_writes_into_read_only_or_broadcast_destinations(device):
    """``x op= y`` and ``out=`` refuse a destination that is read-only memory or a
    broadcast view whose elements share memory (``b += 1`` added 1 once per alias, and
    wrote into a read-only NumPy buffer; found by tests/property); NumPy refuses both."""
    x = ra.asarray(np.arange(3.0), device=device)
    b = ra.broadcast_to(x, (2, 3))
    for call in (lambda: b.__iadd__(1), lambda: ra.multiply(b, 2.0, out=b),
                 lambda: ra.add(ra.ones((2, 3), device=device), 1.0, out=b)):
        with pytest.raises(ValueError, match="out is a broadcast view"):
            call()
    np.testing.assert_array_equal(x.get(), [0.0, 1.0, 2.0])
    # axes of length 1 (stride 0 or not) alias nothing: writable
    e = ra.expand_dims(x, axis=0)
    e += 1
    np.testing.assert_array_equal(x.get(), [1.0, 2.0, 3.0])
    if device.kind == "cpu":
        raw = bytes(16)
        r = ra.asarray(np.frombuffer(raw, dtype=np.float64), device=device, copy=False)
        with pytest.raises(ValueError, match="add: out is read-only"):
            r += 1
        assert raw == bytes(16)


# -- exact comparisons across signedness and beyond a dtype's range ---------------------------

_COMPARISONS = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")


def _signed_unsigned_pairs(rng, n=64):
    """int64 and uint64 data around the values float64 cannot tell apart (2**63 and its
    neighbours, 2**62 + 1, 2**53 + 1), with negatives, in random pairs."""
    edges_i = [2**63 - 1, 2**63 - 2, 2**62, 2**62 + 1, 2**53 + 1, 0, -1, -(2**63), 7]
    edges_u = [2**63, 2**63 + 1, 2**63 - 1, 2**62 + 1, 2**62, 2**53, 2**64 - 1, 0, 7]
    a = rng.choice(np.array(edges_i, dtype=np.int64), n)
    b = rng.choice(np.array(edges_u, dtype=np.uint64), n)
    a[:9] = edges_i
    b[:9] = edges_u
    return a, b


@pytest.mark.parametrize("name", _COMPARISONS)
def test_int64_uint64_comparisons_are_exact(device, name):
    # the promotion is float64, which rounds 2**63 - 2 and 2**63 together: compare exactly
    a, b = _signed_unsigned_pairs(np.random.default_rng(7))
    f, g = getattr(ra, name), getattr(np, name)
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
    for got, want in ((f(x, y), g(a, b)), (f(y, x), g(b, a)),
                      (f(x[::2], y[1::2]), g(a[::2], b[1::2])),  # strided
                      (f(x[:, None], y[None, :8]), g(a[:, None], b[None, :8]))):  # broadcast
        assert got.dtype == ra.bool
        np.testing.assert_array_equal(got.get(), want)
    for sdt in (np.int8, np.int16, np.int32):  # narrower signed with uint64: the same rule
        s = a.astype(sdt)
        np.testing.assert_array_equal(f(ra.asarray(s, device=device), y).get(), g(s, b))
    op = {"equal": "__eq__", "not_equal": "__ne__", "less": "__lt__", "less_equal": "__le__",
          "greater": "__gt__", "greater_equal": "__ge__"}[name]
    np.testing.assert_array_equal(getattr(x, op)(y).get(), g(a, b))
    out = ra.empty(a.shape, dtype=ra.bool, device=device)
    assert f(x, y, out=out) is out
    np.testing.assert_array_equal(out.get(), g(a, b))


def test_int64_uint64_maximum_minimum_follow_numpy(device):
    # NumPy's float64 (the promotion of the pair), not an exact integer result
    a, b = _signed_unsigned_pairs(np.random.default_rng(8))
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
    for name in ("maximum", "minimum"):
        got = getattr(ra, name)(x, y)
        want = getattr(np, name)(a, b)
        assert got.dtype == want.dtype == ra.float64
        np.testing.assert_array_equal(got.get(), want)


_BEYOND = (2**64, 2**63, 2**100, -(2**63) - 1, -(2**100), 300, -129, 256, -1, 70000, -40000, 2**32, -(2**31) - 1)


@pytest.mark.parametrize("dtype", [ra.bool, ra.int8, ra.int16, ra.int32, ra.int64,
                                   ra.uint8, ra.uint16, ra.uint32, ra.uint64], ids=str)
def test_comparisons_with_python_ints_beyond_the_dtype_are_exact(device, dtype):
    import operator

    a = random_array((50,), dtype, np.random.default_rng(3))
    if dtype != ra.bool:
        info = np.iinfo(dtype)
        a[:2] = [info.min, info.max]
    x = ra.asarray(a, device=device)
    ops = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]
    for v in _BEYOND:
        for op in ops:
            # Python's own comparison of each element is the exact answer (NumPy 2's too)
            want = np.array([op(int(e), v) for e in a])
            want_r = np.array([op(v, int(e)) for e in a])
            for _ in range(2):  # the plan's first call, then the warm path
                np.testing.assert_array_equal(op(x, v).get(), want)
                np.testing.assert_array_equal(op(v, x).get(), want_r)
            if dtype != ra.bool:
                np.testing.assert_array_equal(op(x, v).get(), op(a, v))  # NumPy agrees
    # with out=, and on a strided view
    out = ra.empty((25,), dtype=ra.bool, device=device)
    assert ra.less(x[::2], 2**64, out=out) is out
    assert out.get().all()
    with pytest.raises(ValueError, match="out has shape"):
        ra.less(x, 2**64, out=out)
    # arithmetic still raises, naming the value and the dtype (NEP 50)
    loop = ra.int64 if dtype == ra.bool else dtype
    big = 2**64 if dtype == ra.bool else int(np.iinfo(dtype).max) + 1
    with pytest.raises(OverflowError, match=f"add: Python integer {big} out of bounds for {loop}"):
        x + big


@pytest.mark.parametrize("dtype", [ra.float16, ra.float32, ra.complex64], ids=str)
@pytest.mark.parametrize("n", [7, 5000], ids=["direct", "packed"])
def test_python_floats_beyond_the_dtype_range_become_infinity(device, dtype, n):
    # NEP 50: the Python float converts to the array's dtype, as np.float16(70000.0) == inf
    a = random_array((n,), dtype, np.random.default_rng(4))
    x = ra.asarray(a, device=device)
    values = (70000.0, -70000.0, 1e300, -1e300, 65519.0, 3.4028235677973366e38, float("inf"))
    if dtype == ra.complex64:
        values += (complex(1e300, 1.0), complex(-2.0, -1e39))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy warns as it converts
        for v in values:
            for _ in range(2):  # the plan's first call, then the warm path
                for got, want in ((x * v, a * v), (x + v, a + v), (v - x, v - a), (ra.multiply(x, v), a * v)):
                    assert got.dtype == want.dtype == dtype
                    np.testing.assert_array_equal(got.get(), want)
                if dtype != ra.complex64:
                    for got, want in ((x < v, a < v), (x >= v, a >= v), (v > x, v > a), (x == v, a == v)):
                        np.testing.assert_array_equal(got.get(), want)
                    np.testing.assert_array_equal(ra.clip(x, max=v).get(), np.clip(a, None, v))
                    np.testing.assert_array_equal(ra.clip(x, min=v).get(), np.clip(a, v, None))
                    np.testing.assert_array_equal(ra.maximum(x, v).get(), np.maximum(a, v))
                    np.testing.assert_array_equal(ra.where(x > 0, x, v).get(), np.where(a > 0, a, v))
            y, b = ra.asarray(a, device=device), a.copy()
            y += v
            b += v
            np.testing.assert_array_equal(y.get(), b)


def test_floor_divide_by_a_python_int_that_is_infinite_in_float16(device):
    """A Python int beyond float16's range is an infinity in the loop (NEP 50), and the
    standard's floor_divide of a finite value by an infinity is the IEEE quotient (a signed
    zero; NumPy gives -1 for ``0.25 // -inf``): both orders, the plan's first call and the
    warm path."""
    a = np.array([0.274, -3.5, 0.0, -0.0, 7.0, np.inf], dtype=np.float16)
    x = ra.asarray(a, device=device)
    big = -(2**63)
    with np.errstate(all="ignore"):
        inf = np.float16(big)
        want, want_r = _standard_floor_divide(a, inf), _standard_floor_divide(inf, a)
    for _ in range(2):
        got = ra.floor_divide(x, big).get()
        np.testing.assert_array_equal(got, want)
        zeros = want == 0  # (the signs of the zeros; a NaN's sign is not a value)
        np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]))
        np.testing.assert_array_equal((big // x).get(), want_r)
    assert np.signbit(want[0]) and want[0] == 0 and np.isnan(want[-1])


_INTEGER_AND_BOOL = [ra.bool, ra.int8, ra.int16, ra.int32, ra.int64, ra.uint8, ra.uint16, ra.uint32, ra.uint64]
_FLOAT_BINARY = [row.name for row in _rows.values() if row.nin == 2 and row.compute == "float" and row.name != "ldexp"]


@pytest.mark.parametrize("name", _FLOAT_BINARY)
def test_float_binary_functions_of_integer_pairs_take_numpys_float(device, name):
    # the smallest float each input converts to safely (atan2(int8, uint8) is float16, not
    # the float32 of their promotion int16); every pair, against NumPy's dtype and values
    assert set(_FLOAT_BINARY) >= {"atan2", "hypot", "logaddexp", "copysign", "nextafter"}
    rng = np.random.default_rng(21)
    f, g = getattr(ra, name), np_func(name)
    for dt1 in _INTEGER_AND_BOOL:
        a = random_array((9,), dt1, rng, low=0 if name == "nextafter" else -20, high=20)
        for dt2 in _INTEGER_AND_BOOL:
            b = random_array((9,), dt2, rng, low=-20, high=20)
            want = g(a, b)
            got = f(ra.asarray(a, device=device), ra.asarray(b, device=device))
            assert got.dtype == want.dtype, (dt1, dt2)
            np.testing.assert_allclose(got.get(), want, **tolerance(want.dtype, name))
            # a Python int is weak: the array's dtype alone decides
            assert f(ra.asarray(a, device=device), 3).dtype == g(a, 3).dtype, dt1


def test_layouts_found_again_give_numpy_results(device, monkeypatch):
    """The general path's layouts (``_elementwise._layouts``: merged dims and strides per
    operand shapes and strides) serve repeated calls with views, broadcasts, scalars, an
    ``out`` that overlaps an input (read from a copy of its own layout) and more dims than
    a kernel takes; a full table is emptied, not grown."""
    from rocarray import _elementwise

    monkeypatch.setattr(_elementwise, "_layouts", {})
    rng = np.random.default_rng(41)
    a = random_array((6, 1, 5, 8), np.float32, rng)
    b = random_array((7, 5, 1), np.float32, rng)
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
    for _ in range(2):  # (the second round finds every layout)
        np.testing.assert_array_equal((x + y).get(), a + b)
        np.testing.assert_array_equal((x[::-2, :, 1:, ::3] * 2.5).get(), a[::-2, :, 1:, ::3] * np.float32(2.5))
        np.testing.assert_array_equal(ra.maximum(x.T, 0.5).get(), np.maximum(a.T, np.float32(0.5)))
        z = ra.asarray(a, device=device, copy=True)
        ra.subtract(z[::-1], z, out=z)  # (z[::-1] overlaps the output: read from a copy)
        np.testing.assert_array_equal(z.get(), a[::-1] - a)
        q = random_array((9, 9), np.float32, rng)  # (one shape, four layouts)
        u = ra.asarray(q, device=device)
        for view in (lambda v: v.T, lambda v: v[::-1], lambda v: v[:, ::-1], lambda v: v[::-1].T):
            np.testing.assert_array_equal((view(u) * 2).get(), view(q) * 2)
        o = ra.empty((9, 9), dtype=ra.float32, device=device)
        ra.multiply(u.T, 2, out=o)  # (one input layout, two output layouts)
        np.testing.assert_array_equal(o.get(), q.T * 2)
        ra.multiply(u.T, 2, out=o.T)
        np.testing.assert_array_equal(o.get(), q * 2)
        d = random_array((2,) * 10, np.int32, rng)  # (ten axes, none merging: split launches)
        w = ra.asarray(d, device=device)
        np.testing.assert_array_equal((w[..., ::-1] + w).get(), d[..., ::-1] + d)
    assert _elementwise._layouts
    monkeypatch.setattr(_elementwise, "_MAX_LAYOUTS", 2)
    for k in range(3, 8):
        v = ra.asarray(random_array((k, 3), np.float32, rng), device=device)
        np.testing.assert_array_equal((v.T + 1).get(), v.get().T + 1)
    assert len(_elementwise._layouts) <= 2


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.float32, np.int64, np.complex128], ids=str)
def test_host_calls_that_transpose_walk_tiles(dtype, monkeypatch):
    """A host call over two merged dims that reads along one and writes along the other
    (``a.T + b``, a transposed copy, a transposed ``out``) walks tiles, then the columns and
    rows the tiles leave; each gives NumPy's result, for shapes that are and are not
    multiples of a tile, with a broadcast beside the transposed operand.  ``a.T * 2``
    does not transpose: its result is laid out as ``a.T``."""
    from rocarray import _elementwise

    cpu = ra.Device("cpu")
    monkeypatch.setattr(_elementwise, "_layouts", {})
    rng = np.random.default_rng(45)
    tiled = []
    launch = _elementwise._launch_parts

    def counted(*args):
        tiled.append(args[4].shape)  # (the output)
        launch(*args)

    monkeypatch.setattr(_elementwise, "_launch_parts", counted)
    for rows, cols in [(64, 512), (70, 300), (300, 517), (129, 256)]:
        a = random_array((cols, rows), dtype, rng)
        b = random_array((rows, cols), dtype, rng)
        x, y = ra.asarray(a, device=cpu), ra.asarray(b, device=cpu)
        del tiled[:]
        np.testing.assert_array_equal((x.T + y).get(), a.T + b)
        np.testing.assert_array_equal(ra.asarray(x.T, copy=True).get(), a.T.copy())
        np.testing.assert_array_equal(ra.where(y != 0, x.T, y[:1]).get(), np.where(b != 0, a.T, b[:1]))
        out = ra.empty((cols, rows), dtype=dtype, device=cpu)
        out.T[...] = y  # (writes along the other dim than it reads)
        np.testing.assert_array_equal(out.get(), b.T)
        assert tiled == [(rows, cols)] * 4, (rows, cols)
        if dtype != np.bool_:  # (a result laid out as its one operand: one run, no tiles)
            two = 2 if np.dtype(dtype).kind in "iu" else 2.0
            np.testing.assert_array_equal((x.T * two).get(), a.T * np.dtype(dtype).type(two))
            assert tiled == [(rows, cols)] * 4, (rows, cols)
    # too small for tiles, or not transposing: the plain walk
    del tiled[:]
    a = random_array((20, 15), dtype, rng)
    np.testing.assert_array_equal((ra.asarray(a, device=cpu).T + 1).get() if dtype != np.bool_ else
                                  ra.asarray(ra.asarray(a, device=cpu).T, copy=True).get(),
                                  (a.T + 1) if dtype != np.bool_ else a.T)
    b = random_array((300, 517), dtype, rng)
    y = ra.asarray(b, device=cpu)
    np.testing.assert_array_equal(ra.asarray(y[:, ::2], copy=True).get(), b[:, ::2])
    assert not tiled


_BEYOND_STANDARD = ["cbrt", "deg2rad", "exp2", "fabs", "fmax", "fmin", "fmod", "gcd", "heaviside", "lcm",
                    "logaddexp2", "rad2deg", "sinc", "spacing", "bitwise_count", "i0"]
#: rows whose operands are not one dtype (ldexp: a float and integer exponents) or that
#: take only some dtypes of a kind (frexp's rows), with the signatures they are called with
_BEYOND_STANDARD_SIGNATURES = {
    "ldexp": [("float16", "int8"), ("float32", "int16"), ("float32", "int32"), ("float64", "int64"),
              ("int8", "int8"), ("bool", "bool")],
    "_frexp_mantissa": [("float16",), ("float32",), ("float64",)],
    "_frexp_exponent": [("int16",), ("int32",), ("int64",)],
    "_sqrt_power": [("float16",), ("float32",), ("float64",)],
}


def _gpu_target_params():
    from rocarray.targets.amdgpu import find_device_libs, find_lld
    from rocarray.targets.nvptx import find_libdevice

    no_amd = find_lld() is None or find_device_libs() is None
    return [pytest.param("sm_90", marks=pytest.mark.skipif(
                find_libdevice() is None, reason="libdevice.10.bc not found: install the CUDA toolkit "
                "(set CUDA_HOME) or pip install nvidia-nvvm"))] + [
            pytest.param(arch, marks=pytest.mark.skipif(
                no_amd, reason="ld.lld >= 17 and ROCm device-libs are needed to build AMDGPU code objects"))
            for arch in ("gfx90a", "gfx942", "gfx1100")]


@pytest.mark.parametrize("target_name", _gpu_target_params())
def test_functions_beyond_the_standard_compile_for_gpu_targets(target_name):
    """Compile-only (no GPU needed): NumPy's and CuPy's functions beyond the standard, for
    every dtype kind each accepts, build and compile at both tiers for NVIDIA and AMD
    targets (their math through libdevice / ocml, as the standard's)."""
    from rocarray._elementwise import Ufunc, elementwise_spec
    from rocarray.targets import target_for

    target = target_for(target_name)
    built = 0
    for name in _BEYOND_STANDARD:
        u = Ufunc(_rows[name])
        for dt in ALL_DTYPES:
            if dt.kind not in ACCEPTS[u.row.accepts] or (name, dt.kind) in SKIP:
                continue
            dts = (np.dtype(dt),) * u.nin
            loop_in, loop_out, out_storage, body = u.resolve(dts)
            spec = elementwise_spec(name, body, dts, ("a",) * u.nin, loop_in, out_storage, loop_out)
            for tier in (target.quick_tier, target):
                assert len(tier.compile(spec.build_module(tier))) > 0, (name, dt)
            built += 1
    for name, signatures in _BEYOND_STANDARD_SIGNATURES.items():
        u = Ufunc(_rows[name])
        for sig in signatures:
            dts = tuple(np.dtype(d) for d in sig)
            loop_in, loop_out, out_storage, body = u.resolve(dts)
            spec = elementwise_spec(name, body, dts, ("a",) * u.nin, loop_in, out_storage, loop_out)
            for tier in (target.quick_tier, target):
                assert len(tier.compile(spec.build_module(tier))) > 0, (name, sig)
            built += 1
    assert built >= 100


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_scalar_powers_two_and_minus_one_take_square_and_reciprocal(device, dtype, monkeypatch):
    """``x ** 2``, ``x ** -1`` and ``x ** 0.5`` (the operator, in place, ``ra.pow``,
    ``np.power``) run ``square``, ``reciprocal`` and the root for real floating ``x`` (and
    ``square`` for integers and a Python int 2: NumPy's fast paths), with the results of
    ``pow`` itself bit for bit (the root: correctly rounded, with ``pow``'s special
    values); other exponents, bools and complex numbers keep ``pow``."""
    import rocarray._elementwise_functions as ef
    dt = np.dtype(dtype)
    rng = np.random.default_rng(17)
    a = random_array((40,), dt, rng)
    if dt.kind in "fc":
        a[:7] = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e200, -3.0]).astype(dt)
    x = ra.asarray(a, device=device)
    pow_row = ra.pow.__class__(_rows["pow"])  # (pow's own kernel, no fast path in front)
    calls = []
    for name in ("square", "reciprocal", "_sqrt_power"):
        real = getattr(ef, name)
        monkeypatch.setattr(ef, name, lambda *args, _real=real, _name=name, **kw: calls.append(_name) or _real(*args, **kw))
    real = dt.kind == "f"
    fast = [(2, "square" if dt.kind in "iuf" else None), (2.0, "square" if real else None),
            (-1, "reciprocal" if real else None), (-1.0, "reciprocal" if real else None),
            (0.5, "_sqrt_power" if real else None)]
    for e, expected_path in fast:
        with np.errstate(all="ignore"):
            try:
                want = pow_row(x, e).get()
            except (TypeError, OverflowError):  # (-1 for an unsigned x: out of its range)
                continue
            if e == 0.5 and real:  # (the correctly rounded root; pow's +0 at -0, +inf at -inf)
                want = np.where(a == -np.inf, np.inf, np.where(a == 0, 0, np.sqrt(a))).astype(dt)
        for how, call in (("**", lambda: x ** e), ("pow", lambda: ra.pow(x, e)), ("np.power", lambda: np.power(x, e)),
                          ("out", lambda: ra.pow(x, e, out=ra.empty_like(ra.asarray(want, device=device))))):
            calls.clear()
            got = call().get()
            assert got.dtype == want.dtype, (how, e, got.dtype, want.dtype)
            np.testing.assert_array_equal(got, want, err_msg=f"{how} {e}")
            if dt.kind in "fc":  # (a NaN's sign is the hardware's: x86's sqrt gives -NaN, GPUs +NaN)
                numbers = ~np.isnan(want.real)
                assert np.array_equal(np.signbit(got.real)[numbers], np.signbit(want.real)[numbers]), (how, e)
            assert calls == ([expected_path] if expected_path else []), (how, e, calls)
        if expected_path and np.dtype(want.dtype) == dt:
            y = ra.asarray(a, device=device)
            y **= e
            np.testing.assert_array_equal(y.get(), want)
    calls.clear()
    if real:
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal((x ** 3).get(), pow_row(x, 3).get())
            np.testing.assert_array_equal((x ** 1.5).get(), pow_row(x, 1.5).get())
        assert calls == []


#: views whose elements lie in an order of the axes other than C's (NumPy's ``order="K"``
#: keeps that order in an elementwise result)
K_VIEWS = {
    "transposed": lambda a: a.T,
    "permuted": lambda a: a.transpose(1, 2, 0),
    "reversed transposed": lambda a: a[::-1, :, ::-1].transpose(2, 0, 1),
    "strided transposed": lambda a: a[:, ::2, 1:].T,
    "unit axis": lambda a: a[:, :1, :].transpose(2, 1, 0),
}


def _k_source(view):
    return (2, 5, 7) if view != "transposed" else (6, 9)


@pytest.mark.parametrize("view", list(K_VIEWS))
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_results_lie_as_their_operands(device, dtype, view):
    """An elementwise result takes the memory order of its operands (NumPy's ``order="K"``)
    where those of its whole shape agree on one: its strides are NumPy's (on the axes of
    more than one element), its values NumPy's; operands of different orders, or none of
    the whole shape, give C order."""
    rng = np.random.default_rng([zlib.crc32(view.encode()), np.dtype(dtype).num])
    a = random_array(_k_source(view), dtype, rng)
    b = random_array(_k_source(view), dtype, rng)
    f = K_VIEWS[view]
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)

    def same(got, want):
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.get(), want)
        big = [d for d in range(want.ndim) if want.shape[d] > 1]
        assert [got.strides[d] for d in big] == [want.strides[d] for d in big], (got.strides, want.strides)

    same(ra.equal(f(x), f(y)), np.equal(f(a), f(b)))
    if np.dtype(dtype) == np.bool_:
        same(ra.logical_not(f(x)), np.logical_not(f(a)))
    else:
        same(ra.negative(f(x)), np.negative(f(a)))
        same(ra.multiply(f(x), f(y)), np.multiply(f(a), f(b)))
        row = y[(0,) * (y.ndim - 1)][: f(a).shape[-1]]  # (a broadcast operand leaves the order)
        same(ra.subtract(f(x), row), np.subtract(f(a), b[(0,) * (b.ndim - 1)][: f(a).shape[-1]]))
    # a broadcast of the whole shape says nothing of the order: x.T's, or C beside none
    wide = ra.broadcast_to(y[(0,) * (y.ndim - 1)][: f(a).shape[-1]], f(a).shape)
    wide_np = np.broadcast_to(b[(0,) * (b.ndim - 1)][: f(a).shape[-1]], f(a).shape)
    if np.dtype(dtype) != np.bool_:
        same(ra.add(f(x), wide), np.add(f(a), wide_np))
        same(ra.negative(wide), np.negative(wide_np))
    # operands in two orders: C
    c = ra.asarray(np.ascontiguousarray(f(b)), device=device)
    got = ra.not_equal(f(x), c)
    np.testing.assert_array_equal(got.get(), np.not_equal(f(a), f(b)))
    assert got.is_c_contiguous()


def test_results_in_another_order_serve_every_op(device):
    """A result laid out in another order than C's (``x.T * 2``) goes on into the ops that
    read memory directly -- reshape, masks, sorting, scans, gathers, copies, reductions,
    matmul, writes into it, NumPy and DLPack -- with NumPy's results."""
    rng = np.random.default_rng(88)
    a = random_array((37, 23), np.float32, rng)
    x = ra.asarray(a, device=device)
    t, tn = x.T * 2, a.T * 2
    assert not t.is_c_contiguous() and t.strides == tn.strides
    eq = np.testing.assert_array_equal
    eq(t.get(), tn)
    eq(ra.asnumpy(ra.reshape(t, (-1,))), tn.reshape(-1))
    eq(ra.reshape(t, (23, 37)).get(), tn.reshape(23, 37))
    eq(t[t > 0].get(), tn[tn > 0])
    eq(ra.nonzero(t > 0)[1].get(), np.nonzero(tn > 0)[1])
    eq(ra.sort(t, axis=0).get(), np.sort(tn, axis=0))
    eq(ra.sort(t, axis=1).get(), np.sort(tn, axis=1))
    eq(ra.argsort(t, axis=1, stable=True).get(), np.argsort(tn, axis=1, kind="stable"))
    eq(ra.cumulative_sum(t, axis=1).get(), np.cumsum(tn, axis=1))
    eq(ra.take(t, ra.asarray([3, 0, 22], device=device), axis=0).get(), np.take(tn, [3, 0, 22], axis=0))
    eq(ra.concat([t, t], axis=1).get(), np.concatenate([tn, tn], axis=1))
    eq(ra.flip(t, axis=1).get(), np.flip(tn, axis=1))
    eq(t.astype(ra.float64).get(), tn.astype(np.float64))
    eq(ra.asarray(t, copy=True).get(), tn)
    np.testing.assert_allclose(ra.sum(t, axis=1).get(), tn.sum(axis=1), rtol=1e-5)
    np.testing.assert_allclose(ra.matmul(t, x).get(), tn @ a, rtol=1e-4)
    eq(ra.argmax(t, axis=0).get(), np.argmax(tn, axis=0))
    eq(ra.unique_values(t).get(), np.unique(tn))
    t[1:3, ::2] = -1.0
    tn[1:3, ::2] = -1.0
    eq(t.get(), tn)
    t[t < 0] = ra.asarray(np.arange((tn < 0).sum(), dtype=np.float32), device=device)
    tn[tn < 0] = np.arange((tn < 0).sum(), dtype=np.float32)
    eq(t.get(), tn)
    if device.kind == "cpu":  # (a GPU array is not converted implicitly)
        eq(np.asarray(t), tn)
        eq(np.from_dlpack(t), tn)


@pytest.mark.parametrize("dtype", [ra.int8, ra.float32, ra.int64, ra.complex128], ids=str)
def test_operands_of_two_orders(device, dtype):
    """``x.T + y`` (operands in two orders, a result in C order) on every device: NumPy's
    values, for shapes that are and are not multiples of a tile, and with a scalar; on a
    GPU the operand that goes the other way is copied into C order first (``_gpu_apart``:
    the tiled transposing copy, then one contiguous pass), on the host it is read in place
    through tiles."""
    from rocarray import _elementwise

    copied = []
    copy_array = _elementwise.copy_array

    def counted(a):
        copied.append(a.shape)
        return copy_array(a)

    rng = np.random.default_rng(np.dtype(dtype).num)
    for rows, cols in [(256, 256), (300, 517), (20, 15)]:
        a, b = random_array((cols, rows), dtype, rng), random_array((rows, cols), dtype, rng)
        x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
        del copied[:]
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_elementwise, "copy_array", counted)
            for _ in range(2):  # (the second call finds the layout)
                got = x.T + y
                assert got.is_c_contiguous()
                np.testing.assert_array_equal(got.get(), a.T + b)
                # (beside a broadcast alone, x.T's order: nothing to copy)
                np.testing.assert_array_equal(ra.subtract(y[:1], x.T).get(), np.subtract(b[:1], a.T))
                np.testing.assert_array_equal((x.T * y * 2).get(), a.T * b * np.dtype(dtype).type(2))
        big = rows * cols >= _elementwise.GPU_APART_MIN_ELEMENTS
        assert copied == ([(rows, cols)] * 4 if big and device.kind != "cpu" else []), (rows, cols, copied)


def test_gpu_apart_picks_the_operands_that_go_the_other_way():
    """``_gpu_apart``'s choice on merged layouts (element strides in bytes, the output's
    last): the operands stepping along the other dim than a C-ordered output, not the
    broadcast ones, none below ``GPU_APART_MIN_ELEMENTS`` or for an output of another
    order."""
    from rocarray._elementwise import GPU_APART_MIN_ELEMENTS, _gpu_apart

    shape = (512, 512)
    out = (2048, 4)
    assert _gpu_apart(shape, [(4, 2048), (2048, 4), out], "aa") == (0,)
    assert _gpu_apart(shape, [(2048, 4), (4, 2048), out], "saa") == (2,)
    assert _gpu_apart(shape, [(4, 2048), (0, 4), (4, 0), out], "aaa") == (0,)
    assert _gpu_apart(shape, [(-4, -2048), out], "a") == (0,)
    assert _gpu_apart((8, GPU_APART_MIN_ELEMENTS // 16), [(4, 32), out], "a") == ()
    assert _gpu_apart(shape, [(2048, 4), (4, 2048)], "a") == ()
