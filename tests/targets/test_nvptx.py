"""Compile-only tests of the NVPTX target: IR -> PTX (libdevice linked) -> cubin.

They need no GPU.  Math tests need libdevice (the CUDA toolkit or the nvidia-cuda-nvcc
wheel); cubin tests need nvJitLink (cuda-bindings + nvidia-nvjitlink) or ptxas.
"""

from __future__ import annotations

import re

import pytest
from llvmlite import ir

from _abi_kernels import (F32, F64, SIGNATURES, build_kernel, catalogue_module, natural_layout, signature_kernel,
                          unary_math)
from rocarray.targets.base import MATH_FUNCTIONS
from rocarray.targets.codeobject import EM_CUDA, ElfFile
from rocarray.targets.nvptx import (
    NVPTXTarget,
    ToolchainError,
    find_libdevice,
    find_ptxas,
    toolchain_info,
)
from rocarray.targets import nvptx

needs_libdevice = pytest.mark.skipif(
    find_libdevice() is None,
    reason="libdevice.10.bc not found: install the CUDA toolkit (set CUDA_HOME) or pip install nvidia-nvvm",
)


@pytest.fixture(scope="module")
def target():
    return NVPTXTarget("sm_90")


def entry_params(ptx: str, name: str) -> list[tuple[int, int]]:
    """(size, alignment) of each ``.param`` of kernel ``name`` in ``ptx``."""
    head = ptx.split(f".entry {name}(", 1)[1].split(")", 1)[0]
    params = []
    for line in head.split(","):
        line = line.strip()
        array = re.search(r"\.align (\d+) \.b8 \S+\[(\d+)\]", line)
        if array:
            params.append((int(array.group(2)), int(array.group(1))))
            continue
        scalar = re.search(r"\.[busf](8|16|32|64)\b", line)
        assert scalar, f"unrecognised parameter {line!r}"
        size = int(scalar.group(1)) // 8
        params.append((size, size))
    return params


def layout_of(params):
    out, offset = [], 0
    for size, align in params:
        offset = (offset + align - 1) // align * align
        out.append((offset, size))
        offset += size
    return out, offset


# -- IR-level facts ----------------------------------------------------------------------


def test_target_facts(target):
    assert target.name == "sm_90" and target.cpu == "sm_90"
    assert target.triple == "nvptx64-nvidia-cuda"
    assert target.wave_size == 32 and target.is_gpu
    assert target.data_layout.startswith("e-")
    with pytest.raises(ValueError, match="sm_90"):
        NVPTXTarget("gfx942")


@pytest.mark.parametrize("ty", [F32, F64], ids=["f32", "f64"])
def test_math_function_names(target, ty):
    m = ir.Module()
    suffix = "f" if ty == F32 else ""
    width = "f32" if ty == F32 else "f64"
    for fn, arity in MATH_FUNCTIONS.items():
        f = target.math_function(m, fn, ty)
        assert len(f.args) == arity and f.ftype.return_type == ty
        if fn in ("floor", "sqrt", "fabs"):
            assert f.name == f"llvm.{fn}.{width}"
        if fn in ("exp", "log1p", "atan2", "pow", "sin"):
            assert f.name == f"__nv_{fn}{suffix}"
    assert target.math_function(m, "exp", ty) is target.math_function(m, "exp", ty)
    with pytest.raises(ValueError):
        target.math_function(m, "frobnicate", ty)
    with pytest.raises(TypeError):
        target.math_function(m, "exp", ir.IntType(32))


def test_thread_index_is_i64_from_sregs(target):
    module, _, _ = signature_kernel(target, "add_i64")
    text = str(module)
    for reg in ("tid.x", "ntid.x", "ctaid.x", "nctaid.x"):
        assert f"@\"llvm.nvvm.read.ptx.sreg.{reg}\"()" in text
    assert "zext i32" in text and "to i64" in text
    assert 'define ptx_kernel void @"add_i64"' in text
    assert '"nvvm.maxntid"="256"' in text


# -- PTX ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["add_i64", "axpy_f32", "cmul_c128"])
def test_ptx_entry_and_abi_layout(target, name):
    module, inputs, outputs = signature_kernel(target, name)
    ptx = target.emit_ptx(module)
    assert re.search(r"^\.version \d+\.\d+", ptx, re.M)
    assert re.search(r"^\.target sm_90\b", ptx, re.M)
    assert ".address_size 64" in ptx
    assert f".visible .entry {name}(" in ptx
    assert re.search(r"\.maxntid 256", ptx)
    # one .param per ABI field, laid out with natural alignment
    expected, size = natural_layout(inputs, outputs)
    got, got_size = layout_of(entry_params(ptx, name))
    assert got == expected and got_size == size


