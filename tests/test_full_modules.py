"""The loader of the hand-built GPU modules (``_launch.load_full_module``) and its callers
(radix sort, compaction, gathers, searches and joins), run on any machine with the compile and
load stubbed out: a miss builds the module's spec once, a warm call is one lookup that
builds nothing, and every launch's packer is made once."""

import pytest

import rocarray as ra
from rocarray import _gather_gpu, _launch, _masks, _radix_gpu
from rocarray.compiler import compact_gpu, gather_gpu, radix_gpu


@pytest.fixture
def loads(monkeypatch):
    """The specs ``load`` was asked for (each answered with a stand-in kernel)."""
    specs = []

    def load(spec, device, full=False):
        assert full  # (the full tier at once, no quick tier first)
        specs.append(spec)
        return ("loaded", spec.name, device)

    monkeypatch.setattr(_launch, "_full_modules", {})
    monkeypatch.setattr(_launch, "load", load)
    return specs


@pytest.mark.parametrize("get,name,entries,packer", [
    (lambda d: _gather_gpu._kernel(d, "gather", 4, 64, True), "gather_4_64_True", (gather_gpu.GATHER_NARROW,),
     gather_gpu.packer("gather")),
    (lambda d: _gather_gpu._kernel(d, "transpose", 8), "transpose_8", (), gather_gpu.packer("transpose")),
    (lambda d: _gather_gpu._kernel(d, "join"), "join", gather_gpu.JOIN_SUFFIXES, gather_gpu.packer("join")),
    (lambda d: _gather_gpu._kernel(d, "search", 4, "f"), "search_4_f",
     tuple(e[0] for e in gather_gpu.SEARCH_ENTRIES[1:]), gather_gpu.packer("search")),
    (lambda d: _masks._compact_kernel(d, 8), "compact_gpu_8", compact_gpu.ENTRIES[1:],
     compact_gpu.packer("")),
    (lambda d: _masks._runs_kernel(d, "f4"), "runs_gpu_f4", compact_gpu.RUN_ENTRIES[1:],
     compact_gpu.packer("", True)),
    # (the histogram counts keys alone: one module for every payload)
    (lambda d: _radix_gpu._kernel(d, "f32", 32, "hist"), "radix_sort_f32_p0_hist", (), radix_gpu.packer("")),
    (lambda d: _radix_gpu._kernel(d, "f32", 32, "passes"), "radix_sort_f32_p32_passes", (), radix_gpu.packer("_d")),
    (lambda d: _radix_gpu._kernel(d, "u32", 0, "block"), "radix_sort_u32_p0_block", (), radix_gpu.packer("_b")),
])
def test_a_module_is_specified_once_and_found_by_one_lookup(loads, get, name, entries, packer):
    device = ra.Device("cpu")  # (only a key here: nothing is compiled or loaded)
    first = get(device)
    assert get(device) is first and len(loads) == 1
    spec = loads[0]
    assert first == ("loaded", spec.name, device)
    assert spec.name == name and tuple(spec.entries[1:]) == tuple(spec.entry + e for e in entries)
    assert spec.packer is packer and spec.heavy and callable(spec.build_kernel)


def test_packers_are_made_once():
    for module, kinds in ((gather_gpu, ("gather", "transpose", "search", "join")), (compact_gpu, compact_gpu.ENTRIES),
                          (radix_gpu, radix_gpu.ENTRIES)):
        for kind in kinds:
            p = module.packer(kind)
            assert module.packer(kind) is p
            assert p.size == 8 * (1 + len(module.PARAMS[kind]))
