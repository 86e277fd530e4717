"""One reader of little-endian ELF64 files: header, sections, symbols, relocations, notes.

Every ELF file rocarray handles goes through it: host objects (the host loader), AMDGPU
relocatable objects (the in-process linker) and the code objects and cubins the GPU
targets make (their checks).  It only reads and names the layout; each caller says what
is wrong in its own error type, and checks offsets against the data as its input needs.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

MAGIC = b"\x7fELF"
#: the identification bytes of a little-endian ELF64 file: magic, ELFCLASS64, ELFDATA2LSB
ELF64_LE = MAGIC + b"\x02\x01"

HEADER = struct.Struct("<HHIQQQIHHHHHH")  # e_type .. e_shstrndx, at offset 16
PH = struct.Struct("<IIQQQQQQ")  # one program header
SH = struct.Struct("<IIQQQQIIQQ")  # one section header
SYM = struct.Struct("<IBBHQQ")  # one symbol
RELA = struct.Struct("<QQq")  # one relocation with addend

ET_REL, ET_DYN = 1, 3
SHT_NULL, SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_RELA = 0, 1, 2, 3, 4
SHT_HASH, SHT_DYNAMIC, SHT_NOTE, SHT_NOBITS, SHT_REL, SHT_DYNSYM = 5, 6, 7, 8, 9, 11
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR, SHF_MERGE, SHF_STRINGS = 0x1, 0x2, 0x4, 0x10, 0x20
SHF_TLS = 0x400
SHN_UNDEF, SHN_LORESERVE, SHN_ABS, SHN_COMMON = 0, 0xFF00, 0xFFF1, 0xFFF2
STB_LOCAL, STB_GLOBAL, STB_WEAK = 0, 1, 2


class Header(NamedTuple):
    """The ELF header after ``e_ident``."""

    type: int
    machine: int
    version: int
    entry: int
    phoff: int
    shoff: int
    flags: int
    ehsize: int
    phentsize: int
    phnum: int
    shentsize: int
    shnum: int
    shstrndx: int


def is_elf64_le(data: bytes) -> bool:
    """Whether ``data`` starts like a little-endian ELF64 file (and holds a whole header)."""
    return len(data) >= 64 and data[:6] == ELF64_LE


def header(data: bytes) -> Header:
    """The header of ``data``, which holds at least 64 bytes."""
    return Header._make(HEADER.unpack_from(data, 16))


def section_headers(data: bytes, offset: int, count: int) -> list:
    """``count`` section headers at ``offset`` (the caller checked they lie in ``data``):
    (name, type, flags, addr, offset, size, link, info, addralign, entsize) each."""
    return list(SH.iter_unpack(data[offset:offset + count * SH.size]))


def program_headers(data: bytes, offset: int, count: int) -> list:
    """``count`` program headers at ``offset``: (type, flags, offset, vaddr, paddr,
    filesz, memsz, align) each."""
    return list(PH.iter_unpack(data[offset:offset + count * PH.size]))


def string(data: bytes, start: int) -> bytes:
    """The NUL-terminated string at ``start`` (ValueError when no NUL follows)."""
    return data[start:data.index(b"\0", start)]


def symbols(data: bytes, offset: int, size: int) -> list:
    """The whole symbol entries in ``size`` bytes at ``offset``: (name offset, info,
    other, section index, value, size) each."""
    size = max(0, size)
    return list(SYM.iter_unpack(data[offset:offset + size - size % SYM.size]))


def relocations(data: bytes, offset: int, size: int):
    """The relocations with addend in ``size`` bytes at ``offset``: (offset, info, addend)."""
    return RELA.iter_unpack(data[offset:offset + size])


def notes(body: bytes) -> list:
    """``(owner, type, descriptor)`` of every note in a note section's ``body``."""
    out = []
    pos = 0
    while pos + 12 <= len(body):
        namesz, descsz, note_type = struct.unpack_from("<III", body, pos)
        pos += 12
        owner = body[pos:pos + namesz].rstrip(b"\0").decode("ascii", errors="replace")
        pos += (namesz + 3) & ~3
        desc = body[pos:pos + descsz]
        pos += (descsz + 3) & ~3
        out.append((owner, note_type, desc))
    return out
