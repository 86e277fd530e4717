"""rocarray.ElementwiseKernel: CuPy's user-kernel API, compared with NumPy on every device."""

import numpy as np
import pytest

import rocarray as ra
from rocarray import cache
from rocarray.compiler.cache import drain_background
from rocarray.compiler.lang import KernelNameError, KernelSyntaxError
from conftest import ALL_DTYPES, NUMERIC_DTYPES, random_array


def _compiles():
    drain_background()  # (a first call the interpreter ran compiles in the background)
    i = cache.info()
    return i["compiled"] + i["disk_hits"]


def _wide(a):
    """NumPy reference arithmetic in a wide type (C promotes small integers to int)."""
    if a.dtype.kind in "biu":
        return a.astype(np.int64)
    return a


def _close(got, want, dtype):
    dtype = np.dtype(dtype)
    assert got.dtype == dtype
    if dtype.kind in "fc":
        tol = {2: 2e-3, 4: 1e-6, 8: 1e-13}[dtype.itemsize if dtype.kind == "f" else dtype.itemsize // 2]
        np.testing.assert_allclose(got, want.astype(dtype), rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, want.astype(dtype))


SQUARED_DIFF = ra.ElementwiseKernel("float32 x, float32 y", "float32 z",
                                    "z = (x - y) * (x - y)", "squared_diff")
SQUARED_DIFF_GENERIC = ra.ElementwiseKernel("T x, T y", "T z",
                                            "T diff = x - y;\nz = diff * diff;",
                                            "squared_diff_generic")


def test_squared_diff_doc_example(device):
    x = ra.reshape(ra.arange(10, dtype=ra.float32, device=device), (2, 5))
    y = ra.arange(5, dtype=ra.float32, device=device)
    np.testing.assert_array_equal(SQUARED_DIFF(x, y).get(),
                                  [[0, 0, 0, 0, 0], [25, 25, 25, 25, 25]])
    np.testing.assert_array_equal(SQUARED_DIFF(x, 5).get(),
                                  [[25, 16, 9, 4, 1], [0, 1, 4, 9, 16]])
    z = ra.empty((2, 5), dtype=ra.float32, device=device)
    r = SQUARED_DIFF(x, y, z)
    assert r is z
    np.testing.assert_array_equal(z.get(), [[0, 0, 0, 0, 0], [25, 25, 25, 25, 25]])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_type_placeholder_kernel_all_dtypes(device, dtype):
    rng = np.random.default_rng(1)
    a = random_array((3, 17), dtype, rng)
    b = random_array((17,), dtype, rng)
    got = SQUARED_DIFF_GENERIC(ra.asarray(a, device=device), ra.asarray(b, device=device))
    d = _wide(a) - _wide(b)
    _close(got.get(), d * d, dtype)


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=str)
def test_python_scalar_takes_the_placeholder_type(device, dtype):
    a = random_array((40,), dtype, np.random.default_rng(2))
    got = SQUARED_DIFF_GENERIC(ra.asarray(a, device=device), 3)
    assert got.dtype == dtype  # the scalar never binds T: T is the array's dtype
    d = _wide(a) - 3
    _close(got.get(), d * d, dtype)


_SPLIT = ra.ElementwiseKernel("T x, T s", "T lo, T hi", "lo = x - s; hi = x + s", "split_pm")


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "complex64"], ids=str)
def test_plan_for_and_launch_flat(device, dtype):
    """``plan_for`` resolves what a call of those argument kinds would, and
    ``launch_flat`` writes outputs the caller made (here two halves of one buffer, as
    ``rocarray.random`` does) as a call writes separate ones; a scalar out of the
    parameter's range is the call's OverflowError."""
    a = random_array((1001,), dtype, np.random.default_rng(4))
    x = ra.asarray(a, device=device)
    want_lo, want_hi = _SPLIT(x, 3)
    plan = _SPLIT.plan_for((np.dtype(dtype), int), (dtype, dtype), x.device)
    assert plan is _SPLIT.plan_for((dtype, int), (np.dtype(dtype),) * 2, x.device)
    buf = ra.empty(2 * a.size, dtype=dtype, device=device)
    step = a.size * buf.dtype.itemsize
    plan.launch_flat(a.size, (x, 3), [buf.data_ptr, buf.data_ptr + step])
    got = buf.get()
    np.testing.assert_array_equal(got[:a.size], want_lo.get())
    np.testing.assert_array_equal(got[a.size:], want_hi.get())
    if np.dtype(dtype).kind == "i":
        with pytest.raises(OverflowError, match="split_pm: Python integer .* out of bounds"):
            plan.launch_flat(a.size, (x, 2**40), [buf.data_ptr, buf.data_ptr + step])


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=str)
def test_python_scalar_on_the_warm_path(device, dtype):
    """Repeated calls with an array and a changing Python scalar (the warm path writes the
    scalar into the launch's parameter area); an out-of-range integer is an error there
    too, with the kernel's name."""
    a = random_array((3000,), dtype, np.random.default_rng(3))
    x = ra.asarray(a, device=device)
    for s in (3, 5, -2, 11):
        if np.dtype(dtype).kind == "u" and s < 0:
            continue
        d = _wide(a) - s
        _close(SQUARED_DIFF_GENERIC(x, s).get(), d * d, dtype)
    if np.dtype(dtype).kind in "iu":
        for _ in range(2):
            with pytest.raises(OverflowError, match=f"squared_diff_generic: Python integer .* out of bounds"):
                SQUARED_DIFF_GENERIC(x, int(np.iinfo(dtype).max) + 1)


