"""Targets as facts under a configuration: the tiers of a target share its frozen facts, and
its cache key tells apart every pair of configurations that generate different code."""

import dataclasses

import pytest

from rocarray.targets import target_for
from rocarray.targets.amdgpu import AMDGPUTarget
from rocarray.targets.facts import CompileConfig, TargetFacts
from rocarray.targets.host import HostTarget
from rocarray.targets.nvptx import NVPTXTarget

NAMES = ["host", "sm_90", "sm_80", "gfx942", "gfx90a", "gfx1100"]


def _tiers(target):
    """The target and every configuration reached from it."""
    found = {"full": target}
    for role in ("quick_tier", "heavy_tier", "interpreter_tier"):
        other = getattr(target, role)
        if other is not None:
            found[role] = other
    return found


@pytest.mark.parametrize("name", NAMES)
def test_tiers_share_the_facts(name):
    target = target_for(name)
    for role, other in _tiers(target).items():
        assert other.facts is target.facts, role
        assert type(other) is type(target), role
    quick = target.quick_tier
    if quick is not None:
        assert quick.stands_in_for is target and quick.simple_loops and quick.opt_level == 0


def test_facts_and_configs_are_frozen():
    target = HostTarget()
    with pytest.raises(dataclasses.FrozenInstanceError):
        target.facts.wave_size = 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        target.config.opt_level = 3
    assert isinstance(target.facts, TargetFacts) and isinstance(target.config, CompileConfig)


def test_assigning_an_attribute_replaces_not_edits():
    target = HostTarget(opt_level=1)
    heavy = target.heavy_tier
    facts, key = target.facts, target.cache_key()
    target.features = target.features + ",-avx512f"
    assert target.facts is not facts and heavy.facts is facts  # the tier kept its own
    assert target.cache_key() != key  # the memo sees the new facts
    target.simple_loops = True
    assert heavy.simple_loops is False and target.config.simple_loops is True


def test_configured_keeps_the_original():
    target = AMDGPUTarget("gfx942")
    quick = target.configured(opt_level=0, simple_loops=True)
    assert target.opt_level == 3 and not target.simple_loops
    assert quick.facts is target.facts and quick.stands_in_for is None


def test_cache_keys_separate_the_configurations():
    """Two configurations with one cache key have the same facts and the same settings
    that reach the code (the verifier and the tiering switch do not)."""
    seen = {}
    for name in NAMES:
        for role, target in _tiers(target_for(name)).items():
            config = dataclasses.replace(target.config, verify_ir=True, tiered=True)
            seen.setdefault(target.cache_key(), set()).add((target.facts, config))
    for key, variants in seen.items():
        assert len(variants) == 1, key
    assert len(seen) >= len(NAMES)


def test_the_facts_codegen_reads():
    host, nv, amd, rdna = HostTarget().facts, NVPTXTarget("sm_90").facts, \
        AMDGPUTarget("gfx942").facts, AMDGPUTarget("gfx1100").facts
    assert (host.kind, nv.kind, amd.kind) == ("host", "nvptx", "amdgpu")
    assert not host.emits_grid and nv.emits_grid and amd.emits_grid
    assert (host.wave_size, nv.wave_size, amd.wave_size, rdna.wave_size) == (1, 32, 64, 32)
    assert not host.has_waves and nv.has_waves
    assert (host.alloca_address_space, nv.alloca_address_space, amd.alloca_address_space) == (0, 0, 5)
    assert (host.global_address_space, nv.shared_address_space, amd.shared_address_space) == (None, 3, 3)
    assert (host.math_library, nv.math_library, amd.math_library) == ("libm", "libdevice", "ocml")
    assert nv.fence_intermediates and amd.slow_wide_division and not host.fence_intermediates
    assert amd.narrow_index_division and not nv.narrow_index_division
    assert host.contracts == ("+fma" in host.features.split(","))
