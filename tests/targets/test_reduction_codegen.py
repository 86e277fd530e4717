"""Compile-only tests of the reduction and scan kernels for the GPU targets (no GPU needed):
NVPTX entries with barriers and warp shuffles; AMDGPU code objects for gfx90a, gfx942 and
gfx1100 whose kernel metadata (wave size, argument offsets and sizes) matches what the
reduction launcher packs."""

import re

import numpy as np
import pytest

from rocarray._reduction import _packer, _scan_packer
from rocarray._statistical_functions import argmax, sum as rsum
from rocarray.compiler.reduction_abi import record_layout, reduction_param_types, scan_param_types
from rocarray.compiler.abi import DIMS
from rocarray.targets import amdgpu, target_for
from rocarray.targets.codeobject import check_code_object, read_code_object

CASES = [(rsum, "float32"), (rsum, "complex128"), (argmax, "float64"), (rsum, "float16"), (argmax, "int8")]


def _def(op, dtype):
    dt = np.dtype(dtype)
    acc, out = op.dtypes(dt)
    return op.definition(dt, acc, out)


def _layout(types):
    out, pos = [], 0
    for t in types:
        size = 64 if t == DIMS else 8
        out.append((pos, size))
        pos += size
    return out, pos


@pytest.mark.parametrize("op,dtype", CASES, ids=str)
def test_nvptx_entries_barriers_and_shuffles(op, dtype):
    target = target_for("sm_90")
    rdef = _def(op, dtype)
    for spec, entries in ((rdef.spec(), ("", "_c")), (rdef.scan_spec(), ("", "_c", "_s", "_r"))):
        ptx = target.emit_ptx(spec.build_module(target))
        for suffix in entries:
            assert f".entry {spec.entry}{suffix}(" in ptx
        if spec is rdef.spec():
            assert "bar.sync" in ptx or "barrier.sync" in ptx
            assert "shfl.sync.down.b32" in ptx
    # the launcher's packing is the parameter list's natural layout
    assert _packer(1, 1).size == _layout(reduction_param_types(1, 1))[1]
    assert _scan_packer(1, 1).size == _layout(scan_param_types(1, 1))[1]


def _shuffle_kernel(target):
    """A kernel writing, per thread, its value shuffled up by 3 lanes and lane 5's value
    (the wave primitives of the wave scans)."""
    from llvmlite import ir

    i32 = ir.IntType(32)
    module = ir.Module("shuffles")
    module.triple = target.triple
    module.data_layout = target.data_layout
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ir.PointerType(), i32]), "shuffles")
    target.mark_kernel(fn)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    tid = target.emit_global_thread_id(b)
    up = target.emit_shuffle_up(b, b.mul(b.trunc(tid, i32), fn.args[1]), 3)
    five = target.emit_shuffle_index(b, up, 5)
    b.store(five, b.gep(fn.args[0], [tid], source_etype=i32))
    b.ret_void()
    return module


def test_nvptx_shuffle_up_and_index():
    target = target_for("sm_90")
    ptx = target.emit_ptx(_shuffle_kernel(target))
    assert re.search(r"shfl\.sync\.up\.b32\s+%r\d+, %r\d+, 3, 0, -1;", ptx)
    assert re.search(r"shfl\.sync\.idx\.b32\s+%r\d+, %r\d+, 5, 31, -1;", ptx)


def _entry_ptx(ptx, name):
    start = ptx.index(f".entry {name}(")
    return ptx[start:ptx.index("\n}", start)]