def test_zero_d_array_binds_and_broadcasts(device):
    x = ra.asarray(np.arange(6, dtype=np.float64).reshape(2, 3), device=device)
    s = ra.asarray(np.float64(1.5), device=device)
    np.testing.assert_array_equal(SQUARED_DIFF_GENERIC(x, s).get(),
                                  (np.arange(6).reshape(2, 3) - 1.5) ** 2)
    with pytest.raises(TypeError, match="placeholder 'T' is bound to both float64"):
        SQUARED_DIFF_GENERIC(x, ra.asarray(np.float32(1.5), device=device))


def test_scalar_conversion_follows_numpy_assignment(device):
    x = ra.asarray(np.arange(4, dtype=np.int8), device=device)
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        SQUARED_DIFF_GENERIC(x, 300)
    with pytest.raises(TypeError, match="complex scalar"):
        SQUARED_DIFF_GENERIC(x, 1j)
    k = ra.ElementwiseKernel("T x, float32 a", "T z", "z = x * a", "scale")
    np.testing.assert_array_equal(k(x, 2.5).get(), (np.arange(4) * 2.5).astype(np.int8))
    # a float past the parameter's range converts to infinity, as np.float32(1e300) does
    f = ra.ElementwiseKernel("float32 x, float32 a, float16 h", "float32 z", "z = x + a + h", "add2")
    y = ra.asarray(np.arange(4, dtype=np.float32), device=device)
    for _ in range(2):  # the first call, then the warm path
        np.testing.assert_array_equal(f(y, 1e300, 1.0).get(), np.full(4, np.inf, np.float32))
        np.testing.assert_array_equal(f(y, 0.0, -70000.0).get(), np.full(4, -np.inf, np.float32))


def test_scalars_alone_bind_nothing(device):
    k = ra.ElementwiseKernel("T x, U a", "T z", "z = x + a", "scalar_only_u")
    x = ra.ones(3, dtype=ra.float32, device=device)
    with pytest.raises(TypeError, match="placeholder 'U' of input 'a' is bound by no array"):
        k(x, 2.0)
    np.testing.assert_array_equal(k(x, ra.asarray(np.int16(2), device=device)).get(), [3, 3, 3])


def test_output_only_placeholder(device):
    k = ra.ElementwiseKernel("X x, Y y", "Z z", "z = (x - y) * (x - y)", "squared_diff_super_generic")
    x = ra.asarray(np.arange(10, dtype=np.float32).reshape(2, 5), device=device)
    y = ra.asarray(np.arange(5, dtype=np.float64), device=device)
    with pytest.raises(TypeError, match="placeholder 'Z' of output 'z' cannot be determined"):
        k(x, y)
    z = ra.empty((2, 5), dtype=ra.int16, device=device)
    k(x, y, z)
    np.testing.assert_array_equal(z.get(), ((np.arange(10).reshape(2, 5) - np.arange(5)) ** 2).astype(np.int16))


def test_placeholder_bound_by_output_first(device):
    x = ra.ones(4, dtype=ra.float32, device=device)
    z = ra.empty(4, dtype=ra.float64, device=device)
    with pytest.raises(TypeError, match=r"'T' is bound to both float64 \(by 'z'\) and float32 \(by 'x'\)"):
        SQUARED_DIFF_GENERIC(x, x, z)


def test_fixed_type_needs_that_dtype(device):
    x = ra.ones(4, dtype=ra.float64, device=device)
    with pytest.raises(TypeError, match="input 'x' is declared float32 but the array passed for it is float64"):
        SQUARED_DIFF(x, x)
    z = ra.empty(4, dtype=ra.float64, device=device)
    with pytest.raises(TypeError, match="output 'z' is declared float32"):
        SQUARED_DIFF(x.astype(ra.float32), x.astype(ra.float32), z)


def test_output_checks(device):
    x = ra.ones((2, 3), dtype=ra.float32, device=device)
    with pytest.raises(ValueError, match=r"output 'z' has shape \(3,\) but the arguments broadcast to \(2, 3\)"):
        SQUARED_DIFF(x, x, ra.empty(3, dtype=ra.float32, device=device))
    with pytest.raises(TypeError, match="output 'z' must be a rocarray array"):
        SQUARED_DIFF(x, x, np.empty((2, 3), np.float32))
    with pytest.raises(TypeError, match="convert NumPy arrays with rocarray.asarray"):
        SQUARED_DIFF(np.ones(3, np.float32), x)


