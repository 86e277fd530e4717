"""The launcher's grid for GPU quick-tier elementwise kernels (``rocarray._launch``).

A GPU quick-tier elementwise kernel has no grid-stride loop: it takes one thread per
element and at most ``SIMPLE_LOOP_MAX_ELEMENTS`` elements.  So while such code is loaded
the launcher gives it ``ceil(n / block)`` blocks, not the grid of grid-stride kernels (one
round of resident blocks, more for launches of many elements: about ``GPU_GRID_TRIPS``
trips a thread, in whole rounds); a
launch over more elements compiles and swaps in the full tier first; once the full tier
is in, that grid applies again.  A fake runtime records the launches.
"""

from __future__ import annotations

import struct
import types

import numpy as np
import pytest

from rocarray import _launch, _tiers
from rocarray._launch import KernelSpec, LoadedKernel, SIMPLE_LOOP_MAX_ELEMENTS
from rocarray.compiler.abi import Operand
from rocarray.targets.base import MAX_DIMS


class _Runtime:
    """Records launches; modules are their image bytes, functions ``(image, entry)``."""

    def __init__(self):
        self.launches = []

    def get_function(self, module, entry):
        return (module, entry)

    def resident_grid(self, function, block):
        return 1000

    def load_module(self, index, image):
        return image

    def launch_packed(self, function, grid, block, packer, n, values, work=None):
        self.launches.append((function[0], grid, block, n))


class _Cache:
    def __init__(self):
        self.compiled = []

    def get_or_compile(self, key, build, target, counter=None, recipe=None, here=False):
        self.compiled.append((key, counter))
        return b"full"


@pytest.fixture
def cache(monkeypatch):
    import rocarray.compiler.cache as cache_module

    # a real tier-up queued by an earlier test must not run while the fake cache is in
    # place: it would load the fake's bytes as a host object (MCJIT crashes on them)
    cache_module.drain_background()
    fake = _Cache()
    monkeypatch.setattr(cache_module, "default_cache", lambda: fake)
    # run background upgrades at once, so the test sees their effect
    monkeypatch.setattr(cache_module, "compile_in_background", lambda job, quiet=True: job())
    return fake


OPS = [Operand(np.dtype("float32"), "in"), Operand(np.dtype("float32"), "out")]


def _values(n):
    """The packed values of a launch over one contiguous run of ``n`` elements of ``OPS``."""
    values, _ = _launch.contiguous_template(OPS)
    values[1] = n
    return values


def _kernel(quick=True, is_gpu=True, reduction=False):
    ops = OPS
    spec = KernelSpec(("test", "quick-launch"), "quick_launch", ops, build_body=None,
                      build_kernel=(lambda *a: None) if reduction else None,
                      packer=_launch.pack_format(ops) if reduction else None)
    target = types.SimpleNamespace(is_gpu=is_gpu, jit_opt=None)
    device = types.SimpleNamespace(index=0)
    rt = _Runtime()
    return LoadedKernel(spec, device, rt, target, _tiers.compiled_code(spec, rt, target, b"quick", quick))


def test_quick_code_gets_one_thread_per_element(cache, monkeypatch):
    import rocarray.compiler.cache as cache_module

    monkeypatch.setattr(cache_module, "compile_in_background", lambda job, quiet=True: None)
    k = _kernel()
    assert k.code.per_element
    n = 1000 * 256 + 1
    k.launch(n, _values(n))  # beyond the one-wave cap of 1000 blocks (and hot)
    assert k.runtime.launches == [(b"quick", 1001, 256, 1000 * 256 + 1)]


def test_small_launches_stay_on_quick_code_and_its_grid(cache):
    k = _kernel()
    for _ in range(3):
        k.launch(300, _values(300))
    assert k.runtime.launches == [(b"quick", 2, 256, 300)] * 3
    assert cache.compiled == []


