"""Damaged disk-cache entries whose checksum verifies are misses, never crashes.

The disk cache's CRC catches torn and bit-flipped files, not bytes written whole under a
valid checksum (a buggy writer, another tool, an older rocarray).  Each case here
rewrites every entry an earlier process left -- host images (kernels, the row driver, the
native calls' module) -- with one kind of structurally bad payload under a valid checksum
(``diskcache.encode_entry``), then runs a new process (``_isolated``: a crash or a hang
fails the test) that must give NumPy's answers, having compiled the code again and
written it over the bad entry.  GPU payloads (PTX, cubins, AMDGPU code objects, library
slices) are checked in this process: they reach no driver here.
"""

from __future__ import annotations

import os
import random
import shutil
import struct

import pytest

from _isolated import run_json
from rocarray.compiler import diskcache
from rocarray.compiler.cache import TAG_BYTES, CompileCache
from rocarray.runtime import hostload as host

_PROGRAM = r'''
import json
import numpy as np
import rocarray as ra
from rocarray.runtime import native

rng = np.random.default_rng(7)
a, b = rng.standard_normal(300).astype(np.float32), rng.standard_normal(300).astype(np.float32)
A = rng.standard_normal((20, 30))
x, y, X = ra.asarray(a), ra.asarray(b), ra.asarray(A)
twice = ra.ElementwiseKernel("float64 v", "float64 w", "w = v * 2.0 + 1.0", "rk_test_twice")
ok = {
    "add": bool(np.allclose((x + y).get(), a + b)),
    "exp": bool(np.allclose(ra.exp(X).get(), np.exp(A))),
    "sum": bool(np.isclose(float(ra.sum(X)), A.sum())),
    "strided": bool(np.allclose((X[:, ::2] * 3).get(), A[:, ::2] * 3)),
    "kernel": bool(np.allclose(twice(X[::2]).get(), A[::2] * 2.0 + 1.0)),
}
print(json.dumps({"ok": ok, "native": native.unavailable_reason()}))
'''

#: no interpreter (its child process would write the cache after these processes end)
# host code is what these cases damage: the CPU, also where a GPU is the default device
_ENV = {"ROCARRAY_INTERPRETER": "0", "ROCARRAY_TIERED": None, "ROCARRAY_DEVICE": "cpu"}


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    """A cache folder with the entries ``_PROGRAM`` leaves (made once)."""
    folder = tmp_path_factory.mktemp("filled")
    got = run_json(_PROGRAM, {**_ENV, "ROCARRAY_CACHE_DIR": str(folder)})
    assert all(got["ok"].values()) and got["native"] is None, got
    return folder


def _entries(folder):
    """(path, key, tag, code) of every entry of code in ``folder``: a host image, or an
    ELF object (what the mapper does not place); ``tag`` is b"" for an entry with no
    tier tag (the support modules: the native calls, the runtime helpers)."""
    out = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(diskcache.SUFFIX):
            continue
        blob = open(os.path.join(folder, name), "rb").read()
        _, _, key_len, _, _ = diskcache._HEADER.unpack_from(blob)
        key = blob[32:32 + key_len].decode()
        payload = diskcache.decode_entry(blob, key)
        assert payload is not None
        for tag_len in (0, TAG_BYTES):
            if payload[tag_len:tag_len + 8] == host._IMAGE_MAGIC or payload[tag_len:tag_len + 4] == b"\x7fELF":
                out.append((os.path.join(folder, name), key, payload[:tag_len], payload[tag_len:]))
                break
        # (else not code: what the disk cache keeps of LLVM and the toolchains, JSON)
    return out


def _is_image(code):
    return code[:8] == host._IMAGE_MAGIC


def _images_only(corrupt):
    return lambda code: corrupt(code) if _is_image(code) else None


def _object_of(corrupt):
    """``corrupt(object) -> object`` applied to an entry's object: the one inside an
    image (its plan intact), or the entry itself."""
    def apply(code):
        if not _is_image(code):
            return corrupt(code)
        plan, obj = _split(code)
        bad = corrupt(obj)
        return None if bad is None else _join(plan, bad)
    return apply