def test_devices_are_not_mixed():
    devs = ra.available_devices()
    if len(devs) < 2:
        pytest.skip("needs a GPU (CUDA or ROCm) beside the CPU to mix devices")
    a = ra.ones(3, dtype=ra.float32, device=devs[0])
    b = ra.ones(3, dtype=ra.float32, device=devs[1])
    with pytest.raises(TypeError, match="cannot mix devices"):
        SQUARED_DIFF(a, b)
    with pytest.raises(TypeError, match="output 'z' is on"):
        SQUARED_DIFF(a, a, ra.empty(3, dtype=ra.float32, device=devs[1]))


def test_wrong_number_of_arguments(device):
    x = ra.ones(3, dtype=ra.float32, device=device)
    with pytest.raises(TypeError, match=r"kernel 'squared_diff' takes 2 input argument\(s\) or 3 with its 1 output\(s\), got 1"):
        SQUARED_DIFF(x)
    with pytest.raises(TypeError, match="got 4"):
        SQUARED_DIFF(x, x, x, x)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_raw_reverse(device, dtype):
    add_reverse = ra.ElementwiseKernel("T x, raw T y", "T z", "z = x + y[_ind.size() - i - 1]",
                                       "add_reverse")
    rng = np.random.default_rng(3)
    a = random_array((25,), dtype, rng)
    b = random_array((5, 5), dtype, rng)
    got = add_reverse(ra.asarray(a, device=device), ra.asarray(b, device=device))
    want = _wide(a) + _wide(b).ravel()[::-1]
    _close(got.get(), want, dtype)


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=str)
def test_raw_stencil(device, dtype):
    # a 3-point Laplacian with its ends copied, over a strided (every other element) raw view
    k = ra.ElementwiseKernel(
        "raw T x", "T y",
        """
        long n = _ind.size();
        if (i == 0 || i == n - 1) y = x[i];
        else y = x[i - 1] - 2 * x[i] + x[i + 1];
        """, "laplace")
    a = random_array((64,), dtype, np.random.default_rng(4), low=-10, high=10)
    xs = ra.asarray(a, device=device)[::2]
    y = ra.empty(32, dtype=dtype, device=device)
    k(xs, y)
    h = _wide(a[::2])
    want = h.copy()
    want[1:-1] = h[:-2] - 2 * h[1:-1] + h[2:]
    _close(y.get(), want, dtype)


def test_raw_only_needs_size(device):
    k = ra.ElementwiseKernel("raw T x", "raw T y", "y[i] = x[x.size() - 1 - i] * 2", "rev2")
    x = ra.asarray(np.arange(12, dtype=np.int32).reshape(3, 4), device=device)
    y = ra.zeros(12, dtype=ra.int32, device=device)
    with pytest.raises(ValueError, match="loop size is undecided"):
        k(x, y)
    k(x, y, size=12)
    np.testing.assert_array_equal(y.get(), np.arange(12)[::-1] * 2)
    with pytest.raises(ValueError, match="loop size is undecided"):
        k(x)
    k_out = ra.ElementwiseKernel("T x", "raw T y", "y[i] = x", "raw_out")
    with pytest.raises(ValueError, match="size of raw output 'y' is undecided"):
        k_out(x)
    out = k(x, size=5)
    assert out.shape == (5,)
    np.testing.assert_array_equal(out.get(), np.arange(12)[::-1][:5] * 2)
    with pytest.raises(ValueError, match="size= can be given only when every array argument is raw"):
        SQUARED_DIFF_GENERIC(x, x, size=3)


def test_raw_metadata(device):
    k = ra.ElementwiseKernel("raw T x", "int64 nd, int64 s0, int64 st", "nd = x.ndim; s0 = x.shape()[0]; st = x.strides()[1];", "meta")
    x = ra.asarray(np.zeros((3, 4), np.float32), device=device)
    nd, s0, st = k(x, size=1)
    assert (nd.get()[0], s0.get()[0], st.get()[0]) == (2, 3, 4)


