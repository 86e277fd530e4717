import itertools

import array_api_strict as xps
import numpy as np
import pytest

import rocarray as ra
from conftest import ALL_DTYPES


def _strict(d):
    return getattr(xps, str(d))


def _in_spec_table(a, b):
    """Whether the standard's promotion table defines the pair (array-api-strict has no float16)."""
    if not (hasattr(xps, str(a)) and hasattr(xps, str(b))):
        return False
    try:
        xps.result_type(_strict(a), _strict(b))
    except TypeError:
        return False
    return True


@pytest.mark.parametrize("a,b", list(itertools.product(ALL_DTYPES, repeat=2)), ids=str)
def test_result_type_pairs(a, b):
    if _in_spec_table(a, b):
        assert ra.result_type(a, b) == xps.result_type(_strict(a), _strict(b))._np_dtype
    else:
        # The standard leaves this pair open: rocarray follows NumPy.
        assert ra.result_type(a, b) == np.promote_types(a, b)


@pytest.mark.parametrize("a,b", list(itertools.product(ALL_DTYPES, repeat=2)), ids=str)
def test_can_cast_pairs(a, b):
    if _in_spec_table(a, b):
        assert ra.can_cast(a, b) == xps.can_cast(_strict(a), _strict(b))
    else:
        # Across kinds the standard says nothing: rocarray follows NumPy's safe casting.
        assert ra.can_cast(a, b) == np.can_cast(a, b, casting="safe")


def test_dtypes_are_numpy_dtypes():
    assert ra.float32 == np.float32
    assert ra.float32 is np.dtype("float32")
    assert ra.asarray([1.0], dtype=np.float32).dtype is ra.float32
    assert {ra.int8: 1}[np.dtype("int8")] == 1


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("kind,value", [(bool, True), (int, 3), (float, 2.5), (complex, 1j)])
def test_result_type_with_python_scalars(dtype, kind, value):
    r = ra.result_type(dtype, value)
    # NumPy 2 (NEP 50) treats Python scalars as weak, like the standard
    assert r == np.result_type(np.empty(0, dtype), value)


def test_result_type_many_and_arrays():
    x = ra.asarray([1, 2], dtype=ra.int8)
    assert ra.result_type(x, ra.int16, ra.float32) == ra.float32
    assert ra.result_type(ra.uint64, ra.int64) == ra.float64  # NumPy's rule, documented
    with pytest.raises(TypeError, match="Python scalars alone"):  # (xarray expects a TypeError)
        ra.result_type(1, 2.0)
    with pytest.raises(ValueError, match="at least one"):
        ra.result_type()


def test_isdtype():
    assert ra.isdtype(ra.float32, "real floating")
    assert ra.isdtype(ra.complex64, ("integral", "complex floating"))
    assert not ra.isdtype(ra.uint8, "signed integer")
    assert ra.isdtype(ra.int64, ra.int64)
    assert ra.isdtype(ra.bool, "bool") and not ra.isdtype(ra.bool, "numeric")
    with pytest.raises(ValueError, match="unknown kind"):
        ra.isdtype(ra.float32, "floaty")
    with pytest.raises(TypeError):
        ra.isdtype("float32", "numeric")


@pytest.mark.parametrize("dtype", [ra.float16, ra.float32, ra.float64, ra.complex64, ra.complex128], ids=str)
def test_finfo(dtype):
    f = ra.finfo(dtype)
    n = np.finfo(dtype)
    assert (f.bits, f.eps, f.max, f.min, f.smallest_normal) == (
        n.bits, float(n.eps), float(n.max), float(n.min), float(n.smallest_normal))
    assert f.dtype == n.dtype
    assert ra.finfo(ra.ones(2, dtype=dtype)).bits == n.bits


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind in "iu"], ids=str)
def test_iinfo(dtype):
    i = ra.iinfo(dtype)
    n = np.iinfo(dtype)
    assert (i.bits, i.max, i.min, i.dtype) == (n.bits, n.max, n.min, dtype)


def test_info_errors():
    with pytest.raises(TypeError, match="not a floating-point dtype"):
        ra.finfo(ra.int32)
    with pytest.raises(TypeError, match="not an integer dtype"):
        ra.iinfo(ra.float32)


def test_unknown_dtype():
    with pytest.raises(TypeError, match="not a data type"):
        ra.zeros(3, dtype="floaty")
    with pytest.raises(TypeError, match="not supported by rocarray"):
        ra.zeros(3, dtype="U5")
    with pytest.raises(TypeError, match="not supported by rocarray"):
        ra.asarray(np.array(["a"]))
    assert ra.zeros(2, dtype=">f4").dtype == ra.float32
    assert ra.zeros(2, dtype=float).dtype == ra.float64
    assert ra.zeros(2, dtype=int).dtype == ra.int64
