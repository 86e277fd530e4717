"""The launcher's packed argument buffer against the AMDGPU code object's own metadata.

For catalogue kernels built for gfx targets, every argument the metadata lists
(``.offset``, ``.size``) must hold, in the buffer ``rocarray._launch`` packs, exactly the
value the launcher meant for that parameter.  This is what lets one launcher serve HIP
without an AMD GPU to run on.
"""

import struct

import numpy as np
import pytest

from rocarray._elementwise import Ufunc, elementwise_spec
from rocarray._elementwise_functions import _rows
from rocarray._launch import pack_format
from rocarray.compiler.abi import kernel_param_types
from rocarray.targets import amdgpu
from rocarray.targets.codeobject import read_code_object
from rocarray.targets.base import MAX_DIMS

pytestmark = pytest.mark.skipif(
    amdgpu.find_lld() is None or amdgpu.find_device_libs() is None,
    reason="needs ld.lld >= 17 and ROCm device-libs (apt-get install lld-19 rocm-device-libs)",
)


def _spec(op, dtypes, kinds):
    u = Ufunc(_rows[op])
    tokens = tuple(np.dtype(d) if k == "a" else {"f": float, "i": int, "c": complex}[np.dtype(d).kind]
                   for d, k in zip(dtypes, kinds))
    loop_in, loop_out, out_storage, body = u.resolve(tokens)
    storage = tuple(np.dtype(d) if k == "a" else lt for d, k, lt in zip(dtypes, kinds, loop_in))
    return elementwise_spec(op, body, storage, kinds, loop_in, out_storage, loop_out)


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx1100"])
@pytest.mark.parametrize("op,dtypes,kinds", [
    ("add", ("int8", "int8"), ("a", "a")),
    ("multiply", ("float32", "float32"), ("a", "s")),      # a scalar passed by value
    ("hypot", ("float64", "float64"), ("a", "a")),         # ocml
    ("add", ("complex64", "complex64"), ("a", "s")),       # a complex scalar by value
    ("where", ("bool", "float16", "float16"), ("a", "a", "a")),
])
@pytest.mark.parametrize("tier", ["full", "quick"])
def test_metadata_matches_packing(arch, op, dtypes, kinds, tier):
    spec = _spec(op, dtypes, kinds)
    target = amdgpu.AMDGPUTarget(arch)
    if tier == "quick":  # what quick_tier returns: simple loop, light pipeline, codegen O0
        target = amdgpu.AMDGPUTarget(arch, opt_level=0)
        target.simple_loops = True
    co = read_code_object(target.compile(spec.build_module(target)))
    kernel = co.kernel(spec.entry)
    assert kernel is not None, [k.get(".name") for k in co.kernels]
    # hidden arguments (the quick tier's O0 code lists them, as clang -O0 does) follow the
    # explicit ones; the HIP runtime fills them in
    args = [a for a in kernel[".args"] if not a[".value_kind"].startswith("hidden_")]
    assert kernel[".args"][:len(args)] == args
    types = kernel_param_types(spec.operands)
    assert len(args) == len(types)
    packer = pack_format(spec.operands)
    # distinctive values for every packed field, in order
    values, k = [], 1
    fmt = packer.format.lstrip("<")
    # expand counts like "8q" into single fields
    fields, num = [], ""
    for ch in fmt:
        if ch.isdigit():
            num += ch
            continue
        fields.extend([ch] * (int(num) if num else 1))
        num = ""
    for ch in fields:
        if ch == "x":
            continue
        if ch in "fde":
            values.append(float(k))
        elif ch == "?":
            values.append(True)
        else:
            values.append(k)
        k += 1
    buf = bytearray(packer.size)
    packer.pack_into(buf, 0, *values)
    assert kernel[".kernarg_segment_size"] >= args[-1][".offset"] + args[-1][".size"]
    assert packer.size == args[-1][".offset"] + args[-1][".size"]
    # each metadata argument's bytes hold the launcher's value for that parameter
    it = iter(values)
    for arg, ty in zip(args, types):
        raw = bytes(buf[arg[".offset"]:arg[".offset"] + arg[".size"]])
        if str(ty).startswith("["):  # [MAX_DIMS x i64]
            expect = [next(it) for _ in range(MAX_DIMS)]
            assert list(struct.unpack(f"<{MAX_DIMS}q", raw)) == expect
        elif str(ty).startswith("{"):  # complex scalar: two floats
            re_, im_ = next(it), next(it)
            size = arg[".size"] // 2
            assert struct.unpack("<ff" if size == 4 else "<dd", raw) == (re_, im_)
        else:
            v = next(it)
            code = {1: "<b", 2: "<h", 4: "<i", 8: "<q"}[arg[".size"]]
            if isinstance(v, float):
                code = {2: "<e", 4: "<f", 8: "<d"}[arg[".size"]]
            assert struct.unpack(code, raw)[0] == v, (arg, ty)