@pytest.mark.parametrize("ndim", range(9))
def test_raw_elements_and_dimensions_of_every_rank(device, ndim):
    """A raw array of 0 to 8 dimensions (a strided, reversed view), read at random flat
    C-order indices, and its shape and strides read at dimensions known only at run time;
    by every tier's code (on a GPU the compiled code picks dimensions by selects)."""
    rng = np.random.default_rng(ndim)
    shape = tuple(int(e) for e in rng.integers(1, 4, ndim))
    base = rng.standard_normal(tuple(2 * e for e in shape)).astype(np.float32)
    cut = tuple(slice(None, None, -2) if d % 2 else slice(None, None, 2) for d in range(ndim))
    view, x = base[cut], ra.asarray(base, device=device)[cut]
    k = rng.integers(0, view.size, 257)
    d = rng.integers(0, max(ndim, 1), 64)
    kd, dd = ra.asarray(k, device=device), ra.asarray(d, device=device)
    for interpret in (True, False):
        gather = ra.ElementwiseKernel("raw T x, int64 k", "T y", "y = x[k]", "raw_rank_gather",
                                      _interpret=interpret)
        dims = ra.ElementwiseKernel("raw T x, int64 d", "int64 s, int64 st",
                                    "s = x.shape()[d]; st = x.strides()[d];", "raw_rank_dims", _interpret=interpret)
        for call in range(18):  # the first tier's code, then (hot) the full tier's
            if call == 17:
                drain_background()
            np.testing.assert_array_equal(gather(x, kd).get(), view.reshape(-1)[k])
            s, st = dims(x, dd)
            if ndim:
                np.testing.assert_array_equal(s.get(), np.array(x.shape)[d])
                np.testing.assert_array_equal(st.get(), np.array(x.strides)[d])


@pytest.mark.parametrize("target_name", ["sm_90", "gfx942", "gfx1100"])
def test_raw_arrays_take_no_stack_on_gpus(target_name):
    """Compile-only: a kernel indexing a raw array (and reading its shape at a run-time
    dimension) keeps the array's descriptor in registers: no local memory (PTX), no
    private segment (AMDGPU), where every thread wrote the descriptor's 152 bytes there."""
    from rocarray._user_kernels import _user_spec
    from rocarray.targets import target_for

    target = target_for(target_name)
    f32, i64 = np.dtype(np.float32), np.dtype(np.int64)
    for body in ("y = x[j];", "y = x[j] + x.shape()[j % 3] + x.strides()[j % 2];"):
        spec = _user_spec("raw_stack", body, "", ("x", "j", "y"), ("raw", "in", "out"), (f32, i64, f32), {}, (),
                          False, False)
        module = spec.build_module(target)
        if target_name.startswith("sm_"):
            assert ".local" not in target.emit_ptx(module), body
        else:
            assert ".amdhsa_private_segment_fixed_size 0\n" in target.emit_assembly(module), body


def test_multiple_outputs_and_return_modes(device):
    src = "s = x + y; d = x - y;"
    x = ra.asarray(np.arange(6.0), device=device)
    k = ra.ElementwiseKernel("T x, T y", "T s, T d", src, "sumdiff")
    s, d = k(x, 1.0)
    np.testing.assert_array_equal(s.get(), np.arange(6.0) + 1)
    np.testing.assert_array_equal(d.get(), np.arange(6.0) - 1)
    one = ra.ElementwiseKernel("T x", "T y", "y = x + 1", "inc", return_tuple=True)
    (r,) = one(x)
    np.testing.assert_array_equal(r.get(), np.arange(6.0) + 1)
    inplace = ra.ElementwiseKernel("T x", "T y", "y += x", "acc", no_return=True)
    y = ra.ones(6, dtype=ra.float64, device=device)
    assert inplace(x, y) is None
    np.testing.assert_array_equal(y.get(), np.arange(6.0) + 1)


def test_preamble_functions_templates_and_macros(device):
    k = ra.ElementwiseKernel(
        "T x", "T y", "y = clamp_sq(x, (T)LIMIT)", "preamble_kernel",
        preamble="""
        #define LIMIT 50
        template <typename U>
        __device__ U clamp_sq(U v, U lim) {
            U s = v * v;
            return s > lim ? lim : s;
        }
        """)
    for dt in (np.int32, np.float32, np.float64):
        a = np.arange(-10, 10).astype(dt)
        got = k(ra.asarray(a, device=device)).get()
        np.testing.assert_array_equal(got, np.minimum(a * a, 50).astype(dt))


def test_broadcast_views_and_reduce_dims(device):
    rng = np.random.default_rng(5)
    a = random_array((4, 6, 5), np.float64, rng)
    b = random_array((6, 1), np.float64, rng)
    xa, xb = ra.asarray(a, device=device), ra.asarray(b, device=device)
    for kern in (SQUARED_DIFF_GENERIC,
                 ra.ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y)", "nodims",
                                      reduce_dims=False)):
        np.testing.assert_allclose(kern(xa, xb).get(), (a - b) ** 2)
        np.testing.assert_allclose(kern(xa[:, ::-2].T, xb[::2]).get(), (a[:, ::-2].T - b[::2]) ** 2)


def test_more_dims_than_a_kernel_takes(device):
    shape = (2, 1, 2, 3, 2, 2, 1, 2, 2, 3)
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    x = ra.asarray(a, device=device)
    view = x[:, :, :, ::2, :, ::-1, :, ::-1, :, ::2]
    k = ra.ElementwiseKernel("T x", "T y, int64 j", "y = x * 2; j = i;", "manydims")
    y, j = k(view)
    want = a[:, :, :, ::2, :, ::-1, :, ::-1, :, ::2]
    np.testing.assert_array_equal(y.get(), want * 2)
    np.testing.assert_array_equal(j.get().ravel(), np.arange(want.size))


