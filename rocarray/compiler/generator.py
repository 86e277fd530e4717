"""The hash of the code generator's source: part of every disk-cache key, and what the
compile process's child says it runs."""

from __future__ import annotations

import hashlib
from pathlib import Path

#: What generates or compiles kernel code, relative to the package (folders: every file)
_GENERATOR_SOURCES = (
    "compiler", "targets", "runtime/hostload.py",  # the host image's layout is written there
    "_launch.py", "_params.py",
    "_elementwise.py", "_reduction.py", "_user_kernels.py", "_fusion.py", "_fused_reduction.py",
)
_generator_hash: str | None = None


def generator_hash() -> str:
    """A hash of the source of every module that generates or compiles kernel code.

    It is part of every disk-cache key, so editing the code generator (or installing another
    version of rocarray) can never load stale kernels.
    """
    global _generator_hash
    if _generator_hash is None:
        root = Path(__file__).resolve().parent.parent
        h = hashlib.blake2b(digest_size=16)
        for rel in _GENERATOR_SOURCES:
            p = root / rel
            files = sorted(p.rglob("*")) if p.is_dir() else [p]
            for f in files:
                if f.suffix in (".py", ".rk") and f.is_file():
                    h.update(f.relative_to(root).as_posix().encode())
                    h.update(f.read_bytes())
        _generator_hash = h.hexdigest()
    return _generator_hash
