"""The in-process AMDGPU linker (``rocarray.targets.hsalink``) against ``ld.lld``.

For every test kernel, target and tier, the code object ``hsalink`` writes must load as the
one ``ld.lld -shared`` writes: the same program headers and the same bytes in every
loadable segment (the ELF header aside, whose section-table fields differ), the same
dynamic and static symbols, and it must pass the code-object checks.
"""

from __future__ import annotations

import struct
import subprocess

import pytest
from llvmlite import ir

from _abi_kernels import F32, I64, SIGNATURES, build_kernel, signature_kernel
from rocarray.targets import hsalink
from rocarray.targets.amdgpu import AMDGPUTarget, ToolchainError, find_device_libs, find_lld
from rocarray.targets.codeobject import ElfFile, check_code_object

needs_lld = pytest.mark.skipif(
    find_lld() is None, reason="ld.lld >= 17 not found: apt-get install lld-19, or pip install ziglang"
)
ARCHS = ["gfx90a", "gfx942", "gfx1100"]


def quick(arch):
    """The quick-tier configuration of ``arch`` (what ``quick_tier`` returns when tiered)."""
    t = AMDGPUTarget(arch, opt_level=0)
    t.simple_loops = True
    return t


def lld_link(obj: bytes) -> bytes:
    proc = subprocess.run([*find_lld(), "-shared", "--no-undefined", "/dev/stdin", "-o", "-"],
                          input=obj, capture_output=True)
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout


def loaded_image(data: bytes) -> list:
    """Program headers and the bytes of each PT_LOAD segment, the ELF header's section
    table fields (``e_shoff``, ``e_shnum``, ``e_shstrndx``) blanked."""
    data = bytearray(data)
    data[0x28:0x30] = bytes(8)
    data[0x3C:0x40] = bytes(4)
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phnum, = struct.unpack_from("<H", data, 0x38)
    out = []
    for i in range(phnum):
        p_type, flags, off, vaddr, paddr, filesz, memsz, align = struct.unpack_from("<IIQQQQQQ", data, phoff + 56 * i)
        out.append((p_type, flags, off, vaddr, paddr, filesz, memsz, align,
                    bytes(data[off:off + filesz]) if p_type == 1 else b""))
    return out


def symbols(data: bytes, dynamic: bool) -> list:
    elf = ElfFile(data)
    names = [s.name for s in elf.sections]
    return [(s.name, s.value, s.size, s.bind, s.type,
             s.section_index if s.section_index >= 0xFF00 else names[s.section_index])
            for s in elf.symbols(dynamic=dynamic)]


def assert_same_as_lld(obj: bytes, kernels) -> bytes:
    ours = hsalink.link_shared(obj)
    theirs = lld_link(obj)
    assert loaded_image(ours) == loaded_image(theirs)
    assert symbols(ours, dynamic=True) == symbols(theirs, dynamic=True)
    assert symbols(ours, dynamic=False) == symbols(theirs, dynamic=False)
    assert check_code_object(ours, kernels=kernels) == []
    return ours


@needs_lld
@pytest.mark.parametrize("tier", ["full", "quick"])
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name", list(SIGNATURES))
def test_same_image_as_lld(arch, tier, name):
    if name.startswith("math") or name == "cexp_c128":
        if find_device_libs() is None:
            pytest.skip("ROCm device-libs (ocml.bc) not found: apt-get install rocm-device-libs")
    target = AMDGPUTarget(arch) if tier == "full" else quick(arch)
    module, _, _ = signature_kernel(target, name)
    assert_same_as_lld(target.emit_object(module), [name])


@needs_lld
def test_many_kernels_hash_tables_as_lld():
    # 6 kernels: 12 exported symbols, 3 .gnu.hash buckets and 4 bloom words, as LLD sizes them
    t = AMDGPUTarget("gfx942")
    names = [f"kernel_{c}" for c in "abcdef"]
    ours = assert_same_as_lld(t.emit_object(_several(t, names)), names)
    header = ElfFile(ours).section(".gnu.hash")
    nbuckets, _, mask_words, _ = struct.unpack_from("<IIII", ours, header.offset)
    assert (nbuckets, mask_words) == (3, 4)


def _several(t, names) -> str:
    """IR text of one module holding an ``add`` kernel under each of ``names``."""
    from rocarray.targets.base import llvm_binding

    binding = llvm_binding()
    parts = [binding.parse_assembly(str(build_kernel(t, name, [("array", I64), ("array", I64)], [I64],
                                                     lambda b, m, v: [b.add(*v)])))
             for name in names]
    for part in parts[1:]:
        parts[0].link_in(part)
    return str(parts[0])


def _writable_global_kernel(t) -> str:
    """A kernel ``bump`` that adds one to a writable global in device memory: LLD would
    emit a writable segment for it, which the built-in linker does not handle."""
    return f"""
target triple = "{t.triple}"
target datalayout = "{t.data_layout}"
@counter = protected addrspace(1) global i32 0, align 4
define amdgpu_kernel void @bump() {{
  %v = load volatile i32, ptr addrspace(1) @counter
  %w = add i32 %v, 1
  store volatile i32 %w, ptr addrspace(1) @counter
  ret void
}}
"""


def test_refuses_what_it_does_not_handle():
    with pytest.raises(hsalink.LinkError, match="ELF64"):
        hsalink.link_shared(b"not an object")
    t = AMDGPUTarget("gfx942")
    obj = t.emit_object(_writable_global_kernel(t))
    with pytest.raises(hsalink.Unsupported):
        hsalink.link_shared(obj)


@needs_lld
def test_target_falls_back_to_lld():
    t = AMDGPUTarget("gfx942")
    obj = t.emit_object(_writable_global_kernel(t))
    assert check_code_object(t.link(obj), "gfx942", ["bump"]) == []  # through ld.lld


def test_undefined_symbols_are_an_error():
    t = AMDGPUTarget("gfx942")
    module = build_kernel(t, "calls_out", [("array", F32)], [F32],
                          lambda b, m, v: [b.call(ir.Function(m, ir.FunctionType(F32, [F32]), "elsewhere"), v)])
    obj = t.target_machine.emit_object(_parse(t, module))
    with pytest.raises(hsalink.LinkError, match="undefined symbol: elsewhere"):
        hsalink.link_shared(obj)
    with pytest.raises(ToolchainError, match="elsewhere"):
        t.link(obj)


def _parse(t, module):
    from rocarray.targets.amdgpu import private_allocas
    from rocarray.targets.base import parse_module

    return parse_module(private_allocas(str(module)), t)


def test_hash_functions():
    # values from the ELF gABI and the GNU hash definition
    assert hsalink.sysv_hash(b"") == 0
    assert hsalink.gnu_hash(b"") == 5381
    assert hsalink.gnu_hash(b"printf") == 0x156B2BB8
    assert hsalink.sysv_hash(b"printf") == 0x077905A6