def test_input_overlapping_output_reads_a_copy(device):
    x = ra.asarray(np.arange(8.0), device=device)
    shift = ra.ElementwiseKernel("T a", "T b", "b = a", "move")
    shift(x[:-1], x[1:])
    np.testing.assert_array_equal(x.get(), [0, 0, 1, 2, 3, 4, 5, 6])


def test_outputs_given_as_slices_of_one_buffer(device):
    # scalar inputs only, each output a contiguous slice (with an offset) of one buffer: one
    # contiguous run; and array inputs with an output slice of another buffer
    k = ra.ElementwiseKernel("T a, T b", "T lo, T hi", "lo = a * (T)i; hi = b - (T)i", "slices")
    buf = ra.zeros(25, dtype=ra.float32, device=device)
    k(np.float32(2), np.float32(0.5), buf[3:13], buf[13:23])
    i = np.arange(10, dtype=np.float32)
    expected = np.zeros(25, np.float32)
    expected[3:13], expected[13:23] = 2 * i, 0.5 - i
    np.testing.assert_array_equal(buf.get(), expected)
    x = random_array((4, 6), np.float64)
    y = random_array((4, 6), np.float64, np.random.default_rng(7))
    add = ra.ElementwiseKernel("T x, T y", "T z", "z = x + y", "add_into")
    big = ra.zeros((5, 6), dtype=ra.float64, device=device)
    add(ra.asarray(x, device=device), ra.asarray(y, device=device), big[1:])
    np.testing.assert_array_equal(big.get()[1:], x + y)
    np.testing.assert_array_equal(big.get()[0], 0)


def test_empty_arrays(device):
    x = ra.empty((0, 3), dtype=ra.float32, device=device)
    r = SQUARED_DIFF(x, x)
    assert r.shape == (0, 3)


# -- thin specialization ------------------------------------------------------------------------

def test_new_shape_compiles_nothing_new_dtype_compiles_one(device):
    k = ra.ElementwiseKernel("T x, raw T r, T s", "T z", "z = x * s + r[i % r.size()]", "thin")
    rng = np.random.default_rng(6)
    a = ra.asarray(random_array((5, 7), np.int16, rng), device=device)
    k(a, a, 3)
    before = _compiles()
    b = ra.asarray(random_array((64, 3, 9), np.int16, rng), device=device)
    k(b, b, 2)
    k(b[:, ::2], a, 1)
    k(b.T, b[0], -1)
    k(b, a[0], 7)
    assert _compiles() == before
    c = ra.asarray(random_array((9,), np.uint16, rng), device=device)
    k(c, c, 1)
    assert _compiles() == before + 1
    k(c[::3], c, 5)
    k(c[None, :], c[:4], 5)
    assert _compiles() == before + 1


# -- errors ---------------------------------------------------------------------------------------

def test_syntax_error_points_at_line_and_column():
    with pytest.raises(KernelSyntaxError) as ei:
        ra.ElementwiseKernel("T x", "T y", "T t = x;\ny = t +* 2;", "bad_syntax")
    e = ei.value
    assert (e.line, e.column) == (2, 8)
    assert "kernel 'bad_syntax', line 2, column 8" in str(e)
    assert "y = t +* 2;" in str(e) and "       ^" in str(e)
    with pytest.raises(KernelSyntaxError, match="line 2, column 6: expected ';'"):
        ra.ElementwiseKernel("T x", "T y", "y = x\n  + x)", "bad_paren")


def test_expressions_nested_too_deeply_are_syntax_errors():
    """Past what the parser's and the lowering's recursion take: a KernelSyntaxError at the
    deepest bracket (Python's RecursionError before), in the body or the preamble."""
    deep = "y = x;\n  y = " + "(" * 600 + "x" + ")" * 600 + ";"
    with pytest.raises(KernelSyntaxError, match="line 2, column 606: the expression is nested too deeply"):
        ra.ElementwiseKernel("T x", "T y", deep, "too_deep")
    pre = "__device__ float f(float a) { return " + "(" * 500 + "a" + ")" * 500 + "; }"
    with pytest.raises(KernelSyntaxError, match="preamble line 1, column 537"):
        ra.ElementwiseKernel("float32 x", "float32 y", "y = f(x);", "too_deep_pre", preamble=pre)
    chain = ra.ElementwiseKernel("float32 x", "float32 y", "y = " + " + ".join(["x"] * 3000) + ";", "long_chain")
    with pytest.raises(KernelSyntaxError, match="a chain of operators too long"):
        chain(ra.ones(3, dtype=ra.float32, device="cpu"))


