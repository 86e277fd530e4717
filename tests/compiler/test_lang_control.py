"""Statements, raw parameters, preamble functions, templates, typedefs and macros."""

import numpy as np

import pytest

try:  # tests/compiler may or may not be a package
    from ._lang_target import GRID_TARGET, TARGET, elementwise, run
except ImportError:
    from _lang_target import GRID_TARGET, TARGET, elementwise, run

rng = np.random.default_rng(42)


def test_cupy_style_kernels():
    x = rng.normal(size=50).astype(np.float32)
    y = rng.normal(size=50).astype(np.float32)
    z = np.zeros(50, np.float32)
    run("T diff = x - y; z = diff * diff", [("x", np.float32, "in"), ("y", np.float32, "in"),
                                           ("z", np.float32, "out")], [x, y, z],
        typedefs={"T": np.float32})
    np.testing.assert_array_equal(z, (x - y) * (x - y))
    # index and size
    i_out = np.zeros(50, np.int64)
    run("out0 = i * 1000 + _ind.size()", [("out0", np.int64, "out")], [i_out])
    np.testing.assert_array_equal(i_out, np.arange(50) * 1000 + 50)
    # inout
    acc = rng.normal(size=50)
    before = acc.copy()
    run("acc += x * 2; acc = acc - 1", [("x", np.float32, "in"), ("acc", np.float64, "inout")],
        [x, acc])
    np.testing.assert_allclose(acc, before + x.astype(np.float64) * 2 - 1, rtol=1e-15)


def test_if_else_loops():
    a = rng.integers(-50, 50, 64).astype(np.int32)
    body = """
    int s = 0;
    for (int k = 0; k < 10; ++k) {
        if (k == 3) continue;
        if (k > in0 % 10 + 5) break;
        s += k;
    }
    int w = 0, j = abs(in0);
    while (j > 0) { w += j & 1; j >>= 1; }
    int d = 0;
    do { d++; } while (d < 3 && in0 > 0);
    if (in0 < 0) out0 = -1; else if (in0 == 0) out0 = 0; else { out0 = 1; }
    out1 = s; out2 = w; out3 = d;
    for (;;) { break; }
    for (int p = 0, q = 10; p < q; p++, q--) out3 += 100;
    """
    outs = elementwise(body, [a], [np.int32] * 4)
    for k, v in enumerate(a):
        v = int(v)
        s = 0
        lim = int(np.fmod(v, 10)) + 5
        for kk in range(10):
            if kk == 3:
                continue
            if kk > lim:
                break
            s += kk
        d = 3 if v > 0 else 1
        assert outs[0][k] == np.sign(v)
        assert outs[1][k] == s
        assert outs[2][k] == bin(abs(v)).count("1")
        assert outs[3][k] == d + 500


def test_short_circuit_and_ternary_do_not_evaluate_the_other_side():
    x = rng.normal(size=8)
    out = np.zeros(8)
    cnt = np.zeros(8, np.int32)
    # x[k] with k huge would fault: && and ?: must not evaluate it
    run("long long k = 1LL << 40; out = (i < 0 && x[k] > 0) ? x[k] : x[i];"
        " out += (i >= 0 || x[k] > 0) ? 1 : x[k];"
        " int c = 0; bool t = (c++ > 0) && (c++ > 0); cnt = c + t",
        [("x", np.float64, "raw"), ("out", np.float64, "out"), ("cnt", np.int32, "out")],
        [x, out, cnt])
    np.testing.assert_array_equal(out, x + 1)
    np.testing.assert_array_equal(cnt, 1)


def test_switch():
    a = np.arange(-2, 8, dtype=np.int32)
    body = """
    switch (in0) {
        case 0: out0 = 10; break;
        case 1:
        case 2: out0 = 20;   // falls through
        case 3: out0 += 1; break;
        case -1: { int t = 5; out0 = t; } break;
        default: out0 = 99;
    }
    """
    out = elementwise(body, [a], [np.int32])
    np.testing.assert_array_equal(out, [99, 5, 10, 21, 21, 1, 99, 99, 99, 99])


def test_local_arrays():
    a = rng.integers(0, 4, 32).astype(np.int32)
    body = """
    const float table[4] = {1.5f, 2.5f, 3.5f, 4.5f};
    int hist[3];
    for (int k = 0; k < 3; k++) hist[k] = k * in0;
    double acc[] = {0, 1};
    acc[1] += table[in0];
    out0 = table[in0] + hist[2] + acc[1];
    """
    out = elementwise(body, [a], [np.float64])
    np.testing.assert_array_equal(out, np.array([1.5, 2.5, 3.5, 4.5])[a] + 2 * a + 1 +
                                  np.array([1.5, 2.5, 3.5, 4.5])[a])


