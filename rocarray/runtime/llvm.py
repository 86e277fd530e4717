"""LLVM in this process: llvmlite's binding, set up once, and the lock around every use of it.

Both the targets (parse, optimise, emit) and the host loader's MCJIT fallback use LLVM, so
the binding lives here, below both.  ``llvmlite.binding`` is imported on first use only: a
process whose kernels all come from the disk cache never loads LLVM.
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager

#: Held around every use of LLVM objects through llvmlite's binding (parse, optimise,
#: emit, JIT loading): they share LLVM's global context, which is not thread safe.
#: Re-entrant, so a target's compile may call helpers that take it again.
LLVM_LOCK = threading.RLock()

#: Foreground threads blocked in ``llvm_step`` for ``LLVM_LOCK``, and when the last one
#: finished a step (time.perf_counter()): the yielding thread waits for both.
_foreground = {"waiting": 0, "last": 0.0}
_turns = threading.Condition()
_yielding = threading.local()
#: Seconds after a foreground step before a yielding thread takes its next step.
YIELD_QUIET_SECONDS = 0.01


def _after_fork_in_child() -> None:
    # (the forking thread held LLVM_LOCK across the fork, so no other thread's step was
    # cut in half; the child's turns start afresh)
    global _turns
    LLVM_LOCK.release()
    _turns = threading.Condition()
    _foreground["waiting"] = 0


os.register_at_fork(before=LLVM_LOCK.acquire, after_in_parent=LLVM_LOCK.release,
                    after_in_child=_after_fork_in_child)


def yield_to_foreground() -> None:
    """Mark this thread (the background compile worker) as one whose ``llvm_step``s go
    after every foreground thread's: it takes ``LLVM_LOCK`` only when none waits for it
    and none has taken a step in the last ``YIELD_QUIET_SECONDS``."""
    _yielding.on = True


@contextmanager
def llvm_step():
    """``LLVM_LOCK`` held for one step of a compile (parse and optimise, or emit), with
    the foreground first.  llvmlite serialises all of LLVM (one lock around every call), so
    a tier-up compile in the background holds up any first call that needs a compile of
    its own until it ends; split into steps, it holds one up for one step at most."""
    if LLVM_LOCK._is_owned():
        # (held around several steps: taken again at once; a yielding thread waiting here
        # would hold up the foreground it waits for)
        with LLVM_LOCK:
            yield
        return
    if getattr(_yielding, "on", False):
        with _turns:
            while True:
                quiet = YIELD_QUIET_SECONDS - (time.perf_counter() - _foreground["last"])
                if _foreground["waiting"] == 0 and quiet <= 0:
                    break
                _turns.wait(max(quiet, YIELD_QUIET_SECONDS / 2))
        with LLVM_LOCK:
            yield
        return
    with _turns:
        _foreground["waiting"] += 1
    try:
        LLVM_LOCK.acquire()
    finally:
        with _turns:
            _foreground["waiting"] -= 1
    try:
        yield
    finally:
        LLVM_LOCK.release()
        with _turns:
            _foreground["last"] = time.perf_counter()
            _turns.notify_all()


class ToolchainError(RuntimeError):
    """A tool, library or symbol that compiling or loading needs is missing or failed; the
    message says which and how to get it."""


_binding = None  # llvmlite.binding, once this machine's target is registered
_all_targets = False


def llvm_binding(all_targets: bool = False):
    """``llvmlite.binding`` with this machine's target and assembly printer registered
    (enough to parse, optimise and emit host code), and every other target's too with
    ``all_targets`` (the GPU targets ask for it before making their target machine).

    Only what is used is registered: every registered target adds its codegen passes to
    LLVM's pass registry, and each codegen pipeline walks that registry, so registering
    them all would slow every host compile (measured; benchmarks/results/history/benchmarks.md)."""
    global _binding, _all_targets
    binding = _binding
    if binding is None:
        # lazy: loading LLVM is most of a disk-warm process's start-up
        from llvmlite import binding

        binding.initialize_native_target()
        binding.initialize_native_asmprinter()
        _binding = binding
    if all_targets and not _all_targets:
        binding.initialize_all_targets()
        binding.initialize_all_asmprinters()
        _all_targets = True
    return binding
