"""Shared fixtures: every test that takes ``device`` runs on each device present.

Set ROCARRAY_TEST_DEVICES (e.g. "cuda:0") to restrict the list.
"""

import os

import numpy as np
import pytest

# Verify every module LLVM compiles, the quick tier's too (it skips the verifier outside
# the tests: its IR is rocarray's own, and these tests are what checks it).
os.environ.setdefault("ROCARRAY_VERIFY_IR", "1")

import rocarray as ra  # noqa: E402

ALL_DTYPES = [
    ra.bool, ra.int8, ra.int16, ra.int32, ra.int64, ra.uint8, ra.uint16, ra.uint32, ra.uint64,
    ra.float16, ra.float32, ra.float64, ra.complex64, ra.complex128,
]
NUMERIC_DTYPES = ALL_DTYPES[1:]


def _devices():
    chosen = ra._settings.TEST_DEVICES.get()
    if chosen:
        return [ra.Device(s) for s in chosen]
    return ra.available_devices()


DEVICES = _devices()


@pytest.fixture(params=DEVICES, ids=str)
def device(request):
    return request.param


_DIRECT_LLVM = (os.sep + os.path.join("tests", "compiler") + os.sep,
                os.sep + os.path.join("tests", "targets") + os.sep)


@pytest.fixture(autouse=True)
def _no_tier_up_running(request):
    """The tests of tests/compiler and tests/targets drive LLVM through llvmlite directly
    (parse, optimise, emit, MCJIT) as well as through rocarray.  LLVM's global context is
    not thread safe, and rocarray's tier-up worker may still be compiling a kernel that an
    earlier test made hot, under ``LLVM_LOCK``, which a direct llvmlite call does not
    take: those tests start once the worker is idle (an LLVM call racing it crashed the
    whole run on the H200 host)."""
    if any(d in str(request.node.path) for d in _DIRECT_LLVM):
        from rocarray.compiler.cache import drain_background

        drain_background()
    yield


def random_array(shape, dtype, rng=None, *, low=-100, high=100):
    """Random data of ``dtype`` (never all zeros) as a NumPy array."""
    rng = rng if rng is not None else np.random.default_rng(1234)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind == "u":
        hi = min(high, np.iinfo(dtype).max)
        return rng.integers(0, hi, size=shape, endpoint=True).astype(dtype)
    if dtype.kind == "i":
        info = np.iinfo(dtype)
        return rng.integers(max(low, info.min), min(high, info.max), size=shape, endpoint=True).astype(dtype)
    if dtype.kind == "f":
        return (rng.uniform(low, high, size=shape)).astype(dtype)
    re = rng.uniform(low, high, size=shape)
    im = rng.uniform(low, high, size=shape)
    return (re + 1j * im).astype(dtype)


def gpu_devices(kind):
    return [d for d in DEVICES if d.kind == kind]


requires_cuda = pytest.mark.skipif(
    not gpu_devices("cuda"), reason="needs an NVIDIA GPU with the CUDA driver (cuda-bindings)"
)
requires_hip = pytest.mark.skipif(
    not gpu_devices("hip"), reason="needs an AMD GPU with ROCm (hip-python)"
)