@pytest.mark.parametrize("op,dtype", CASES[:4], ids=str)
def test_nvptx_wave_scan(op, dtype):
    """The scan entries' wave mode: per step, log2(32) shuffles up and one shuffle from
    lane 31 (the step's total), each once per 32-bit word of the record, for each of the
    SCAN_UNROLL steps of a trip, and once more for the wave's fold of unscanned chunk
    totals (``MODE_UNSCANNED``), no record in local memory; the scan entry's vector trips
    (real inputs) add per step one more shuffle up (by 1: the lanes below) beside those,
    and load and store whole 16-byte vectors; the reduction entries shuffle down, and take
    a barrier before a block's first thread folds its group record (``MODE_GROUPS``)."""
    from rocarray.compiler.reduction_abi import SCAN_UNROLL

    target = target_for("sm_90")
    rdef = _def(op, dtype)
    spec = rdef.scan_spec()
    ptx = target.emit_ptx(spec.build_module(target))
    _, rec_size = record_layout([d for _, _, d in rdef.fields])
    words = (rec_size + 3) // 4
    vector = np.dtype(dtype).kind != "c"
    for suffix in ("_s", "_r"):
        body = _entry_ptx(ptx, spec.entry + suffix)
        vector_steps = SCAN_UNROLL if vector and suffix == "_s" else 0
        ups = re.findall(r"shfl\.sync\.up\.b32\s+%r\d+, %r\d+, (\d+), 0, -1;", body)
        assert sorted(set(int(d) for d in ups)) == [1, 2, 4, 8, 16]
        assert len(ups) == 5 * words * (SCAN_UNROLL + 1) + 6 * words * vector_steps
        assert len(re.findall(r"shfl\.sync\.idx\.b32\s+%r\d+, %r\d+, 31, 31, -1;", body)) == \
            words * (SCAN_UNROLL + 1 + vector_steps)
        if vector_steps:
            assert re.search(r"ld\.global(\.nc)?\.v[24]\.", body) and re.search(r"st\.global\.v[24]\.", body)
        assert "bar.sync" not in body and "barrier.sync" not in body
        # the records (the carry, the steps', the unscanned totals loaded together) in registers
        assert "ld.local" not in body and "st.local" not in body
    for suffix in ("", "_c"):
        body = _entry_ptx(ptx, spec.entry + suffix)
        assert "shfl.sync.down.b32" in body and ("bar.sync" in body or "barrier.sync" in body)


needs_toolchain = pytest.mark.skipif(
    amdgpu.find_lld() is None or amdgpu.find_device_libs() is None,
    reason="needs ld.lld >= 17 and ROCm device-libs (apt-get install lld-19 rocm-device-libs)",
)


