"""Code-generation targets: ``host``, ``sm_XX`` (NVPTX) and ``gfxXXXX`` (AMDGPU), by name."""

from __future__ import annotations

from .registry import register_target, target_for

__all__ = ["register_target", "target_for"]
