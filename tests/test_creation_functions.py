import os
import subprocess
import sys

import numpy as np
import pytest

import rocarray as ra
from conftest import ALL_DTYPES, random_array


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_asarray_from_numpy(device, dtype):
    a = random_array((3, 5), dtype)
    x = ra.asarray(a, device=device)
    assert x.dtype == dtype and x.shape == (3, 5) and x.device is device
    np.testing.assert_array_equal(x.get(), a)
    np.testing.assert_array_equal(ra.asarray(a[::2, ::-1], device=device).get(), a[::2, ::-1])


def test_asarray_zero_copy_on_cpu():
    a = np.arange(6.0)
    x = ra.asarray(a, device="cpu")
    a[0] = 42
    assert float(x[0]) == 42.0  # shares memory
    y = ra.asarray(a, device="cpu", copy=True)
    a[1] = 7
    assert float(y[1]) == 1.0
    np.testing.assert_array_equal(np.asarray(x), a)
    with pytest.raises(ValueError, match="copy=False"):
        ra.asarray(a, dtype=ra.float32, copy=False)


def test_asarray_python_data(device):
    assert ra.asarray(1, device=device).dtype == ra.int64
    assert ra.asarray(1.5, device=device).dtype == ra.float64
    assert ra.asarray(True, device=device).dtype == ra.bool
    assert ra.asarray(1j, device=device).dtype == ra.complex128
    assert ra.asarray([1, 2.5], device=device).dtype == ra.float64
    x = ra.asarray([[1, 2], [3, 4]], dtype=ra.uint8, device=device)
    assert x.dtype == ra.uint8
    np.testing.assert_array_equal(x.get(), [[1, 2], [3, 4]])
    assert ra.asarray(2**63, device=device).dtype == ra.uint64  # past int64: NumPy's uint64
    with pytest.raises(OverflowError):
        ra.asarray(2**64, device=device)
    with pytest.raises(OverflowError):
        ra.asarray(300, dtype=ra.uint8, device=device)
    with pytest.raises(TypeError):
        ra.asarray(["a", "b"], device=device)
    with pytest.raises(ValueError, match="copy=False"):
        ra.asarray([1, 2], copy=False, device=device)


def test_asarray_from_array(device):
    x = ra.asarray([1.0, 2.0], device=device)
    assert ra.asarray(x) is x
    assert ra.asarray(x, copy=False) is x
    y = ra.asarray(x, copy=True)
    y[0] = 5
    assert float(x[0]) == 1.0
    z = ra.asarray(x, dtype=ra.float32)
    assert z.dtype == ra.float32 and z.get().tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="copy=False"):
        ra.asarray(x, dtype=ra.int8, copy=False)
    with pytest.raises(ValueError, match="copy must be"):
        ra.asarray(x, copy="yes")


def test_asarray_dlpack():
    a = np.arange(10, dtype=np.int32)
    x = ra.from_dlpack(a)
    np.testing.assert_array_equal(x.get(), a)
    b = np.from_dlpack(ra.asarray(a, device="cpu"))
    np.testing.assert_array_equal(b, a)
    with pytest.raises(TypeError, match="__dlpack__"):
        ra.from_dlpack([1, 2])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_fills(device, dtype):
    for fn, val in ((ra.zeros, 0), (ra.ones, 1)):
        x = fn((2, 3), dtype=dtype, device=device)
        assert x.dtype == dtype and x.device is device
        np.testing.assert_array_equal(x.get(), np.full((2, 3), val, dtype=dtype))
    v = {"b": True, "i": -3, "u": 7, "f": 2.5, "c": 1 - 2j}[np.dtype(dtype).kind]
    x = ra.full((4,), v, dtype=dtype, device=device)
    np.testing.assert_array_equal(x.get(), np.full(4, v, dtype=dtype))
    e = ra.empty((0, 3), dtype=dtype, device=device)
    assert e.shape == (0, 3) and e.get().shape == (0, 3)


