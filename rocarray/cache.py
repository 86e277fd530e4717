"""The kernel cache, as users see it: what was compiled, what came from where, and a reset.

    >>> import rocarray.cache
    >>> rocarray.cache.info()["directory"]          # doctest: +SKIP
    '/home/me/.cache/rocarray'

The disk cache lives in ``$ROCARRAY_CACHE_DIR`` (default ``$XDG_CACHE_HOME/rocarray``,
else ``~/.cache/rocarray``) and holds at most ``$ROCARRAY_CACHE_MAX_BYTES`` (default
1 GiB); ``ROCARRAY_DISK_CACHE=0`` keeps compiled kernels in memory only.
"""

from __future__ import annotations

from .compiler.cache import default_cache, drain_background


def info() -> dict:
    """Counts since the start (or ``reset_counts``) and the state of the disk cache.

    Keys: ``compiled`` (kernels compiled in this process: a signature's first compiled
    code, made at its first call or, after the interpreter ran that call, in the
    background), ``upgraded`` (quick-tier kernels recompiled with the full pipeline in the
    background once hot), ``interpreter`` (first-call interpreter kernels built), ``memory_hits``,
    ``disk_hits``, ``disk_misses``, ``waits``, ``memory_entries``, ``ir_ms``, ``disk_ms``, ``compile_ms``
    (cumulative milliseconds per phase), ``disk_entries``, ``disk_bytes``,
    ``disk_max_bytes`` and ``directory`` (None when the disk cache is off).
    """
    cache = default_cache()
    drain_background(2.0)  # disk writes and tier-ups queued so far are done
    out = cache.stats()
    if cache.disk is not None:
        disk = cache.disk.info()
        out.update(
            disk_entries=disk["entries"],
            disk_bytes=disk["bytes"],
            disk_max_bytes=disk["max_bytes"],
            directory=disk["directory"],
        )
    else:
        out.update(disk_entries=0, disk_bytes=0, disk_max_bytes=0, directory=None)
    return out


def clear(memory: bool = True, disk: bool = True) -> None:
    """Forget compiled kernels: the in-process table and/or the disk cache's files.

    Kernels already loaded stay loaded (the launcher keeps its own table of them);
    clearing affects the kernels looked up after it, which compile or read from disk anew.
    """
    drain_background(2.0)  # no queued write lands after the clear
    default_cache().clear(memory=memory, disk=disk)


def reset_counts() -> None:
    """Set the counters and timers of ``info()`` back to zero."""
    default_cache().reset_counts()