@needs_libdevice
@pytest.mark.parametrize("name", ["math_f32", "math_f64", "cexp_c128"])
def test_libdevice_linked_and_inlined(target, name):
    module, _, _ = signature_kernel(target, name)
    assert "__nv_" in str(module)
    ptx = target.emit_ptx(module)
    assert f".visible .entry {name}(" in ptx
    assert ".extern .func" not in ptx
    assert "__nv_" not in ptx and "__nvvm_reflect" not in ptx
    # what is left as a call (libdevice keeps its slow trig reduction out of line) must be
    # defined in the PTX itself
    called = set(re.findall(r"^\s*call(?:\.uni)?\s+(?:\([^)]*\),\s*)?([\w$]+)", ptx, re.M))
    defined = set(re.findall(r"^\.(?:visible|weak)?\s*\.func\s+(?:\([^)]*\)\s*)?([\w$]+)\(", ptx, re.M))
    defined |= set(re.findall(r"^\.func\s+(?:\([^)]*\)\s*)?([\w$]+)\(", ptx, re.M))
    assert called <= defined, f"calls to undefined functions: {called - defined}"
    if name == "math_f32":
        assert not called, "libdevice f32 calls were not inlined"


@needs_libdevice
def test_libdevice_slices_are_kept_on_disk(tmp_path, monkeypatch):
    """A later process (here: a fresh library object over a fresh compile cache on the same
    directory) links the slices the disk cache holds without parsing libdevice, and gets the
    same PTX; a corrupt slice entry is cut again, an unknown function stays unknown."""
    from rocarray.compiler import cache as cache_mod
    from rocarray.compiler.diskcache import DiskCache
    from rocarray.targets import base

    def fresh_cache():
        monkeypatch.setattr(cache_mod, "_default", cache_mod.CompileCache(DiskCache(tmp_path)))
        monkeypatch.setattr(nvptx, "_libraries", {})

    target = NVPTXTarget("sm_90")
    fresh_cache()
    module, _, _ = signature_kernel(target, "math_f64")
    first = target.emit_ptx(str(module))
    entries = sorted(p.name for p in tmp_path.iterdir())
    assert entries, "no slice was written"

    fresh_cache()
    parse = base.llvm_binding().parse_bitcode
    whole = []

    def spy(blob):
        if len(blob) > 200_000:  # the whole library, not a slice
            whole.append(len(blob))
        return parse(blob)

    monkeypatch.setattr(base.llvm_binding(), "parse_bitcode", spy)
    assert target.emit_ptx(str(module)) == first
    assert not whole, "libdevice was parsed although its slices were on disk"

    for p in tmp_path.iterdir():  # damage every entry: each is cut again, same PTX
        p.write_bytes(p.read_bytes()[:-7] + b"garbage")
    fresh_cache()
    assert target.emit_ptx(str(module)) == first
    assert whole, "damaged slices were used instead of cut again"

    lib = nvptx._libdevice(find_libdevice())
    lib.link_into(base.llvm_binding().parse_assembly(""), ["__nv_no_such_function"], target.target_machine)
    assert lib._slices["__nv_no_such_function"] is None


def test_readonly_inputs_use_the_nc_path():
    # LLVM's full pipeline proves the inputs read-only and emits the non-coherent loads;
    # the default light pipeline leaves that to the PTX assembler.
    target = NVPTXTarget("sm_90", opt_level=3)
    module, _, _ = signature_kernel(target, "axpy_f32")
    ptx = target.emit_ptx(module)
    assert "ld.global.nc.b32" in ptx or "ld.global.nc.f32" in ptx


@needs_libdevice
def test_hypotf_uses_correctly_rounded_sqrt(target):
    module = build_kernel(target, "hyp", [("array", F32), ("array", F32)], [F32],
                          lambda b, m, v: [b.call(target.math_function(m, "hypot", F32), v)])
    ptx = target.emit_ptx(module)
    assert "sqrt.approx" not in ptx


@needs_libdevice
def test_denormals_are_kept(target):
    # nvvm-reflect-ftz = 0: libdevice takes its non-flushing paths
    module = build_kernel(target, "lg", [("array", F32)], [F32], unary_math(target, "log", F32))
    ptx = target.emit_ptx(module)
    assert not re.search(r"\b(add|mul|fma\.rn)\.ftz\.f32", ptx)


def test_module_text_input(target):
    module, _, _ = signature_kernel(target, "add_i64")
    assert ".entry add_i64(" in target.emit_ptx(str(module))


def test_errors_name_the_problem(target):
    m = ir.Module()
    m.triple = target.triple
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), []), "plain")
    fn.append_basic_block()
    ir.IRBuilder(fn.blocks[0]).ret_void()
    with pytest.raises(ValueError, match="no ptx_kernel"):
        target.emit_ptx(m)
    bad = build_kernel(target, "bad", [("array", F32)], [F32],
                       lambda b, mod, v: [b.call(ir.Function(mod, ir.FunctionType(F32, [F32]), "mystery"), v)])
    with pytest.raises(ToolchainError, match="mystery"):
        target.emit_ptx(bad)
    host = build_kernel(target, "elsewhere", [("array", F32)], [F32], lambda b, mod, v: v)
    host.triple = "x86_64-unknown-linux-gnu"
    with pytest.raises(ValueError, match="x86_64"):
        target.emit_ptx(host)


