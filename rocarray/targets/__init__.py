"""Code-generation targets: ``host``, ``sm_XX`` (NVPTX) and ``gfxXXXX`` (AMDGPU)."""

from __future__ import annotations

import threading

_targets: dict = {}
_lock = threading.Lock()


def target_for(name: str):
    """The target object for a target name ("host", "sm_90", "gfx942"); one per name."""
    t = _targets.get(name)
    if t is not None:
        return t
    with _lock:
        t = _targets.get(name)
        if t is None:
            if name == "host":
                from .host import HostTarget

                t = HostTarget()
            elif name.startswith("sm_"):
                from .nvptx import NVPTXTarget

                t = NVPTXTarget(name)
            elif name.startswith("gfx"):
                from .amdgpu import AMDGPUTarget

                t = AMDGPUTarget(name)
            else:
                raise ValueError(
                    f"unknown target {name!r}; expected 'host', 'sm_XX' (NVIDIA) or 'gfxXXXX' (AMD)"
                )
            _targets[name] = t
    return t
