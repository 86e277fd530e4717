import subprocess
import sys

import numpy as np
import pytest

import rocarray as ra


def test_namespace_info():
    info = ra.__array_namespace_info__()
    caps = info.capabilities()
    assert caps == {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": None}
    assert info.default_device() is ra.default_device()
    assert info.default_dtypes() == {"real floating": ra.float64, "complex floating": ra.complex128,
                                     "integral": ra.int64, "indexing": ra.int64}
    assert list(info.dtypes(kind="unsigned integer")) == ["uint8", "uint16", "uint32", "uint64"]
    assert set(info.dtypes(kind=("bool", "complex floating"))) == {"bool", "complex64", "complex128"}
    assert len(info.dtypes()) == 13 and "float16" not in info.dtypes()  # the standard's dtypes
    assert ra.Device("cpu") in info.devices()
    with pytest.raises(ValueError, match="unknown kind"):
        info.dtypes(kind="floaty")
    with pytest.raises(ValueError, match="device"):
        info.dtypes(device="tpu")


def test_capabilities_say_what_works(device):
    # each capability claimed is exercised here, against NumPy
    rng = np.random.default_rng(2)
    a = rng.integers(-3, 4, (3, 4, 5))
    x = ra.asarray(a, device=device)
    caps = ra.__array_namespace_info__().capabilities()
    assert caps["boolean indexing"]
    m = a > 0
    np.testing.assert_array_equal(x[ra.asarray(m, device=device)].get(), a[m])
    np.testing.assert_array_equal(x[..., ra.asarray(m[0, 0], device=device)].get(), a[..., m[0, 0]])
    np.testing.assert_array_equal(x[1, ra.asarray(m[1, :, 0], device=device)].get(), a[1, m[1, :, 0]])
    np.testing.assert_array_equal(x[ra.asarray(np.array(False), device=device)].get(), a[np.array(False)])
    y, b = ra.asarray(a.copy(), device=device), a.copy()  # (a copy: the CPU wraps NumPy memory)
    y[ra.asarray(m, device=device)] = 9
    b[m] = 9
    np.testing.assert_array_equal(y.get(), b)
    assert caps["data-dependent shapes"]
    for got, want in zip(ra.nonzero(x), np.nonzero(a)):
        np.testing.assert_array_equal(got.get(), want)
    for got, want in zip(ra.unique_all(x), np.unique_all(a)):
        np.testing.assert_array_equal(got.get(), want)
    np.testing.assert_array_equal(np.sort(ra.unique_values(x).get()), np.unique(a))  # (any order)
    for got, want in zip(ra.unique_counts(x), np.unique_counts(a)):
        np.testing.assert_array_equal(got.get(), want)
    for got, want in zip(ra.unique_inverse(x), np.unique_inverse(a)):
        np.testing.assert_array_equal(got.get(), want)
    r = np.array([1, 0, 3, 2, 0])
    np.testing.assert_array_equal(ra.repeat(x[0, 0], ra.asarray(r, device=device)).get(), np.repeat(a[0, 0], r))
    assert caps["max dimensions"] is None
    shape = (2,) + (1,) * 38 + (3,) + (1,) * 39 + (2,)  # 80 dimensions, past NumPy's 64
    z = ra.ones(shape, dtype=ra.int8, device=device)
    w = z + ra.reshape(ra.arange(12, dtype=ra.int8, device=device), shape)
    assert w.ndim == 80 and int(ra.sum(w)) == 12 + 66
    assert ra.sum(w, axis=(0, 79)).shape == (1,) * 38 + (3,) + (1,) * 39
    np.testing.assert_array_equal(ra.reshape(w, (-1,)).get(), np.arange(1, 13))


def test_rocarray_cache_after_a_plain_import():
    # the README's rocarray.cache.info(), with no import of rocarray.cache first; and the
    # plain import does not load it (its first use does)
    code = ("import sys, rocarray as ra; assert 'rocarray.cache' not in sys.modules; "
            "i = ra.cache.info(); assert 'compiled' in i and 'directory' in i; "
            "assert ra.cache is sys.modules['rocarray.cache']; print('ok')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]
    with pytest.raises(AttributeError, match="module 'rocarray' has no attribute 'no_such_name'"):
        ra.no_such_name