def test_hot_kernel_is_upgraded_and_capped_again(cache):
    k = _kernel()
    n = _tiers.POLICY.tier_up_elements * 64
    k.launch(n, _values(n))  # hot at once: upgraded (here: before launching)
    assert not k.code.per_element and not k.code.simple_loops
    k.launch(n, _values(n))
    assert k.runtime.launches[-1] == (b"full", 1000, 256, _tiers.POLICY.tier_up_elements * 64)
    # many more elements: blocks for about GPU_GRID_TRIPS vector trips per thread, in
    # whole rounds of the 1000 resident blocks (5001 blocks' work: six rounds)
    n = 1000 * k.round_elements * 5 + 1
    k.launch(n, _values(n))
    assert k.runtime.launches[-1] == (b"full", 6000, 256, n)
    n = 1000 * k.round_elements * 2
    k.launch(n, _values(n))
    assert k.runtime.launches[-1] == (b"full", 2000, 256, n)
    # (float32: 4 lanes, two vectors per trip)
    assert k.round_elements == 256 * 4 * 2 * _tiers.GPU_GRID_TRIPS


def test_more_elements_than_the_quick_kernel_takes_runs_the_full_tier(cache, monkeypatch):
    # no background upgrade: the launch itself must not reach the quick kernel
    import rocarray.compiler.cache as cache_module

    monkeypatch.setattr(cache_module, "compile_in_background", lambda job, quiet=True: None)
    k = _kernel()
    n = SIMPLE_LOOP_MAX_ELEMENTS + 1
    k.launch(n, _values(n))
    assert k.runtime.launches == [(b"full", 1000 * -(-n // (1000 * k.round_elements)), 256, n)]
    assert cache.compiled == [(k.spec.key, "upgraded")]
    assert not k.code.per_element and k.code.calls == -1


def test_background_upgrade_in_flight_does_not_reach_the_quick_kernel(cache, monkeypatch):
    import rocarray.compiler.cache as cache_module

    pending = []
    monkeypatch.setattr(cache_module, "compile_in_background", lambda job, quiet=True: pending.append(job))
    k = _kernel()
    k.launch(_tiers.POLICY.tier_up_elements, _values(_tiers.POLICY.tier_up_elements))  # starts the upgrade
    assert pending and k.code.calls == -1 and k.code.per_element
    n = SIMPLE_LOOP_MAX_ELEMENTS + 1
    k.launch(n, _values(n))  # must not run quick code
    assert k.runtime.launches[-1][0] == b"full"


@pytest.mark.parametrize("case", ["full tier", "host", "reduction"])
def test_other_kernels_keep_the_capped_grid(cache, case):
    k = _kernel(quick=case != "full tier", is_gpu=case != "host", reduction=case == "reduction")
    assert not k.code.per_element
    if case == "reduction":
        return  # reductions launch through their plans, with their own grids
    k.launch(1000 * 256 + 1, _values(1000 * 256 + 1))
    grid = k.runtime.launches[-1][1]
    assert grid == (1000 if case == "full tier" else 1000 * 256 + 1)  # the host: n "threads"


def _strided_values(shape, strides_per_operand):
    """Packed values of a launch over ``shape`` with the given strides of ``OPS``."""
    ndim = len(shape)
    values = [ndim, *shape, *([1] * (MAX_DIMS - ndim))]
    for st in strides_per_operand:
        values += [4096, *st, *([0] * (MAX_DIMS - ndim))]
    return values


@pytest.mark.parametrize("shape,strides,quick", [
    ((2,), (2**31 - 1,), True),                     # the largest offset the kernel takes
    ((2,), (2**31,), False),
    ((3,), (-(2**30 - 1),), True),                  # negative strides count by magnitude
    ((3,), (-(2**30),), False),
    ((1, 5), (2**40, 4), True),                     # a size-1 dimension adds nothing
    ((2, 3), (2**31 - 9, 4), True),                 # (2-1)*(2^31-9) + (3-1)*4 = 2^31 - 1
    ((2, 3), (2**31 - 8, 4), False),
    ((2, 3), (2**31 - 9, -4), True),
    ((3, 4, 5), (0, 0, 4), True),                   # broadcast
])
def test_offsets_past_32_bits_run_the_full_tier(cache, monkeypatch, shape, strides, quick):
    # the quick kernel adds byte offsets in 32 bits: a launch whose operand offsets reach
    # past SIMPLE_LOOP_MAX_OFFSET runs the full tier at once, even with few elements
    import rocarray.compiler.cache as cache_module

    monkeypatch.setattr(cache_module, "compile_in_background", lambda job, quiet=True: None)
    k = _kernel()
    n = int(np.prod(shape))
    small = tuple(4 * int(np.prod(shape[d + 1:])) for d in range(len(shape)))  # C order, float32
    k.launch(n, _strided_values(shape, [strides, small]))  # the input wide, the output not
    assert k.runtime.launches[-1][0] == (b"quick" if quick else b"full")
    k2 = _kernel()
    k2.launch(n, _strided_values(shape, [small, strides]))  # the output wide
    assert k2.runtime.launches[-1][0] == (b"quick" if quick else b"full")


def test_offset_check_bounds_every_partial_sum():
    # what simple_loop_offsets_fit accepts, the kernel's 32-bit arithmetic computes
    # exactly: every product and partial sum of its unravel (last dimension first) is
    # within int32, for every element; and it accepts a layout exactly at the limit
    from rocarray.compiler.skeletons import SIMPLE_LOOP_MAX_OFFSET, simple_loop_offsets_fit

    rng = np.random.default_rng(7)
    positions = _launch.stride_positions(OPS)
    accepted = 0
    for _ in range(300):
        ndim = int(rng.integers(1, 4))
        shape = tuple(int(e) for e in rng.integers(1, 5, ndim))
        scale = int(rng.choice([1, 2**20, 2**28, 2**30]))
        strides = [tuple(int(s) for s in rng.integers(-3, 4, ndim) * scale) for _ in OPS]
        values = _strided_values(shape, strides)
        fits = simple_loop_offsets_fit(values, positions)
        worst = 0
        for st in strides:
            for index in np.ndindex(*shape):
                off = 0
                for d in reversed(range(ndim)):
                    term = index[d] * st[d]
                    off += term
                    worst = max(worst, abs(term), abs(off))
        if fits:
            accepted += 1
            assert worst <= SIMPLE_LOOP_MAX_OFFSET, (shape, strides)
    assert 50 < accepted < 300
    exact = _strided_values((2, 2), [(2**31 - 5, 4), (8, 4)])
    assert simple_loop_offsets_fit(exact, positions)


class _AreaRuntime(_Runtime):
    """The warm contiguous path's runtime: parameter areas and launches from them."""

    direct_launch_below = 2**31

    def alloc(self, index, nbytes):
        return 1 << 40

    def memory_pool(self, index):
        return None

    def parameter_area(self, packed):
        return memoryview(bytearray(packed)).cast("Q"), 0

    def launch_into_new(self, function, grid, block, area, out_word, nbytes):
        area[0][out_word] = ptr = self.alloc(0, nbytes)
        self.launches.append((function[0], grid, block, None))
        return ptr


def test_contiguous_runs_past_32_bit_offsets_run_the_full_tier(cache, monkeypatch):
    # the warm contiguous path (no packed values to check): by the element count, from the
    # widest operand's item size
    import rocarray.compiler.cache as cache_module

    monkeypatch.setattr(cache_module, "compile_in_background", lambda job, quiet=True: None)
    ops = [Operand(np.dtype("float64"), "in"), Operand(np.dtype("int16"), "in"),
           Operand(np.dtype("float32"), "out")]
    spec = KernelSpec(("test", "quick-contiguous"), "quick_contiguous", ops, build_body=None)
    rt = _AreaRuntime()
    device = types.SimpleNamespace(index=0, runtime=rt)
    target = types.SimpleNamespace(is_gpu=True, jit_opt=None)
    arrays = [types.SimpleNamespace(_buf=types.SimpleNamespace(ptr=4096), _offset=0)] * 2
    k = LoadedKernel(spec, device, rt, target, _tiers.compiled_code(spec, rt, target, b"quick", True))
    runner = _launch.ContiguousRunner(k, ops, np.dtype("float32"))
    most = (2**31 - 1) // 8 + 1  # float64: (n - 1) * 8 <= 2^31 - 1
    assert runner.quick_most == most
    runner(arrays, (most,), most)
    assert rt.launches[-1][0] == b"quick"
    runner(arrays, (most + 1,), most + 1)
    assert rt.launches[-1][0] == b"full" and not k.code.per_element


@pytest.mark.parametrize("heavy", [False, True])
def test_tier_up_after_calls_or_elements(monkeypatch, heavy):
    """Quick-tier code asks for its full tier once hot: after ``tier_up_calls`` launches
    or one of ``tier_up_elements`` elements -- and, for rocarray's own sorts, gathers and
    searches (heavy specs, a few items of much work a launch), after
    ``heavy_tier_up_calls`` launches whatever their size.  Asked for once."""
    asked = []
    monkeypatch.setattr(_tiers._cache, "compile_in_background", lambda job: asked.append(job))
    kernel = types.SimpleNamespace(spec=types.SimpleNamespace(heavy=heavy), is_gpu=True)
    policy = _tiers.POLICY
    assert 1 < policy.heavy_tier_up_calls < policy.tier_up_calls
    quick = _tiers.QuickCode((None,), 1)
    hot = policy.heavy_tier_up_calls if heavy else policy.tier_up_calls
    for call in range(1, policy.tier_up_calls + 3):
        quick.count(kernel, 4)
        assert len(asked) == (call >= hot), call
    big = _tiers.QuickCode((None,), 1)
    asked.clear()
    big.count(kernel, policy.tier_up_elements)
    big.count(kernel, policy.tier_up_elements)
    assert len(asked) == 1


@pytest.mark.parametrize("is_gpu, heavy", [(False, False), (False, True), (True, False)])
def test_host_quick_code_compiles_its_full_tier_itself_once_it_has_run_long_enough(monkeypatch, is_gpu, heavy):
    """On the host, quick-tier code whose full tier was asked for in the background (where
    the compile process runs at the lowest priority: a program that keeps the cores busy
    with large quick-tier calls leaves it none) compiles that tier in the calling thread at
    the call after it has run ``host_compile_work`` more elements -- once, and that call
    runs the full tier; a compile that fails leaves the quick code running.  Not on GPUs,
    not for heavy specs."""
    asked, now = [], []
    monkeypatch.setattr(_tiers._cache, "compile_in_background", lambda job: asked.append(job))
    monkeypatch.setattr(_tiers, "upgrade", lambda kernel, here=False: now.append((kernel, here)))
    kernel = types.SimpleNamespace(spec=types.SimpleNamespace(heavy=heavy), is_gpu=is_gpu)
    step = _tiers.POLICY.host_compile_work // 3 + 1
    quick = _tiers.QuickCode((None,), 1)
    assert quick.count(kernel, _tiers.POLICY.tier_up_elements) is False and len(asked) == 1  # (asked for)
    compiled = [quick.count(kernel, step) for _ in range(6)]
    if is_gpu or heavy:
        assert compiled == [False] * 6 and not now
        return
    assert compiled == [False, False, False, True, False, False] and now == [(kernel, True)]

    def failed(kernel, here=False):
        raise RuntimeError("no compiler")

    monkeypatch.setattr(_tiers, "upgrade", failed)
    broken = _tiers.QuickCode((None,), 1)
    broken.count(kernel, _tiers.POLICY.tier_up_elements)
    assert [broken.count(kernel, _tiers.POLICY.host_compile_work) for _ in range(3)] == [False] * 3
