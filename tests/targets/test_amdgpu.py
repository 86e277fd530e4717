"""Compile-only tests of the AMDGPU target: IR -> object -> code object v5 (hsaco).

They need no GPU.  Linking needs ``ld.lld`` >= 17 (Debian's lld-19, the ziglang wheel or a
ROCm installation); math tests need ROCm device-libs (Debian's rocm-device-libs).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile

import pytest
from llvmlite import ir

from _abi_kernels import (F32, F64, SIGNATURES, build_kernel, catalogue_module, natural_layout, signature_kernel,
                          unary_math)
from rocarray.targets.amdgpu import (
    AMDGPUTarget,
    ToolchainError,
    find_device_libs,
    find_lld,
    private_allocas,
    toolchain_info,
)
from rocarray.targets.base import MATH_FUNCTIONS
from rocarray.targets.codeobject import (
    ELFOSABI_AMDGPU_HSA,
    EM_AMDGPU,
    check_code_object,
    read_code_object,
    unpack_msgpack,
)

needs_lld = pytest.mark.skipif(
    find_lld() is None, reason="ld.lld >= 17 not found: apt-get install lld-19, or pip install ziglang"
)
needs_device_libs = pytest.mark.skipif(
    find_device_libs() is None,
    reason="ROCm device-libs (ocml.bc) not found: apt-get install rocm-device-libs",
)

ARCHS = ["gfx90a", "gfx942", "gfx1100"]
WAVE = {"gfx90a": 64, "gfx942": 64, "gfx1100": 32}


@pytest.fixture(scope="module", params=ARCHS)
def target(request):
    return AMDGPUTarget(request.param)


def uses_math(name):
    return name.startswith("math") or name == "cexp_c128"


# -- IR-level facts ----------------------------------------------------------------------


def test_target_facts():
    t = AMDGPUTarget("gfx942")
    assert (t.name, t.cpu, t.triple) == ("gfx942", "gfx942", "amdgcn-amd-amdhsa")
    assert t.is_gpu and t.binary_kind == "hsaco" and t.max_block_size == 256
    assert t.wave_size == 64 and "+wavefrontsize64" in t.features
    g = AMDGPUTarget("gfx1100")
    assert g.wave_size == 32 and "+wavefrontsize32" in g.features
    assert [AMDGPUTarget(a).isa_version for a in ("gfx90a", "gfx942", "gfx1100", "gfx1030", "gfx908")] == [
        9010, 9402, 11000, 10300, 9008,
    ]
    x = AMDGPUTarget("gfx90a:sramecc+:xnack-")
    assert x.cpu == "gfx90a" and "+sramecc" in x.features and "-xnack" in x.features
    for bad in ("sm_90", "gfx", "gfx942:foo+"):
        with pytest.raises(ValueError):
            AMDGPUTarget(bad)


@pytest.mark.parametrize("ty", [F32, F64], ids=["f32", "f64"])
def test_math_function_names(ty):
    t = AMDGPUTarget("gfx942")
    m = ir.Module()
    width = "f32" if ty == F32 else "f64"
    for fn, arity in MATH_FUNCTIONS.items():
        f = t.math_function(m, fn, ty)
        assert len(f.args) == arity and f.ftype.return_type == ty
    assert t.math_function(m, "sqrt", ty).name == f"llvm.sqrt.{width}"
    assert t.math_function(m, "floor", ty).name == f"llvm.floor.{width}"
    assert t.math_function(m, "fmin", ty).name == f"llvm.minnum.{width}"
    assert t.math_function(m, "log1p", ty).name == f"__ocml_log1p_{width}"
    assert t.math_function(m, "atan2", ty).name == f"__ocml_atan2_{width}"
    assert t.math_function(m, "sin", ty).name == f"__ocml_sin_{width}"
    expected_exp = "llvm.exp.f32" if ty == F32 else "__ocml_exp_f64"
    assert t.math_function(m, "exp", ty).name == expected_exp


def test_kernel_marking_and_thread_index():
    t = AMDGPUTarget("gfx942")
    module, _, _ = signature_kernel(t, "add_i64")
    text = str(module)
    assert 'define amdgpu_kernel void @"add_i64"' in text
    assert '"amdgpu-flat-work-group-size"="1,256"' in text
    assert "llvm.amdgcn.dispatch.ptr" in text
    assert "llvm.amdgcn.workitem.id.x" in text and "llvm.amdgcn.workgroup.id.x" in text
    assert "!invariant.load" in text
    # the thread index in 32 bits (the grid's size is a u32), widened once
    assert re.search(r"mul nuw i32 .*\n.*add nuw i32 .*\n.*zext i32 .* to i64", text)


def test_private_allocas():
    text = '  %".5" = alloca [8 x i64], align 8\n  %x = alloca i64\n  %y = load i64, ptr %x\n'
    out = private_allocas(text)
    assert '%".5.private" = alloca [8 x i64], align 8, addrspace(5)' in out
    assert '%".5" = addrspacecast ptr addrspace(5) %".5.private" to ptr' in out
    assert "%x.private = alloca i64, addrspace(5)" in out
    assert "%y = load i64, ptr %x" in out
    assert private_allocas("no stack here") == "no stack here"


# -- code objects ------------------------------------------------------------------------


@pytest.mark.parametrize("tier", ["full", "quick"])
@pytest.mark.parametrize("name", list(SIGNATURES))
def test_code_object(target, name, tier):
    if uses_math(name) and find_device_libs() is None:
        pytest.skip("ROCm device-libs (ocml.bc) not found: apt-get install rocm-device-libs")
    arch = target.name
    if tier == "quick":  # what quick_tier returns: light pipeline, codegen O0
        target = AMDGPUTarget(arch, opt_level=0)
        target.simple_loops = True
    module, inputs, outputs = signature_kernel(target, name)
    hsaco = target.compile(module)
    assert check_code_object(hsaco, arch, [name]) == []

    co = read_code_object(hsaco)
    assert co.machine == EM_AMDGPU
    assert co.os_abi == ELFOSABI_AMDGPU_HSA
    assert co.abi_version == 3 and co.code_object_version == 5
    assert co.mach == arch
    assert co.target.startswith(f"amdgcn-amd-amdhsa--{arch}")
    assert co.metadata["amdhsa.version"][0] == 1
    assert co.undefined_symbols == []
    exported = {s.name for s in co.dynamic_symbols if s.defined}
    assert {name, f"{name}.kd"} <= exported
    library = ("__ocml", "__ockl", "__oclc")
    assert not any(s.name.startswith(library) for s in co.dynamic_symbols)
    if tier == "full":  # everything inlined; at O0 ocml functions stay local functions
        assert not any(s.name.startswith(library) for s in co.symbols)
    else:
        assert all(s.bind == 0 for s in co.symbols if s.name.startswith(library))

    kernel = co.kernel(name)
    assert kernel[".symbol"] == f"{name}.kd"
    assert kernel[".wavefront_size"] == WAVE[arch]
    assert kernel[".max_flat_workgroup_size"] == 256
    expected, size = natural_layout(inputs, outputs)
    explicit = [a for a in kernel[".args"] if not a[".value_kind"].startswith("hidden_")]
    assert [(a[".offset"], a[".size"]) for a in explicit] == expected
    assert kernel[".kernarg_segment_size"] >= size
    if len(explicit) == len(kernel[".args"]):  # no hidden arguments asked for
        assert kernel[".kernarg_segment_size"] == size
    kinds = [a[".value_kind"] for a in explicit]
    pointer_slots = {i for i, (off, sz) in enumerate(expected) if sz == 8 and i >= 3}
    for i, kind in enumerate(kinds):
        if kind == "global_buffer":
            assert i in pointer_slots
        else:
            assert kind == "by_value"
    assert kinds.count("global_buffer") == sum(1 for k, _ in inputs if k == "array") + len(outputs)


@needs_lld
@needs_device_libs
def test_math_kernels_resolve_ocml_without_ockl_or_oclc_leftovers():
    t = AMDGPUTarget("gfx942")
    for fn in ("sin", "tan", "pow", "lgamma", "cbrt", "erf", "expm1"):
        for ty in (F32, F64):
            module = build_kernel(t, f"{fn}_{ty}", [("array", ty)], [ty],
                                  (lambda f, tt: (lambda b, m, v: [b.call(t.math_function(m, f, tt), v * (2 if f == "pow" else 1))]))(fn, ty))
            hsaco = t.compile(module)
            assert check_code_object(hsaco, "gfx942", [f"{fn}_{ty}"]) == []


@needs_lld
def test_target_id_features_reach_e_flags():
    for arch, xnack, sramecc in (("gfx90a:xnack-", "off", "any"), ("gfx90a:sramecc+:xnack+", "on", "on"), ("gfx90a", "any", "any")):
        t = AMDGPUTarget(arch)
        co = read_code_object(t.compile(signature_kernel(t, "add_i64")[0]))
        assert (co.mach, co.xnack, co.sramecc) == ("gfx90a", xnack, sramecc)
    co = read_code_object(AMDGPUTarget("gfx1100").compile(signature_kernel(AMDGPUTarget("gfx1100"), "add_i64")[0]))
    assert co.xnack == "unsupported" and co.sramecc == "unsupported"


@needs_lld
def test_one_module_compiles_twice_and_emits_assembly():
    t = AMDGPUTarget("gfx942")
    module, _, _ = signature_kernel(t, "axpy_f32")
    first = t.compile(module)
    asm = t.emit_assembly(module)
    second = t.compile(str(module))
    assert first == second
    assert "add_i64" not in asm and "axpy_f32:" in asm
    assert "global_load" in asm  # flat kernel pointers are known to be global


def test_accurate_f32_lowerings_need_no_ocml():
    # exp/log and friends on f32 lower from intrinsics: no ocml, no libcall left over
    t = AMDGPUTarget("gfx942")
    for fn in ("exp", "exp2", "exp10", "log", "log2", "log10", "sqrt"):
        module = build_kernel(t, f"k_{fn}", [("array", F32)], [F32], unary_math(t, fn, F32))
        assert "__ocml" not in str(module)
        asm = t.emit_assembly(module)
        assert re.search(r"v_(exp|log|sqrt)_f32", asm), fn
        # the accurate forms scale around the hardware approximation (exp/log: ldexp for
        # range and denormals) or correct its last bit (sqrt: fma residuals)
        assert ("v_fma_f32" if fn == "sqrt" else "v_ldexp_f32") in asm, fn


def test_errors_name_the_problem():
    t = AMDGPUTarget("gfx942")
    bad = build_kernel(t, "bad", [("array", F32)], [F32],
                       lambda b, mod, v: [b.call(ir.Function(mod, ir.FunctionType(F32, [F32]), "mystery"), v)])
    with pytest.raises(ToolchainError, match="mystery"):
        t.compile(bad)
    m = ir.Module()
    with pytest.raises(ValueError, match="no amdgpu_kernel"):
        t.compile(m)


def test_cache_key_and_toolchain_info():
    assert AMDGPUTarget("gfx942").cache_key() != AMDGPUTarget("gfx90a").cache_key()
    info = toolchain_info()
    assert info["code_object_version"] == 5
    assert set(info) >= {"device_libs", "ld_lld", "ld_lld_version", "llvm"}


# -- the reader itself -------------------------------------------------------------------


def test_msgpack_decoder():
    data = bytes.fromhex("83a161c3a162ff" "a163" "92cd0100" "cb3ff0000000000000")
    assert unpack_msgpack(data) == {"a": True, "b": -1, "c": [256, 1.0]}
    assert unpack_msgpack(bytes([0xDC, 0, 2, 0xC0, 0xD9, 1]) + b"x") == [None, "x"]


def test_check_reports_problems():
    assert check_code_object(b"not an elf") == ["not an ELF file (bad magic)"]


@needs_lld
def test_reader_agrees_with_llvm_readelf():
    readelf = shutil.which("llvm-readelf-19") or shutil.which("llvm-readelf")
    if readelf is None:
        pytest.skip("llvm-readelf not found (apt-get install llvm-19)")
    t = AMDGPUTarget("gfx942")
    module, _, _ = signature_kernel(t, "cmul_c128")
    hsaco = t.compile(module)
    with tempfile.NamedTemporaryFile(suffix=".hsaco") as f:
        f.write(hsaco)
        f.flush()
        notes = subprocess.run([readelf, "--notes", f.name], capture_output=True, text=True).stdout
        header = subprocess.run([readelf, "-h", f.name], capture_output=True, text=True).stdout
    co = read_code_object(hsaco)
    kernel = co.kernel("cmul_c128")
    assert f".kernarg_segment_size: {kernel['.kernarg_segment_size']}" in notes
    offsets = [int(x) for x in re.findall(r"\.offset:\s+(\d+)", notes)]
    assert offsets == [a[".offset"] for a in kernel[".args"]]
    assert f"0x{co.e_flags:X}" in header and "gfx942" in header


@needs_lld
@needs_device_libs
def test_math_intrinsics_amdgpu_cannot_select_become_ocml_calls():
    # llvm.sin.f64 stops the process in instruction selection; llvm.sin.f32 is v_sin_f32
    # without range reduction.  Both must reach ocml instead.
    t = AMDGPUTarget("gfx942")

    def body(b, m, v):
        x, y = v
        s64 = ir.Function(m, ir.FunctionType(F64, [F64]), "llvm.sin.f64")
        own = t.math_function(m, "sin", F64)
        return [b.fadd(b.call(s64, [x]), b.call(own, [y]))]

    hsaco = t.compile(build_kernel(t, "sines", [("array", F64), ("array", F64)], [F64], body))
    assert check_code_object(hsaco, "gfx942", ["sines"]) == []
    f32 = build_kernel(t, "sinf", [("array", F32)], [F32],
                       lambda b, m, v: [b.call(ir.Function(m, ir.FunctionType(F32, [F32]), "llvm.sin.f32"), v)])
    via_ocml = build_kernel(t, "sinf", [("array", F32)], [F32], unary_math(t, "sin", F32))
    assert t.emit_assembly(f32) == t.emit_assembly(via_ocml)



def test_quick_tier(monkeypatch):
    t = AMDGPUTarget("gfx942")
    q = t.quick_tier
    assert q is t.quick_tier and q.opt_level == 0 and q.simple_loops and q.name == "gfx942"
    assert q.quick_tier is None and q.cache_key() != t.cache_key()
    assert q.data_layout == t.data_layout
    monkeypatch.setenv("ROCARRAY_TIERED", "0")
    assert AMDGPUTarget("gfx942").quick_tier is None
    with pytest.raises(ValueError, match="opt_level"):
        AMDGPUTarget("gfx942", opt_level=7)


def test_quick_tier_verifies_only_when_asked(monkeypatch):
    # as on the host: the verifier runs on quick-tier IR with ROCARRAY_VERIFY_IR=1 (the
    # tests set it), on full-tier IR always
    from llvmlite import binding

    calls = []
    monkeypatch.setattr(binding.ModuleRef, "verify", lambda self: calls.append(self))
    quick, full = AMDGPUTarget("gfx942", opt_level=0), AMDGPUTarget("gfx942")
    monkeypatch.setenv("ROCARRAY_VERIFY_IR", "0")
    quick.optimised_module(signature_kernel(quick, "add_i64")[0])
    assert calls == []
    full.optimised_module(signature_kernel(full, "add_i64")[0])
    assert len(calls) == 1
    monkeypatch.setenv("ROCARRAY_VERIFY_IR", "1")
    quick.optimised_module(signature_kernel(quick, "add_i64")[0])
    assert len(calls) == 2


@needs_device_libs
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("op,dtype", [("add", "int16"), ("multiply", "uint32"), ("exp", "float32"),
                                      ("exp", "float64"), ("sin", "complex64"), ("hypot", "float64")])
def test_quick_tier_catalogue_kernels(arch, op, dtype):
    # the skeleton's simple loop for the catalogue's kernels: a valid code object, no
    # 64-bit division in the index arithmetic, and cheaper code than the full tier's
    import numpy as np

    from rocarray._elementwise import Ufunc, elementwise_spec
    from rocarray._elementwise_functions import _rows

    u = Ufunc(_rows[op])
    dts = (np.dtype(dtype),) * u.nin
    loop_in, loop_out, out_storage, body = u.resolve(dts)
    spec = elementwise_spec(op, body, dts, ("a",) * u.nin, loop_in, out_storage, loop_out)
    q = AMDGPUTarget(arch).quick_tier
    module = spec.build_module(q)
    text = str(module)
    assert "sdiv i64" not in text and "srem i64" not in text and "udiv i32" in text
    # ocml inlined into the kernel: one function for the backend, no call (a module
    # without ocml keeps its internal alwaysinline body for codegen's inliner)
    mod = q.optimised_module(module)
    defined = [f for f in mod.functions if not f.is_declaration]
    assert [f.name for f in defined if f.linkage.name != "internal"] == [spec.entry]
    assert all(b"alwaysinline" in set(f.attributes) for f in defined if f.name != spec.entry)
    assert "s_swappc" not in q._emit(mod, assembly=True)
    hsaco = q.compile(module)
    assert check_code_object(hsaco, arch, [spec.entry]) == []
    co = read_code_object(hsaco)
    assert co.kernel(spec.entry)[".wavefront_size"] == WAVE[arch]


def test_index_divmod_on_the_host():
    # the quick tier's index division, run on the host: 32-bit path and the wide loop
    import ctypes
    import random

    from rocarray.compiler.index_ir import index_divmod as _index_divmod
    from rocarray.targets.base import llvm_binding

    binding = llvm_binding()
    binding.initialize_native_target()
    binding.initialize_native_asmprinter()
    i64 = ir.IntType(64)
    module = ir.Module(name="divmod")
    module.triple = binding.get_default_triple()
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [i64, i64, ir.PointerType()]), "divmod")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    x, y, out = fn.args
    rem, quot = _index_divmod(b, x, y)
    b.store(rem, out)
    b.store(quot, b.gep(out, [ir.Constant(i64, 1)], source_etype=i64))
    b.ret_void()
    mod = binding.parse_assembly(str(module))
    tm = binding.Target.from_default_triple().create_target_machine()
    engine = binding.create_mcjit_compiler(mod, tm)
    engine.finalize_object()
    cfunc = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64))(
        engine.get_function_address("divmod"))
    rng = random.Random(5)
    cases = [(0, 1), (7, 3), (2**32 - 1, 2**32 - 1), (2**32, 3), (2**32 + 5, 2**32), (2**63 - 1, 1),
             (2**63 - 1, 2**62 + 3), (12345, 2**40)]
    cases += [(rng.randrange(2**63), rng.randrange(1, 2**rng.randrange(1, 63))) for _ in range(300)]
    cases += [(rng.randrange(2**32), rng.randrange(1, 2**32)) for _ in range(300)]
    res = (ctypes.c_int64 * 2)()
    for a, d in cases:
        cfunc(a, d, res)
        assert (res[0], res[1]) == (a % d, a // d), (a, d)




@pytest.mark.parametrize("op,dtype", [("add", "int16"), ("exp", "float32"),
                                      pytest.param("exp", "float64", marks=needs_device_libs)])
def test_quick_front_takes_builder_modules(op, dtype):
    # the quick tier's short front (no control module, no C-API walks, always-inliner +
    # SROA) takes what the skeletons write, with or without ocml; the result is one
    # kernel, nothing else, carrying the code object version flag, as the general front's
    from rocarray.targets.base import gpu_optimised_module

    q = AMDGPUTarget("gfx942").quick_tier
    entry, text = catalogue_module(q, op, dtype)
    mod = q._quick_module(private_allocas(text))
    assert mod is not None
    # the kernel; and, where no IR pipeline ran (no library), the internal alwaysinline
    # body that codegen's inliner takes
    defined = [f for f in mod.functions if not f.is_declaration]
    assert [f.name for f in defined if f.linkage.name != "internal"] == [entry]
    assert all(b"alwaysinline" in set(f.attributes) for f in defined if f.name != entry)
    assert [g.name for g in mod.global_variables if not g.is_declaration and g.linkage.name != "internal"] == []
    assert '!"amdhsa_code_object_version", i32 500' in str(mod)
    general = gpu_optimised_module(q, private_allocas(text), "amdgpu_kernel", q._link_device_libs)
    quick_co = read_code_object(q.link(q._emit(mod, assembly=False)))
    general_co = read_code_object(q.link(q._emit(general, assembly=False)))
    assert check_code_object(q.link(q._emit(q._quick_module(private_allocas(text)), assembly=False)),
                             "gfx942", [entry]) == []
    # the same kernel interface: argument layout, sizes, kinds
    assert quick_co.kernel(entry)[".args"] == general_co.kernel(entry)[".args"]
    assert quick_co.kernel(entry)[".kernarg_segment_size"] == general_co.kernel(entry)[".kernarg_segment_size"]


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx1100"])
def test_quick_front_without_pipeline_is_byte_identical(arch, monkeypatch):
    # a module with no library call, no alloca and no global goes to codegen without the
    # IR pipeline (the backend's always-inliner inlines the body): the object is the one
    # the pipeline's always-inliner and global DCE give, byte for byte
    from rocarray.targets import amdgpu

    q = AMDGPUTarget(arch).quick_tier
    sigs = [("add", "int16"), ("multiply", "uint32"), ("add", "float32"), ("exp", "float32"),
            ("maximum", "float64"), ("logical_and", "bool"), ("floor_divide", "int64"), ("sqrt", "float32")]
    for op, dtype in sigs:
        entry, text = catalogue_module(q, op, dtype)
        text = private_allocas(text)
        found = amdgpu._quick_globals(amdgpu.redirect_math_intrinsics(text, q.math_symbol))
        assert found is not None and found[2], (op, dtype)  # codegen alone takes it
        bare = q._emit(q._quick_module(text), assembly=False)
        monkeypatch.setattr(amdgpu, "_FORCE_QUICK_PIPELINE", True)
        piped = q._emit(q._quick_module(text), assembly=False)
        monkeypatch.setattr(amdgpu, "_FORCE_QUICK_PIPELINE", False)
        assert bare == piped, (arch, op, dtype)
        assert check_code_object(q.link(bare), arch, [entry]) == []


@pytest.mark.parametrize("dtypes", [("int64", "uint64"), ("uint64", "int8")], ids=str)
def test_mixed_signedness_comparisons_compile(dtypes):
    # the catalogue's exact int64/uint64 comparison body (kernels/elementwise.py)
    q = AMDGPUTarget("gfx942").quick_tier
    for op in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
        entry, text = catalogue_module(q, op, dtypes)
        obj = q._emit(q._quick_module(private_allocas(text)), assembly=False)
        assert check_code_object(q.link(obj), "gfx942", [entry]) == []


def test_quick_front_takes_only_inlinable_modules_without_pipeline():
    from rocarray.targets import amdgpu

    q = AMDGPUTarget("gfx942").quick_tier
    _, text = catalogue_module(q, "add", "float32")
    assert amdgpu._quick_globals(text)[2]
    kept = text.replace(") alwaysinline", ") noinline", 1)
    assert kept != text and amdgpu._quick_globals(kept)[2] is False
    table = text + '\n@"table" = internal constant [2 x i32] [i32 1, i32 2]\n'
    assert amdgpu._quick_globals(table)[2] is False


def test_quick_front_leaves_other_modules_to_the_general_one():
    # a module defining a non-internal helper or a global, or carrying module flags of
    # its own, goes through internalize and the light pipeline as before
    q = AMDGPUTarget("gfx942").quick_tier
    entry, text = catalogue_module(q, "add", "float32")
    helper = text.replace('define internal void @"body"', 'define void @"body"', 1)
    assert helper != text
    flagged = text + '\n!llvm.module.flags = !{!7}\n!7 = !{i32 1, !"rocarray.test", i32 1}\n'
    table = text + '\n@"table" = constant [2 x i32] [i32 1, i32 2]\n'
    for variant in (helper, flagged, table):
        assert q._quick_module(private_allocas(variant)) is None
        hsaco = q.compile(variant)
        assert check_code_object(hsaco, "gfx942", [entry]) == []
        assert b"table" not in hsaco  # internalized and dropped when unused


def test_quick_front_reports_unresolved_functions():
    q = AMDGPUTarget("gfx942").quick_tier
    bad = build_kernel(q, "bad", [("array", F32)], [F32],
                       lambda b, mod, v: [b.call(ir.Function(mod, ir.FunctionType(F32, [F32]), "mystery"), v)])
    with pytest.raises(ToolchainError, match="mystery"):
        q.compile(bad)


def test_device_libs_folder_is_kept_per_environment(monkeypatch, tmp_path):
    # find_device_libs keeps its answer (globbing costs ~0.18 ms a compile) per
    # ROCARRAY_DEVICE_LIBS / ROCM_PATH, and only while the folder still holds ocml.bc
    monkeypatch.delenv("ROCARRAY_DEVICE_LIBS", raising=False)
    system = find_device_libs()
    (tmp_path / "ocml.bc").write_bytes(b"BC")
    monkeypatch.setenv("ROCARRAY_DEVICE_LIBS", str(tmp_path))
    assert find_device_libs() == str(tmp_path)
    assert find_device_libs() == str(tmp_path)
    (tmp_path / "ocml.bc").unlink()
    # the folder asked for lost ocml.bc: an error, not another folder in its place
    with pytest.raises(ValueError, match=r"ROCARRAY_DEVICE_LIBS='.*' is not valid \(a folder without ocml.bc\)"):
        find_device_libs()
    monkeypatch.delenv("ROCARRAY_DEVICE_LIBS")
    assert find_device_libs() == system


@needs_device_libs
def test_quick_front_reports_library_functions_ocml_lacks():
    # a __ocml_ name the library does not define is an unresolved symbol on both fronts
    for target in (AMDGPUTarget("gfx942").quick_tier, AMDGPUTarget("gfx942")):
        bad = build_kernel(target, "bad_ocml", [("array", F32)], [F32],
                           lambda b, mod, v: [b.call(ir.Function(mod, ir.FunctionType(F32, [F32]),
                                                                 "__ocml_nosuchfunction_f32"), v)])
        with pytest.raises(ToolchainError, match="__ocml_nosuchfunction_f32"):
            target.compile(bad)


@needs_device_libs
def test_quick_front_slices_are_copies():
    # the quick front links a copy of its parsed, alwaysinline-marked slice into each
    # kernel; the kept slice is never consumed, and each kernel ends up with its kernel only
    from rocarray.targets import amdgpu

    q = AMDGPUTarget("gfx942").quick_tier
    entries = []
    for k in range(3):
        entry, text = catalogue_module(q, "exp", "float64")
        name = f"{entry}_{k}"
        mod = q._quick_module(private_allocas(text.replace(entry, name)))
        assert [f.name for f in mod.functions if not f.is_declaration] == [name]
        assert [g.name for g in mod.global_variables] == []
        entries.append(check_code_object(q.link(q._emit(mod, assembly=False)), "gfx942", [name]))
    assert entries == [[], [], []]
    kept = [m for m, *_ in amdgpu._quick_slices.values()]
    assert kept and all(any(not f.is_declaration for f in m.functions) for m in kept)


@needs_lld
def test_the_compile_process_makes_the_same_code_object():
    # GPU tier-ups are compiled by the compile process: its code object is this process's
    from rocarray.compiler import compile_process

    t = AMDGPUTarget("gfx942")
    module, _, _ = signature_kernel(t, "add_i64")
    text = str(module)
    assert compile_process.compile(t, text) == bytes(t.compile(text))
