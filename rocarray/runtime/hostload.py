"""The host loader: maps the object files the host target emits into this process.

A kernel object holds code, read-only constants and absolute 64-bit relocations only
(the large code model), so rocarray places it itself (``_Mapper``): its sections are copied
into a code arena -- one shared-memory file mapped twice, writable and executable -- with
the relocations applied on the way.  A load is then a parse and a copy, no system call
(measured several times faster than MCJIT; benchmarks/results/history/benchmarks.md).  The host target lays
the object out for the mapper once, when it compiles it (``host_image``), so a disk-cache
hit's load parses no ELF.

Anything else -- writable or thread-local data, other relocations, another machine or
system, or no arena -- falls back to MCJIT: one execution engine takes many object files;
MCJIT resolves names across all objects of an engine, so objects that define a name
already present go to another engine of a small pool.  Code lives for the life of the
process either way.

Symbols resolve in the C math and C libraries, in the names given to ``register_symbols``
and in the compiler-runtime helpers a host target lends (``lend_runtime_helpers``), never
in whatever else the process happens to have loaded.  The loader needs no code generator:
the host target (``rocarray.targets.host``) compiles, this module only loads.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import os
import struct
import sys
import threading

from .llvm import LLVM_LOCK, ToolchainError, llvm_binding
# (the ELF layout under the short names the loader's code uses)
from .elf import ELF64_LE as _ELF64_LE
from .elf import RELA as _RELA
from .elf import SH as _SH
from .elf import SHF_ALLOC as _SHF_ALLOC
from .elf import SHF_TLS as _SHF_TLS
from .elf import SHF_WRITE as _SHF_WRITE
from .elf import SHN_LORESERVE as _SHN_LORESERVE
from .elf import SHT_NOBITS as _SHT_NOBITS
from .elf import SHT_PROGBITS as _SHT_PROGBITS
from .elf import SHT_REL as _SHT_REL
from .elf import SHT_RELA as _SHT_RELA
from .elf import SHT_SYMTAB as _SHT_SYMTAB
from .elf import SYM as _SYM
from .elf import header as _elf_header
from .elf import section_headers as _elf_sections

# -- reading ELF --------------------------------------------------------------------------

_R_X86_64_NONE, _R_X86_64_64, _R_X86_64_PC32, _R_X86_64_PLT32 = 0, 1, 2, 4
#: bytes each relocation kind the mapper applies writes
_RELOC_WIDTH = {_R_X86_64_64: 8, _R_X86_64_PC32: 4, _R_X86_64_PLT32: 4}
#: ... and of the other x86-64 kinds MCJIT applies (a kind not listed: at least one byte)
_MCJIT_RELOC_WIDTH = {**_RELOC_WIDTH, 9: 4, 10: 4, 11: 4, 24: 8, 26: 8, 41: 4, 42: 4}
#: The strictest section alignment a kernel object may ask for, and its largest image:
#: far beyond anything the host target emits; more is a corrupt object, not a big kernel.
_MAX_ALIGN = 1 << 16
_MAX_IMAGE = 1 << 30


def _corrupt(what: str) -> ValueError:
    return ValueError(f"corrupt host object: {what}")


class _ElfObject:
    """The parts of a little-endian ELF64 relocatable object that loading needs.

    ``sections``: the section headers, as tuples (name, type, flags, addr, offset, size,
    link, info, addralign, entsize); ``symbols``: (name, bind, type, section index, value)
    of every symbol but the null one (the name only of global and weak symbols, "" for
    local ones); ``defined`` and ``undefined``: the names of global and weak symbols,
    defined in the object or not.
    """

    __slots__ = ("sections", "symbols", "defined", "undefined", "machine")

    def __init__(self, data: bytes):
        # Every offset, size and index is checked against the data before it is used:
        # the bytes may come from a damaged cache entry whose checksum still verifies,
        # and MCJIT (or the mapper) given a section past the end would read or write
        # outside it.  Anything wrong is a ValueError (``_corrupt``).
        n = len(data)
        if n < 64 or data[:6] != _ELF64_LE:
            raise _corrupt("not a little-endian ELF64 file")
        head = _elf_header(data)
        shoff, shentsize, shnum, self.machine = head.shoff, head.shentsize, head.shnum, head.machine
        if shentsize != _SH.size:
            raise ValueError("unexpected ELF section header size")
        if shoff > n or shnum * shentsize > n - shoff:
            raise _corrupt(f"{shnum} section headers at {shoff} run past the end ({n} bytes)")
        self.sections = _elf_sections(data, shoff, shnum)
        allocated = 0
        for idx, sh in enumerate(self.sections):
            offset, size = sh[4], sh[5]
            if sh[1] != _SHT_NOBITS and (offset > n or size > n - offset):
                raise _corrupt(f"section {idx} ({size} bytes at {offset}) runs past the end ({n} bytes)")
            if sh[2] & _SHF_ALLOC:
                align = sh[8]
                if align & (align - 1) or align > _MAX_ALIGN:
                    raise _corrupt(f"section {idx} aligned to {align} bytes")
                allocated += size  # (a NOBITS section's size has no bytes in the file)
                if allocated > _MAX_IMAGE:
                    raise _corrupt(f"allocated sections of more than {_MAX_IMAGE} bytes")
            if sh[1] == _SHT_RELA and (sh[6] >= shnum or sh[7] >= shnum or (sh[9] or _RELA.size) != _RELA.size
                                       or size % _RELA.size):
                raise _corrupt(f"relocation section {idx}: bad link, target or entry size")
        self.symbols = []
        self.defined, self.undefined = set(), set()
        for sh in self.sections:
            if sh[1] != _SHT_SYMTAB:
                continue
            offset, size, link, entsize = sh[4], sh[5], sh[6], sh[9] or _SYM.size
            if entsize != _SYM.size:
                raise ValueError("unexpected ELF symbol size")
            if size % entsize or link >= shnum or self.sections[link][1] == _SHT_NOBITS:
                raise _corrupt("symbol table: bad size or string table")
            str_off, str_end = self.sections[link][4], self.sections[link][4] + self.sections[link][5]
            append = self.symbols.append
            for st_name, st_info, _, st_shndx, st_value, _ in _SYM.iter_unpack(
                    data[offset + entsize:offset + size]):  # entry 0 is the null symbol
                if st_shndx >= shnum and st_shndx < _SHN_LORESERVE:
                    raise _corrupt(f"symbol of section {st_shndx} (of {shnum})")
                bind = st_info >> 4
                if bind in (1, 2):  # STB_GLOBAL, STB_WEAK: only their names are used
                    start = str_off + st_name
                    stop = data.find(b"\0", start, str_end) if st_name < str_end - str_off else -1
                    if stop < 0:
                        raise _corrupt(f"symbol name at {st_name} outside its string table")
                    name = data[start:stop].decode("utf-8", "replace")
                    (self.undefined if st_shndx == 0 else self.defined).add(name)
                else:
                    name = ""
                append((name, bind, st_info & 0xF, st_shndx, st_value))

    def check_relocations(self, data: bytes) -> None:
        """Raise ValueError unless every relocation of an allocated section lies inside
        that section and names a symbol of the object (what MCJIT is given must be sound:
        it applies them without such checks)."""
        sections, count = self.sections, len(self.symbols)
        widths = _MCJIT_RELOC_WIDTH if self.machine == 62 else {}  # (EM_X86_64)
        for sh in sections:
            if sh[1] != _SHT_RELA or not sections[sh[7]][2] & _SHF_ALLOC:
                continue
            target_size = sections[sh[7]][5]
            for r_offset, r_info, _ in _RELA.iter_unpack(data[sh[4]:sh[4] + sh[5]]):
                k, kind = r_info >> 32, r_info & 0xFFFFFFFF
                width = 0 if kind == _R_X86_64_NONE else widths.get(kind, 1)
                if k > count or r_offset > target_size or width > target_size - r_offset:
                    raise _corrupt(f"relocation at {r_offset} (symbol {k} of {count}) outside its "
                                   f"section of {target_size} bytes")


def elf_symbols(data: bytes) -> tuple[set, set] | None:
    """(defined, undefined) global symbol names of a little-endian ELF64 object, or None
    for any other format."""
    if len(data) < 64 or data[:6] != _ELF64_LE:
        return None
    elf = _ElfObject(data)
    return elf.defined, elf.undefined


# -- the C libraries and the registered names ---------------------------------------------

#: The C libraries host code may call into (the math functions, memcpy / memset), opened
#: by name: a symbol resolves in them, in the lent runtime helpers or in the names
#: registered with ``register_symbols``, never in whatever else the process has loaded.
_C_LIBRARIES = ("libm.so.6", "libc.so.6") if sys.platform.startswith("linux") else ()
_libraries: list = []  # [[(name, CDLL), ...]] once opened
_mcjit_ready: list = []  # [True] once MCJIT sees the C libraries and the registered names


def _c_libraries() -> list:
    """The C math and C libraries, opened by name for rocarray's resolver (once)."""
    if not _libraries:
        names = list(_C_LIBRARIES)
        if not names:  # not glibc's sonames: ask the platform (slower: it may run a tool)
            names = [n for n in (ctypes.util.find_library("m"), ctypes.util.find_library("c")) if n]
        opened = []
        for name in names:
            try:
                opened.append((name, ctypes.CDLL(name)))
            except OSError:
                continue
        _libraries.append(opened)
    return _libraries[0]