def test_unknown_identifier(device):
    k = ra.ElementwiseKernel("T x", "T y", "float a = 1;\ny = x + foo;", "unknown_ident")
    with pytest.raises(KernelNameError) as ei:
        k(ra.ones(3, device=device))
    assert (ei.value.line, ei.value.column) == (2, 9)
    assert "unknown identifier 'foo'" in str(ei.value)
    k2 = ra.ElementwiseKernel("T x", "T y", "y = bar(x);", "unknown_fn")
    with pytest.raises(KernelNameError, match="unknown function 'bar'"):
        k2(ra.ones(3, device=device))


@pytest.mark.parametrize("body, what", [
    ("float* p = 0; y = x;", "pointers are not supported"),
    ("y = *x;", "pointers are not supported"),
    ("struct S { int a; }; y = x;", "structs are not supported"),
    ("__syncthreads(); y = x;", "__syncthreads (block synchronisation) is not supported"),
    ("__shared__ float buf[32]; y = x;", "shared memory"),
    ("atomicAdd(y, x);", "atomic operations are not supported"),
])
def test_unsupported_constructs_are_named(body, what):
    # caught when the kernel is defined, or (calls of unsupported functions) at its first call
    with pytest.raises(KernelSyntaxError, match=r"(?i)" + what.replace("(", r"\(").replace(")", r"\)")):
        k = ra.ElementwiseKernel("T x", "T y", body, "unsupported")
        k(ra.ones(3, dtype=ra.float32, device="cpu"))


def test_parameter_list_errors():
    with pytest.raises(KernelSyntaxError, match="unknown type 'flaot32'"):
        ra.ElementwiseKernel("flaot32 x", "T y", "y = x", "k")
    with pytest.raises(KernelSyntaxError, match="'i' is a reserved word"):
        ra.ElementwiseKernel("T i", "T y", "y = i", "k")
    with pytest.raises(KernelSyntaxError, match="'x' is both an input and an output"):
        ra.ElementwiseKernel("T x", "T x", "x = x", "k")
    with pytest.raises(ValueError, match="invalid kernel name"):
        ra.ElementwiseKernel("T x", "T y", "y = x", "not a name")
    with pytest.raises(TypeError, match="loop_prep"):
        ra.ElementwiseKernel("T x", "T y", "y = x", "k", loop_prep="int a;")


def test_outputs_the_body_reads(device):
    from rocarray._user_kernels import _outputs_read

    k = ra.ElementwiseKernel("T x", "T y, T z, T w", "y += x; z = x; w = w * 2 + (x > 5000);", "rw")
    assert k._read_outputs == ("y", "w")
    assert _outputs_read("z = x; if (z == 1) z = 2;", "", k.out_params) == ("z",)
    # every path of every device gives the body the element's current value (the GPU vector
    # path loads the read outputs like inputs)
    x = ra.asarray(np.arange(1000, dtype=np.float32), device=device)
    y = ra.ones(1000, dtype=ra.float32, device=device)
    z = ra.empty(1000, dtype=ra.float32, device=device)
    w = ra.full(1000, 3.0, dtype=ra.float32, device=device)
    k(x, y, z, w)
    np.testing.assert_array_equal(y.get(), np.arange(1000) + 1)
    np.testing.assert_array_equal(w.get(), np.full(1000, 6.0))
    k(x[::2], y[::2], z[::2], w[::2])
    np.testing.assert_array_equal(y.get()[::2], 2 * np.arange(0, 1000, 2) + 1)


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
def test_outputs_read_and_inputs_that_are_outputs_read_through_them(device, dtype):
    """An output the body reads (``y += x``) is passed again as a hidden input, and a given
    output may be an input (``k(z, x, z)``): the host loop reads such an input through its
    output's address (``KernelSpec.reads_out``: vectorised, where two equal pointers ran the
    scalar loop) -- NumPy's results on random data, contiguous and strided, at the first
    tier and at the compiled one; the in-place calls run kernels of their own."""
    from rocarray import _launch

    rng = np.random.default_rng(41)
    dt = np.dtype(dtype)
    acc = ra.ElementwiseKernel("T x", "T y", "y += x", "reads_back_acc")
    axpy = ra.ElementwiseKernel("T x, T y", "T z", "z = x * y + x", "in_place_axpy")
    a = random_array((300, 300), dt, rng, low=-3, high=3)
    b = random_array((300, 300), dt, rng, low=-3, high=3)
    want_y = b + a
    want_y[::2, 1::3] += a[::2, 1::3]
    want_z = a * a + a
    want_z = a * want_z + a
    kwargs = {"rtol": 2e-3} if dt == np.float16 else {"rtol": 1e-6}
    for _ in range(2):  # the first kernels' tier, then the compiled code's
        x, y, z = ra.asarray(a, device=device), ra.asarray(b.copy(), device=device), ra.asarray(a.copy(), device=device)
        acc(x, y)
        acc(x[::2, 1::3], y[::2, 1::3])
        axpy(z, x, z)  # (the first input the output)
        axpy(x, z, z)  # (the second)
        for got, want in ((y, want_y), (z, want_z)):
            if dt.kind in "iu":
                np.testing.assert_array_equal(got.get(), want)
            else:
                np.testing.assert_allclose(got.get(), want, **kwargs)
        drain_background()
    loaded = [k for k in list(_launch._loaded.values()) if k.spec.name in ("reads_back_acc", "in_place_axpy")
              and k.spec.operands[0].dtype == dt and k.device is device]
    reads = {(k.spec.name, k.spec.reads_out): k.code.tier for k in loaded}
    assert reads[("reads_back_acc", ((2, 1),))] in ("full", "quick", "interpreted")  # (the hidden input: y)
    assert ("in_place_axpy", ()) in reads
    if device.kind == "cpu":
        assert reads[("in_place_axpy", ((0, 2),))] == reads[("in_place_axpy", ((1, 2),))] == "full"
    else:
        assert set(reads) == {("reads_back_acc", ((2, 1),)), ("in_place_axpy", ())}