def test_large_local_arrays_start_zeroed():
    """Arrays past ``ZERO_STORE_MOST`` elements are zeroed by a loop (each time their
    declaration runs, as smaller ones are by one store): every element reads 0 until
    written."""
    from rocarray.compiler.lang.statements import ZERO_STORE_MOST
    a = rng.integers(0, 4, 40).astype(np.int32)
    body = f"""
    int big[{4 * ZERO_STORE_MOST}];
    bool flags[{ZERO_STORE_MOST + 1}];
    double acc = 0;
    for (int r = 0; r < 3; r++) {{
        long again[{2 * ZERO_STORE_MOST}];
        acc += again[in0] + again[{2 * ZERO_STORE_MOST - 1}];
        again[in0] = 5;
    }}
    big[in0 * 3] += in0 + 1;
    flags[in0] = true;
    out0 = acc + big[in0 * 3] + big[{4 * ZERO_STORE_MOST - 1}] + (flags[in0] ? 10 : 0) + (flags[{ZERO_STORE_MOST}] ? 100 : 0);
    """
    out = elementwise(body, [a], [np.float64])
    np.testing.assert_array_equal(out, a + 1 + 10)


def test_raw_indexing_nd_and_strides():
    base = rng.normal(size=(4, 5, 6))
    for x in (base, base.transpose(2, 0, 1), base[::2, ::-1, 1::2], base[1, :, 2],
              base[..., ::-1].T[::3]):
        n = x.size
        out = np.zeros(n)
        run("out = x[n - 1 - i] * 2 + x.size() * 0", [("x", np.float64, "raw"),
                                                       ("out", np.float64, "out"),
                                                       ("n", np.int64, "in")],
            [x, out, np.array(n, np.int64)], n=n)
        np.testing.assert_array_equal(out, x.ravel()[::-1] * 2)
    x = base.transpose(1, 0, 2)[:, ::2]
    meta = np.zeros(4, np.int64)
    run("if (i == 0) m = x.ndim + x.ndim() * 0; else if (i == 1) m = x.shape()[1]; "
        "else if (i == 2) m = x.strides()[2]; else m = x.size();",
        [("x", np.float64, "raw"), ("m", np.int64, "out")], [x, meta])
    np.testing.assert_array_equal(meta, [3, x.shape[1], x.strides[2], x.size])


@pytest.mark.parametrize("target", [TARGET, GRID_TARGET], ids=["host", "grid"])
@pytest.mark.parametrize("ndim", range(9))
def test_raw_offsets_of_every_rank(target, ndim):
    """A raw array of 0 to 8 dimensions (strided, reversed, transposed), read at random
    flat C-order indices, and its shape and strides at dimensions known at run time only:
    the host's lowering (the descriptor read in memory) and the GPUs' (read at constant
    places, the dimensions picked by selects), both run here against NumPy."""
    r = np.random.default_rng(ndim)
    base = np.asarray(r.normal(size=tuple(int(e) for e in r.integers(2, 6, ndim))))
    x = base[tuple(slice(None, None, -2) if d % 2 else slice(1, None, 2) for d in range(ndim))] if ndim else base
    if ndim > 2:
        x = x.swapaxes(0, ndim - 1)
    k = r.integers(0, x.size, 301)
    out = np.zeros(k.size)
    run("out = x[k]", [("x", np.float64, "raw"), ("k", np.int64, "in"), ("out", np.float64, "out")],
        [x, k, out], target=target)
    np.testing.assert_array_equal(out, x.reshape(-1)[k])
    if ndim:
        d = r.integers(0, ndim, 64)
        s, st = np.zeros(d.size, np.int64), np.zeros(d.size, np.int64)
        run("s = x.shape()[d]; st = x.strides()[d];", [("x", np.float64, "raw"), ("d", np.int64, "in"),
                                                      ("s", np.int64, "out"), ("st", np.int64, "out")],
            [x, d, s, st], target=target)
        np.testing.assert_array_equal(s, np.array(x.shape)[d])
        np.testing.assert_array_equal(st, np.array(x.strides)[d])


