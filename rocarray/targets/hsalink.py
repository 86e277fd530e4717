"""A small in-process linker: one AMDGPU relocatable object -> a shared code object.

What ``ld.lld -shared --no-undefined k.o`` does for the objects LLVM emits from one
rocarray kernel module, without starting a process (most of an ``ld.lld`` link is the
process start; this costs a small fraction of it).  It lays the file out as
LLD 17-22 does -- same sections, same addresses, same program headers, same dynamic
symbol table, ``.gnu.hash``, ``.hash`` and ``.dynamic`` -- so the loaded image is the one
``ld.lld`` would have produced; ``tests/targets/test_hsalink.py`` checks that against
``ld.lld`` byte for byte over the loadable segments, for every test kernel and target.

Only what such objects hold is handled: ``.text``, ``.rodata`` and ``.note`` as allocated
sections, PC-relative relocations (``R_AMDGPU_REL32``, ``REL32_LO``, ``REL32_HI``,
``REL64``), local and exported symbols.  Anything else -- writable data, other allocated
sections, absolute or GOT relocations in allocated sections, which need dynamic
relocations -- raises ``Unsupported``, and the caller links with ``ld.lld`` instead.

``merge_objects`` joins two such objects into one (what ``ld.lld -r`` would make of
them), for the AMDGPU quick tier's split kernels: an entry object calling ``body``, and
the object defining it.
"""

from __future__ import annotations

import struct

from ..runtime import elf
from ..runtime.elf import (
    ET_DYN,
    ET_REL,
    SHF_ALLOC,
    SHF_EXECINSTR,
    SHF_MERGE,
    SHF_WRITE,
    SHN_ABS,
    SHN_COMMON,
    SHN_UNDEF,
    SHT_DYNAMIC,
    SHT_DYNSYM,
    SHT_HASH,
    SHT_NOBITS,
    SHT_NOTE,
    SHT_PROGBITS,
    SHT_REL,
    SHT_RELA,
    SHT_STRTAB,
    SHT_SYMTAB,
    STB_LOCAL,
    STB_WEAK,
)

EM_AMDGPU = 224
SHT_GNU_HASH = 0x6FFFFFF6
STT_SECTION, STT_FILE = 3, 4
STV_DEFAULT, STV_INTERNAL, STV_HIDDEN, STV_PROTECTED = 0, 1, 2, 3
PT_LOAD, PT_DYNAMIC, PT_NOTE, PT_PHDR = 1, 2, 4, 6
PT_GNU_STACK, PT_GNU_RELRO = 0x6474E551, 0x6474E552
PF_X, PF_W, PF_R = 1, 2, 4
DT_NULL, DT_HASH, DT_STRTAB, DT_SYMTAB, DT_STRSZ, DT_SYMENT = 0, 4, 5, 6, 10, 11
DT_GNU_HASH = 0x6FFFFEF5

R_AMDGPU_NONE, R_AMDGPU_REL32, R_AMDGPU_REL64 = 0, 4, 5
R_AMDGPU_REL32_LO, R_AMDGPU_REL32_HI = 10, 11

#: LLD's page size for AMDGPU and the number of program headers it writes for a code object.
PAGE = 0x1000
_PHNUM = 8
#: Sections of the input that the output does not carry (as LLD: the stack note becomes
#: PT_GNU_STACK, the tables are rebuilt).
_DROPPED = (b".note.GNU-stack",)
LINKER_ID = b"Linker: rocarray hsalink 1\0"


class Unsupported(Exception):
    """The object holds something this linker does not handle; link it with ``ld.lld``."""


class LinkError(ValueError):
    """The object cannot be linked by any linker (bad ELF, undefined symbols); says why."""


def _align(value: int, alignment: int) -> int:
    return value if alignment <= 1 else (value + alignment - 1) // alignment * alignment


def gnu_hash(name: bytes) -> int:
    h = 5381
    for c in name:
        h = (h * 33 + c) & 0xFFFFFFFF
    return h


def sysv_hash(name: bytes) -> int:
    h = 0
    for c in name:
        h = ((h << 4) + c) & 0xFFFFFFFF
        h ^= (h >> 24) & 0xF0
    return h & 0x0FFFFFFF


