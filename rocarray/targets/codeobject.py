"""Read and check GPU code objects: their ELF structure and the AMDGPU metadata.

Used by the target tests and ``python -m rocarray info`` to check what ``ld.lld`` and
``nvJitLink``/``ptxas`` produced without a GPU: the ELF header (machine, OS ABI, ABI
version, flags), sections, symbols, notes, and for AMDGPU code objects the
``NT_AMDGPU_METADATA`` note (MessagePack: ``amdhsa.target``, ``amdhsa.kernels`` with
``.name``, ``.symbol``, ``.kernarg_segment_size``, ``.args`` ...).  Nothing here needs a
third-party package.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from ..runtime import elf
from ..runtime.elf import SHN_UNDEF, SHT_DYNSYM, SHT_NOTE, SHT_SYMTAB

EM_AMDGPU = 224
EM_CUDA = 190
ELFOSABI_AMDGPU_HSA = 64
#: ELF ``e_ident[EI_ABIVERSION]`` of an HSA code object -> code object version.
HSA_ABI_VERSIONS = {1: 3, 2: 4, 3: 5, 4: 6}
NT_AMDGPU_METADATA = 32

#: ``e_flags & 0xff`` of an AMDGPU object -> processor (EF_AMDGPU_MACH_*), as LLVM writes it.
AMDGPU_MACH = {
    0x20: "gfx600", 0x21: "gfx601", 0x22: "gfx700", 0x23: "gfx701", 0x24: "gfx702",
    0x25: "gfx703", 0x26: "gfx704", 0x28: "gfx801", 0x29: "gfx802", 0x2A: "gfx803",
    0x2B: "gfx810", 0x2C: "gfx900", 0x2D: "gfx902", 0x2E: "gfx904", 0x2F: "gfx906",
    0x30: "gfx908", 0x31: "gfx909", 0x32: "gfx90c", 0x33: "gfx1010", 0x34: "gfx1011",
    0x35: "gfx1012", 0x36: "gfx1030", 0x37: "gfx1031", 0x38: "gfx1032", 0x39: "gfx1033",
    0x3A: "gfx602", 0x3B: "gfx705", 0x3C: "gfx805", 0x3D: "gfx1035", 0x3E: "gfx1034",
    0x3F: "gfx90a", 0x40: "gfx940", 0x41: "gfx1100", 0x42: "gfx1013", 0x43: "gfx1150",
    0x44: "gfx1103", 0x45: "gfx1036", 0x46: "gfx1101", 0x47: "gfx1102", 0x48: "gfx1200",
    0x49: "gfx1250", 0x4A: "gfx1151", 0x4B: "gfx941", 0x4C: "gfx942", 0x4E: "gfx1201",
    0x4F: "gfx950", 0x55: "gfx1152", 0x58: "gfx1153", 0x5A: "gfx1251",
}
#: Target-id feature settings in ``e_flags`` of code object v4 and later.
_FEATURE_SETTINGS = {0: "unsupported", 1: "any", 2: "off", 3: "on"}


class CodeObjectError(ValueError):
    """The bytes are not the ELF file or code object they should be; says what is wrong."""


# -- ELF ---------------------------------------------------------------------------------


def check_elf(data: bytes, machine: int | None = None, elf_type: int | None = None, what: str = "ELF file") -> None:
    """Raise ``CodeObjectError`` unless ``data`` is a whole little-endian ELF64 file (of
    ``machine`` and ``elf_type`` where given): its program and section header tables and
    the bytes of every segment and section inside ``data``.  What a loader is handed is
    checked with it first (a cubin, a code object): a driver given offsets past the end
    would read outside the buffer."""
    n = len(data)
    if n < 64 or data[:4] != b"\x7fELF":
        raise CodeObjectError(f"{what} of {n} bytes: not an ELF file (bad magic)")
    if data[4] != 2 or data[5] != 1:
        raise CodeObjectError(f"{what}: not a little-endian ELF64 file")
    (e_type, e_machine, _version, _entry, phoff, shoff, _flags, ehsize, phentsize, phnum,
     shentsize, shnum, shstrndx) = elf.header(data)
    if machine is not None and e_machine != machine:
        raise CodeObjectError(f"{what}: ELF machine {e_machine}, expected {machine}")
    if elf_type is not None and e_type != elf_type:
        raise CodeObjectError(f"{what}: ELF type {e_type}, expected {elf_type}")
    if ehsize != 64:
        raise CodeObjectError(f"{what}: ELF header size {ehsize}, expected 64")

    def inside(offset, size, part):
        if offset > n or size > n - offset:
            raise CodeObjectError(f"{what}: {part} ({size} bytes at {offset}) runs past the end ({n} bytes)")

    if phnum:
        if phentsize != elf.PH.size:
            raise CodeObjectError(f"{what}: program header size {phentsize}, expected {elf.PH.size}")
        inside(phoff, phnum * phentsize, "the program headers")
        for k, ph in enumerate(elf.program_headers(data, phoff, phnum)):
            p_offset, p_filesz, p_memsz = ph[2], ph[5], ph[6]
            inside(p_offset, p_filesz, f"segment {k}")
            if p_filesz > p_memsz:
                raise CodeObjectError(f"{what}: segment {k} holds more bytes in the file than in memory")
    if shnum:
        if shentsize != elf.SH.size:
            raise CodeObjectError(f"{what}: section header size {shentsize}, expected {elf.SH.size}")
        inside(shoff, shnum * shentsize, "the section headers")
        if shstrndx >= shnum:
            raise CodeObjectError(f"{what}: section name table {shstrndx} of {shnum}")
        for k, sh in enumerate(elf.section_headers(data, shoff, shnum)):
            sh_type, offset, size, link = sh[1], sh[4], sh[5], sh[6]
            if sh_type != 8:  # SHT_NOBITS: no bytes in the file
                inside(offset, size, f"section {k}")
            if link >= shnum:
                raise CodeObjectError(f"{what}: section {k} links to section {link} of {shnum}")


@dataclass
class Section:
    name: str
    type: int
    flags: int
    offset: int
    size: int
    link: int
    entsize: int


@dataclass
class Symbol:
    name: str
    value: int
    size: int
    bind: int  # 0 local, 1 global, 2 weak
    type: int  # 0 notype, 1 object, 2 func, ...
    section_index: int

    @property
    def defined(self) -> bool:
        return self.section_index != SHN_UNDEF


class ElfFile:
    """A little-endian ELF64 file held in memory: header, sections, symbols, notes."""

    def __init__(self, data: bytes):
        if len(data) < 64 or data[:4] != b"\x7fELF":
            raise CodeObjectError("not an ELF file (bad magic)")
        if data[4] != 2 or data[5] != 1:
            raise CodeObjectError("not a little-endian ELF64 file")
        self.data = bytes(data)
        self.os_abi = data[7]
        self.abi_version = data[8]
        (
            self.type, self.machine, _version, self.entry, _phoff, shoff, self.flags,
            _ehsize, _phentsize, _phnum, shentsize, shnum, shstrndx,
        ) = elf.header(data)
        if shoff and shentsize != 64:
            raise CodeObjectError(f"section header size {shentsize}, expected 64")
        if shoff + shnum * 64 > len(data):
            raise CodeObjectError("section headers run past the end of the file")
        raw = elf.section_headers(data, shoff, shnum)
        names = raw[shstrndx] if shstrndx < shnum else None
        self.sections = []
        for name_off, sh_type, flags, _addr, offset, size, link, _info, _align, entsize in raw:
            name = self._string(names[4], name_off) if names else ""
            self.sections.append(Section(name, sh_type, flags, offset, size, link, entsize))

    def _string(self, table_offset: int, offset: int) -> str:
        return elf.string(self.data, table_offset + offset).decode("utf-8", errors="replace")

    def section(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name), None)

    def section_bytes(self, section: Section) -> bytes:
        if section.type == 8:  # SHT_NOBITS
            return b""
        if section.offset + section.size > len(self.data):
            raise CodeObjectError(f"section {section.name} runs past the end of the file")
        return self.data[section.offset : section.offset + section.size]

    def symbols(self, dynamic: bool = False) -> list[Symbol]:
        """``.symtab`` (or ``.dynsym``) entries, without the null symbol."""
        wanted = SHT_DYNSYM if dynamic else SHT_SYMTAB
        out = []
        for section in self.sections:
            if section.type != wanted:
                continue
            strings = self.sections[section.link]
            body = self.section_bytes(section)
            for name_off, info, _other, shndx, value, size in elf.symbols(body, 24, len(body) - 24):
                name = self._string(strings.offset, name_off)
                out.append(Symbol(name, value, size, info >> 4, info & 0xF, shndx))
        return out

    def notes(self) -> list[tuple[str, int, bytes]]:
        """``(owner, type, descriptor)`` of every note in every SHT_NOTE section."""
        out = []
        for section in self.sections:
            if section.type != SHT_NOTE:
                continue
            out += elf.notes(self.section_bytes(section))
        return out


# -- MessagePack -------------------------------------------------------------------------


def unpack_msgpack(data: bytes):
    """Decode one MessagePack value (maps -> dict, arrays -> list, str -> str, bin -> bytes)."""
    value, end = _unpack(data, 0)
    if end != len(data):
        raise CodeObjectError(f"msgpack: {len(data) - end} bytes left after the value")
    return value


_FIXED = {
    0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q",
    0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q",
    0xCA: ">f", 0xCB: ">d",
}


def pack_msgpack(value) -> bytes:
    """Encode ``value`` (what ``unpack_msgpack`` returns: dict, list, str, bytes, int, bool,
    None, float, ``("ext", type, payload)``) as MessagePack, each item in its shortest form."""
    out = bytearray()
    _pack(value, out)
    return bytes(out)


def _container(out: bytearray, n: int, fix: int, sized: int) -> None:
    """A MessagePack array or map header of ``n`` items: the fix form (``fix | n``), or
    ``sized`` (16-bit count) / ``sized + 1`` (32-bit count)."""
    if n <= 15:
        out.append(fix | n)
    elif n <= 0xFFFF:
        out.append(sized)
        out += struct.pack(">H", n)
    else:
        out.append(sized + 1)
        out += struct.pack(">I", n)


def _pack(v, out: bytearray) -> None:
    if v is None:
        out.append(0xC0)
    elif v is True or v is False:
        out.append(0xC3 if v else 0xC2)
    elif isinstance(v, int):
        if 0 <= v <= 0x7F:
            out.append(v)
        elif -32 <= v < 0:
            out.append(v + 0x100)
        elif v >= 0:
            for tag, fmt, top in ((0xCC, ">B", 0xFF), (0xCD, ">H", 0xFFFF), (0xCE, ">I", 0xFFFFFFFF),
                                  (0xCF, ">Q", 0xFFFFFFFFFFFFFFFF)):
                if v <= top:
                    out.append(tag)
                    out += struct.pack(fmt, v)
                    return
            raise CodeObjectError(f"msgpack: integer {v} too large")
        else:
            for tag, fmt, low in ((0xD0, ">b", -0x80), (0xD1, ">h", -0x8000), (0xD2, ">i", -0x80000000),
                                  (0xD3, ">q", -0x8000000000000000)):
                if v >= low:
                    out.append(tag)
                    out += struct.pack(fmt, v)
                    return
            raise CodeObjectError(f"msgpack: integer {v} too small")
    elif isinstance(v, float):
        out.append(0xCB)
        out += struct.pack(">d", v)
    elif isinstance(v, str):
        b = v.encode("utf-8")
        n = len(b)
        if n <= 31:
            out.append(0xA0 | n)
        elif n <= 0xFF:
            out += bytes((0xD9, n))
        elif n <= 0xFFFF:
            out.append(0xDA)
            out += struct.pack(">H", n)
        else:
            out.append(0xDB)
            out += struct.pack(">I", n)
        out += b
    elif isinstance(v, (bytes, bytearray)):
        n = len(v)
        for tag, fmt, top in ((0xC4, ">B", 0xFF), (0xC5, ">H", 0xFFFF), (0xC6, ">I", 0xFFFFFFFF)):
            if n <= top:
                out.append(tag)
                out += struct.pack(fmt, n)
                break
        out += v
    elif isinstance(v, tuple) and len(v) == 3 and v[0] == "ext":
        _tag, ext_type, payload = v
        fixed = {1: 0xD4, 2: 0xD5, 4: 0xD6, 8: 0xD7, 16: 0xD8}.get(len(payload))
        if fixed is not None:
            out.append(fixed)
        else:
            out.append(0xC9)
            out += struct.pack(">I", len(payload))
        out.append(ext_type & 0xFF)
        out += payload
    elif isinstance(v, list):
        _container(out, len(v), 0x90, 0xDC)
        for item in v:
            _pack(item, out)
    elif isinstance(v, dict):
        _container(out, len(v), 0x80, 0xDE)
        for key, item in v.items():
            _pack(key, out)
            _pack(item, out)
    else:
        raise CodeObjectError(f"msgpack: cannot encode {type(v).__name__}")


def _unpack(data: bytes, pos: int):
    try:
        tag = data[pos]
    except IndexError:
        raise CodeObjectError("msgpack: value runs past the end") from None
    pos += 1
    if tag <= 0x7F:
        return tag, pos
    if tag >= 0xE0:
        return tag - 0x100, pos
    if 0x80 <= tag <= 0x8F:
        return _unpack_map(data, pos, tag & 0x0F)
    if 0x90 <= tag <= 0x9F:
        return _unpack_array(data, pos, tag & 0x0F)
    if 0xA0 <= tag <= 0xBF:
        return _unpack_str(data, pos, tag & 0x1F)
    if tag == 0xC0:
        return None, pos
    if tag in (0xC2, 0xC3):
        return tag == 0xC3, pos
    if tag in _FIXED:
        fmt = _FIXED[tag]
        return struct.unpack_from(fmt, data, pos)[0], pos + struct.calcsize(fmt)
    lengths = {0xD9: ">B", 0xDA: ">H", 0xDB: ">I", 0xC4: ">B", 0xC5: ">H", 0xC6: ">I",
               0xDC: ">H", 0xDD: ">I", 0xDE: ">H", 0xDF: ">I"}
    if tag in lengths:
        fmt = lengths[tag]
        n = struct.unpack_from(fmt, data, pos)[0]
        pos += struct.calcsize(fmt)
        if tag in (0xD9, 0xDA, 0xDB):
            return _unpack_str(data, pos, n)
        if tag in (0xC4, 0xC5, 0xC6):
            return bytes(data[pos : pos + n]), pos + n
        if tag in (0xDC, 0xDD):
            return _unpack_array(data, pos, n)
        return _unpack_map(data, pos, n)
    ext = {0xD4: 1, 0xD5: 2, 0xD6: 4, 0xD7: 8, 0xD8: 16}
    if tag in ext:  # fixext: a type byte, then the payload
        return ("ext", data[pos], bytes(data[pos + 1 : pos + 1 + ext[tag]])), pos + 1 + ext[tag]
    if tag in (0xC7, 0xC8, 0xC9):
        fmt = {0xC7: ">B", 0xC8: ">H", 0xC9: ">I"}[tag]
        n = struct.unpack_from(fmt, data, pos)[0]
        pos += struct.calcsize(fmt)
        return ("ext", data[pos], bytes(data[pos + 1 : pos + 1 + n])), pos + 1 + n
    raise CodeObjectError(f"msgpack: unknown tag 0x{tag:02x}")


def _unpack_str(data: bytes, pos: int, n: int):
    if pos + n > len(data):
        raise CodeObjectError("msgpack: string runs past the end")
    return data[pos : pos + n].decode("utf-8"), pos + n


def _unpack_array(data: bytes, pos: int, n: int):
    items = []
    for _ in range(n):
        item, pos = _unpack(data, pos)
        items.append(item)
    return items, pos


def _unpack_map(data: bytes, pos: int, n: int):
    out = {}
    for _ in range(n):
        key, pos = _unpack(data, pos)
        value, pos = _unpack(data, pos)
        out[key] = value
    return out, pos


# -- AMDGPU code objects -----------------------------------------------------------------


@dataclass
class CodeObject:
    """What an AMDGPU code object says about itself."""

    machine: int
    os_abi: int
    abi_version: int
    #: 3, 4, 5, 6 (from ``abi_version``); None when the OS ABI is not HSA.
    code_object_version: int | None
    e_flags: int
    #: Processor named by ``e_flags`` ("gfx942"), or "unknown-0xNN".
    mach: str
    xnack: str
    sramecc: str
    metadata: dict
    kernels: list = field(default_factory=list)
    symbols: list = field(default_factory=list)
    dynamic_symbols: list = field(default_factory=list)
    undefined_symbols: list = field(default_factory=list)

    @property
    def target(self) -> str | None:
        """``amdhsa.target`` of the metadata: "amdgcn-amd-amdhsa--gfx942"."""
        return self.metadata.get("amdhsa.target")

    def kernel(self, name: str) -> dict | None:
        return next((k for k in self.kernels if k.get(".name") == name), None)


def read_code_object(data: bytes) -> CodeObject:
    """Parse an AMDGPU code object (hsaco): header facts, metadata note, symbols."""
    elf = ElfFile(data)
    metadata: dict = {}
    for owner, note_type, desc in elf.notes():
        if owner == "AMDGPU" and note_type == NT_AMDGPU_METADATA:
            metadata = unpack_msgpack(desc)
    mach_id = elf.flags & 0xFF
    symbols = elf.symbols()
    dynamic = elf.symbols(dynamic=True)
    undefined = sorted({s.name for s in symbols + dynamic if not s.defined and s.name})
    return CodeObject(
        machine=elf.machine,
        os_abi=elf.os_abi,
        abi_version=elf.abi_version,
        code_object_version=HSA_ABI_VERSIONS.get(elf.abi_version) if elf.os_abi == ELFOSABI_AMDGPU_HSA else None,
        e_flags=elf.flags,
        mach=AMDGPU_MACH.get(mach_id, f"unknown-0x{mach_id:02x}"),
        xnack=_FEATURE_SETTINGS[(elf.flags >> 8) & 3],
        sramecc=_FEATURE_SETTINGS[(elf.flags >> 10) & 3],
        metadata=metadata,
        kernels=list(metadata.get("amdhsa.kernels", [])),
        symbols=symbols,
        dynamic_symbols=dynamic,
        undefined_symbols=undefined,
    )


def check_code_object(data: bytes, arch: str | None = None, kernels=(), code_object_version: int = 5) -> list[str]:
    """Problems that keep ``data`` from being a loadable code object for ``arch`` holding
    ``kernels``; an empty list when there are none."""
    try:
        co = read_code_object(data)
    except CodeObjectError as exc:
        return [str(exc)]
    problems = []
    if co.machine != EM_AMDGPU:
        problems.append(f"ELF machine {co.machine}, expected EM_AMDGPU ({EM_AMDGPU})")
    if co.os_abi != ELFOSABI_AMDGPU_HSA:
        problems.append(f"OS ABI {co.os_abi}, expected ELFOSABI_AMDGPU_HSA ({ELFOSABI_AMDGPU_HSA})")
    if co.code_object_version != code_object_version:
        problems.append(f"code object v{co.code_object_version}, expected v{code_object_version}")
    if arch is not None:
        base = arch.split(":")[0]
        if co.mach != base:
            problems.append(f"e_flags name {co.mach}, expected {base}")
        if co.target is None or not co.target.startswith(f"amdgcn-amd-amdhsa--{base}"):
            problems.append(f"amdhsa.target {co.target!r}, expected amdgcn-amd-amdhsa--{base}")
    if co.undefined_symbols:
        problems.append(f"undefined symbols: {', '.join(co.undefined_symbols)}")
    exported = {s.name for s in co.dynamic_symbols if s.defined}
    for name in kernels:
        meta = co.kernel(name)
        if meta is None:
            problems.append(f"kernel {name} missing from the metadata")
            continue
        if meta.get(".symbol") != f"{name}.kd":
            problems.append(f"kernel {name}: .symbol {meta.get('.symbol')!r}, expected {name}.kd")
        if f"{name}.kd" not in exported:
            problems.append(f"kernel {name}: descriptor symbol {name}.kd is not exported")
    return problems


def elf_summary(data: bytes) -> dict:
    """Header facts of any ELF image (a cubin, a code object): for ``rocarray info``."""
    elf = ElfFile(data)
    return {
        "machine": elf.machine,
        "os_abi": elf.os_abi,
        "abi_version": elf.abi_version,
        "e_flags": elf.flags,
        "sections": [s.name for s in elf.sections if s.name],
        "symbols": sorted(s.name for s in elf.symbols() if s.name),
    }