def test_raw_write_and_0d():
    y = np.zeros((3, 4), np.float32)[:, ::-1]
    src = np.arange(12, dtype=np.float32)
    run("y[i] = v + 1", [("v", np.float32, "in"), ("y", np.float32, "raw")], [src, y])
    np.testing.assert_array_equal(y.ravel(), src + 1)
    s = np.array(7.5)
    out = np.zeros(3)
    run("o = s[0] + i", [("s", np.float64, "raw"), ("o", np.float64, "out")], [s, out])
    np.testing.assert_array_equal(out, [7.5, 8.5, 9.5])
    b = np.array([True, False, True])
    out = np.zeros(3, np.int32)
    run("o = b[2 - i] ? 1 : 2; ", [("b", np.bool_, "raw"), ("o", np.int32, "out")], [b, out])
    np.testing.assert_array_equal(out, [1, 2, 1])


def test_reduction_style_loop_over_raw():
    x = rng.normal(size=(10, 7))
    out = np.zeros(10)
    run("double s = 0; for (ptrdiff_t k = 0; k < 7; k++) s += x[i * 7 + k]; out = s",
        [("x", np.float64, "raw"), ("out", np.float64, "out")], [x, out])
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-14)


def test_preamble_functions_and_overloads():
    pre = """
    #include <cupy/complex.cuh>
    __device__ __forceinline__ float sq(float v) { return v * v; }
    static inline __host__ __device__ double sq(double v) { return v * v * 1.0; }
    __device__ int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
    __device__ void bump(float& v, int k) { v += k; }
    __device__ const float K = 3.0f, K2 = K * 2;
    __device__ bool positive(double v) { if (v > 0) return true; return false; }
    __device__ int fallthrough(int v) { if (v > 0) return 1; }
    """
    x = rng.normal(size=20).astype(np.float32)
    outs = elementwise("float t = in0; bump(t, 2); out0 = sq(in0) + K2; out1 = sq((double)in0);"
                       " out2 = clampi((int)(in0 * 10), -5, 5); out3 = t; out4 = positive(in0);"
                       " out5 = fallthrough(-1) + fallthrough(3)",
                       [x], [np.float32, np.float64, np.int32, np.float32, bool, np.int32],
                       preamble=pre)
    # x * x + 6 contracts to one fma on a GPU target (not on the host): within an ulp
    np.testing.assert_allclose(outs[0], x * x + np.float32(6), rtol=2e-7)
    np.testing.assert_array_equal(outs[1], x.astype(np.float64) ** 2)
    np.testing.assert_array_equal(outs[2], np.clip((x * 10).astype(np.int32), -5, 5))
    np.testing.assert_array_equal(outs[3], x + 2)
    np.testing.assert_array_equal(outs[4], x > 0)
    np.testing.assert_array_equal(outs[5], 1)


def test_templates():
    pre = """
    template <typename T> __device__ T twice(T v) { return v + v; }
    template <typename T, typename U> __device__ U conv_add(T a, U b) { return (U)a + b; }
    template <class T> T cube(const T& v) { T r = v; r *= v; return r * v; }
    template <typename T> complex<T> rot(complex<T> z) { return complex<T>(-imag(z), real(z)); }
    template <typename T> T pick(T a, T b) { return a > b ? a : b; }
    """
    a = rng.integers(-100, 100, 16).astype(np.int16)
    x = rng.normal(size=16)
    z = (rng.normal(size=16) + 1j * rng.normal(size=16)).astype(np.complex64)
    outs = elementwise("out0 = twice(in0); out1 = twice(in1); out2 = conv_add(in0, in1);"
                       " out3 = cube(in1); out4 = rot(in2); out5 = twice<float>(in1);"
                       " out6 = pick<double>(in0, in1)",
                       [a, x, z], [np.int16, np.float64, np.float64, np.float64, np.complex64,
                                   np.float64, np.float64], preamble=pre)
    np.testing.assert_array_equal(outs[0], a + a)
    np.testing.assert_array_equal(outs[1], x + x)
    np.testing.assert_array_equal(outs[2], a + x)
    np.testing.assert_array_equal(outs[3], x * x * x)
    np.testing.assert_array_equal(outs[4], z * 1j)
    np.testing.assert_array_equal(outs[5], (x.astype(np.float32) * 2).astype(np.float64))
    np.testing.assert_array_equal(outs[6], np.maximum(a, x))


def test_typedefs_and_placeholders():
    for dt in (np.int8, np.float32, np.complex128):
        a = (rng.normal(size=10) * 10).astype(dt)
        out = elementwise("in0_type t = in0; out0_type u = (out0_type)t * (T)2; out0 = u",
                          [a], [dt], typedefs={"in0_type": dt, "out0_type": dt, "T": dt})
        np.testing.assert_array_equal(out, a * dt(2))
    pre = "typedef double real_t; using idx_t = long long;"
    out = elementwise("real_t r = in0; idx_t k = 3; typedef float f32; f32 h = r; out0 = h + k",
                      [np.array([1.25, 2.5])], [np.float64], preamble=pre)
    np.testing.assert_array_equal(out, [4.25, 5.5])


