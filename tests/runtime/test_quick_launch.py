"""The launcher's grid for GPU quick-tier elementwise kernels (``rocarray._launch``).

A GPU quick-tier elementwise kernel has no grid-stride loop: it takes one thread per
element and at most ``SIMPLE_LOOP_MAX_ELEMENTS`` elements.  So while such code is loaded
the launcher gives it ``ceil(n / block)`` blocks, not the grid of grid-stride kernels (one
round of resident blocks, more for launches of many elements: ``GPU_GRID_TRIPS``); a
launch over more elements compiles and swaps in the full tier first; once the full tier
is in, that grid applies again.  A fake runtime records the launches.
"""

from __future__ import annotations

import types

import numpy as np
import pytest

from rocarray import _launch
from rocarray._launch import KernelSpec, LoadedKernel, SIMPLE_LOOP_MAX_ELEMENTS
from rocarray.compiler.skeletons import Operand


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

    def launch_packed(self, function, grid, block, packer, n, values):
        self.launches.append((function[0], grid, block, n))


class _Cache:
    def __init__(self):
        self.compiled = []

    def get_or_compile(self, key, build, target, counter=None):
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


def _kernel(quick=True, is_gpu=True, reduction=False):
    ops = [Operand(np.dtype("float32"), "in"), Operand(np.dtype("float32"), "out")]
    spec = KernelSpec(("test", "quick-launch"), "quick_launch", ops, build_body=None,
                      build_kernel=(lambda *a: None) if reduction else None,
                      packer=_launch.pack_format(ops) if reduction else None)
    target = types.SimpleNamespace(is_gpu=is_gpu, jit_opt=None)
    device = types.SimpleNamespace(index=0)
    return LoadedKernel(spec, device, _Runtime(), b"quick", target, quick=quick)


def test_quick_code_gets_one_thread_per_element(cache, monkeypatch):
    import rocarray.compiler.cache as cache_module

    monkeypatch.setattr(cache_module, "compile_in_background", lambda job, quiet=True: None)
    k = _kernel()
    assert k.thread_per_element
    k.launch(1000 * 256 + 1, ())  # beyond the one-wave cap of 1000 blocks (and hot)
    assert k.runtime.launches == [(b"quick", 1001, 256, 1000 * 256 + 1)]


def test_small_launches_stay_on_quick_code_and_its_grid(cache):
    k = _kernel()
    for _ in range(3):
        k.launch(300, ())
    assert k.runtime.launches == [(b"quick", 2, 256, 300)] * 3
    assert cache.compiled == []


def test_hot_kernel_is_upgraded_and_capped_again(cache):
    k = _kernel()
    k.launch(_launch.TIER_UP_ELEMENTS * 64, ())  # hot at once: upgraded (here: before launching)
    assert not k.thread_per_element and not k.simple
    k.launch(_launch.TIER_UP_ELEMENTS * 64, ())
    assert k.runtime.launches[-1] == (b"full", 1000, 256, _launch.TIER_UP_ELEMENTS * 64)
    # many more elements: blocks for about GPU_GRID_TRIPS vector trips per thread
    n = 1000 * k.round_elements * 5 + 1
    k.launch(n, ())
    assert k.runtime.launches[-1] == (b"full", 5001, 256, n)
    # (float32: 4 lanes, two vectors per trip)
    assert k.round_elements == 256 * 4 * 2 * _launch.GPU_GRID_TRIPS


def test_more_elements_than_the_quick_kernel_takes_runs_the_full_tier(cache, monkeypatch):
    # no background upgrade: the launch itself must not reach the quick kernel
    import rocarray.compiler.cache as cache_module

    monkeypatch.setattr(cache_module, "compile_in_background", lambda job, quiet=True: None)
    k = _kernel()
    n = SIMPLE_LOOP_MAX_ELEMENTS + 1
    k.launch(n, ())
    assert k.runtime.launches == [(b"full", -(-n // k.round_elements), 256, n)]
    assert cache.compiled == [(k.spec.key, "upgraded")]
    assert not k.thread_per_element and k.calls == -1


def test_background_upgrade_in_flight_does_not_reach_the_quick_kernel(cache, monkeypatch):
    import rocarray.compiler.cache as cache_module

    pending = []
    monkeypatch.setattr(cache_module, "compile_in_background", lambda job, quiet=True: pending.append(job))
    k = _kernel()
    k.launch(_launch.TIER_UP_ELEMENTS, ())  # starts the (pending) upgrade
    assert pending and k.calls == -1 and k.thread_per_element
    k.launch(SIMPLE_LOOP_MAX_ELEMENTS + 1, ())  # must not run quick code
    assert k.runtime.launches[-1][0] == b"full"


@pytest.mark.parametrize("case", ["full tier", "host", "reduction"])
def test_other_kernels_keep_the_capped_grid(cache, case):
    k = _kernel(quick=case != "full tier", is_gpu=case != "host", reduction=case == "reduction")
    assert not k.thread_per_element
    if case == "reduction":
        return  # reductions launch through their plans, with their own grids
    k.launch(1000 * 256 + 1, ())
    grid = k.runtime.launches[-1][1]
    assert grid == (1000 if case == "full tier" else 1000 * 256 + 1)  # the host: n "threads"