def test_full_dtype_inference_and_errors(device):
    assert ra.full(2, True, device=device).dtype == ra.bool
    assert ra.full(2, 3, device=device).dtype == ra.int64
    assert ra.full(2, 3.0, device=device).dtype == ra.float64
    assert ra.full(2, 3j, device=device).dtype == ra.complex128
    assert ra.zeros(2, device=device).dtype == ra.float64
    with pytest.raises(TypeError):
        ra.full(2, 1j, dtype=ra.float32)
    with pytest.raises(ValueError, match="negative dimensions"):
        ra.zeros((2, -1))
    with pytest.raises(TypeError, match="shape must be"):
        ra.zeros((2, 1.5))
    with pytest.raises(TypeError, match="fill_value"):
        ra.full(2, "x")


def test_like(device):
    x = ra.asarray(random_array((2, 3), np.float32), device=device)
    for fn in (ra.zeros_like, ra.ones_like, ra.empty_like):
        y = fn(x)
        assert (y.shape, y.dtype, y.device) == (x.shape, x.dtype, x.device)
    y = ra.full_like(x, 7, dtype=ra.int16)
    assert y.dtype == ra.int16 and y.get().tolist() == [[7] * 3] * 2
    assert ra.ones_like(x, device="cpu").device == ra.Device("cpu")


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_arange_and_full_in_every_dtype(device, dtype):
    """arange computed on the device: integers exactly, the others as NumPy's
    ``start + k * step`` in float64, converted; full with the value as a parameter."""
    for args in [(0, 1000), (5, -300, -7), (-3, 11, 2)]:
        want = np.arange(*args).astype(np.float64) if np.dtype(dtype).kind in "fcb" else None
        try:
            got = ra.arange(*args, dtype=dtype, device=device).get()
        except OverflowError:
            assert np.dtype(dtype).kind in "iu"  # a range the integer dtype cannot hold
            continue
        want = np.arange(*args, dtype=dtype) if want is None else want.astype(dtype)
        np.testing.assert_array_equal(got, want)
    if np.dtype(dtype).kind in "fc":
        got = ra.arange(-1.5, 7.0, 0.3, dtype=dtype, device=device).get()
        np.testing.assert_array_equal(got, (-1.5 + 0.3 * np.arange(29, dtype=np.float64)).astype(dtype))
    for v in {"b": [True], "i": [-5, 2.9], "u": [200 if np.dtype(dtype).itemsize == 1 else 70000 - 60000],
              "f": [-0.0, 0.1, float("inf")], "c": [0.5 - 2j]}[np.dtype(dtype).kind]:
        got = ra.full((3, 4), v, dtype=dtype, device=device).get()
        np.testing.assert_array_equal(got, np.full((3, 4), v, dtype=dtype))
        assert np.signbit(got.real).all() == np.signbit(np.full(1, v, dtype=dtype).real).all()


@pytest.mark.parametrize("args", [(10,), (2, 11, 3), (5, -5, -2), (0.5, 3.0, 0.25), (1, 1), (3, 0)])
def test_arange(device, args):
    x = ra.arange(*args, device=device)
    np.testing.assert_allclose(x.get(), np.arange(*args))
    assert x.dtype == np.arange(*args).dtype
    assert ra.arange(5, dtype=ra.float32, device=device).dtype == ra.float32
    with pytest.raises(ValueError, match="step"):
        ra.arange(1, 5, 0)


def test_linspace_eye(device):
    np.testing.assert_allclose(ra.linspace(0, 1, 7, device=device).get(), np.linspace(0, 1, 7))
    np.testing.assert_allclose(ra.linspace(0, 1, 4, endpoint=False, dtype=ra.float32, device=device).get(),
                               np.linspace(0, 1, 4, endpoint=False, dtype=np.float32))
    assert ra.linspace(0, 1j, 3, device=device).dtype == ra.complex128
    np.testing.assert_array_equal(ra.eye(3, 4, k=-1, device=device).get(), np.eye(3, 4, k=-1))
    assert ra.eye(2, dtype=ra.int8, device=device).dtype == ra.int8
    with pytest.raises(ValueError):
        ra.linspace(0, 1, -1)
    with pytest.raises(TypeError):
        ra.linspace(0, 1, 3, dtype=ra.int32)


