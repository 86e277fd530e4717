"""Compile-only tests: the kernel language's complex functions (prelude.rk) and the catalogue's
complex bodies build for NVIDIA (sm_90) and AMD (gfx942) GPUs from the same source as for the
host.  They need no GPU; they need libdevice, or ROCm device-libs and ld.lld, as the other
target tests do."""

from __future__ import annotations

import numpy as np
import pytest

from _abi_kernels import catalogue_module
from rocarray._elementwise import elementwise_spec
from rocarray.targets.amdgpu import AMDGPUTarget, find_device_libs, find_lld
from rocarray.targets.codeobject import check_code_object
from rocarray.targets.nvptx import NVPTXTarget, find_libdevice

FUNCTIONS = ("exp expm1 log log1p log2 log10 sqrt sin cos tan sinh cosh tanh asin acos atan "
             "asinh acosh atanh").split()
#: every prelude function, the complex product and quotient (prelude too) and abs
BODY = ("out0 = " + " + ".join(f"{f}(in0)" for f in FUNCTIONS)
        + " + pow(in0, in1) + in0 * in1 + in0 / in1 + (rtype)1 / in1 + (rtype)abs(in0);")
#: catalogue ops whose complex loops have bodies of their own
CATALOGUE = ("sign", "square", "reciprocal", "divide", "multiply", "pow")
CPLX = ["complex64", "complex128"]

needs_libdevice = pytest.mark.skipif(
    find_libdevice() is None,
    reason="libdevice.10.bc not found: install the CUDA toolkit (set CUDA_HOME) or pip install nvidia-nvvm",
)
needs_rocm = pytest.mark.skipif(
    find_device_libs() is None or find_lld() is None,
    reason="ROCm device-libs (apt-get install rocm-device-libs) and ld.lld >= 17 (lld-19 or "
           "pip install ziglang) are needed",
)


def _all_functions_module(target, dtype):
    d = np.dtype(dtype)
    spec = elementwise_spec("complex_prelude", BODY, (d, d), ("a", "a"), (d, d), d, d)
    return spec.entry, spec.build_module(target)


@needs_libdevice
@pytest.mark.parametrize("dtype", CPLX)
def test_prelude_builds_for_nvptx(dtype):
    # the quick tier (light pipeline): the full one's instruction selection is the same,
    # and test_nvptx.py runs it on catalogue kernels
    target = NVPTXTarget("sm_90").quick_tier or NVPTXTarget("sm_90")
    entry, module = _all_functions_module(target, dtype)
    ptx = target.emit_ptx(module)
    assert f".entry {entry}(" in ptx
    assert "sin.approx" not in ptx and "lg2.approx" not in ptx   # libdevice's accurate math
    for op in CATALOGUE:
        name, text = catalogue_module(target, op, dtype)
        assert f".entry {name}(" in target.emit_ptx(text), op


@needs_rocm
@pytest.mark.parametrize("dtype", CPLX)
def test_prelude_builds_for_amdgpu(dtype):
    target = AMDGPUTarget("gfx942").quick_tier
    entry, module = _all_functions_module(target, dtype)
    hsaco = target.compile(module)
    assert check_code_object(hsaco, "gfx942", [entry]) == []
    for op in CATALOGUE:
        name, text = catalogue_module(target, op, dtype)
        assert check_code_object(target.compile(text), "gfx942", [name]) == [], op