def _init_mcjit():
    """Make the C libraries and the registered names visible to MCJIT (which resolves
    names through the libraries loaded "permanently"), once, before its first load."""
    binding = llvm_binding()
    if _mcjit_ready:
        return binding
    with LLVM_LOCK:
        if _mcjit_ready:
            return binding
        for name, _ in _c_libraries():
            try:
                binding.load_library_permanently(name)
            except RuntimeError:
                pass
        for name, address in _registered.items():
            binding.add_symbol(name, address)
        _mcjit_ready.append(True)
    return binding


# -- MCJIT, the fallback --------------------------------------------------------------------

class _Engine:
    """One MCJIT execution engine and the global names its objects define."""

    def __init__(self):
        binding = llvm_binding()
        # this process's own machine: the objects were compiled for it
        tm = binding.Target.from_triple(binding.get_process_triple()).create_target_machine(
            cpu=binding.get_host_cpu_name(), features=binding.get_host_cpu_features().flatten(),
            codemodel="jitdefault", jit=True,
        )
        self.ee = binding.create_mcjit_compiler(binding.parse_assembly(""), tm)
        self.names: set = set()


class HostModule:
    """An object file mapped into this process; it stays for the life of the process.

    Loaded either by rocarray's own mapper (``engine`` None: every address is known at
    load) or by an MCJIT engine."""

    __slots__ = ("names", "_engine", "_addresses", "nbytes")

    def __init__(self, engine: _Engine | None, names, nbytes: int, addresses: dict | None = None):
        self._engine = engine
        #: the global names it defines (a set or a dict's keys); None when the object
        #: format is not read (non-ELF)
        self.names = names
        self.nbytes = nbytes
        #: name -> address, of every name when the mapper loaded it
        self._addresses: dict = {} if addresses is None else addresses

    def address(self, name: str) -> int:
        """The address of function ``name`` defined by this object."""
        addr = self._addresses.get(name)
        if addr is not None:
            return addr
        if self.names is not None and name not in self.names:
            raise KeyError(f"host object defines no function {name!r} (it defines {sorted(self.names)})")
        if self._engine is None:
            raise KeyError(f"host object defines no function {name!r}")
        with LLVM_LOCK:
            addr = self._engine.ee.get_function_address(name)
        if not addr:
            raise KeyError(f"host object defines no function {name!r}")
        self._addresses[name] = addr
        return addr

    def __repr__(self) -> str:
        return f"<HostModule {sorted(self.names or ())} ({self.nbytes} bytes)>"


