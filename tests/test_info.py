import pytest

import rocarray as ra


def test_namespace_info():
    info = ra.__array_namespace_info__()
    caps = info.capabilities()
    assert caps["boolean indexing"] is False and caps["data-dependent shapes"] is False
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