def test_error_position_in_a_body_that_reads_an_output(device):
    k = ra.ElementwiseKernel("T x", "T y", "y += x + nope;", "rw_err")
    with pytest.raises(KernelNameError) as ei:
        k(ra.ones(3, device=device), ra.ones(3, device=device))
    assert (ei.value.line, ei.value.column) == (1, 10)
    assert "y += x + nope;" in str(ei.value) and "_rk_in_" not in str(ei.value)


@pytest.mark.parametrize("layout", ["strided", "contiguous"])
def test_gpu_first_call_past_32_bit_offsets(device, layout):
    """A GPU quick-tier kernel adds up byte offsets in 32 bits: a call made while its code
    is loaded whose offsets reach past 2^31 - 1 bytes (with fewer than 2^31 elements) must
    run the full tier -- a strided view over 2 GiB (the packed launch's check) and a
    contiguous float32 run of 2^29 + 1 elements (the warm path's element count) -- and give
    NumPy's values."""
    if device.kind == "cpu":
        pytest.skip("needs a GPU (NVIDIA with CUDA or AMD with ROCm): the limit is the GPU "
                    "quick tier's; its launcher logic also runs on the CPU, in "
                    "tests/runtime/test_quick_launch.py")
    if layout == "strided":
        n = 2**31 + 64
        h = (np.arange(n, dtype=np.int64) % 251).astype(np.uint8)
        x = ra.asarray(h, device=device)[::2]
        want = h[::2]
        dtype = "uint8"
    else:
        n = 2**29 + 1  # the last element's offset is 2^31 bytes
        h = np.arange(n, dtype=np.float32) % np.float32(1021)
        x = ra.asarray(h, device=device)
        want = h
        dtype = "float32"
    kernel = ra.ElementwiseKernel(f"{dtype} x", f"{dtype} y", "y = x + 3",
                                  f"wide_offsets_{layout}")  # a kernel no other test made
    small = ra.asarray(want[:100].copy(), device=device)
    np.testing.assert_array_equal(kernel(small).get(), want[:100] + np.array(3, dtype=want.dtype))
    got = kernel(x).get()  # the quick tier's code is loaded (one small call, not hot)
    np.testing.assert_array_equal(got, want + np.array(3, dtype=want.dtype))


def test_layouts_found_again_give_numpy_results(device, monkeypatch):
    """The general path's layouts (``_user_kernels._layouts``) serve repeated calls: one
    shape in four layouts, one input layout into two output layouts, broadcasts, raw
    arguments, outputs the body reads, more dims than a kernel takes; a full table is
    emptied, not grown."""
    from rocarray import _user_kernels

    monkeypatch.setattr(_user_kernels, "_layouts", {})
    rng = np.random.default_rng(43)
    axpy = ra.ElementwiseKernel("T x, T a", "T y", "y = a * x", "layout_axpy")
    rev = ra.ElementwiseKernel("raw T x, int64 n", "T y", "y = x[n - 1 - i]", "layout_rev")
    acc = ra.ElementwiseKernel("T x", "T y", "y += x", "layout_acc")
    q = random_array((9, 9), np.float32, rng)
    u = ra.asarray(q, device=device)
    for _ in range(2):  # (the second round finds every layout)
        for k in (axpy, rev, acc):
            k._calls.clear()  # (else the calls' own table serves the second round)
        for view in (lambda v: v.T, lambda v: v[::-1], lambda v: v[:, ::-1], lambda v: v[::-1].T):
            np.testing.assert_array_equal(axpy(view(u), 2.0).get(), view(q) * 2)
        o = ra.empty((9, 9), dtype=ra.float32, device=device)
        axpy(u.T, 2.0, o)
        np.testing.assert_array_equal(o.get(), q.T * 2)
        axpy(u.T, 2.0, o.T)
        np.testing.assert_array_equal(o.get(), q * 2)
        np.testing.assert_array_equal(axpy(u[:, :1], u[:1, :]).get(), q[:, :1] * q[:1, :])
        np.testing.assert_array_equal(rev(u[0], 9, size=9).get(), q[0, ::-1])
        o = ra.asarray(q, device=device, copy=True)
        acc(u[::-1], o.T)  # (the body reads its output, a transposed view)
        np.testing.assert_array_equal(o.get(), q + q[::-1].T)
        d = random_array((2,) * 10, np.float32, rng)
        w = ra.asarray(d, device=device)
        np.testing.assert_array_equal(axpy(w[..., ::-1], 3.0).get(), d[..., ::-1] * np.float32(3))
    assert _user_kernels._layouts
    monkeypatch.setattr(_user_kernels, "_MAX_LAYOUTS", 2)
    for k in range(3, 8):
        v = ra.asarray(random_array((k, 3), np.float32, rng), device=device)
        np.testing.assert_array_equal(axpy(v.T, 1.0).get(), v.get().T)
    assert len(_user_kernels._layouts) <= 2


