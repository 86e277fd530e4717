"""LLVM in this process: llvmlite's binding, set up once, and the lock around every use of it.

Both the targets (parse, optimise, emit) and the host loader's MCJIT fallback use LLVM, so
the binding lives here, below both.  ``llvmlite.binding`` is imported on first use only: a
process whose kernels all come from the disk cache never loads LLVM.
"""

from __future__ import annotations

import threading

#: Held around every use of LLVM objects through llvmlite's binding (parse, optimise,
#: emit, JIT loading): they share LLVM's global context, which is not thread safe.
#: Re-entrant, so a target's compile may call helpers that take it again.
LLVM_LOCK = threading.RLock()


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
