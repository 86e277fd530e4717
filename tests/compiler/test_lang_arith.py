"""Arithmetic of the kernel language against NumPy: C promotion, integer division and shifts
that never trap, float16 rounding, conversions."""

import itertools
import warnings

import numpy as np
import pytest

try:  # tests/compiler may or may not be a package
    from ._lang_target import elementwise, run
except ImportError:
    from _lang_target import elementwise, run

REAL = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
        np.uint64, np.float16, np.float32, np.float64]
INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
N = 97


def rand(dtype, n=N, seed=0, small=False):
    """Random values over the whole range of an integer dtype (small: a few bits), normal
    floats for float dtypes; never all zeros."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = (info.min, info.max) if not small else (max(info.min, -20), min(info.max, 20))
        return rng.integers(lo, hi, n, dtype=dt, endpoint=True)
    return (rng.normal(size=n) * 10).astype(dt)


def c_type(a, b):
    """C's usual arithmetic conversions, written out independently of the compiler."""
    a, b = np.dtype(a), np.dtype(b)
    floats = [t for t in (a, b) if t.kind == "f"]
    if floats:
        return max((np.dtype(np.float32) if t == np.float16 else t for t in floats),
                   key=lambda t: t.itemsize)

    def promote(t):
        return np.dtype(np.int32) if t.kind == "b" or t.itemsize < 4 else t

    a, b = promote(a), promote(b)
    if a == b:
        return a
    if a.kind == b.kind:
        return a if a.itemsize > b.itemsize else b
    s, u = (a, b) if a.kind == "i" else (b, a)
    return u if u.itemsize >= s.itemsize else s


@pytest.mark.parametrize("ta,tb", list(itertools.product(REAL, REAL)))
def test_binary_promotion(ta, tb):
    a = rand(ta, seed=1)
    b = rand(tb, seed=2)
    ct = c_type(ta, tb)
    body = ("out0 = in0 + in1; out1 = in0 - in1; out2 = in0 * in1; out3 = in0 < in1;"
            " out4 = in0 == in1; out5 = in0 != in1")
    outs = elementwise(body, [a, b], [ct, ct, ct, bool, bool, bool])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = a.astype(ct)
        y = b.astype(ct)
        np.testing.assert_array_equal(outs[0], x + y)
        np.testing.assert_array_equal(outs[1], x - y)
        np.testing.assert_array_equal(outs[2], x * y)
        np.testing.assert_array_equal(outs[3], x < y)
        np.testing.assert_array_equal(outs[4], x == y)
        np.testing.assert_array_equal(outs[5], x != y)


def test_result_type_is_c_type():
    # int8 + uint8 computes in int (no wrap at 8 bits); stored to int32
    a = np.array([100, -100, 127], np.int8)
    b = np.array([100, 200, 255], np.uint8)
    np.testing.assert_array_equal(elementwise("out0 = in0 + in1", [a, b], [np.int32]),
                                  [200, 100, 382])
    # int32 + uint32 is unsigned: -1 becomes 4294967295
    a = np.array([-1, 5], np.int32)
    b = np.array([0, 1], np.uint32)
    np.testing.assert_array_equal(elementwise("out0 = in0 + in1", [a, b], [np.uint64]),
                                  [4294967295, 6])
    np.testing.assert_array_equal(elementwise("out0 = in0 < in1", [a, b], [bool]),
                                  [False, False])
    # int64 with uint32 is int64
    a = np.array([-1, 5], np.int64)
    np.testing.assert_array_equal(elementwise("out0 = in0 < in1", [a, b], [bool]),
                                  [True, False])
    # float + double literal is double; 1.0f stays float
    x = np.array([1.0], np.float32)
    r = elementwise("out0 = in0 + 1e-10 - in0", [x], [np.float64])
    assert r[0] == pytest.approx(1e-10, rel=1e-5)
    r = elementwise("out0 = in0 + 1e-10f - in0", [x], [np.float64])
    assert r[0] == 0.0


def _c_div(x, y, bits, signed):
    if y == 0:
        return 0, 0
    q = abs(x) // abs(y) * (1 if (x >= 0) == (y >= 0) else -1)
    r = x - q * y
    mask = (1 << bits) - 1
    q &= mask
    if signed and q >= 1 << (bits - 1):
        q -= 1 << bits
    return q, r