def test_calls_found_again_give_numpy_results(device, monkeypatch):
    """A general-path call (raw operands, views, given outputs, ``size=``) seen before is
    launched from the kernel's table of calls (``_calls``) with the new addresses and
    scalars, never through the checks again, except where an input shares a buffer with a
    given output (NumPy's overlap rule: the general path copies it); a bad scalar still
    raises; a full table is emptied, not grown."""
    from rocarray import _user_kernels

    rng = np.random.default_rng(44)
    rev = ra.ElementwiseKernel("raw T x, int64 n", "T y", "y = x[n - 1 - i]", "calls_rev")
    pick = ra.ElementwiseKernel("raw T src, I idx, T a", "T y", "y = src[idx] + a", "calls_pick")
    spread = ra.ElementwiseKernel("T x, int8 k", "raw T out", "out[2 * i] = x * k", "calls_spread")
    axpy = ra.ElementwiseKernel("T x, T a", "T y", "y = a * x", "calls_axpy")
    checked = []
    general = ra.ElementwiseKernel._checked

    def counted(self, *args, **kwargs):
        checked.append(self.name)
        return general(self, *args, **kwargs)

    monkeypatch.setattr(ra.ElementwiseKernel, "_checked", counted)
    for rnd in range(3):
        del checked[:]
        h = random_array((7, 9), np.float32, rng)
        x = ra.asarray(h, device=device)
        n = 9 - rnd  # (a new scalar each round, one layout)
        np.testing.assert_array_equal(rev(x[1], n, size=7).get(), h[1, n - 7:n][::-1])
        hi = rng.integers(0, 63, (4, 5))
        np.testing.assert_array_equal(pick(x, ra.asarray(hi, device=device), 0.5 * rnd).get(),
                                      h.reshape(-1)[hi] + np.float32(0.5 * rnd))
        out = ra.zeros((18,), dtype=ra.float32, device=device)
        spread(x[:, 2], rnd + 1, out)
        want = np.zeros(18, np.float32)
        want[:14:2] = h[:, 2] * (rnd + 1)
        np.testing.assert_array_equal(out.get(), want)
        o = ra.empty((9, 7), dtype=ra.float32, device=device)
        axpy(x.T, 2.0, o)
        np.testing.assert_array_equal(o.get(), h.T * 2)
        axpy(ra.asarray(h.T.copy(), device=device)[::-1], 2.0, o)  # (one shape, other strides)
        np.testing.assert_array_equal(o.get(), h.T[::-1] * 2)
        assert checked == ([] if rnd else ["calls_rev", "calls_pick", "calls_spread", "calls_axpy", "calls_axpy"])
        # an input that is a view of the given output: the general path, every time
        y = ra.asarray(h[0], device=device, copy=True)
        axpy(y[::-1], 3.0, y)
        np.testing.assert_array_equal(y.get(), h[0, ::-1] * 3)
        assert checked[-1] == "calls_axpy"
        # the same layout on two buffers: not the overlapping call's launch (of a copy)
        z, w = ra.asarray(h[1], device=device), ra.empty((9,), dtype=ra.float32, device=device)
        axpy(z[::-1], 3.0, w)
        np.testing.assert_array_equal(w.get(), h[1, ::-1] * 3)
    for k in (rev, pick, spread, axpy):
        assert k._calls
    with pytest.raises(OverflowError):
        spread(x[:, 2], 300, out)  # (an int8 scalar past its range, on a known layout)
    monkeypatch.setattr(_user_kernels, "_MAX_LAYOUTS", 2)
    for k in range(3, 8):
        h = random_array((k,), np.float32, rng)
        np.testing.assert_array_equal(rev(ra.asarray(h, device=device), k, size=k).get(), h[::-1])
    assert len(rev._calls) <= 2