class _Input:
    """The parts of the relocatable object the linker reads."""

    def __init__(self, data: bytes):
        if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            raise LinkError("not a little-endian ELF64 object")
        self.data = data
        self.ident = data[:16]
        (etype, machine, _ver, _entry, _phoff, shoff, self.flags, _eh, _phe, _phn, she, shnum,
         shstrndx) = elf.header(data)
        if etype != ET_REL or machine != EM_AMDGPU:
            raise LinkError(f"not an AMDGPU relocatable object (type {etype}, machine {machine})")
        if she != 64 or shoff + 64 * shnum > len(data):
            raise LinkError("bad section header table")
        self.sections = elf.section_headers(data, shoff, shnum)
        names = self.sections[shstrndx]
        self.names = [self._str(names[4], s[0]) for s in self.sections]

    def _str(self, table_offset: int, offset: int) -> bytes:
        return elf.string(self.data, table_offset + offset)

    def body(self, index: int) -> bytes:
        _n, sh_type, _f, _a, offset, size, *_ = self.sections[index]
        return b"" if sh_type == SHT_NOBITS else self.data[offset:offset + size]

    def symbols(self):
        """``(name, value, size, info, other, shndx)`` of each symbol, the null one first."""
        tab = next((i for i, s in enumerate(self.sections) if s[1] == SHT_SYMTAB), None)
        if tab is None:
            return []
        _n, _t, _f, _a, offset, size, link, _info, _al, _es = self.sections[tab]
        strtab = self.sections[link][4]
        return [(self._str(strtab, name), value, sz, info, other, shndx)
                for name, info, other, shndx, value, sz in elf.symbols(self.data, offset, size)]


class _StrTab:
    def __init__(self):
        self.data = bytearray(b"\0")
        self.offsets: dict[bytes, int] = {b"": 0}

    def add(self, s: bytes) -> int:
        if s not in self.offsets:
            self.offsets[s] = len(self.data)
            self.data += s + b"\0"
        return self.offsets[s]


