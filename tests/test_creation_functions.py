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
    with pytest.raises(OverflowError):
        ra.asarray(2**63, device=device)
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