def _split(image):
    """[the plan's parts], the object of a host image (the plan read, not checked)."""
    _, n_plan, _ = host._IMAGE.unpack_from(image)
    return list(host._decode_plan(image, 16, 16 + n_plan)), image[16 + n_plan:]


def _join(plan, obj):
    return _join_encoded(host._encode_plan(tuple(plan)), obj)


def _join_encoded(encoded, obj):
    return host._IMAGE.pack(host._IMAGE_MAGIC, len(encoded), len(obj)) + encoded + obj


def _count(index, value):
    """The image with count ``index`` of its plan's header (``host._PLAN_COUNTS``: image
    bytes, alignment, relocations, C library names, defined names, name bytes) set to
    ``value(count)``, nothing else changed."""
    def corrupt(image):
        out = bytearray(image)
        at = 16 + 4 * index
        struct.pack_into("<I", out, at, value(struct.unpack_from("<I", out, at)[0]) & 0xFFFFFFFF)
        return bytes(out)
    return corrupt


def _names(edit):
    """The image with the bytes of its plan's names changed by ``edit(names)`` (the same
    length)."""
    def corrupt(image):
        _, n_plan, _ = host._IMAGE.unpack_from(image)
        n_names = struct.unpack_from("<I", image, 16 + 20)[0]
        end = 16 + n_plan
        names = edit(image[end - n_names:end])
        assert len(names) == n_names
        return image[:end - n_names] + names + image[end:]
    return corrupt


def _with_reloc(image, change):
    """``image`` with ``change(relocs) -> relocs or None`` applied to its plan (None: the
    case does not apply to this image)."""
    plan, obj = _split(image)
    relocs = change(list(plan[2]))
    if relocs is None:
        return None
    plan[2] = tuple(relocs)
    return _join(plan, obj)


def _first(relocs, want, edit):
    for k, r in enumerate(relocs):
        if want(r):
            relocs[k] = edit(r)
            return relocs
    return None


def _plan_field(index, value):
    def corrupt(image):
        plan, obj = _split(image)
        plan[index] = value(plan[index]) if callable(value) else value
        return _join(plan, obj)
    return corrupt


def _elf_field(offset, fmt, value):
    """The object with a header field overwritten."""
    def corrupt(obj):
        obj = bytearray(obj)
        struct.pack_into(fmt, obj, offset, value(struct.unpack_from(fmt, obj, offset)[0]))
        return bytes(obj)
    return corrupt


def _elf_section(kind, edit):
    """The object with the first section of type ``kind`` changed by ``edit(header)``."""
    def corrupt(obj):
        obj = bytearray(obj)
        shoff, = struct.unpack_from("<Q", obj, 0x28)
        shnum, = struct.unpack_from("<H", obj, 0x3C)
        for k in range(shnum):
            at = shoff + 64 * k
            sh = list(host._SH.unpack_from(obj, at))
            if sh[1] == kind:
                host._SH.pack_into(obj, at, *edit(sh))
                return bytes(obj)
        return None
    return corrupt


def _elf_rela(edit):
    """The object with its first relocation changed by ``edit([offset, info, addend])``."""
    def corrupt(obj):
        obj = bytearray(obj)
        for sh in host._ElfObject(bytes(obj)).sections:
            if sh[1] == host._SHT_RELA and sh[5]:
                host._RELA.pack_into(obj, sh[4], *edit(list(host._RELA.unpack_from(obj, sh[4]))))
                return bytes(obj)
        return None
    return corrupt


def _garbage(image):
    return random.Random(len(image)).randbytes(len(image))


def _garbage_after_magic(image):
    return image[:8] + random.Random(3).randbytes(len(image) - 8)


def _set(r, **fields):
    names = ("at", "kind", "symbol", "value", "addend")
    return tuple(fields.get(n, v) for n, v in zip(names, r))


