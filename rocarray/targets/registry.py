"""The targets by name: each target module registers how to make its targets under a name
prefix ("host", "sm_", "gfx"), so a new target is one file and one row of ``MODULES``."""

from __future__ import annotations

import importlib
import threading

#: name prefix -> the module that registers it, imported when a target of that prefix is
#: first asked for (importing every target would cost a CPU-only process's start-up)
MODULES = {"host": "rocarray.targets.host", "sm_": "rocarray.targets.nvptx", "gfx": "rocarray.targets.amdgpu"}

_makers: dict = {}  # prefix -> (make(name) -> Target, whether the name must equal the prefix)
_targets: dict = {}  # name -> its one target
_lock = threading.RLock()


def register_target(prefix: str, make, exact: bool = False) -> None:
    """Make targets whose name starts with ``prefix`` (equals it, with ``exact``) with
    ``make(name)``."""
    _makers[prefix] = (make, exact)


def _maker(name: str):
    for prefix, module in MODULES.items():
        if name == prefix or name.startswith(prefix):
            if prefix not in _makers:
                importlib.import_module(module)  # registers ``prefix``
    for prefix, (make, exact) in _makers.items():
        if name == prefix or (not exact and name.startswith(prefix)):
            return make
    return None


def target_for(name: str):
    """The target object for a target name ("host", "sm_90", "gfx942"); one per name."""
    t = _targets.get(name)
    if t is not None:
        return t
    with _lock:
        t = _targets.get(name)
        if t is None:
            make = _maker(name)
            if make is None:
                raise ValueError(
                    f"unknown target {name!r}; expected 'host', 'sm_XX' (NVIDIA) or 'gfxXXXX' (AMD)"
                )
            t = _targets[name] = make(name)
    return t
