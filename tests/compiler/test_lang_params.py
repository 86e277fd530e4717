"""Parameter lists, type names and placeholder binding of the kernel language."""

import numpy as np
import pytest

from rocarray.compiler.lang import (KernelError, KernelSyntaxError, KernelTypeError, Param,
                                    bind_placeholders, parse_params, resolve_type_name)


def test_parse_params_cupy_syntax():
    ps = parse_params("T x, raw float32 y, int32 n")
    assert ps == (Param("x", "T", False, True), Param("y", "float32", True, False),
                  Param("n", "int32", False, False))
    assert parse_params("") == ()
    assert parse_params("  ") == ()


def test_parse_params_c_type_names():
    ps = parse_params("unsigned int a, long long b, complex<float> c, raw thrust::complex<double> d,"
                      " size_t e, float f, double g, half h, bool k, unsigned char m")
    assert [p.type_name for p in ps] == ["unsigned int", "long long", "complex<float>",
                                        "thrust::complex<double>", "size_t", "float", "double",
                                        "half", "bool", "unsigned char"]
    assert not any(p.is_placeholder for p in ps)
    assert ps[3].raw


@pytest.mark.parametrize("text", ["T x, U x", "float", "raw x", "float 1x", "T x,, U y",
                                  "unsigned foo x", "int i", "float float", "T x, raw"])
def test_parse_params_errors(text):
    with pytest.raises(KernelSyntaxError) as e:
        parse_params(text)
    assert e.value.line == 1 and e.value.column >= 1


def test_duplicate_param_column():
    with pytest.raises(KernelSyntaxError, match="duplicate parameter name 'x'") as e:
        parse_params("T x, U x")
    assert e.value.column == 8


@pytest.mark.parametrize("name,dtype", [
    ("bool", "bool"), ("int8", "int8"), ("uint64", "uint64"), ("float16", "float16"),
    ("float32", "float32"), ("float64", "float64"), ("complex64", "complex64"),
    ("complex128", "complex128"), ("float", "float32"), ("double", "float64"),
    ("half", "float16"), ("int", "int32"), ("long", "int64"), ("long long", "int64"),
    ("unsigned int", "uint32"), ("unsigned", "uint32"), ("unsigned char", "uint8"),
    ("signed char", "int8"), ("char", "int8"), ("short", "int16"),
    ("unsigned short", "uint16"), ("size_t", "uint64"), ("ptrdiff_t", "int64"),
    ("long int", "int64"), ("unsigned long long", "uint64"), ("long  long  int", "int64"),
    ("complex<float>", "complex64"), ("complex<double>", "complex128"),
    ("thrust::complex<float>", "complex64"), ("std::complex<double>", "complex128"),
    ("int32_t", "int32"), ("uint8_t", "uint8"),
])
def test_resolve_type_name(name, dtype):
    assert resolve_type_name(name) == np.dtype(dtype)


def test_resolve_placeholder_and_bad_names():
    assert resolve_type_name("T") is None
    assert resolve_type_name("in0_type") is None
    for bad in ("unsigned float", "complex<int>", "long long long", "1abc", "float*"):
        with pytest.raises(KernelSyntaxError):
            resolve_type_name(bad)


def test_bind_placeholders():
    ps = parse_params("T x, T y, U z, float32 w")
    assert bind_placeholders(ps, [np.float32, np.float32, np.int64, np.float64]) == {
        "T": np.dtype(np.float32), "U": np.dtype(np.int64)}
    assert bind_placeholders(ps, {"x": "float64"}) == {"T": np.dtype(np.float64)}
    assert bind_placeholders(ps, [None, np.int8]) == {"T": np.dtype(np.int8)}
    with pytest.raises(KernelTypeError) as e:
        bind_placeholders(ps, [np.float32, np.int64])
    assert "type placeholder 'T' bound to both float32 and int64" in str(e.value)
    assert isinstance(e.value, TypeError) and isinstance(e.value, KernelError)
    assert isinstance(e.value, ValueError)