def test_asnumpy():
    a = ra.asnumpy([1, 2])
    assert isinstance(a, np.ndarray)
    x = ra.arange(4)
    out = np.empty(4, dtype=np.int64)
    assert ra.asnumpy(x, out=out) is out and out.tolist() == [0, 1, 2, 3]


# -- sizes no array can have, and sizes no device can give ------------------------------------

_TOO_BIG = "array is too big: shape .* more than the largest possible array"


def _run_isolated(code: str, device) -> list:
    """Run ``code`` in a fresh interpreter (a crash there fails the test, not the run); the
    lines it printed."""
    env = dict(os.environ, ROCARRAY_DEVICE=str(device))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"exit status {r.returncode}; stderr:\n{r.stderr[-3000:]}"
    return r.stdout.splitlines()


def test_sizes_that_overflowed_raise_instead_of_corrupting_memory(device):
    # these made arrays on a wrapped byte count; writing into them crashed the process
    code = """
import rocarray as ra
for stmt in ("x = ra.empty(2**61); x[2**40] = 1.0",
             "ra.full(2**61, 1.0)",
             "x = ra.empty((2**32, 2**32)); x[1000, 1000] = 3.0",
             "ra.empty(2**63)", "ra.empty(2**64)", "ra.empty((10**7,) * 3)", "ra.zeros((10**7,) * 3)",
             "ra.ones((2**62, 0))", "ra.empty((0, 2**63), dtype=ra.int8)"):
    try:
        exec(stmt)
    except ValueError as e:
        print("ValueError", "array is too big" in str(e))
    except BaseException as e:
        print(type(e).__name__, e)
    else:
        print("no error")
"""
    assert _run_isolated(code, device) == ["ValueError True"] * 9


_MAKERS = {
    "empty": "ra.empty(shape, dtype=dt)",
    "zeros": "ra.zeros(shape, dtype=dt)",
    "ones": "ra.ones(shape, dtype=dt)",
    "full": "ra.full(shape, 1, dtype=dt)",
    "empty_like": "ra.empty_like(view)",
    "full_like": "ra.full_like(view, 2)",
    "broadcast_add": "view + 1",
    "astype": "view.astype(ra.complex128)",
    "asarray_copy": "ra.asarray(view, copy=True)",
    "tile": "ra.tile(ra.ones(2, dtype=dt), shape)",
    "repeat": "ra.repeat(ra.ones(2, dtype=dt), math.prod(shape) // 2 + 1)",
    "concat": "ra.concat([view, view])",
    "stack": "ra.stack([view, view])",
    "tril": "ra.tril(ra.reshape(view, (-1, shape[-1])) if len(shape) > 1 else ra.broadcast_to(view[:1], (2**33, 2**33)))",
    "matmul": "ra.matmul(ra.broadcast_to(ra.ones((), dtype=dt), (2**33, 1)), ra.broadcast_to(ra.ones((), dtype=dt), (1, 2**33)))",
}


def test_creation_rejects_shapes_no_array_can_have(device):
    # every creation function and every op that allocates: a ValueError, never an array (run
    # apart: before the check, writing into such an array corrupted memory)
    code = f"""
import math
import numpy as np
import rocarray as ra
for dt in (ra.int8, ra.float32, ra.complex128):
    itemsize = np.dtype(dt).itemsize
    for shape in ((2**63 // itemsize + 1,), (2**32, 2**32), (2**21,) * 3):
        view = ra.broadcast_to(ra.ones((), dtype=dt), shape)  # a view needs no memory
        for name, stmt in {_MAKERS!r}.items():
            try:
                eval(stmt)
            except ValueError as e:
                print(name, "too big" if "array is too big: shape" in str(e) else e)
            except BaseException as e:
                print(name, type(e).__name__, e)
            else:
                print(name, "no error")
"""
    lines = _run_isolated(code, device)
    assert lines == [f"{name} too big" for name in _MAKERS] * 9