#: what each case does to a host image (None where it does not apply to that one)
_IMAGE_CASES = {
    "random garbage": _garbage,
    "garbage after the magic": _garbage_after_magic,
    "empty": lambda image: b"",
    "not an image": lambda image: b"\x00" * 100,
    "the format before": lambda image: b"RKHOSTv2" + image[8:],
    "cut short": lambda image: image[: len(image) // 2],
    "plan length past the end": lambda image: image[:8] + struct.pack("<I", 0xFFFFFFF0) + image[12:],
    "plan length short": lambda image: image[:8] + struct.pack("<I", 10) + image[12:],
    "plan bytes garbage": lambda image: image[:16] + bytes(b ^ 0x5A for b in image[16:48]) + image[48:],
    "image size huge": _count(0, lambda n: 0xFFFFFFF0),
    "image size one more": _count(0, lambda n: n + 1),
    "relocation count huge": _count(2, lambda n: 0xFFFFFFFF),
    "one more C library name": _count(3, lambda n: n + 1),
    "one more defined name": _count(4, lambda n: n + 1),
    "names' bytes past the end": _count(5, lambda n: n + 4096),
    "names not UTF-8": _names(lambda b: b"\xff" + b[1:]),
    "a name's end gone": _names(lambda b: b.replace(b"\0", b"_", 1)),
    "image empty": _plan_field(0, b""),
    "alignment not a power of two": _plan_field(1, 48),
    "alignment huge": _plan_field(1, 1 << 31),
    "alignment zero": _plan_field(1, 0),
    "defined symbol past the end": _plan_field(4, lambda d: tuple((n, 1 << 20) for n, _ in d)),
    "defined symbol at the end": _plan_field(4, lambda d: tuple((n, 1 << 63) for n, _ in d)),
    "relocation offset past the end": lambda image: _with_reloc(image, lambda rs: _first(
        rs, lambda r: True, lambda r: _set(r, at=len(_split(image)[0][0]) - 2))),
    "relocation offset huge": lambda image: _with_reloc(image, lambda rs: _first(
        rs, lambda r: True, lambda r: _set(r, at=1 << 40))),
    "relocation of an unknown kind": lambda image: _with_reloc(image, lambda rs: _first(
        rs, lambda r: True, lambda r: _set(r, kind=99))),
    "relocation of a negative kind": lambda image: _with_reloc(image, lambda rs: _first(
        rs, lambda r: True, lambda r: _set(r, kind=-1))),
    "negative addend into the image": lambda image: _with_reloc(image, lambda rs: _first(
        rs, lambda r: r[2] == host._IN_IMAGE, lambda r: _set(r, addend=-(1 << 20)))),
    "addend past the image": lambda image: _with_reloc(image, lambda rs: _first(
        rs, lambda r: r[2] == host._IN_IMAGE, lambda r: _set(r, addend=1 << 40))),
    "in-image value past the end": lambda image: _with_reloc(image, lambda rs: _first(
        rs, lambda r: r[2] == host._IN_IMAGE, lambda r: _set(r, value=1 << 32))),
    "absolute relocation with a value": lambda image: _with_reloc(image, lambda rs: _first(
        rs, lambda r: True, lambda r: _set(r, symbol=host._ABSOLUTE, value=123))),
    "bad symbol index": lambda image: _with_reloc(image, lambda rs: _first(
        rs, lambda r: r[2] >= 0, lambda r: _set(r, symbol=r[2] + 1000))),
    "negative symbol index": lambda image: _with_reloc(image, lambda rs: _first(
        rs, lambda r: True, lambda r: _set(r, symbol=-7))),
}

#: what each case does to an ELF object: the one MCJIT gets (an object entry; with
#: MCJIT for every object -- the fallback loader --, the one inside each image too)
_OBJECT_CASES = {
    "section headers past the end": _elf_field(0x28, "<Q", lambda v: 1 << 40),
    "many section headers": _elf_field(0x3C, "<H", lambda v: 0xFFFE),
    "section header size": _elf_field(0x3A, "<H", lambda v: 32),
    "code section past the end": _elf_section(host._SHT_PROGBITS, lambda sh: sh[:4] + [1 << 33] + sh[5:]),
    "code section huge": _elf_section(host._SHT_PROGBITS, lambda sh: sh[:5] + [1 << 62] + sh[6:]),
    "symbol table's strings elsewhere": _elf_section(host._SHT_SYMTAB, lambda sh: sh[:6] + [0x7FFF] + sh[7:]),
    "symbol table size odd": _elf_section(host._SHT_SYMTAB, lambda sh: sh[:5] + [sh[5] - 5] + sh[6:]),
    "relocations' target section": _elf_section(host._SHT_RELA, lambda sh: sh[:7] + [0x7FFF] + sh[8:]),
    "section aligned to 3": _elf_section(host._SHT_PROGBITS, lambda sh: sh[:8] + [3] + sh[9:]),
    "relocation offset past its section": _elf_rela(lambda r: [1 << 40, r[1], r[2]]),
    "relocation symbol out of range": _elf_rela(lambda r: [r[0], (0xFFFFFF << 32) | (r[1] & 0xFFFFFFFF), r[2]]),
    "object random garbage": _garbage_after_magic,
}

def _bare_object(corrupt):
    """``corrupt`` applied to the entry's object, stored bare (no image around it: what
    ``compile`` returns for an object the mapper does not place)."""
    return lambda code: corrupt(_split(code)[1] if _is_image(code) else code)


#: the default loader's cases: images for the mapper, bare objects
MAPPER_CASES = {**{name: _images_only(f) for name, f in _IMAGE_CASES.items()},
                **{f"object: {name}": _bare_object(f) for name, f in _OBJECT_CASES.items()}}
#: every entry's object (MCJIT, the fallback loader, for every object)
MCJIT_CASES = {name: _object_of(f) for name, f in _OBJECT_CASES.items()}


def _groups(entries, cases):
    """The cases spread over the entries, each case on one entry where it applies, as
    few groups as that allows: [{entry index: case name}]; one process runs a group."""
    groups = []
    for name, corrupt in cases.items():
        fits = [k for k, entry in enumerate(entries) if corrupt(entry[3]) is not None]
        assert fits, f"case {name!r} applies to no entry"
        for group in groups:
            free = [k for k in fits if k not in group]
            if free:
                group[free[0]] = name
                break
        else:
            groups.append({fits[0]: name})
    return groups


def _corrupt_copy(filled, folder, corrupt):
    """``filled`` copied to ``folder`` with entries' code replaced under a valid checksum:
    ``corrupt(index, code)`` gives the bad code or None (left alone); {path: bytes written}."""
    shutil.copytree(filled, folder)
    written = {}
    for k, (path, key, tag, code) in enumerate(_entries(folder)):
        bad = corrupt(k, code)
        if bad is None:
            continue
        blob = diskcache.encode_entry(key, tag + bad)
        assert diskcache.decode_entry(blob, key) == tag + bad  # the checksum verifies
        with open(path, "wb") as f:
            f.write(blob)
        written[path] = blob
    return written


#: what makes a process load every object with MCJIT, the fallback loader
_MCJIT_ONLY = "from rocarray.runtime import hostload\nhostload._mapper[:] = [None]\n"


def _check_run(folder, written, env, what, program=_PROGRAM):
    assert written, "the case applied to no entry"
    got = run_json(program, {**_ENV, **env, "ROCARRAY_CACHE_DIR": str(folder)})
    assert all(got["ok"].values()), (what, got)  # NumPy's answers, from code compiled again
    assert got["native"] is None, (what, got)  # the native calls' module was compiled again too
    rewritten = 0
    for path, blob in written.items():  # each bad entry removed, most written anew
        now = open(path, "rb").read() if os.path.exists(path) else None
        assert now != blob, (what, path)
        rewritten += now is not None
    assert rewritten, (what, "no bad entry was written anew")
    for path, key, tag, code in _entries(folder):
        host.check_binary(code)


@pytest.mark.parametrize("loader, cases", [(None, MAPPER_CASES), ("mcjit", MCJIT_CASES)],
                         ids=["rocarray-loader", "mcjit"])
def test_bad_code_under_a_valid_checksum_is_a_miss(filled, tmp_path, loader, cases):
    """Each case on one entry (a process per group of cases: a crash names the group)."""
    entries = _entries(filled)
    for g, group in enumerate(_groups(entries, cases)):
        what = {os.path.basename(entries[k][0]): name for k, name in group.items()}
        written = _corrupt_copy(filled, tmp_path / str(g),
                                lambda k, code: cases[group[k]](code) if k in group else None)
        _check_run(tmp_path / str(g), written, {}, what, _PROGRAM if loader is None else _MCJIT_ONLY + _PROGRAM)


def test_every_case_is_refused_by_the_check(filled, monkeypatch):
    """The same cases, in this process: ``check_binary`` refuses each (so the runs above
    test the miss, not luck), an image's object too where MCJIT loads everything; the
    sound code passes."""
    codes = [code for _, _, _, code in _entries(filled)]
    assert any(map(_is_image, codes))
    for cases, mapper in ((MAPPER_CASES, host._mapper[:]), (MCJIT_CASES, [None])):
        monkeypatch.setattr(host, "_mapper", mapper)
        for name, corrupt in cases.items():
            applied = [bad for bad in map(corrupt, codes) if bad is not None]
            assert applied, name
            for bad in applied:
                host._last_read[0] = None
                with pytest.raises(ValueError):
                    host.check_binary(bad)
        for code in codes:
            host.check_binary(code)
            host.check_binary(_split(code)[1] if _is_image(code) else code)  # the object alone


def test_an_entry_with_a_bad_header_or_tag_is_a_miss(filled, tmp_path):
    """The entry's own header (a format version, key and payload lengths that do not
    add up) and tag (a tier nobody asked for, or the tag alone with no code after it)."""
    folder = tmp_path / "c"
    shutil.copytree(filled, folder)
    written = {}
    for k, (path, key, tag, code) in enumerate(_entries(folder)):
        if k % 3 == 0 and tag:
            blob = diskcache.encode_entry(key, tag)  # the tag and no code
        elif k % 3 == 1:
            blob = bytearray(diskcache.encode_entry(key, tag + code))
            struct.pack_into("<I", blob, 8, diskcache.FORMAT_VERSION + 1)
            blob = bytes(blob)
        else:
            blob = bytearray(diskcache.encode_entry(key, tag + code))
            struct.pack_into("<Q", blob, 16, 1 << 50)  # a payload length past the end
            blob = bytes(blob)
        with open(path, "wb") as f:
            f.write(blob)
        written[path] = blob
    _check_run(folder, written, {}, "bad headers and tags")


# -- GPU payloads: checked where they are read ------------------------------------------------


class _Target:
    """A stand-in for a target in the compile cache: a name, a cache key, a check."""

    stands_in_for = None

    def __init__(self, real):
        self.real = real
        self.name = real.name

    def cache_key(self):
        return ("test-target", self.name)

    def check_binary(self, data):
        return self.real.check_binary(data)


def _gpu_targets():
    from rocarray.targets.amdgpu import AMDGPUTarget
    from rocarray.targets.nvptx import NVPTXTarget

    return {"ptx": NVPTXTarget("sm_90", assembler="ptx"), "cubin": NVPTXTarget("sm_90", assembler="ptxas"),
            "hsaco": AMDGPUTarget("gfx942")}


def _good_elf(machine, elf_type):
    """A small sound ELF64 file of ``machine``: header, one section, section table."""
    body = b"\x90" * 32 + b"\0.text\0"
    shoff = 64 + len(body)
    shoff += -shoff % 8
    out = bytearray(shoff + 3 * 64)
    out[:16] = b"\x7fELF\x02\x01\x01" + bytes(9)
    struct.pack_into("<HHIQQQIHHHHHH", out, 16, elf_type, machine, 1, 0, 0, shoff, 0, 64, 0, 0, 64, 3, 2)
    out[64:64 + len(body)] = body
    struct.pack_into("<IIQQQQIIQQ", out, shoff + 64, 1, 1, 6, 0, 64, 32, 0, 0, 16, 0)
    struct.pack_into("<IIQQQQIIQQ", out, shoff + 128, 0, 3, 0, 0, 96, 7, 0, 0, 1, 0)
    return bytes(out)


def _bad_elves(good):
    def put(*fields):  # (format, offset, value) ...
        out = bytearray(good)
        for fmt, offset, value in fields:
            struct.pack_into(fmt, out, offset, value)
        return bytes(out)
    shoff = struct.unpack_from("<Q", good, 0x28)[0]
    return {
        "garbage": random.Random(1).randbytes(len(good)),
        "cut": good[:-70],
        "section table past the end": put(("<Q", 0x28, 1 << 40)),
        "many sections": put(("<H", 0x3C, 0xFFFF)),
        "section past the end": put(("<Q", shoff + 64 + 24, 1 << 33)),
        "section huge": put(("<Q", shoff + 64 + 32, 1 << 62)),
        "program headers past the end": put(("<Q", 0x20, 1 << 40), ("<H", 0x36, 56), ("<H", 0x38, 2)),
        "program header size": put(("<Q", 0x20, 64), ("<H", 0x36, 12), ("<H", 0x38, 1)),
        "name table index": put(("<H", 0x3E, 77)),
        "section link": put(("<I", shoff + 64 + 40, 9)),
        "32-bit": good[:4] + b"\x01" + good[5:],
        "another machine": put(("<H", 0x12, 62)),
    }


@pytest.mark.parametrize("kind", ["ptx", "cubin", "hsaco"])
def test_gpu_code_that_is_not_what_its_tag_says_is_a_miss(tmp_path, kind):
    from rocarray.targets.codeobject import EM_AMDGPU, EM_CUDA

    real = _gpu_targets()[kind]
    target = _Target(real)
    cache = CompileCache(diskcache.DiskCache(tmp_path))
    if kind == "ptx":
        good = b"//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 7.8\n.target sm_90\n.address_size 64\n"
        bad = {"garbage": random.Random(2).randbytes(300), "NUL inside": good[:20] + b"\0" + good[21:],
               "no .target": good.replace(b".target", b".tarjet"), "not ASCII": good + "\u00e9".encode(),
               "a cubin": _good_elf(EM_CUDA, 2), "empty": b""}
        real.check_binary(good + b"\0")  # (a NUL at the end is the driver's terminator)
    else:
        good = _good_elf(EM_CUDA, 2) if kind == "cubin" else _good_elf(EM_AMDGPU, 3)
        bad = _bad_elves(good)
        bad["empty"] = b""
        if kind == "hsaco":
            bad["relocatable, not linked"] = good[:16] + struct.pack("<H", 1) + good[18:]
    real.check_binary(good)
    for name, data in bad.items():
        key = ("corrupt", kind, name)
        with pytest.raises(ValueError):
            real.check_binary(data)
        cache._write(key, target, data)  # what a damaged writer left, checksum and all
        path = os.path.join(cache.disk.directory, _entry_name(target, key))
        assert os.path.exists(path), name
        assert cache.stored(key, target) is None, name  # a miss ...
        assert not os.path.exists(path), name  # ... and the entry is gone
        cache._write(key, target, good)
        assert cache.stored(key, target) == good, name


def _entry_name(target, key):
    from rocarray.compiler.cache import _entry

    return _entry(target, key)[1] + diskcache.SUFFIX


def test_a_bad_cubin_of_the_drivers_is_a_miss(tmp_path):
    from rocarray._images import _check_cubin
    from rocarray.targets.codeobject import EM_CUDA

    good = _good_elf(EM_CUDA, 2)
    disk = diskcache.DiskCache(tmp_path)
    for name, data in _bad_elves(good).items():
        disk.put("cubin|x", data)
        assert disk.get("cubin|x", check=_check_cubin) is None, name
        assert disk.info()["entries"] == 0, name
    disk.put("cubin|x", good)
    assert disk.get("cubin|x", check=_check_cubin) == good


def test_a_bad_amdgpu_entry_object_is_a_miss(tmp_path):
    from rocarray.targets import amdgpu
    from rocarray.targets.codeobject import EM_AMDGPU

    good = _good_elf(EM_AMDGPU, 1)
    disk = diskcache.DiskCache(tmp_path)
    for name, data in {**_bad_elves(good), "linked, not relocatable": _good_elf(EM_AMDGPU, 3)}.items():
        disk.put("amdgpu-quick-entry|x", data)
        assert disk.get("amdgpu-quick-entry|x", check=amdgpu._check_entry_object) is None, name
    disk.put("amdgpu-quick-entry|x", good)
    assert disk.get("amdgpu-quick-entry|x", check=amdgpu._check_entry_object) == good


def test_a_bad_library_slice_is_a_miss(tmp_path, monkeypatch):
    """A math-library slice whose bytes are not bitcode LLVM reads is cut again, not a
    failed compile."""
    from llvmlite import ir

    from rocarray.targets import base
    from rocarray.targets.base import BitcodeLibrary, llvm_binding

    m = ir.Module()
    fn = ir.Function(m, ir.FunctionType(ir.DoubleType(), [ir.DoubleType()]), "lib_twice")
    b = ir.IRBuilder(fn.append_basic_block())
    b.ret(b.fmul(fn.args[0], ir.Constant(ir.DoubleType(), 2.0)))
    path = tmp_path / "lib.bc"
    path.write_bytes(llvm_binding().parse_assembly(str(m)).as_bitcode())
    disk = diskcache.DiskCache(tmp_path / "cache")
    monkeypatch.setattr(BitcodeLibrary, "_disk", staticmethod(lambda: disk))
    lib = BitcodeLibrary(str(path), "lib_")
    key = lib._disk_key("lib_twice")
    for bad in (b"garbage", b"BC\xc0\xde" + bytes(64), b"BC\xc0\xde" + random.Random(5).randbytes(200)):
        with pytest.raises(ValueError):
            base._check_bitcode(bad)
        disk.put(key, bad)
        assert lib._from_disk(["lib_twice"]) == ["lib_twice"]  # a miss: cut again
        assert disk.info()["entries"] == 0
    assert disk.get(key, check=base._check_bitcode) is None
    from rocarray.targets.host import HostTarget

    blob = lib.slices(["lib_twice"], HostTarget()._machine(0))["lib_twice"]  # cut and written
    assert blob[:4] == b"BC\xc0\xde" and disk.get(key, check=base._check_bitcode) == blob
    disk.put(key, b"")  # (an empty entry: the library lacks the function)
    assert disk.get(key, check=base._check_bitcode) == b""


def test_a_bad_interpreter_image_is_built_again(tmp_path):
    """The interpreter kernel's entry (one per machine): damaged under a valid checksum,
    it is not found (``state``), and the next build compiles and writes it again."""
    from _isolated import run_python

    env = {"ROCARRAY_CACHE_DIR": str(tmp_path), "ROCARRAY_INTERPRETER": None}
    build = "import sys, rocarray.__main__ as m; sys.exit(m.main(['interpreter', '--target', 'host']))"
    state = ("import rocarray as ra; from rocarray import _interpreter; from rocarray.targets import target_for;"
             "print(_interpreter.state(target_for('host')))")
    first = run_python(build, env)
    assert first.returncode == 0 and "built in" in first.stdout, first.stderr
    assert run_python(state, env).stdout.strip() == "built (in the disk cache)"
    (path, key, tag, code), = _entries(tmp_path)
    damaged = (_garbage_after_magic(code), _IMAGE_CASES["relocation offset huge"](code), code[:-30])
    for bad in (d for d in damaged if d is not None):
        with open(path, "wb") as f:
            f.write(diskcache.encode_entry(key, tag + bad))
        assert run_python(state, env).stdout.strip().startswith("not built yet")
        again = run_python(build, env)
        assert again.returncode == 0 and "built in" in again.stdout, again.stderr
        (_, _, _, now), = _entries(tmp_path)
        host.check_binary(now)