@pytest.mark.parametrize("dt", INTS + [np.bool_])
def test_int_division_and_modulo(dt):
    a = rand(dt, seed=3)
    b = rand(dt, seed=4, small=True)
    b[::5] = 0
    if np.dtype(dt).kind == "i":
        a[:3] = np.iinfo(dt).min
        b[:3] = -1
        b[3] = 0
    ct = c_type(dt, dt)
    q, r = elementwise("out0 = in0 / in1; out1 = in0 % in1", [a, b], [ct, ct])
    bits = ct.itemsize * 8
    for k in range(len(a)):
        eq, er = _c_div(int(a[k]), int(b[k]), bits, ct.kind == "i")
        assert (int(q[k]), int(r[k])) == (eq, er), (a[k], b[k])


def test_div_by_zero_is_zero_in_compound_and_mixed():
    a = np.array([7, -7, 0, 5], np.int64)
    b = np.array([0, 0, 0, 2], np.uint8)
    out = np.zeros(4, np.int64)
    run("x = a; x /= b; y = a % b", [("a", np.int64, "in"), ("b", np.uint8, "in"),
                                      ("x", np.int64, "out"), ("y", np.int64, "out")],
        [a, b, out, np.zeros(4, np.int64)])
    np.testing.assert_array_equal(out, [0, 0, 0, 2])


def _shift_ref(x, c, bits, signed, op):
    if c < 0 or c >= bits:
        if op == "<<" or not signed:
            return 0
        return -1 if x < 0 else 0
    mask = (1 << bits) - 1
    if op == "<<":
        v = (x << c) & mask
    else:
        v = (x >> c) if signed else ((x & mask) >> c)
        v &= mask
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


@pytest.mark.parametrize("dt", INTS)
@pytest.mark.parametrize("ct", [np.int32, np.uint8, np.int64])
def test_shifts_any_count(dt, ct):
    a = rand(dt, seed=5)
    c = np.resize(np.array([0, 1, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 100, -1, -2,
                            -64, 127], dtype=np.int64), N)
    c = c.astype(ct)
    lt = c_type(dt, dt)
    left, right = elementwise("out0 = in0 << in1; out1 = in0 >> in1", [a, c], [lt, lt])
    bits = lt.itemsize * 8
    for k in range(N):
        x = int(a[k])
        cnt = int(c[k])
        assert int(left[k]) == _shift_ref(x, cnt, bits, lt.kind == "i", "<<"), (x, cnt)
        assert int(right[k]) == _shift_ref(x, cnt, bits, lt.kind == "i", ">>"), (x, cnt)


@pytest.mark.parametrize("dt", INTS)
def test_bitwise_and_unary(dt):
    a = rand(dt, seed=6)
    b = rand(dt, seed=7)
    ct = c_type(dt, dt)
    outs = elementwise("out0 = in0 & in1; out1 = in0 | in1; out2 = in0 ^ in1; out3 = ~in0;"
                       " out4 = -in0; out5 = !in0; out6 = +in0", [a, b],
                       [ct, ct, ct, ct, ct, bool, ct])
    x, y = a.astype(ct), b.astype(ct)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for got, want in zip(outs, [x & y, x | y, x ^ y, ~x, -x, a == 0, x]):
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
def test_float_ops(dt):
    a = rand(dt, seed=8)
    b = rand(dt, seed=9)
    b[::7] = 0
    a[::11] = np.nan
    ct = c_type(dt, dt)
    outs = elementwise("out0 = in0 / in1; out1 = -in0; out2 = in0 <= in1; out3 = !in0;"
                       " out4 = in0 > in1 ? in0 : in1; out5 = in0 >= in1", [a, b],
                       [ct, ct, bool, bool, ct, bool])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x, y = a.astype(ct), b.astype(ct)
        np.testing.assert_array_equal(outs[0], x / y)
        np.testing.assert_array_equal(outs[1], -x)
        np.testing.assert_array_equal(outs[2], x <= y)
        np.testing.assert_array_equal(outs[3], a == 0)
        np.testing.assert_array_equal(outs[4], np.where(x > y, x, y))
        np.testing.assert_array_equal(outs[5], x >= y)