def test_sizes_beyond_the_memory_raise_memory_error(device):
    # a byte count that fits ssize_t but no device has: the allocator's MemoryError
    for shape, dtype in (((2**59,), ra.float64), ((2**63 - 1,), ra.int8), ((2**31, 2**31), ra.int8)):
        with pytest.raises(MemoryError, match="out of memory allocating"):
            ra.empty(shape, dtype=dtype, device=device)
    with pytest.raises(MemoryError, match="out of memory allocating"):
        ra.broadcast_to(ra.ones((), device=device), (2**59,)) + 1.0


def test_negative_dimensions_name_the_shape():
    for shape in (-1, (3, -2), (0, -1, 4)):
        with pytest.raises(ValueError, match=r"negative dimensions are not allowed: shape \("):
            ra.empty(shape)
        with pytest.raises(ValueError, match=r"negative dimensions"):
            ra.full(shape, 1.0)


# -- Python ints past int64, and every int that fits the dtype asked for ----------------------

_INTEGER_DTYPES = [ra.int8, ra.int16, ra.int32, ra.int64, ra.uint8, ra.uint16, ra.uint32, ra.uint64]


@pytest.mark.parametrize("dtype", _INTEGER_DTYPES, ids=str)
def test_every_python_int_that_fits_the_dtype_is_accepted(device, dtype):
    lo, hi = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
    values = [lo, hi, lo + 1, hi - 1, 0, 1]
    nested = [[lo, hi], [0, 1], [hi - 1, lo + 1]]
    want = np.array(nested, dtype=dtype)
    np.testing.assert_array_equal(ra.asarray(nested, dtype=dtype, device=device).get(), want)
    np.testing.assert_array_equal(ra.asarray(tuple(map(tuple, nested)), dtype=dtype, device=device).get(), want)
    for v in values:
        x = ra.asarray(v, dtype=dtype, device=device)
        assert x.dtype == dtype and x.shape == () and int(x) == v
        np.testing.assert_array_equal(ra.full((2, 3), v, dtype=dtype, device=device).get(),
                                      np.full((2, 3), v, dtype=dtype))
        y = ra.zeros(3, dtype=dtype, device=device)
        y[1] = v
        assert int(y[1]) == v
        y[:] = [v, v, v]
        assert y.get().tolist() == [v] * 3
        np.testing.assert_array_equal(ra.full_like(y, v).get(), np.full(3, v, dtype=dtype))
    # one that does not fit: an OverflowError naming the value and the dtype
    for v in (lo - 1, hi + 1, 2**64, -(2**63) - 1):
        pattern = f"Python int {v} out of bounds for {np.dtype(dtype)}"
        for make in (lambda: ra.asarray(v, dtype=dtype, device=device),
                     lambda: ra.asarray([[0, 1], [v, 2]], dtype=dtype, device=device),
                     lambda: ra.full(2, v, dtype=dtype, device=device),
                     lambda: ra.full_like(ra.zeros(2, dtype=dtype, device=device), v)):
            with pytest.raises(OverflowError, match=pattern):
                make()
        with pytest.raises(OverflowError, match=pattern):
            ra.zeros(3, dtype=dtype, device=device)[0] = v