def test_macros():
    pre = """
    #define SCALE 3
    #define SQ(v) ((v) * (v))
    #define ADD(a, b) ((a) + (b))
    #ifndef GUARD
    #define GUARD 1
    #else
    #error never
    #endif
    #if 0
    this is not parsed
    #endif
    __device__ int f(int v) { return SQ(v + 1) * SCALE; }
    """
    a = np.arange(5, dtype=np.int32)
    out = elementwise("out0 = f(in0) + ADD(SQ(2), GUARD)", [a], [np.int32], preamble=pre)
    np.testing.assert_array_equal(out, (a + 1) ** 2 * 3 + 5)
    out = elementwise("#define TWICE(x) (2 * (x))\nout0 = TWICE(in0 + 1)", [a], [np.int32])
    np.testing.assert_array_equal(out, 2 * (a + 1))


def test_comments_scopes_and_auto():
    a = np.arange(4, dtype=np.float32)
    body = """
    // a comment
    auto t = in0 * 2;   /* float */
    { float t = 100; out1 = t; }
    /* multi
       line */ out0 = t + sizeof(t);
    const double c = 2;
    auto w = c + 1.0f;
    out2 = sizeof(w);
    """
    outs = elementwise(body, [a], [np.float32, np.float32, np.int32])
    np.testing.assert_array_equal(outs[0], a * 2 + 4)
    np.testing.assert_array_equal(outs[1], 100)
    np.testing.assert_array_equal(outs[2], 8)


def test_return_in_body_ends_the_element():
    a = np.arange(-3, 3, dtype=np.int32)
    out = elementwise("out0 = 1; if (in0 < 0) return; out0 = 2;", [a], [np.int32])
    np.testing.assert_array_equal(out, [1, 1, 1, 2, 2, 2])


def test_body_without_final_semicolon_and_empty_body():
    a = np.arange(3, dtype=np.int32)
    np.testing.assert_array_equal(elementwise("out0 = in0 * 3", [a], [np.int32]), a * 3)
    np.testing.assert_array_equal(elementwise("", [a], [np.int32]), 0)
    np.testing.assert_array_equal(elementwise(";;", [a], [np.int32]), 0)


def test_unoptimised_ir_is_valid_too():
    a = rng.normal(size=8)
    out = elementwise("out0 = in0 > 0 ? sqrt(in0) : exp(in0)", [a], [np.float64], opt=0)
    np.testing.assert_allclose(out, np.where(a > 0, np.sqrt(np.abs(a)), np.exp(a)))


def test_preamble_sees_kernel_typedefs_as_cupy():
    # CuPy emits 'typedef float T;' before the preamble, so preamble functions may use T
    pre = "__device__ T scaled(T v) { return v * (T)3; }"
    for dt in (np.int32, np.float64):
        a = np.arange(5).astype(dt)
        out = elementwise("out0 = scaled(in0)", [a], [dt], preamble=pre, typedefs={"T": dt})
        np.testing.assert_array_equal(out, a * 3)


def test_reduction_style_bodies():
    # how a ReductionKernel's reduce_expr 'a + b' and post_map 'y = sqrt(a)' compile
    a = np.arange(6, dtype=np.float32)
    b = np.ones(6, np.float32)
    run("a = (_type_reduce)(a + b)", [("a", np.float32, "inout"), ("b", np.float32, "in")],
        [a, b], typedefs={"_type_reduce": np.float32})
    np.testing.assert_array_equal(a, np.arange(6) + 1)
    y = np.zeros(6)
    run("y = sqrt(a)", [("a", np.float32, "in"), ("y", np.float64, "out")], [a, y])
    np.testing.assert_allclose(y, np.sqrt(a.astype(np.float32)), rtol=1e-7)


def test_body_wrapped_in_braces_may_omit_the_last_semicolon():
    a = np.arange(3, dtype=np.int32)
    out = elementwise("int t = in0;\n{\nout0 = t + 1\n}\n", [a], [np.int32])
    np.testing.assert_array_equal(out, a + 1)
    out = elementwise("for (int k = 0; k < 2; k++) out0 += k", [a], [np.int32])
    np.testing.assert_array_equal(out, 1)