@needs_toolchain
@pytest.mark.parametrize("arch,wave", [("gfx90a", 64), ("gfx942", 64), ("gfx1100", 32)])
@pytest.mark.parametrize("op,dtype", CASES[:3], ids=str)
def test_amdgpu_code_objects(arch, wave, op, dtype):
    target = amdgpu.AMDGPUTarget(arch)
    rdef = _def(op, dtype)
    for spec, param_types in ((rdef.spec(), {"": reduction_param_types(1, 1), "_c": reduction_param_types(1, 1)}),
                              (rdef.scan_spec(), {"": reduction_param_types(1, 1), "_c": reduction_param_types(1, 1),
                                                  "_s": scan_param_types(1, 1), "_r": scan_param_types(1, 1)})):
        hsaco = target.compile(spec.build_module(target))
        assert check_code_object(hsaco, arch, list(spec.entries)) == []
        co = read_code_object(hsaco)
        for suffix, types in param_types.items():
            kernel = co.kernel(spec.entry + suffix)
            assert kernel[".wavefront_size"] == wave
            explicit = [a for a in kernel[".args"] if not a[".value_kind"].startswith("hidden_")]
            expected, size = _layout(types)
            assert [(a[".offset"], a[".size"]) for a in explicit] == expected
            assert kernel[".kernarg_segment_size"] >= size
        if spec is rdef.spec():
            # the block combine keeps one record per wave of the largest block in LDS
            _, rec_size = record_layout([d for _, _, d in rdef.fields])
            lds = (256 // wave) * ((rec_size + 3) // 4) * 4
            assert co.kernel(spec.entry)[".group_segment_fixed_size"] >= lds


@needs_toolchain
@pytest.mark.parametrize("arch,wave", [("gfx90a", 64), ("gfx1100", 32)])
def test_amdgpu_wave_scan(arch, wave):
    """The scan entries' wave mode for wave 64 and wave 32: log2(wave) permutes per step
    and word (the lane masks are the wave's), the step totals read from the last lane."""
    from rocarray.compiler.reduction_abi import SCAN_UNROLL

    target = amdgpu.AMDGPUTarget(arch)
    rdef = _def(rsum, "float32")
    spec = rdef.scan_spec()
    asm = target.emit_assembly(spec.build_module(target))
    for suffix in ("_s", "_r"):
        name = spec.entry + suffix
        body = asm[asm.index(f"{name}:"):asm.index("s_endpgm", asm.index(f"{name}:"))]
        assert body.count("ds_bpermute_b32") >= (wave.bit_length() - 1) * SCAN_UNROLL
        assert f"0x{4 * wave - 4:x}" in body
        last_lane = re.findall(rf"v_readlane_b32\s+s\d+, v\d+, {wave - 1}\b", body)
        assert len(last_lane) + body.count("ds_bpermute_b32") >= (wave.bit_length()) * SCAN_UNROLL
    assert check_code_object(target.compile(spec.build_module(target)), arch, list(spec.entries)) == []


@needs_toolchain
@pytest.mark.parametrize("arch,wave", [("gfx942", 64), ("gfx1100", 32)])
def test_amdgpu_shuffle_up_and_index(arch, wave):
    target = amdgpu.AMDGPUTarget(arch)
    asm = target.emit_assembly(_shuffle_kernel(target))
    # the shuffle up is a ds_bpermute at byte address 4 * ((lane - 3) mod wave); LLVM makes
    # the read of one constant lane a v_readlane (or keeps the permute)
    assert "ds_bpermute_b32" in asm
    assert re.search(r"v_readlane_b32\s+s\d+, v\d+, 5\b", asm) or asm.count("ds_bpermute_b32") == 2
    assert f"0x{4 * wave - 4:x}" in asm or str(4 * wave - 4) in asm
    assert check_code_object(target.compile(_shuffle_kernel(target)), arch, ["shuffles"]) == []


def test_host_reduction_ir_has_no_gpu_calls():
    target = target_for("host")
    text = str(_def(rsum, "float32").spec().build_module(target))
    assert "nvvm" not in text and "amdgcn" not in text
    assert isinstance(target.compile(text), bytes)


def test_every_catalogue_reduction_compiles_for_the_host_at_every_tier():
    """The full tier is compiled in the background, where a failure would only leave the
    slow quick-tier code running: compile every (reduction, dtype) at both tiers here."""
    from conftest import ALL_DTYPES
    from rocarray import _statistical_functions as sf
    from rocarray.targets.host import HostTarget

    full = HostTarget().heavy_tier
    for op in (sf.sum, sf.prod, sf.max, sf.min, sf.all, sf.any, sf.argmax, sf.argmin):
        for dt in ALL_DTYPES:
            dt = np.dtype(dt)
            try:
                acc, out = op.dtypes(dt)
            except TypeError:
                continue
            spec = op.definition(dt, acc, out).spec()
            for target in (full, full.quick_tier):
                assert target.compile(str(spec.build_module(target)))


def _quick_nvptx():
    """The NVPTX quick tier as the launcher gets it (``NVPTXTarget.quick_tier``)."""
    from rocarray.targets.nvptx import NVPTXTarget

    quick = NVPTXTarget("sm_90", assembler="ptx").quick_tier
    assert quick is not None and quick.simple_loops
    return quick


def _l2norm_def(dtype):
    from rocarray._user_kernels import ReductionKernel

    k = ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", name="codegen_l2norm")
    return k._plan((np.dtype(dtype),), ())[0]


@pytest.mark.parametrize("make", [lambda: _def(rsum, "float32"), lambda: _def(argmax, "float64"),
                                  lambda: _def(rsum, "complex64"), lambda: _l2norm_def("float32")],
                         ids=["sum-float32", "argmax-float64", "sum-complex64", "l2norm-float32"])
def test_nvptx_quick_tier_is_small(make, monkeypatch):
    """The quick tier's reduction and scan entries read shapes and strides in the
    parameter space (no ``.local`` copy), divide in 32 bits (no 64-bit ``div``/``rem``,
    long instruction sequences for the driver's JIT), and keep the launcher's parameters."""
    import re

    monkeypatch.delenv("ROCARRAY_TIERED", raising=False)
    target = _quick_nvptx()
    rdef = make()
    for spec, param_types in ((rdef.spec(), {"": reduction_param_types(1, 1), "_c": reduction_param_types(1, 1)}),
                              (rdef.scan_spec(), {"": reduction_param_types(1, 1), "_c": reduction_param_types(1, 1),
                                                  "_s": scan_param_types(1, 1), "_r": scan_param_types(1, 1)})):
        ptx = target.emit_ptx(spec.build_module(target))
        assert ".local" not in ptx
        assert not re.search(r"\b(div|rem)\.[su]64\b", ptx)
        assert "bar.sync" not in ptx and "shfl" not in ptx  # one thread per item
        assert ptx.count("trap;") == len(param_types)  # the 32-bit limit, checked once per entry
        for suffix, types in param_types.items():
            head = re.search(rf"\.entry {spec.entry}{suffix}\((.*?)\)", ptx, re.S)
            assert head is not None
            params = [p.strip() for p in head.group(1).split(",")]
            # eight-byte values, and the shapes and strides as 64 bytes (byval): as packed
            assert [p.startswith(".param .align 8 .b8") and p.endswith("[64]") for p in params] == \
                [t == DIMS for t in types]
            assert all(p.startswith(".param .u64") for p, t in zip(params, types) if t != DIMS)


def _direct_quick_module(rdef, target, scan):
    """The quick tier's module built entry by entry with llvmlite's ``ir`` objects (what
    the text template stands for)."""
    from llvmlite import ir

    spec = rdef.scan_spec() if scan else rdef.spec()
    module = ir.Module(name=spec.entry)
    module.triple, module.data_layout = target.triple, target.data_layout
    assert rdef._build(module, target, spec.entry, scan=scan, template=False) is None
    return spec, str(module)


def _quick_targets():
    out = [pytest.param("host", id="host"), pytest.param("sm_90", id="sm_90")]
    for arch in ("gfx942", "gfx1100"):
        out.append(pytest.param(arch, id=arch, marks=needs_toolchain))
    return out


@pytest.mark.parametrize("name", _quick_targets())
def test_quick_tier_text_template_compiles_as_the_direct_build(name):
    """The quick tier's reduction and scan entries come from a text template per target,
    kind, operand counts and accumulator record; what they compile to is what building
    them with ``ir`` objects gives (float and unsigned records sharing a template with the
    signed ones included), and a new input dtype with a known record builds no template."""
    from rocarray.compiler import reduction as red
    from rocarray._statistical_functions import max as rmax, prod

    target = target_for(name).quick_tier
    assert target is not None and target.simple_loops

    def image(text):
        return target.emit_ptx(text).encode() if name.startswith("sm_") else target.compile(text)

    for op, dtype, scan in ((rsum, "int16", False), (rsum, "uint8", False), (argmax, "float64", False),
                            (prod, "complex64", True), (rmax, "float16", False), (rsum, "uint32", True)):
        rdef = _def(op, dtype)
        spec, direct = _direct_quick_module(rdef, target, scan)
        text = spec.build_module(target)
        assert isinstance(text, str)
        assert image(text) == image(direct), (op, dtype, scan)
    before = red._quick_template.cache_info().misses
    _def(rsum, "int8").spec().build_module(target)  # int64 record, as sum(int16)
    assert red._quick_template.cache_info().misses == before