def test_float16_rounds_on_assignment():
    a = rand(np.float16, seed=10)
    b = rand(np.float16, seed=11)
    # 'half h = a * b' rounds the float product to half; the body then adds in float
    out = elementwise("half h = in0 * in1; out0 = h + in0", [a, b], [np.float32])
    h = (a.astype(np.float32) * b.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(out, h.astype(np.float32) + a.astype(np.float32))
    # half op half into a half output: computed in float, rounded once (NumPy does the same)
    out = elementwise("out0 = in0 * in1 + in0", [a, b], [np.float16])
    ref = (a.astype(np.float32) * b.astype(np.float32) + a.astype(np.float32))
    np.testing.assert_array_equal(out, ref.astype(np.float16))
    out = elementwise("half h = in0; h += in1; h *= 2; out0 = h", [a, b], [np.float16])
    np.testing.assert_array_equal(out, ((a + b) * np.float16(2)))
    out = elementwise("half h = in0; h++; out0 = h", [a], [np.float16])
    np.testing.assert_array_equal(out, a + np.float16(1))


def test_double_to_half_rounds_once():
    # values just above a half-way point between two halves: rounding through float would
    # land exactly on the tie and round to even (down); correct rounding goes up
    base = np.array([1.0, 2.0, 1000.0, 0.0001, -3.0, 60000.0], np.float64)
    ulp = np.spacing(base.astype(np.float16)).astype(np.float64)
    vals = np.concatenate([base + ulp / 2 + ulp * 2.0**-30, base + ulp / 2, base - ulp / 2,
                           rand(np.float64, seed=12) * 1000,
                           [65519.0, 65520.0, 1e6, -1e6, 1e-9, 6e-8, np.inf, -np.inf, 0.0,
                            -0.0]])
    out = elementwise("out0 = in0", [vals], [np.float16])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(out, vals.astype(np.float16))
    out = elementwise("out0 = (half)in0", [np.array([np.nan])], [np.float16])
    assert np.isnan(out[0])


@pytest.mark.parametrize("src", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("dst", INTS + [np.bool_])
def test_float_to_int_in_range(src, dst):
    a = rand(src, seed=13)
    if np.dtype(dst).kind == "u":
        a = np.abs(a)
    out = elementwise("out0 = (T)in0", [a], [dst], typedefs={"T": dst})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = a.astype(dst) if dst is not np.bool_ else a != 0
    np.testing.assert_array_equal(out, want)


def test_float_to_int_out_of_range_is_defined():
    a = np.array([np.nan, np.inf, -np.inf, 1e30, -1e30, 200.0, -1.0, 300.5], np.float64)
    i64 = elementwise("out0 = in0", [a], [np.int64])
    np.testing.assert_array_equal(i64[:5], [0, 2**63 - 1, -2**63, 2**63 - 1, -2**63])
    i8 = elementwise("out0 = in0", [a], [np.int8])
    np.testing.assert_array_equal(i8[5:], [-56, -1, 44])      # through int64, then wrap
    u8 = elementwise("out0 = in0", [a], [np.uint8])
    np.testing.assert_array_equal(u8[5:], [200, 255, 44])
    u64 = elementwise("out0 = in0", [a], [np.uint64])
    assert int(u64[0]) == 0 and int(u64[3]) == 2**64 - 1 and int(u64[6]) == 0


# float -> integer conversions have their own tests above
@pytest.mark.parametrize("src,dst", [
    (s, d) for s in REAL for d in REAL + [np.complex64, np.complex128]
    if not (np.dtype(s).kind == "f" and np.dtype(d).kind in "iub")])
def test_conversions(src, dst):
    a = rand(src, seed=14)
    out = elementwise("out0 = in0", [a], [dst])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = a.astype(dst)
    np.testing.assert_array_equal(out, want)


def test_casts_and_literals():
    a = np.array([3.7, -3.7, 0.5], np.float64)
    outs = elementwise("out0 = (int)in0; out1 = int(in0); out2 = static_cast<int>(in0);"
                       " out3 = (unsigned char)(int)in0; out4 = float(in0) * 2.f;"
                       " out5 = 0x10 + 010 + 1u + 2l + 3ll + 4ul + 5ULL + 'A';"
                       " out6 = .5 + 1.f + 1e1 + 2.5e-1f + true + false",
                       [a], [np.int32, np.int32, np.int32, np.uint8, np.float32, np.int64,
                             np.float64])
    np.testing.assert_array_equal(outs[0], [3, -3, 0])
    np.testing.assert_array_equal(outs[1], [3, -3, 0])
    np.testing.assert_array_equal(outs[2], [3, -3, 0])
    np.testing.assert_array_equal(outs[3], [3, 253, 0])
    np.testing.assert_array_equal(outs[4], (a.astype(np.float32) * 2))
    np.testing.assert_array_equal(outs[5], [16 + 8 + 1 + 2 + 3 + 4 + 5 + 65] * 3)
    np.testing.assert_array_equal(outs[6], [0.5 + 1 + 10 + 0.25 + 1] * 3)
    # literal types: 2147483648 is long, 0xFFFFFFFF is unsigned int, -1 < 0u is false
    outs = elementwise("out0 = 2147483648 + 0; out1 = 0xFFFFFFFF + 1; out2 = -1 < 0u;"
                       " out3 = sizeof(double) + sizeof(in0) + sizeof(complex<float>)",
                       [a], [np.int64, np.int64, bool, np.int64])
    np.testing.assert_array_equal(outs[0], [2147483648] * 3)
    np.testing.assert_array_equal(outs[1], [0] * 3)
    np.testing.assert_array_equal(outs[2], [False] * 3)
    np.testing.assert_array_equal(outs[3], [24] * 3)


def test_named_constants():
    a = np.ones(2, np.float64)
    outs = elementwise("out0 = M_PI; out1 = M_E; out2 = INFINITY; out3 = NAN;"
                       " out4 = CUDART_INF; out5 = INT_MAX; out6 = FLT_MAX; out7 = -HUGE_VAL",
                       [a], [np.float64] * 8)
    assert outs[0][0] == np.pi and outs[1][0] == np.e and outs[2][0] == np.inf
    assert np.isnan(outs[3][0]) and outs[4][0] == np.inf and outs[5][0] == 2**31 - 1
    assert outs[6][0] == np.finfo(np.float32).max and outs[7][0] == -np.inf


def test_increments_and_compound_assignment():
    a = rand(np.int32, seed=15, small=True)
    outs = elementwise("int x = in0; int p = x++; int q = ++x; int r = x--; int s = --x;"
                       " out0 = p + q * 3 + r * 5 + s * 7;"
                       " int y = in0; y += 3; y -= 1; y *= 5; y /= 2; y %= 7; y <<= 2; y >>= 1;"
                       " y &= 0xff; y |= 0x100; y ^= 0x11; out1 = y;"
                       " int z; out2 = (z = in0) + (z += 1)", [a], [np.int32, np.int32, np.int32])
    x = a.astype(np.int64)
    np.testing.assert_array_equal(outs[0], x + (x + 2) * 3 + (x + 2) * 5 + x * 7)
    y = x + 3 - 1
    y = y * 5
    y = np.trunc(y / 2).astype(np.int64)
    y = np.fmod(y, 7)
    y = (y << 2) >> 1
    y = ((y & 0xFF) | 0x100) ^ 0x11
    np.testing.assert_array_equal(outs[1], y)
    np.testing.assert_array_equal(outs[2], 2 * x + 1)


def test_bool_semantics():
    a = np.array([True, False, True, False])
    b = np.array([True, True, False, False])
    outs = elementwise("out0 = in0 + in1; out1 = in0 && in1; out2 = in0 || in1; out3 = -in0;"
                       " out4 = in0 & in1; bool t = 5; out5 = t; out6 = 0.25; out7 = in0 ^ true",
                       [a, b], [np.int32, bool, bool, np.int32, np.int32, bool, bool, np.int32])
    np.testing.assert_array_equal(outs[0], [2, 1, 1, 0])
    np.testing.assert_array_equal(outs[1], a & b)
    np.testing.assert_array_equal(outs[2], a | b)
    np.testing.assert_array_equal(outs[3], [-1, 0, -1, 0])
    np.testing.assert_array_equal(outs[4], (a & b).astype(int))
    np.testing.assert_array_equal(outs[5], [True] * 4)
    np.testing.assert_array_equal(outs[6], [True] * 4)
    np.testing.assert_array_equal(outs[7], [0, 1, 0, 1])


def test_nan_comparisons():
    a = np.array([np.nan, 1.0, np.nan], np.float32)
    b = np.array([1.0, np.nan, np.nan], np.float32)
    outs = elementwise("out0 = in0 == in1; out1 = in0 != in1; out2 = in0 < in1;"
                       " out3 = in0 >= in1; out4 = in0 ? 1 : 2", [a, b],
                       [bool, bool, bool, bool, np.int32])
    np.testing.assert_array_equal(outs[0], [False] * 3)
    np.testing.assert_array_equal(outs[1], [True] * 3)
    np.testing.assert_array_equal(outs[2], [False] * 3)
    np.testing.assert_array_equal(outs[3], [False] * 3)
    np.testing.assert_array_equal(outs[4], [1, 1, 1])   # NaN is true, as in C