def link_shared(obj: bytes) -> bytes:
    """``obj`` (an AMDGPU ELF relocatable object) linked into an ET_DYN code object."""
    inp = _Input(obj)

    # -- sections ------------------------------------------------------------------------
    notes, rodata, text, other = [], [], [], []
    relocations: dict[int, int] = {}  # target section -> its SHT_RELA section
    for i, (_n, sh_type, flags, _a, _o, _s, _link, info, _al, _es) in enumerate(inp.sections):
        name = inp.names[i]
        if sh_type == SHT_RELA:
            if inp.sections[info][2] & SHF_ALLOC:
                relocations[info] = i
            continue
        if sh_type == SHT_REL:
            raise Unsupported(f"SHT_REL section {name!r}")
        if not flags & SHF_ALLOC:
            if sh_type == SHT_PROGBITS and name not in _DROPPED:
                other.append(i)
            continue
        if flags & SHF_WRITE or sh_type not in (SHT_PROGBITS, SHT_NOTE):
            raise Unsupported(f"allocated section {name!r} (type {sh_type}, flags {flags:#x})")
        if sh_type == SHT_NOTE and name == b".note":
            notes.append(i)
        elif flags & SHF_EXECINSTR and name == b".text":
            text.append(i)
        elif not flags & SHF_EXECINSTR and name == b".rodata" and not flags & SHF_MERGE:
            rodata.append(i)
        else:
            raise Unsupported(f"allocated section {name!r}")
    if len(notes) > 1 or len(rodata) > 1 or len(text) > 1:
        raise Unsupported("more than one .note, .rodata or .text section")
    if not text:
        raise Unsupported("no .text section")

    symbols = inp.symbols()
    exported, hidden_globals, locals_ = [], [], []
    for k, (name, value, size, info, other_, shndx) in enumerate(symbols):
        if k == 0:
            continue
        bind, visibility = info >> 4, other_ & 3
        if shndx == SHN_COMMON:
            raise Unsupported(f"common symbol {name.decode()}")
        if bind == STB_LOCAL:
            if info & 0xF not in (STT_SECTION, STT_FILE):
                locals_.append(k)
            continue
        if shndx == SHN_UNDEF:
            if bind == STB_WEAK:
                raise Unsupported(f"undefined weak symbol {name.decode()}")
            raise LinkError(f"undefined symbol: {name.decode()}")
        if visibility in (STV_HIDDEN, STV_INTERNAL):
            hidden_globals.append(k)
        else:
            exported.append(k)

    # -- layout: as LLD lays out a code object ------------------------------------------
    ehdr_size, phdr_off = 64, 64
    dynstr = _StrTab()
    for k in exported:
        dynstr.add(symbols[k][0])
    # .gnu.hash orders the hashed symbols by bucket (stable), as LLD does
    nbuckets = max(len(exported) // 4, 1)
    hashes = {k: gnu_hash(symbols[k][0]) for k in exported}
    in_object_order = list(exported)  # .symtab keeps this order
    exported.sort(key=lambda k: hashes[k] % nbuckets)
    # bloom filter words: LLD's NextPowerOf2(12 bits per symbol / 64)
    mask_words = 1 << (len(exported) * 12 // 64).bit_length()
    nsyms = len(exported) + 1

    def sec_align(i):
        return max(inp.sections[i][8], 1)

    addr = phdr_off + 56 * _PHNUM
    placed: dict = {}

    def place(key, size, alignment):
        nonlocal addr
        addr = _align(addr, alignment)
        placed[key] = (addr, size)
        addr += size

    if notes:
        place("note", inp.sections[notes[0]][5], sec_align(notes[0]))
    place("dynsym", 24 * nsyms, 8)
    place("gnu.hash", 16 + 8 * mask_words + 4 * nbuckets + 4 * len(exported), 8)
    place("hash", 4 * (2 + 2 * nsyms), 4)
    place("dynstr", len(dynstr.data), 1)
    if rodata:
        place("rodata", inp.sections[rodata[0]][5], sec_align(rodata[0]))
    ro_end = addr
    # Each later segment starts on a new page, at the in-page offset where the previous
    # one ended (LLD without -z separate-code); its file offset is the next one congruent
    # to its address modulo the page size.
    text_size = inp.sections[text[0]][5]
    if sec_align(text[0]) > PAGE:
        raise Unsupported("text alignment above the page size")
    text_addr = _align(_align(ro_end, PAGE) + ro_end % PAGE, sec_align(text[0]))
    text_off = ro_end + (text_addr - ro_end) % PAGE
    placed["text"] = (text_addr, text_size)
    text_end_addr, text_end_off = text_addr + text_size, text_off + text_size
    dyn_addr = _align(_align(text_end_addr, PAGE) + text_end_addr % PAGE, 8)
    dyn_off = text_end_off + (dyn_addr - text_end_off) % PAGE
    dyn_size = 16 * 7
    placed["dynamic"] = (dyn_addr, dyn_size)
    relro_end = _align(dyn_addr + dyn_size, PAGE)

    section_addr = {}
    if notes:
        section_addr[notes[0]] = placed["note"][0]
    if rodata:
        section_addr[rodata[0]] = placed["rodata"][0]
    section_addr[text[0]] = text_addr

    # -- symbol values, relocations -------------------------------------------------------
    def symbol_address(k: int) -> int:
        name, value, _size, info, _other, shndx = symbols[k]
        if shndx == SHN_ABS:
            return value
        if shndx not in section_addr:
            raise Unsupported(f"symbol {name.decode()!r} in a section that is not loaded")
        return section_addr[shndx] + value

    contents = {i: bytearray(inp.body(i)) for i in section_addr}
    for target, rela in relocations.items():
        if target not in contents:
            raise Unsupported(f"relocations against section {inp.names[target].decode()!r}")
        buf = contents[target]
        base = section_addr[target]
        _n, _t, _f, _a, offset, size, *_ = inp.sections[rela]
        for r_offset, r_info, addend in elf.relocations(obj, offset, size):
            rtype, sym = r_info & 0xFFFFFFFF, r_info >> 32
            if rtype == R_AMDGPU_NONE:
                continue
            if symbols[sym][5] == SHN_UNDEF:
                raise LinkError(f"undefined symbol: {symbols[sym][0].decode()}")
            value = symbol_address(sym) + addend - (base + r_offset)
            if rtype == R_AMDGPU_REL64:
                struct.pack_into("<Q", buf, r_offset, value & 0xFFFFFFFFFFFFFFFF)
            elif rtype == R_AMDGPU_REL32 or rtype == R_AMDGPU_REL32_LO:
                if rtype == R_AMDGPU_REL32 and not -(1 << 31) <= value < (1 << 32):
                    raise LinkError(f"R_AMDGPU_REL32 out of range at {r_offset:#x}")
                struct.pack_into("<I", buf, r_offset, value & 0xFFFFFFFF)
            elif rtype == R_AMDGPU_REL32_HI:
                struct.pack_into("<I", buf, r_offset, (value >> 32) & 0xFFFFFFFF)
            else:
                raise Unsupported(f"relocation type {rtype} in {inp.names[target].decode()}")

    # -- output section indices --------------------------------------------------------
    order = []
    if notes:
        order.append(("note", notes[0]))
    order += [("dynsym", None), ("gnu.hash", None), ("hash", None), ("dynstr", None)]
    if rodata:
        order.append(("rodata", rodata[0]))
    order += [("text", text[0]), ("dynamic", None), ("relro_padding", None)]
    order += [(f"other{i}", i) for i in other]
    order += [("symtab", None), ("shstrtab", None), ("strtab", None)]
    index_of = {key: n + 1 for n, (key, _) in enumerate(order)}
    out_index = {i: index_of[key] for key, i in order if i is not None}

    def out_shndx(shndx: int) -> int:
        return shndx if shndx in (SHN_ABS, SHN_UNDEF) else out_index[shndx]

    def sym_entry(name_off, k=None, *, value=None, info=None, other_=None, shndx=None):
        _name, v, size, i, o, s = symbols[k] if k is not None else (b"", 0, 0, 0, 0, 0)
        return elf.SYM.pack(
            name_off, i if info is None else info, o if other_ is None else other_,
            out_shndx(s) if shndx is None else shndx, symbol_address(k) if value is None else value, size,
        )

    # .dynsym, .gnu.hash, .hash
    dynsym = bytearray(24)
    for k in exported:
        dynsym += sym_entry(dynstr.offsets[symbols[k][0]], k)
    gh = bytearray(struct.pack("<IIII", nbuckets, 1, mask_words, 26))
    bloom = [0] * mask_words
    for k in exported:
        h = hashes[k]
        word = (h // 64) % mask_words
        bloom[word] |= (1 << (h % 64)) | (1 << ((h >> 26) % 64))
    gh += struct.pack(f"<{mask_words}Q", *bloom)
    buckets = [0] * nbuckets
    for n, k in enumerate(exported):
        b = hashes[k] % nbuckets
        if buckets[b] == 0:
            buckets[b] = n + 1
    gh += struct.pack(f"<{nbuckets}I", *buckets)
    for n, k in enumerate(exported):
        last = n + 1 == len(exported) or hashes[exported[n + 1]] % nbuckets != hashes[k] % nbuckets
        gh += struct.pack("<I", (hashes[k] & ~1) | int(last))
    sysv_buckets, chains = [0] * nsyms, [0] * nsyms
    for n, k in enumerate(exported):
        i = n + 1
        b = sysv_hash(symbols[k][0]) % nsyms
        chains[i] = sysv_buckets[b]
        sysv_buckets[b] = i
    hash_section = struct.pack(f"<II{nsyms}I{nsyms}I", nsyms, nsyms, *sysv_buckets, *chains)
    dynamic = struct.pack(
        "<14Q",
        DT_SYMTAB, placed["dynsym"][0], DT_SYMENT, 24, DT_STRTAB, placed["dynstr"][0],
        DT_STRSZ, len(dynstr.data), DT_GNU_HASH, placed["gnu.hash"][0], DT_HASH, placed["hash"][0],
        DT_NULL, 0,
    )

    # .symtab: the object's locals, _DYNAMIC, hidden globals made local, then the exports
    strtab = _StrTab()
    symtab = bytearray(24)
    for k in locals_:
        symtab += sym_entry(strtab.add(symbols[k][0]), k)
    symtab += elf.SYM.pack(strtab.add(b"_DYNAMIC"), STB_LOCAL << 4, STV_HIDDEN,
                          index_of["dynamic"], dyn_addr, 0)
    for k in hidden_globals:
        symtab += sym_entry(strtab.add(symbols[k][0]), k, info=(STB_LOCAL << 4) | (symbols[k][3] & 0xF))
    first_out_global = len(symtab) // 24
    for k in in_object_order:
        symtab += sym_entry(strtab.add(symbols[k][0]), k)

    # -- the file ------------------------------------------------------------------------
    out = bytearray(text_off)  # header, program headers and the read-only segment
    for key, data in (("dynsym", dynsym), ("gnu.hash", gh), ("hash", hash_section), ("dynstr", dynstr.data)):
        a, _ = placed[key]
        out[a:a + len(data)] = data
    for i in notes + rodata:
        a = section_addr[i]
        out[a:a + len(contents[i])] = contents[i]
    out[text_off:] = contents[text[0]]
    out += bytes(dyn_off - len(out))
    out += dynamic
    nonalloc = []  # (key, offset, size)
    for i in other:
        body = inp.body(i)
        if inp.names[i] == b".comment":
            body += LINKER_ID
        off = _align(len(out), max(inp.sections[i][8], 1))
        out += bytes(off - len(out)) + body
        nonalloc.append((f"other{i}", off, len(body)))
    for key, data, alignment in (("symtab", symtab, 8),):
        off = _align(len(out), alignment)
        out += bytes(off - len(out)) + data
        nonalloc.append((key, off, len(data)))
    shstrtab = _StrTab()
    section_names = {
        "note": b".note", "dynsym": b".dynsym", "gnu.hash": b".gnu.hash", "hash": b".hash",
        "dynstr": b".dynstr", "rodata": b".rodata", "text": b".text", "dynamic": b".dynamic",
        "relro_padding": b".relro_padding", "symtab": b".symtab", "shstrtab": b".shstrtab",
        "strtab": b".strtab",
    }
    for i in other:
        section_names[f"other{i}"] = inp.names[i]
    name_offsets = {key: shstrtab.add(section_names[key]) for key, _ in order}
    off = len(out)
    out += shstrtab.data
    nonalloc.append(("shstrtab", off, len(shstrtab.data)))
    off = len(out)
    out += strtab.data
    nonalloc.append(("strtab", off, len(strtab.data)))
    shoff = _align(len(out), 8)
    out += bytes(shoff - len(out))

    file_pos = {key: (o, s) for key, o, s in nonalloc}
    headers = [bytes(64)]
    for key, i in order:
        link = info = entsize = 0
        flags, alignment = 0, 1
        if i is not None:
            _n, sh_type, flags, _a, _o, size, _l, _inf, alignment, entsize = inp.sections[i]
        if key in ("note", "rodata", "text"):
            addr_, size = placed[key]
            off = addr_ if key != "text" else text_off
        elif key == "dynsym":
            sh_type, flags, alignment, entsize, link, info = SHT_DYNSYM, SHF_ALLOC, 8, 24, index_of["dynstr"], 1
            addr_, size = placed[key]
            off = addr_
        elif key == "gnu.hash":
            sh_type, flags, alignment, link = SHT_GNU_HASH, SHF_ALLOC, 8, index_of["dynsym"]
            addr_, size = placed[key]
            off = addr_
        elif key == "hash":
            sh_type, flags, alignment, entsize, link = SHT_HASH, SHF_ALLOC, 4, 4, index_of["dynsym"]
            addr_, size = placed[key]
            off = addr_
        elif key == "dynstr":
            sh_type, flags = SHT_STRTAB, SHF_ALLOC
            addr_, size = placed[key]
            off = addr_
        elif key == "dynamic":
            sh_type, flags, alignment, entsize, link = SHT_DYNAMIC, SHF_WRITE | SHF_ALLOC, 8, 16, index_of["dynstr"]
            addr_, size, off = dyn_addr, dyn_size, dyn_off
        elif key == "relro_padding":
            sh_type, flags = SHT_NOBITS, SHF_WRITE | SHF_ALLOC
            addr_, off = dyn_addr + dyn_size, dyn_off + dyn_size
            size = relro_end - addr_
        elif key == "symtab":
            sh_type, alignment, entsize, link, info = SHT_SYMTAB, 8, 24, index_of["strtab"], first_out_global
            addr_ = 0
            off, size = file_pos[key]
        elif key in ("shstrtab", "strtab"):
            sh_type, addr_ = SHT_STRTAB, 0
            off, size = file_pos[key]
        else:  # a non-allocated section of the input
            addr_ = 0
            off, size = file_pos[key]
        headers.append(elf.SH.pack(name_offsets[key], sh_type, flags, addr_, off, size,
                                   link, info, alignment, entsize))
    out += b"".join(headers)

    phdrs = [
        (PT_PHDR, PF_R, phdr_off, phdr_off, 56 * _PHNUM, 56 * _PHNUM, 8),
        (PT_LOAD, PF_R, 0, 0, ro_end, ro_end, PAGE),
        (PT_LOAD, PF_R | PF_X, text_off, text_addr, text_size, text_size, PAGE),
        (PT_LOAD, PF_R | PF_W, dyn_off, dyn_addr, dyn_size, relro_end - dyn_addr, PAGE),
        (PT_DYNAMIC, PF_R | PF_W, dyn_off, dyn_addr, dyn_size, dyn_size, 8),
        (PT_GNU_RELRO, PF_R, dyn_off, dyn_addr, dyn_size, relro_end - dyn_addr, 1),
        (PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 0),
    ]
    if notes:
        a, s = placed["note"]
        phdrs.append((PT_NOTE, PF_R, a, a, s, s, sec_align(notes[0])))
    else:
        raise Unsupported("no .note section (the AMDGPU metadata)")
    for n, (p_type, p_flags, p_off, p_addr, filesz, memsz, p_align) in enumerate(phdrs):
        elf.PH.pack_into(out, phdr_off + 56 * n, p_type, p_flags, p_off, p_addr, p_addr,
                         filesz, memsz, p_align)
    out[:16] = inp.ident
    elf.HEADER.pack_into(out, 16, ET_DYN, EM_AMDGPU, 1, 0, phdr_off, shoff, inp.flags,
                     ehdr_size, 56, _PHNUM, 64, len(order) + 1, index_of["shstrtab"])
    return bytes(out)


# -- two objects into one ------------------------------------------------------------------

SHF_INFO_LINK = 0x40
_MERGED = (b".text", b".rodata")


def merge_objects(first: bytes, second: bytes, *, rename: dict | None = None, make_local=(),
                  drop=(), note: bytes | None = None) -> bytes:
    """One relocatable object holding ``first`` and ``second`` (what ``ld.lld -r`` makes of
    the two, for the objects LLVM emits here), for ``link_shared``.

    ``.text`` and ``.rodata`` are concatenated, ``second``'s after ``first``'s at its
    alignment, with their relocations; an undefined symbol of one object is bound to the
    other's definition of that name.  ``.note`` is ``first``'s, or ``note`` (the bytes of
    a whole SHT_NOTE section) in its place; ``second``'s notes and both objects'
    non-allocated sections (comments, the stack note, register maxima) and absolute
    local symbols (LLVM's resource counts) are dropped.  ``rename`` maps defined global
    names of either object to new ones; the globals named in ``make_local`` become local;
    those named in ``drop`` are left out (their bytes stay, nameless; relocations against
    them become relocations against their section).
    Anything else -- other allocated sections, SHT_REL, a name defined twice -- raises
    ``Unsupported``."""
    rename = rename or {}
    make_local, drop = set(make_local), set(drop)
    inputs = [_Input(first), _Input(second)]
    if inputs[0].flags != inputs[1].flags:
        raise Unsupported("objects for different processors (e_flags differ)")

    # -- sections: where each input section lands ------------------------------------------
    merged = {name: bytearray() for name in _MERGED}
    align = {name: 1 for name in _MERGED}
    flags = {}
    note_body, note_align, note_flags = None, 4, SHF_ALLOC
    place: dict = {}  # (input, section index) -> (merged name, offset)
    relas = []  # (input, rela section index, target section index)
    for n, inp in enumerate(inputs):
        for i, (_nm, sh_type, sh_flags, _a, _o, _s, _l, info, sh_align, _e) in enumerate(inp.sections):
            name = inp.names[i]
            if sh_type == SHT_RELA:
                relas.append((n, i, info))
                continue
            if sh_type == SHT_REL:
                raise Unsupported(f"SHT_REL section {name!r}")
            if not sh_flags & SHF_ALLOC:
                continue
            if sh_type == SHT_NOTE and name == b".note":
                if n == 0:
                    note_body, note_align, note_flags = inp.body(i), max(sh_align, 1), sh_flags
                continue
            if name not in merged or sh_type != SHT_PROGBITS or sh_flags & SHF_WRITE:
                raise Unsupported(f"allocated section {name!r}")
            if (n, name) in {(k[0], v[0]) for k, v in place.items()}:
                raise Unsupported(f"more than one {name.decode()} section")
            buf = merged[name]
            a = max(sh_align, 1)
            buf += bytes(_align(len(buf), a) - len(buf))
            place[(n, i)] = (name, len(buf))
            buf += inp.body(i)
            align[name] = max(align[name], a)
            flags.setdefault(name, sh_flags)
    if note is not None:
        note_body = note
    present = [name for name in _MERGED if name in flags]

    # -- output section indices: null, then each merged section with its RELA, .note, tables
    order = []
    for name in present:
        order.append(("sec", name))
        order.append(("rela", name))
    if note_body is not None:
        order.append(("note", None))
    order += [("symtab", None), ("strtab", None), ("shstrtab", None)]
    index = {key: k + 1 for k, key in enumerate(order)}

    # -- symbols -----------------------------------------------------------------------
    strtab = _StrTab()
    local_syms = [elf.SYM.pack(0, 0, 0, 0, 0, 0)]
    global_syms = []
    section_symbol = {}
    for name in present:  # a section symbol per merged section, for section-relative relocations
        section_symbol[name] = len(local_syms)
        local_syms.append(elf.SYM.pack(0, (STB_LOCAL << 4) | STT_SECTION, 0, index[("sec", name)], 0, 0))
    tables = [inp.symbols() for inp in inputs]
    defined = {}
    for n, symbols in enumerate(tables):
        for k, (name, _v, _s, info, _o, shndx) in enumerate(symbols):
            if k and info >> 4 != STB_LOCAL and shndx != SHN_UNDEF:
                if name in defined:
                    raise Unsupported(f"symbol {name.decode()} defined in both objects")
                defined[name] = (n, k)
    mapping: dict = {}  # (input, symbol index) -> ("local"|"global", position) or ("section", name, shift)
    pending_undefined = []
    for n, symbols in enumerate(tables):
        for k, (name, value, size, info, other_, shndx) in enumerate(symbols):
            if k == 0:
                continue
            bind, kind = info >> 4, info & 0xF
            if kind == STT_SECTION:
                where = place.get((n, shndx))
                if where is not None:
                    mapping[(n, k)] = ("section", where[0], where[1])
                continue
            if kind == STT_FILE or (bind == STB_LOCAL and shndx == SHN_ABS):
                continue
            if shndx == SHN_UNDEF:
                pending_undefined.append((n, k, name, info, other_))
                continue
            if shndx == SHN_COMMON:
                raise Unsupported(f"common symbol {name.decode()}")
            if shndx == SHN_ABS:
                out_shndx, out_value = SHN_ABS, value
            else:
                where = place.get((n, shndx))
                if where is None:
                    raise Unsupported(f"symbol {name.decode()!r} in a section that is not merged")
                out_shndx, out_value = index[("sec", where[0])], where[1] + value
                if name in drop:
                    mapping[(n, k)] = ("section", where[0], where[1] + value)
                    continue
            new_name = rename.get(name, name)
            if bind != STB_LOCAL and name in make_local:
                info = (STB_LOCAL << 4) | kind
                bind = STB_LOCAL
            entry = elf.SYM.pack(strtab.add(new_name), info, other_, out_shndx, out_value, size)
            if bind == STB_LOCAL:
                mapping[(n, k)] = ("local", len(local_syms))
                local_syms.append(entry)
            else:
                mapping[(n, k)] = ("global", len(global_syms))
                global_syms.append(entry)
    for n, k, name, info, other_ in pending_undefined:
        target = defined.get(name)
        if target is not None and target[0] != n:
            mapping[(n, k)] = mapping[target]
        else:  # still undefined: link_shared says so
            mapping[(n, k)] = ("global", len(global_syms))
            global_syms.append(elf.SYM.pack(strtab.add(name), info, other_, SHN_UNDEF, 0, 0))
    first_global = len(local_syms)

    def out_symbol(n, k, addend):
        m = mapping.get((n, k))
        if m is None:
            raise Unsupported("relocation against a symbol that is not merged")
        if m[0] == "section":
            return section_symbol[m[1]], addend + m[2]
        return (m[1] if m[0] == "local" else first_global + m[1]), addend

    # -- relocations ---------------------------------------------------------------------
    out_relas = {name: bytearray() for name in present}
    for n, i, target in relas:
        where = place.get((n, target))
        if where is None:
            if inputs[n].sections[target][2] & SHF_ALLOC:
                raise Unsupported(f"relocations against section {inputs[n].names[target]!r}")
            continue  # a non-allocated section's (dropped with it)
        name, shift = where
        data = inputs[n].data
        _nm, _t, _f, _a, offset, size, *_ = inputs[n].sections[i]
        for r_offset, r_info, addend in elf.relocations(data, offset, size):
            sym, addend = out_symbol(n, r_info >> 32, addend)
            out_relas[name] += elf.RELA.pack(r_offset + shift, (sym << 32) | (r_info & 0xFFFFFFFF), addend)

    # -- the file --------------------------------------------------------------------------
    shstrtab = _StrTab()
    out = bytearray(64)
    headers = [bytes(64)]
    symtab = b"".join(local_syms) + b"".join(global_syms)
    for key in order:
        kind, name = key
        link = info = entsize = 0
        if kind == "sec":
            data, sh_type, sh_flags, a = merged[name], SHT_PROGBITS, flags[name], align[name]
            sh_name = name
        elif kind == "rela":
            data, sh_type, sh_flags, a = out_relas[name], SHT_RELA, SHF_INFO_LINK, 8
            sh_name, link, info, entsize = b".rela" + name, index[("symtab", None)], index[("sec", name)], 24
        elif kind == "note":
            data, sh_type, sh_flags, a, sh_name = note_body, SHT_NOTE, note_flags, note_align, b".note"
        elif kind == "symtab":
            data, sh_type, sh_flags, a, sh_name = symtab, SHT_SYMTAB, 0, 8, b".symtab"
            link, info, entsize = index[("strtab", None)], first_global, 24
        elif kind == "strtab":
            data, sh_type, sh_flags, a, sh_name = strtab.data, SHT_STRTAB, 0, 1, b".strtab"
        else:
            name_off = shstrtab.add(b".shstrtab")
            data, sh_type, sh_flags, a, sh_name = shstrtab.data, SHT_STRTAB, 0, 1, None
        name_off = shstrtab.add(sh_name) if sh_name is not None else shstrtab.offsets[b".shstrtab"]
        off = _align(len(out), a)
        out += bytes(off - len(out)) + data
        headers.append(elf.SH.pack(name_off, sh_type, sh_flags, 0, off, len(data),
                                   link, info, a, entsize))
    shoff = _align(len(out), 8)
    out += bytes(shoff - len(out)) + b"".join(headers)
    out[:16] = inputs[0].ident
    elf.HEADER.pack_into(out, 16, ET_REL, EM_AMDGPU, 1, 0, 0, shoff, inputs[0].flags,
                     64, 0, 0, 64, len(headers), index[("shstrtab", None)])
    return bytes(out)