def test_python_ints_past_int64_take_uint64_where_they_fit(device):
    # NumPy's uint64 for non-negative ints past int64 (no dtype given)
    for obj in (2**63, 2**64 - 1, [2**63, 2**64 - 1], [[2**63], [1]], [2**63, True], [2**63, 1, 0]):
        x = ra.asarray(obj, device=device)
        assert x.dtype == ra.uint64, obj
        np.testing.assert_array_equal(x.get(), np.array(obj, dtype=np.uint64))
    assert ra.full(3, 2**63, device=device).dtype == ra.uint64
    assert ra.full(3, 2**63, device=device).get().tolist() == [2**63] * 3
    assert ra.asarray([2**62, 1], device=device).dtype == ra.int64
    # no integer dtype holds them: an OverflowError naming the values (NumPy: float64 or object)
    for obj, pattern in ((2**64, "Python int 18446744073709551616 is out of bounds for every integer dtype"),
                         ([1, -(2**63) - 1], "Python int -9223372036854775809 is out of bounds for every integer"),
                         ([2**63, -1], "Python ints -1 and 9223372036854775808: no integer dtype holds both")):
        with pytest.raises(OverflowError, match=pattern):
            ra.asarray(obj, device=device)
    with pytest.raises(OverflowError, match="full: Python int 18446744073709551616 is out of bounds"):
        ra.full(2, 2**64, device=device)
    # beside a float they are floats (the standard's kind rule)
    for obj in ([2**63, 1.5], [2**64, 0.5], [[2**70], [1.0]]):
        x = ra.asarray(obj, device=device)
        assert x.dtype == ra.float64
        np.testing.assert_array_equal(x.get(), np.array(obj, dtype=np.float64))
    assert ra.asarray([2**64, 1j], device=device).dtype == ra.complex128
    assert ra.asarray([], device=device).dtype == ra.float64


@pytest.mark.parametrize("args,kwargs", [
    ((2**63 - 2, 2**63 + 2), {}),
    ((2**63 + 5, 2**63, -1), {}),
    ((2**64 - 4, 2**64), {}),
    ((0, 2**64 - 1, 2**63 + 7), {}),
    ((-(2**63), 2**63 - 1, 2**62), {}),
    ((-(2**63), 2**63, 2**63), {}),
    ((2**63 - 2, 2**63 + 2), {"dtype": ra.uint64}),
    ((200, 0, -37), {"dtype": ra.uint8}),
    ((-128, 128, 51), {"dtype": ra.int8}),
    ((2**63 - 3, 2**63 - 1), {"dtype": ra.int64}),
])
def test_arange_of_big_ints_is_exact(device, args, kwargs):
    x = ra.arange(*args, **kwargs, device=device)
    start, stop = args[:2]
    step = args[2] if len(args) > 2 else 1
    want = list(range(start, stop, step))
    expected = kwargs.get("dtype", ra.int64 if all(-(2**63) <= v < 2**63 for v in want) else ra.uint64)
    assert x.dtype == expected
    assert x.get().tolist() == want


def test_arange_values_no_dtype_holds_raise(device):
    with pytest.raises(OverflowError, match="arange: the values from 9223372036854775806 to 9223372036854775809 "
                                            r"\(step 1\) do not fit int64"):
        ra.arange(2**63 - 2, 2**63 + 2, dtype=ra.int64, device=device)
    with pytest.raises(OverflowError, match="do not fit uint32"):
        ra.arange(-1, 3, dtype=ra.uint32, device=device)
    with pytest.raises(OverflowError, match="arange: Python ints -1 and 9223372036854775808: no integer dtype"):
        ra.arange(-1, 2**63 + 2, 2**63 + 1, device=device)
    with pytest.raises(OverflowError, match="out of bounds for every integer dtype"):
        ra.arange(2**64 - 1, 2**64 + 1, device=device)
    # floats are asked for: the values rounded to them, as NumPy
    np.testing.assert_array_equal(ra.arange(2**63 - 2, 2**63 + 2, dtype=ra.float64, device=device).get(),
                                  np.arange(2**63 - 2, 2**63 + 2, dtype=np.float64))


def test_linspace_of_big_ints(device):
    for start, stop in ((0, 2**64), (2**63, 2**64 - 1), (-(2**70), 2**70)):
        np.testing.assert_array_equal(ra.linspace(start, stop, 5, device=device).get(),
                                      np.linspace(float(start), float(stop), 5))
    with pytest.raises(OverflowError, match=r"linspace: stop \(a Python int of 1101 bits\) is too large"):
        ra.linspace(0, 2**1100, 3, device=device)