# -- cubin -------------------------------------------------------------------------------


def _assemblers():
    out = []
    for kind in ("nvjitlink", "ptxas"):
        if kind == "nvjitlink":
            usable = nvptx._nvjitlink() is not None
            reason = "nvJitLink not usable: pip install cuda-bindings nvidia-nvjitlink"
        else:
            usable = find_ptxas() is not None
            reason = "ptxas not found: install the CUDA toolkit or set ROCARRAY_PTXAS"
        out.append(pytest.param(kind, marks=pytest.mark.skipif(not usable, reason=reason)))
    return out


@pytest.mark.parametrize("assembler", _assemblers())
@pytest.mark.parametrize("name", ["add_i64", "math_f32", "cmul_c128"])
def test_cubin_is_a_cuda_elf(assembler, name):
    if name.startswith("math") and find_libdevice() is None:
        pytest.skip("libdevice.10.bc not found")
    target = NVPTXTarget("sm_90", assembler=assembler)
    assert target.binary_kind == "cubin"
    module, _, _ = signature_kernel(target, name)
    cubin = target.compile(module)
    elf = ElfFile(cubin)
    assert elf.machine == EM_CUDA
    assert name in {s.name for s in elf.symbols()}
    assert target.assembler[0] == assembler


def test_ptx_fallback():
    target = NVPTXTarget("sm_90", assembler="ptx")
    assert target.binary_kind == "ptx"
    module, _, _ = signature_kernel(target, "add_i64")
    data = target.compile(module)
    assert data.endswith(b"\0") and b".entry add_i64(" in data


def test_assembler_choice_is_checked():
    with pytest.raises(ValueError, match="assembler"):
        NVPTXTarget("sm_90", assembler="nvcc")


def test_cache_key_names_arch_and_assembler(target):
    key = target.cache_key()
    assert "sm_90" in key and target.assembler in key
    assert NVPTXTarget("sm_80").cache_key() != key


def test_toolchain_info():
    info = toolchain_info()
    assert info["llvm"].startswith("22.") or info["llvm"]
    assert info["assembler"] in ("nvjitlink", "ptxas", "ptx")
    assert info["binary_kind"] in ("cubin", "ptx")
    assert set(info) >= {"libdevice", "ptxas", "nvjitlink"}


@pytest.mark.parametrize("dtypes", [("int64", "uint64"), ("uint64", "int8")], ids=str)
def test_mixed_signedness_comparisons_compile(target, dtypes):
    # the catalogue's exact int64/uint64 comparison body (kernels/elementwise.py)
    for op in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
        entry, text = catalogue_module(target, op, dtypes)
        assert f".entry {entry}(" in target.emit_ptx(text)


def test_all_signatures_compile(target):
    for name in SIGNATURES:
        if "math" in name or "exp" in name:
            if find_libdevice() is None:
                continue
        module, _, _ = signature_kernel(target, name)
        assert f".entry {name}(" in target.emit_ptx(module)


@needs_libdevice
def test_math_intrinsics_nvptx_cannot_select_become_libdevice_calls(target):
    # llvm.sin.f32 / llvm.pow.f64 would stop the process in instruction selection
    def body(b, m, v):
        (x,) = v
        sin = ir.Function(m, ir.FunctionType(F32, [F32]), "llvm.sin.f32")
        own = target.math_function(m, "sin", F32)
        return [b.fadd(b.call(sin, [x]), b.call(own, [x]))]

    ptx = target.emit_ptx(build_kernel(target, "sines", [("array", F32)], [F32], body))
    assert ".entry sines(" in ptx and "sin.approx" not in ptx
    pw = build_kernel(target, "powers", [("array", F64), ("array", F64)], [F64],
                      lambda b, m, v: [b.call(ir.Function(m, ir.FunctionType(F64, [F64, F64]), "llvm.pow.f64"), v)])
    assert ".entry powers(" in target.emit_ptx(pw)



def test_the_compile_process_makes_the_same_cubin():
    # GPU tier-ups are compiled by the compile process: its cubin is this process's
    from rocarray.compiler import compile_process

    target = NVPTXTarget("sm_90")
    module, _, _ = signature_kernel(target, "add_i64")
    text = str(module)
    try:
        here = bytes(target.compile(text))
    except ToolchainError as exc:
        pytest.skip(f"no assembler for sm_90 here: {exc}")
    assert compile_process.compile(target, text) == here