class _Mapper:
    """rocarray's own loader for the simple objects the host target emits.

    A kernel object holds code and read-only constants and, in the large code model, only
    absolute 64-bit relocations (to its own constants and to C library functions).  Such
    an object needs no linker: its allocated sections are copied into a code arena, the
    relocations applied on the way.  The arena is one shared-memory file mapped twice, a
    writable view and an executable one (no page is ever writable and executable through
    the same address), made once per 256 KiB: a load is a copy, with no system call, no
    page fault and no engine search, unlike MCJIT's ``add_object_file`` +
    ``finalize_object``.  ``place`` returns None for anything
    else (writable or thread-local data, other relocation kinds, another machine or
    system), which MCJIT then loads.  Like MCJIT's engines, the arena is never unmapped.
    A forked child maps a chunk of its own (the pages are shared with the parent).
    """

    #: bytes per arena chunk; an object larger than this gets a chunk of its own size
    CHUNK = 1 << 18
    #: objects start on cache-line boundaries (no line holds code of two kernels)
    ALIGN = 64

    def __init__(self):
        libc = ctypes.CDLL(None, use_errno=True)
        self._mmap = libc.mmap
        self._mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                               ctypes.c_int, ctypes.c_long]
        self._mmap.restype = ctypes.c_void_p
        self._munmap = libc.munmap
        self._munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        self._munmap.restype = ctypes.c_int
        self._page = mmap.PAGESIZE
        self._failed = ctypes.c_void_p(-1).value
        self._write_base = self._exec_base = 0
        self._view: memoryview | None = None  # the current chunk's writable mapping
        self._used = self._size = 0
        #: False once the system refused the arena: MCJIT loads everything then
        self.usable = True
        # a forked child must not fill its parent's chunk: it forgets it (no ``getpid``
        # system call per load)
        os.register_at_fork(after_in_child=self._forget_chunk)

    def _forget_chunk(self) -> None:
        self._size = self._used = 0  # the next load maps a chunk of this process's own

    def _new_chunk(self, nbytes: int) -> bool:
        """Map a fresh arena chunk of at least ``nbytes``; False when the system refuses."""
        mm = mmap
        size = max(self.CHUNK, -(-nbytes // self._page) * self._page)
        try:
            fd = os.memfd_create("rocarray-kernels", os.MFD_CLOEXEC)
        except (AttributeError, OSError):
            return False
        try:
            os.ftruncate(fd, size)
            flags = mm.MAP_SHARED | getattr(mm, "MAP_POPULATE", 0)
            w = self._mmap(None, size, mm.PROT_READ | mm.PROT_WRITE, flags, fd, 0)
            if not w or w == self._failed:
                return False
            x = self._mmap(None, size, mm.PROT_READ | mm.PROT_EXEC, flags, fd, 0)
            if not x or x == self._failed:
                self._munmap(w, size)
                return False
        except OSError:
            return False
        finally:
            os.close(fd)  # the mappings keep the memory
        self._write_base, self._exec_base, self._used, self._size = w, x, 0, size
        # the writable mapping as a Python buffer: a load copies and relocates into it
        # with no foreign call
        self._view = memoryview((ctypes.c_char * size).from_address(w)).cast("B")
        return True

    def place(self, image: bytes, align: int, relocs, externals, defined, resolve) -> dict | None:
        """Copy ``image`` into the arena, relocated (the arguments are those ``_plan_map``
        returns), and return {defined global name: address}; None when the arena cannot
        take it (nothing is used then).  ``resolve(name)`` gives the address of a C
        library symbol, 0 when none is known.  The caller holds ``_map_lock``."""
        if align > self._page:  # chunks start on a page boundary
            return None
        size = len(image)
        start = -(-self._used // align) * align
        if start + size > self._size:
            # full, or none yet -- a forked child has forgotten its parent's
            # (``_forget_chunk``): the chunk's pages are shared (MAP_SHARED) with the
            # parent, which goes on filling its free part; the child maps a chunk of its
            # own (the code already in the old one stays valid, nobody rewrites it)
            if not self._new_chunk(size):
                self.usable = False
                return None
            start = 0
        base = self._exec_base + start  # where the code runs
        view = self._view
        view[start:start + size] = image
        # relocated in place: the space is only taken (``_used``) once they all applied
        for at, kind, symbol, value, addend in relocs:
            if symbol >= 0:
                s_addr = resolve(externals[symbol])
                if not s_addr:
                    return None
            elif symbol == _IN_IMAGE:
                s_addr = base + value
            else:
                s_addr = value
            if kind == _R_X86_64_64:
                _U64.pack_into(view, start + at, (s_addr + addend) & 0xFFFFFFFFFFFFFFFF)
            else:  # _R_X86_64_PC32, _R_X86_64_PLT32
                rel = s_addr + addend - (base + at)
                if not -(1 << 31) <= rel < (1 << 31):
                    return None
                _I32.pack_into(view, start + at, rel)
        self._used = start + size
        return {name: base + offset for name, offset in defined}


#: ``_plan_map``'s relocation symbols other than an index into the C library names
_IN_IMAGE, _ABSOLUTE = -1, -2
_U64, _I32 = struct.Struct("<Q"), struct.Struct("<i")


def _plan_map(data: bytes, elf: _ElfObject) -> tuple | None:
    """How ``_Mapper`` places the object file ``data`` (``elf``, parsed), as the arguments
    of ``_Mapper.place`` after ``self``: (the image -- the allocated sections laid out at
    their offsets --, its alignment, the relocations (offset in the image, kind, symbol,
    value, addend: symbol is an index into the C library names, or ``_IN_IMAGE``:
    the image's address + value, or ``_ABSOLUTE``: value), the C library names, the
    (name, offset) of each global symbol it defines); None when the object is not of the
    simple kind (writable or thread-local data, other relocation kinds, another machine):
    MCJIT loads those."""
    if elf.machine != 62:  # EM_X86_64
        return None
    sections = elf.sections
    place = {}  # section index -> offset in the object's image
    relas = []
    size = 0
    align_all = _Mapper.ALIGN  # the object's start: its strictest section alignment
    for idx, sh in enumerate(sections):
        sh_type, flags = sh[1], sh[2]
        if sh_type == _SHT_RELA:
            if sections[sh[7]][2] & _SHF_ALLOC:
                relas.append(sh)
            continue
        if sh_type == _SHT_REL:
            return None
        if not flags & _SHF_ALLOC or not sh[5]:
            continue
        if flags & (_SHF_WRITE | _SHF_TLS) or sh_type not in (_SHT_PROGBITS, _SHT_NOBITS):
            return None
        align = sh[8] or 1  # (a power of two, at most _MAX_ALIGN: _ElfObject checked)
        align_all = max(align_all, align)
        size = -(-size // align) * align
        place[idx] = size
        size += sh[5]
    if not place:
        return None
    image = bytearray(size)
    for idx, off in place.items():
        sh = sections[idx]
        if sh[1] == _SHT_PROGBITS:
            image[off:off + sh[5]] = data[sh[4]:sh[4] + sh[5]]
    externals = tuple(sorted(elf.undefined))
    index = {name: k for k, name in enumerate(externals)}
    symbols = elf.symbols
    relocs = []
    for sh in relas:
        target_off = place.get(sh[7])
        if target_off is None:  # relocations of an empty allocated section
            continue
        target_size = sections[sh[7]][5]
        for r_offset, r_info, addend in _RELA.iter_unpack(data[sh[4]:sh[4] + sh[5]]):
            kind, k = r_info & 0xFFFFFFFF, r_info >> 32
            if kind == _R_X86_64_NONE:
                continue
            if kind not in (_R_X86_64_64, _R_X86_64_PC32, _R_X86_64_PLT32):
                return None
            if r_offset > target_size - _RELOC_WIDTH[kind] or k > len(symbols):
                raise _corrupt(f"relocation at {r_offset} (symbol {k} of {len(symbols)}) outside "
                               f"its section of {target_size} bytes")
            if not k:
                relocs.append((target_off + r_offset, kind, _ABSOLUTE, 0, addend))
                continue
            name, _, _, shndx, value = symbols[k - 1]
            if shndx == 0:
                symbol = index.get(name)
                if symbol is None:
                    return None
                relocs.append((target_off + r_offset, kind, symbol, 0, addend))
            elif shndx in place:
                if value > sections[shndx][5]:
                    raise _corrupt(f"relocation to offset {value} of a section of {sections[shndx][5]} bytes")
                relocs.append((target_off + r_offset, kind, _IN_IMAGE, place[shndx] + value, addend))
            else:
                return None
    defined = []
    for name, bind, _, shndx, value in symbols:
        if bind in (1, 2) and shndx in place:
            if value >= sections[shndx][5]:
                raise _corrupt(f"symbol {name!r} at {value}, past its section of {sections[shndx][5]} bytes")
            defined.append((name, place[shndx] + value))
    return bytes(image), align_all, tuple(relocs), externals, tuple(defined)


# -- host images ---------------------------------------------------------------------------
#
# What ``HostTarget.compile`` returns (and the disk cache keeps) for an object the mapper
# places: ``_plan_map``'s result, made once when the kernel is compiled, so that loading
# it -- a disk-cache hit in every later process -- parses no ELF; the object itself
# follows, for MCJIT (when the arena cannot take it).  Little-endian:
#
#     offset  size  field
#     0       8     magic  b"RKHOSTv3"
#     8       4     P, bytes of the plan (u32)
#     12      4     O, bytes of the object file (u32)
#     16      24    the plan's counts (u32 each): I bytes of the image, its alignment, R
#                   relocations, E C library names, D defined names, N bytes of names
#     40      I     the image
#     ...     40*R  the relocations: offset u64, kind i64, symbol i64, value u64, addend i64
#     ...     8*D   the defined names' offsets in the image (u64)
#     ...     N     the E C library names, then the D defined names, each UTF-8 + NUL
#     16+P    O     the object file
#
# A handful of ``struct`` calls read it back.  The file may be damaged: the counts are
# checked against the bytes before anything is made of them, and every offset against
# the image after (``_check_plan``); a bounded format, not ``marshal``, which reads
# garbage without a bound.

_IMAGE_MAGIC = b"RKHOSTv3"
_IMAGE = struct.Struct("<8sII")
_PLAN_COUNTS = struct.Struct("<6I")
_PLAN_RELOC = struct.Struct("<QqqQq")


def _encode_plan(plan: tuple) -> bytes:
    image, align, relocs, externals, defined = plan
    names = b"".join(name.encode() + b"\0" for name in (*externals, *(name for name, _ in defined)))
    return b"".join((
        _PLAN_COUNTS.pack(len(image), align, len(relocs), len(externals), len(defined), len(names)),
        image, b"".join(_PLAN_RELOC.pack(*r) for r in relocs),
        struct.pack(f"<{len(defined)}Q", *(offset for _, offset in defined)), names))


def _decode_plan(data: bytes, start: int, end: int) -> tuple:
    """The plan encoded in ``data[start:end]`` (``_encode_plan``); ValueError when its
    counts do not add up to its bytes or a name is not UTF-8."""
    if end - start < _PLAN_COUNTS.size:
        raise ValueError("host image: its plan is cut short")
    n_image, align, n_relocs, n_externals, n_defined, n_names = _PLAN_COUNTS.unpack_from(data, start)
    at_image = start + _PLAN_COUNTS.size
    at_relocs = at_image + n_image
    at_offsets = at_relocs + n_relocs * _PLAN_RELOC.size
    at_names = at_offsets + 8 * n_defined
    if at_names + n_names != end:
        raise ValueError("host image: its plan's counts do not add up to its bytes")
    names = data[at_names:end].decode().split("\0")  # (UnicodeDecodeError is a ValueError)
    if len(names) != n_externals + n_defined + 1 or names[-1]:
        raise ValueError("host image: its plan's names do not match their count")
    offsets = struct.unpack_from(f"<{n_defined}Q", data, at_offsets)
    return (data[at_image:at_relocs], align, tuple(_PLAN_RELOC.iter_unpack(data[at_relocs:at_offsets])),
            tuple(names[:n_externals]), tuple(zip(names[n_externals:-1], offsets)))


def host_image(obj: bytes, check: bool = False) -> bytes:
    """The host image of the object file ``obj`` (see above), or ``obj`` itself when
    rocarray's mapper cannot place it.  ``check``: raise ``ToolchainError`` when it names
    a symbol rocarray does not provide (``_check_provided``)."""
    if len(obj) < 64 or obj[:6] != _ELF64_LE:
        return obj
    elf = _ElfObject(obj)
    if check:
        _check_provided(elf)
    plan = _plan_map(obj, elf)
    if plan is None:
        return obj
    encoded = _encode_plan(plan)
    return b"".join((_IMAGE.pack(_IMAGE_MAGIC, len(encoded), len(obj)), encoded, obj))


#: the last image ``_read_image`` read and checked, with its answer: a disk-cache hit is
#: checked when it is read (``HostTarget.check_binary``) and loaded right after
_last_read: list = [None]


def _read_image(data: bytes) -> tuple[tuple, int]:
    """(``_plan_map``'s result, where the object file starts) of host image ``data``,
    checked (``_check_plan``); ValueError when it cannot be read or is not sound."""
    last = _last_read[0]
    if last is not None and last[0] == data:
        return last[1]
    if len(data) >= _IMAGE.size:
        magic, n_plan, n_obj = _IMAGE.unpack_from(data)
        obj = _IMAGE.size + n_plan
        if magic == _IMAGE_MAGIC and obj + n_obj == len(data) and data[obj:obj + 6] == _ELF64_LE:
            plan = _decode_plan(data, _IMAGE.size, obj)
            _check_plan(plan)
            _last_read[0] = (data, (plan, obj))
            return plan, obj
    raise ValueError(f"host image of {len(data)} bytes: its plan cannot be read")


def _check_plan(plan: tuple) -> None:
    """Raise ValueError unless every offset, index and size of ``plan`` (``_plan_map``'s
    form) lies inside its image -- so that ``_Mapper.place`` writes only into the image
    and the addresses it hands out point into it.  (The plan comes from a file: a damaged
    entry whose checksum still verifies must not reach the mapper.)"""
    def bad(what):
        return ValueError(f"host image: its plan is not sound ({what})")

    image, align, relocs, externals, defined = plan
    size = len(image)
    if not 0 < size <= _MAX_IMAGE:
        raise bad(f"an image of {size} bytes")
    if not 0 < align <= _MAX_ALIGN or align & (align - 1):
        raise bad(f"alignment {align}")
    for name, offset in defined:
        if offset >= size:
            raise bad(f"{name!r} at {offset}, past the image's {size} bytes")
    n_ext, widths = len(externals), _RELOC_WIDTH
    for r in relocs:
        at, kind, symbol, value, addend = r
        width = widths.get(kind)
        if width is None or at > size - width:
            raise bad(f"relocation {r} outside the image's {size} bytes")
        if symbol == _IN_IMAGE:
            # the address it makes points into the image (PC-relative ones count from
            # the end of their instruction: a few bytes before the target)
            if value > size or not (0 if kind == _R_X86_64_64 else -8) <= value + addend <= size:
                raise bad(f"relocation {r} points outside the image")
        elif symbol == _ABSOLUTE:
            if value:
                raise bad(f"relocation {r}")
        elif not 0 <= symbol < n_ext:
            raise bad(f"relocation {r} names symbol {symbol} of {n_ext}")


def object_file(data: bytes) -> bytes:
    """The object file in ``data``: a host image's (``HostTarget.compile``), else ``data``."""
    if data[:8] != _IMAGE_MAGIC:
        return data
    return data[_read_image(data)[1]:]


# -- loading ------------------------------------------------------------------------------

_engines: list = []
_loaded: dict = {}  # object bytes -> HostModule: the same object loads once
_mapper: list = []
_map_lock = threading.Lock()


_symbols: dict = {}  # name -> address: what ``_resolve_symbol`` found or was told
_registered: dict = {}  # name -> address: what ``register_symbols`` was told


def _resolve_symbol(name: str) -> int:
    """The address of C symbol ``name``, 0 when rocarray does not provide it: a name
    registered with ``register_symbols`` (the runtime helpers once loaded, the CPython
    API), else one the C math or C library defines.  Found ones are memoized (those
    libraries stay loaded)."""
    addr = _symbols.get(name)
    if addr is None:
        addr = 0
        for _, library in _c_libraries():
            try:
                addr = ctypes.cast(library[name], ctypes.c_void_p).value or 0
            except AttributeError:
                continue
            break
        if addr:
            _symbols[name] = addr
    return addr


def register_symbols(symbols: dict) -> None:
    """Make C names that no C library defines known to the loader and to MCJIT:
    ``name -> address`` (the runtime helpers, the CPython functions
    ``rocarray.runtime.native`` calls).  They are resolved like any other name from then
    on (``_resolve_symbol``)."""
    for name, address in symbols.items():
        if _symbols.get(name) != address:
            _symbols[name] = _registered[name] = address
            if _mcjit_ready:  # else ``_init_mcjit`` tells MCJIT
                llvm_binding().add_symbol(name, address)


#: The compiler-runtime helpers (``rocarray.targets.hostrt``), lent by the host target:
#: their names, and how to load them (-> {name: address}); loaded on the first object that
#: names one.  The target lends them because only it can compile them.
_helpers: dict = {"names": frozenset(), "load": None}
_helpers_lock = threading.Lock()


def lend_runtime_helpers(names, load) -> None:
    """Resolve ``names`` by calling ``load()`` (-> {name: address}) the first time an
    object names one of them."""
    _helpers.update(names=frozenset(names), load=load)


def _load_runtime_helpers() -> None:
    """Load the lent runtime helpers and register their names, once per process."""
    with _helpers_lock:
        names = _helpers["names"]
        if all(name in _symbols for name in names):
            return
        if _helpers["load"] is None:
            raise ToolchainError(f"host object needs rocarray's runtime helpers ({', '.join(sorted(names))}), "
                                 "but no host target has lent them (import rocarray.targets.host)")
        register_symbols(_helpers["load"]())


def provides(name: str) -> bool:
    """Whether host objects may name ``name``: rocarray resolves it in every process."""
    return name in _helpers["names"] or name.startswith("_GLOBAL_OFFSET_TABLE_") or bool(_resolve_symbol(name))


def _check_provided(elf: "_ElfObject") -> None:
    """Raise ``ToolchainError`` when the object ``elf`` names a symbol rocarray does not
    provide (``provides``): found when the object is made, not when a later process
    loads it."""
    missing = sorted(name for name in elf.undefined if not provides(name))
    if missing:
        defines = ", ".join(sorted(elf.defined)) or "nothing"
        raise ToolchainError(
            f"host object defining {defines} needs {', '.join(missing)}, which rocarray does not "
            f"provide (host code may call the C math and C library functions, rocarray's runtime "
            f"helpers {', '.join(sorted(_helpers['names']))} and the names rocarray registers)"
        )


def load_host_object(data: bytes) -> HostModule:
    """Map ``data`` -- a host image or an object file (``HostTarget.compile``) -- into
    this process.

    Kernel objects are mapped by rocarray itself (``_Mapper``; a host image is laid out for
    it already); any other object, or every one where there is no arena, goes to an MCJIT
    engine whose names it does not clash with.  Either
    way an undefined symbol that no loaded library defines raises ``ToolchainError``
    (MCJIT would abort)."""
    data = bytes(data)
    mod = _loaded.get(data)
    if mod is not None:
        return mod
    if data[:8] == _IMAGE_MAGIC:
        plan, at = _read_image(data)
        if plan[3]:
            _check_resolvable(plan[3])
        mod = _map(data, plan)
        if mod is not None:
            return mod
        obj = data[at:]
        _ElfObject(obj).check_relocations(obj)  # (MCJIT checks no offsets itself)
        return _load_mcjit(data, obj, frozenset(name for name, _ in plan[4]))
    if len(data) >= 64 and data[:6] == _ELF64_LE:
        elf = _ElfObject(data)
        _check_resolvable(elf.undefined)
        mapper = _the_mapper()
        if mapper is not None and mapper.usable:
            plan = _plan_map(data, elf)
            if plan is not None:
                mod = _map(data, plan)
                if mod is not None:
                    return mod
        elf.check_relocations(data)
        return _load_mcjit(data, data, elf.defined)
    if data[:4] == b"\x7fELF" or not _OTHER_FORMATS:
        raise ValueError(f"host object of {len(data)} bytes: not a host image nor a little-endian ELF64 object")
    return _load_mcjit(data, data, None)  # (Mach-O, COFF: MCJIT reads those itself)


#: Whether this system's objects are other than ELF (MCJIT then reads what ``compile``
#: emits, unchecked: this loader knows ELF only)
_OTHER_FORMATS = sys.platform == "darwin" or os.name == "nt"


def check_binary(data: bytes) -> None:
    """Raise ValueError unless ``data`` is what ``HostTarget.compile`` returns, sound
    enough to load: a host image whose plan checks (``_read_image``) -- and, where
    MCJIT loads every object, whose object does too --, or an ELF object whose
    headers, sections, symbols and relocations lie inside it.  (An image the mapper
    cannot place after all goes to MCJIT, its object checked then: a damaged one is a
    ValueError of that load, not a miss.)"""
    if data[:8] == _IMAGE_MAGIC:
        plan, at = _read_image(data)
        mapper = _the_mapper()
        if mapper is None or not mapper.usable:  # MCJIT will load the object inside it
            obj = data[at:]
            _ElfObject(obj).check_relocations(obj)
    elif len(data) >= 64 and data[:6] == _ELF64_LE:
        _ElfObject(data).check_relocations(data)
    elif data[:4] == b"\x7fELF" or not _OTHER_FORMATS or not data:
        raise ValueError(f"host object of {len(data)} bytes: not a host image nor a little-endian ELF64 object")


def _check_resolvable(names) -> None:
    """Raise ``ToolchainError`` unless rocarray resolves every one of ``names``
    (``_resolve_symbol``; MCJIT aborts the whole process on a name it cannot resolve;
    most kernels name none), loading the runtime helpers first when one is named."""
    if not names:
        return
    missing = [s for s in names if not s.startswith("_GLOBAL_OFFSET_TABLE_") and not _resolve_symbol(s)]
    if missing and not _helpers["names"].isdisjoint(missing):
        _load_runtime_helpers()
        missing = [s for s in missing if not _resolve_symbol(s)]
    if missing:
        raise ToolchainError(
            f"host object needs {', '.join(sorted(missing))}, which rocarray does not provide "
            f"(not in the C math or C library, nor a name rocarray registers)"
        )


def _the_mapper() -> "_Mapper | None":
    """The process's mapper, or None where there is none (not a POSIX system: MCJIT
    loads every object)."""
    if not _mapper:
        with _map_lock:
            if not _mapper:
                _mapper.append(_Mapper() if os.name == "posix" else None)
    return _mapper[0]


def _map(data: bytes, plan: tuple) -> "HostModule | None":
    """``data`` placed by the mapper as ``plan`` (``_plan_map``) says, or None when the
    mapper is off or cannot place it."""
    mapper = _mapper[0] if _mapper else _the_mapper()
    if mapper is None or not mapper.usable:
        return None
    with _map_lock:
        mod = _loaded.get(data)
        if mod is not None:
            return mod
        addresses = mapper.place(*plan, _resolve_symbol)
        if addresses is None:
            return None
        mod = _loaded[data] = HostModule(None, addresses.keys(), len(data), addresses)
    return mod


def _load_mcjit(data: bytes, obj: bytes, defined) -> HostModule:
    """The object file ``obj`` (of ``data``) loaded by an MCJIT engine; ``defined``: the
    global names it defines (None: unknown, non-ELF)."""
    binding = _init_mcjit()
    with LLVM_LOCK:
        mod = _loaded.get(data)
        if mod is not None:
            return mod
        if defined is not None:
            engine = next((e for e in _engines if e.names.isdisjoint(defined)), None)
        else:
            engine = None  # unknown names: a fresh engine is always safe
        if engine is None:
            engine = _Engine()
            _engines.append(engine)
        engine.ee.add_object_file(binding.ObjectFileRef.from_data(obj))
        engine.ee.finalize_object()
        if defined is not None:
            engine.names |= defined
        mod = HostModule(engine, defined, len(obj))
        if defined is not None:  # resolve now, so address() is a dict lookup
            for name in defined:
                addr = engine.ee.get_function_address(name)
                if addr:
                    mod._addresses[name] = addr
        _loaded[data] = mod
    return mod
