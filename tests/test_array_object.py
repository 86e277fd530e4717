import copy
import pickle

import numpy as np
import pytest

import rocarray as ra
from conftest import ALL_DTYPES, random_array


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_attributes(device, dtype):
    a = random_array((2, 3, 4), dtype)
    x = ra.asarray(a, device=device)
    assert x.shape == a.shape and x.ndim == 3 and x.size == 24
    assert x.dtype == a.dtype and x.itemsize == a.itemsize and x.nbytes == a.nbytes
    assert x.strides == a.strides
    assert x.__array_namespace__() is ra
    assert len(x) == 2
    np.testing.assert_array_equal(x.mT.get(), np.swapaxes(a, -1, -2))
    np.testing.assert_array_equal(x[0].T.get(), a[0].T)
    assert x[0].T.strides == a[0].T.strides


def test_T_and_mT():
    a = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(ra.asarray(a).T.get(), a.T)  # all axes reversed, as NumPy
    with pytest.raises(ValueError, match="at least 2"):
        ra.zeros(3).mT


def test_scalar_conversions(device):
    assert bool(ra.asarray(True, device=device)) is True
    assert int(ra.asarray(7, device=device)) == 7
    assert float(ra.asarray(2.5, device=device)) == 2.5
    assert complex(ra.asarray(1 + 2j, device=device)) == 1 + 2j
    assert [10, 20, 30][ra.asarray(1, device=device)] == 20
    with pytest.raises(TypeError, match="one element"):
        bool(ra.zeros(2, device=device))
    with pytest.raises(TypeError, match="integer"):
        [1][ra.asarray(0.0, device=device)]
    with pytest.raises(TypeError, match="len"):
        len(ra.asarray(1.0, device=device))
    with pytest.raises(ValueError):
        int(ra.asarray(float("nan"), device=device))


def test_repr_str(device):
    a = np.array([[1.5, 2.0], [3.0, -4.0]], dtype=np.float32)
    x = ra.asarray(a, device=device)
    if device.kind == "cpu":
        assert repr(x) == repr(a)
    else:
        assert repr(x) == repr(a)[:-1] + f", device='{device}')"
    assert str(x) == str(a)


def test_array_protocol():
    x = ra.arange(5, device="cpu")
    np.testing.assert_array_equal(np.asarray(x), np.arange(5))
    assert np.asarray(x, dtype=np.float32).dtype == np.float32


def test_array_protocol_refuses_gpu():
    gpus = [d for d in ra.available_devices() if d.kind != "cpu"]
    if not gpus:
        pytest.skip("needs a GPU (NVIDIA with CUDA or AMD with ROCm)")
    with pytest.raises(TypeError, match=r"\.get\(\)"):
        np.asarray(ra.zeros(3, device=gpus[0]))


def test_copy_pickle(device):
    x = ra.asarray([1, 2, 3], device=device)
    y = copy.copy(x)
    y[0] = 9
    assert x.tolist() == [1, 2, 3] and y.tolist() == [9, 2, 3]
    z = pickle.loads(pickle.dumps(x))
    assert z.tolist() == [1, 2, 3]
    with pytest.raises(TypeError):
        hash(x)


def test_direct_construction_refused():
    with pytest.raises(TypeError, match="asarray"):
        ra.Array()


def test_readonly_numpy_input():
    a = np.arange(3)
    a.flags.writeable = False
    x = ra.asarray(a)
    x[0] = 5  # asarray copied the read-only input
    assert a[0] == 0


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_format_as_numpy(device, dtype):
    a = random_array((5, 3), dtype, np.random.default_rng(3))
    x = ra.asarray(a, device=device)
    # a 0-d array formats as its value, with any spec its value takes
    spec = {"b": "", "i": ">6d", "u": "x", "f": ".3f", "c": ".2f"}[np.dtype(dtype).kind]
    assert f"{x[1, 2]:{spec}}" == f"{a[1, 2].item():{spec}}"
    assert f"{x[1, 2]}" == f"{a[1, 2]}"
    assert format(x, "") == format(a, "")
    with pytest.raises(TypeError, match=r"format spec '.3f' given for an array of shape \(5, 3\): only 0-d"):
        format(x, ".3f")


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_contains_as_numpy(device, dtype):
    a = random_array((4, 6), dtype, np.random.default_rng(5))
    x = ra.asarray(a, device=device)
    for v in (a[2, 3].item(), a[0, 0].item(), a.ravel()[-1].item()):
        assert (v in x) is (v in a) is True
    absent = 1000 if np.dtype(dtype).kind in "iuf" else (1000 + 1j if np.dtype(dtype).kind == "c" else None)
    if absent is not None and np.dtype(dtype) not in (np.int8, np.uint8):
        assert (absent in x) is (absent in a) is False


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "uint64", "float32", "float64"])
def test_divmod_as_numpy(device, dtype):
    a = random_array((7, 5), dtype, np.random.default_rng(7))
    b = random_array((5,), dtype, np.random.default_rng(8))
    b[b == 0] = 3
    x, y = ra.asarray(a, device=device), ra.asarray(b, device=device)
    for got, want in ((divmod(x, y), divmod(a, b)), (divmod(x, 3), divmod(a, np.asarray(3, dtype))),
                      (divmod(7, y), divmod(np.asarray(7, dtype), b))):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(ra.asnumpy(g), w)
            assert ra.asnumpy(g).dtype == w.dtype
