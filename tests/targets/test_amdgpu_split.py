"""The split quick tier (``AMDGPUTarget.quick_split_module`` / ``quick_split_link``): the
kernel entry compiled once per operand layout with ``body`` external, each signature's
``body`` compiled with a probe kernel, the two objects merged (``hsalink.merge_objects``),
renamed and linked.  Compile-only: nothing here has run on AMD hardware."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from rocarray.targets import amdgpu, hsalink
from rocarray.targets.amdgpu import AMDGPUTarget, find_device_libs, find_lld
from rocarray.targets.codeobject import ElfFile, check_code_object, read_code_object

from _abi_kernels import catalogue_module

ARCHS = ["gfx90a", "gfx942", "gfx1100"]
SIGS = [("add", "int16"), ("multiply", "uint32"), ("add", "float32"), ("exp", "float32"),
        ("maximum", "float64"), ("floor_divide", "int64")]
OCML = [("exp", "float64"), ("hypot", "float64"), ("sin", "complex64")]
needs_device_libs = pytest.mark.skipif(find_device_libs() is None, reason="ocml.bc not found")
needs_lld = pytest.mark.skipif(find_lld() is None, reason="ld.lld >= 17 not found")


_module = catalogue_module


def _descriptor(data: bytes, symbol: str) -> bytes:
    # .rodata lies in the first PT_LOAD segment, at file offset == address
    sym = next(s for s in ElfFile(data).symbols() if s.name == symbol)
    assert sym.size == 64
    return data[sym.value:sym.value + 64]


def _check(arch, op, dtype, monkeypatch):
    q = AMDGPUTarget(arch).quick_tier
    entry, text = _module(q, op, dtype)
    split = q.quick_split_module(text)
    assert split is not None
    mod, plan = split
    body_obj = q._emit(mod, assembly=False)
    hsaco = q.quick_split_link(body_obj, plan)
    assert hsaco is not None, (arch, op, dtype)  # the entry's registers cover the body's
    assert check_code_object(hsaco, arch, [entry]) == []
    assert q.compile(text) == hsaco  # what the target compiles
    monkeypatch.setattr(amdgpu, "QUICK_SPLIT", False)
    whole = q.compile(text)
    monkeypatch.setattr(amdgpu, "QUICK_SPLIT", True)
    ours, theirs = read_code_object(hsaco).kernel(entry), read_code_object(whole).kernel(entry)
    # the launcher's interface is the whole kernel's
    for key in (".args", ".kernarg_segment_size", ".kernarg_segment_align", ".wavefront_size",
                ".max_flat_workgroup_size", ".group_segment_fixed_size"):
        assert ours[key] == theirs[key], key
    # the descriptor is LLVM's for the entry, but for the stack: the entry's own plus the
    # probe's (the body's and a call's); the metadata says the same
    entry_obj, counts, _note, _at = plan[1]
    probe = amdgpu._absolute_counts(body_obj, amdgpu._SPLIT_PROBE)
    stack = counts["private_seg_size"] + probe["private_seg_size"]
    desc = _descriptor(hsaco, entry + ".kd")
    entry_desc = _descriptor(hsalink.link_shared(hsalink.merge_objects(entry_obj, body_obj)),
                             amdgpu._SPLIT_ENTRY + ".kd")
    assert struct.unpack_from("<I", desc, 4)[0] == stack == ours[".private_segment_fixed_size"]
    assert desc[:4] + desc[8:16] + desc[24:] == entry_desc[:4] + entry_desc[8:16] + entry_desc[24:]
    entry_meta = amdgpu._object_metadata(entry_obj)["amdhsa.kernels"][0]
    for key in (".vgpr_count", ".agpr_count", ".sgpr_count"):  # registers: the entry's
        assert ours.get(key) == entry_meta.get(key), key
    assert counts["num_vgpr"] >= probe["num_vgpr"] and counts["num_agpr"] >= probe["num_agpr"]
    assert ours[".uses_dynamic_stack"] is True
    # one exported kernel; the probe has no symbol left (its bytes stay, nameless); the
    # body is a local function
    names = [s.name for s in ElfFile(hsaco).symbols(dynamic=True)]
    assert sorted(names) == sorted([entry, entry + ".kd"])
    static = {s.name: s for s in ElfFile(hsaco).symbols()}
    assert not any(amdgpu._SPLIT_PROBE in name or amdgpu._SPLIT_ENTRY in name for name in static)
    assert [n for n in static if n.endswith(".kd")] == [entry + ".kd"]
    assert static["body"].bind == 0  # STB_LOCAL
    return q, entry, text, body_obj, plan, hsaco


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("op,dtype", SIGS)
def test_split_code_objects(arch, op, dtype, monkeypatch):
    _check(arch, op, dtype, monkeypatch)


@needs_device_libs
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("op,dtype", OCML)
def test_split_code_objects_with_ocml(arch, op, dtype, monkeypatch):
    _check(arch, op, dtype, monkeypatch)


@needs_lld
@pytest.mark.parametrize("arch", ARCHS)
def test_merged_object_links_as_lld_links_the_two(arch, monkeypatch):
    import os
    import subprocess
    import tempfile

    from test_hsalink import lld_link, loaded_image, symbols

    q, entry, text, body_obj, plan, hsaco = _check(arch, "add", "float32", monkeypatch)
    entry_obj = plan[1][0]
    merged = hsalink.merge_objects(entry_obj, body_obj)
    # the merged object: the image LLD makes of it (the static symbol table's order aside:
    # LLD lists the hidden ``body`` before ``_DYNAMIC``)
    ours, theirs = hsalink.link_shared(merged), lld_link(merged)
    assert loaded_image(ours) == loaded_image(theirs)
    assert symbols(ours, dynamic=True) == symbols(theirs, dynamic=True)
    assert sorted(symbols(ours, dynamic=False)) == sorted(symbols(theirs, dynamic=False))
    # as quick_split_link merges them (the entry renamed, the probe's symbols dropped)
    renamed = hsalink.merge_objects(entry_obj, body_obj, rename={b"rk.quick.entry": b"k", b"rk.quick.entry.kd": b"k.kd"},
                                    drop=(b"rk.quick.probe", b"rk.quick.probe.kd"))
    ours, theirs = hsalink.link_shared(renamed), lld_link(renamed)
    assert loaded_image(ours) == loaded_image(theirs)
    assert symbols(ours, dynamic=True) == symbols(theirs, dynamic=True)
    assert sorted(symbols(ours, dynamic=False)) == sorted(symbols(theirs, dynamic=False))
    # LLD given the two objects resolves the call to the same code: the text segment
    # (entry, then body: PC-relative call offsets) is byte for byte the same
    with tempfile.TemporaryDirectory() as d:
        paths = [os.path.join(d, "entry.o"), os.path.join(d, "body.o")]
        for path, data in zip(paths, (entry_obj, body_obj)):
            with open(path, "wb") as f:
                f.write(data)
        out = os.path.join(d, "k.hsaco")
        proc = subprocess.run([*find_lld(), "-shared", "--no-undefined", *paths, "-o", out], capture_output=True)
        assert proc.returncode == 0, proc.stderr.decode()
        lld = open(out, "rb").read()
    text_of = lambda data: [seg[-1] for seg in loaded_image(data) if seg[0] == 1 and seg[1] == 5]  # noqa: E731
    assert text_of(hsaco) == text_of(lld)


def test_split_refused_when_the_entry_does_not_cover_the_body():
    q = AMDGPUTarget("gfx942").quick_tier
    entry, text = _module(q, "add", "float32")
    mod, (name, (obj, counts, note, at)) = q.quick_split_module(text)
    body_obj = q._emit(mod, assembly=False)
    assert q.quick_split_link(body_obj, (name, (obj, counts, note, at))) is not None
    for key in ("num_vgpr", "num_agpr", "numbered_sgpr"):
        short = dict(counts, **{key: 0})
        assert q.quick_split_link(body_obj, (name, (obj, short, note, at))) is None


def test_split_takes_only_the_skeleton_kernel():
    q = AMDGPUTarget("gfx942").quick_tier
    entry, text = _module(q, "add", "float32")
    assert q.quick_split_module(text.replace(") alwaysinline", ") noinline", 1)) is None
    assert q.quick_split_module(text.replace('@"body"', '@"other"')) is None
    lds = text + '\n@"tile" = internal addrspace(3) global [4 x float] poison\n'
    assert q.quick_split_module(lds) is None  # LDS is laid out per kernel: never split


@pytest.mark.parametrize("arch", ARCHS)
def test_split_with_a_scalar_operand(arch, monkeypatch):
    # a scalar by value: the entry stores it in a private slot (SROA'd once per layout)
    # and passes its address to the body
    from test_launcher_layout import _spec

    q = AMDGPUTarget(arch).quick_tier
    for op, dtypes, kinds in [("multiply", ("float32", "float32"), ("a", "s")),
                              ("add", ("complex64", "complex64"), ("a", "s"))]:
        spec = _spec(op, dtypes, kinds)
        text = str(spec.build_module(q))
        mod, plan = q.quick_split_module(text)
        hsaco = q.quick_split_link(q._emit(mod, assembly=False), plan)
        assert hsaco is not None and check_code_object(hsaco, arch, [spec.entry]) == []
        monkeypatch.setattr(amdgpu, "QUICK_SPLIT", False)
        whole = q.compile(text)
        monkeypatch.setattr(amdgpu, "QUICK_SPLIT", True)
        ours, theirs = read_code_object(hsaco).kernel(spec.entry), read_code_object(whole).kernel(spec.entry)
        assert ours[".args"] == theirs[".args"]
        assert ours[".kernarg_segment_size"] == theirs[".kernarg_segment_size"]


def test_entry_objects_are_kept_on_disk(monkeypatch, tmp_path):
    # the entry (a whole kernel's compile) is kept in the disk cache: a later process
    # compiles only the bodies, into the same code objects
    from rocarray.compiler.diskcache import DiskCache

    disk = DiskCache(tmp_path)
    monkeypatch.setattr(amdgpu, "_entry_disk", lambda: disk)
    monkeypatch.setattr(amdgpu, "_split_entries", {})
    q = AMDGPUTarget("gfx942").quick_tier
    entry, text = _module(q, "subtract", "int32")
    first = q.compile(text)
    assert disk.info()["entries"] == 1
    monkeypatch.setattr(amdgpu, "_split_entries", {})  # a new process
    emitted = []
    real = AMDGPUTarget._emit
    monkeypatch.setattr(AMDGPUTarget, "_emit", lambda self, mod, assembly: emitted.append(1) or real(self, mod, assembly))
    assert q.compile(text) == first
    assert len(emitted) == 1  # the body only
    monkeypatch.setattr(amdgpu, "_entry_disk", lambda: None)  # no disk cache: compiled again
    monkeypatch.setattr(amdgpu, "_split_entries", {})
    assert q.compile(text) == first and len(emitted) == 3


def test_whole_kernels_when_not_split(monkeypatch):
    # a quick kernel compiled whole (the fallback for bodies that cannot be split); the
    # target's cache key says which
    q = AMDGPUTarget("gfx942").quick_tier
    entry, text = _module(q, "add", "float32")
    split_key, split = q.cache_key(), q.compile(text)
    monkeypatch.setattr(amdgpu, "QUICK_SPLIT", False)
    whole_key, whole = q.cache_key(), q.compile(text)
    assert split_key != whole_key and split != whole
    assert b"body" in split and b"body" not in whole
    assert AMDGPUTarget("gfx942").cache_key() == AMDGPUTarget("gfx942").cache_key()
