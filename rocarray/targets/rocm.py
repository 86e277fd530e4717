"""Finding the ROCm toolchain the AMDGPU target needs: the device libraries (ocml, ockl)
and an ``ld.lld`` for the objects the in-process linker does not handle."""

from __future__ import annotations

import glob
import importlib.util
import os
import re
import shlex
import shutil
import subprocess

from .. import _settings
from .base import MATH_FUNCTIONS, BitcodeLibrary, ToolchainError, llvm_binding

#: The code object version AMDGPU kernels are written as (``amdhsa_code_object_version``).
CODE_OBJECT_VERSION = 5

#: ocml functions the math table can ask for; the first use keeps them all in the
#: in-memory subset later slices are cut from.
_OCML_COMMON = [f"__ocml_{fn}_{w}" for fn in MATH_FUNCTIONS for w in ("f32", "f64")]

_libraries: dict[str, BitcodeLibrary] = {}


def _rocm_roots() -> list[str]:
    roots = [os.environ.get("ROCM_PATH"), "/opt/rocm"]
    roots += sorted(glob.glob("/opt/rocm-*"), reverse=True)
    return [r for r in dict.fromkeys(roots) if r and os.path.isdir(r)]


#: ``find_device_libs``'s answer per (``ROCARRAY_DEVICE_LIBS``, ``ROCM_PATH``): looking
#: means globbing, and every compile that calls ocml asks.
_device_libs_found: dict[tuple, str] = {}


def find_device_libs() -> str | None:
    """Folder holding ``ocml.bc``: env ``ROCARRAY_DEVICE_LIBS``, then each ROCm installation
    (``$ROCM_PATH``, /opt/rocm, /opt/rocm-*: ``amdgcn/bitcode`` or, from ROCm 6 on,
    ``lib/llvm/lib/clang/*/lib/amdgcn/bitcode``), then Debian's ``rocm-device-libs``
    (/usr/lib/x86_64-linux-gnu/amdgcn/bitcode) and /usr/lib/amdgcn/bitcode.  A folder
    found is kept for the process while it still holds ``ocml.bc`` and those two
    variables do not change (one installed later in a place searched earlier is not
    seen); none found is looked for again at the next call."""
    key = (_settings.DEVICE_LIBS.get(), os.environ.get("ROCM_PATH"))
    path = _device_libs_found.get(key)
    if path is not None and os.path.isfile(os.path.join(path, "ocml.bc")):
        return path
    path = _search_device_libs()
    if path is not None:
        _device_libs_found[key] = path
    return path


def _search_device_libs() -> str | None:
    explicit = _settings.DEVICE_LIBS.get()
    if explicit:  # asked for by name: that one, or an error (never another one instead)
        if os.path.isfile(os.path.join(explicit, "ocml.bc")):
            return explicit
        raise _settings.DEVICE_LIBS.invalid(
            explicit, "a folder without ocml.bc" if os.path.isdir(explicit) else "no such folder")
    candidates = []
    for root in _rocm_roots():
        candidates.append(os.path.join(root, "amdgcn", "bitcode"))
        candidates += sorted(
            glob.glob(os.path.join(root, "lib", "llvm", "lib", "clang", "*", "lib", "amdgcn", "bitcode")),
            reverse=True,
        )
    candidates += sorted(glob.glob("/usr/lib/*-linux-gnu/amdgcn/bitcode"))
    candidates += ["/usr/lib/amdgcn/bitcode", "/usr/share/amdgcn/bitcode"]
    for path in candidates:
        if os.path.isfile(os.path.join(path, "ocml.bc")):
            return path
    return None


_lld_versions: dict[tuple, int | None] = {}


def _lld_version(command: tuple) -> int | None:
    """Major version an ``ld.lld`` command reports, or None when it does not run."""
    if command not in _lld_versions:
        try:
            out = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=30)
            match = re.search(r"LLD (\d+)", out.stdout)
            _lld_versions[command] = int(match.group(1)) if match else None
        except (OSError, subprocess.SubprocessError):
            _lld_versions[command] = None
    return _lld_versions[command]


#: Oldest LLD that links code object v5 for gfx942 and gfx11 (LLD 14 rejects them).
MIN_LLD = 17


def _lld_candidates() -> list[tuple[str, tuple]]:
    found = []
    explicit = _settings.LLD.get()
    if explicit:  # a path, or a command line such as "zig ld.lld"
        try:
            command = tuple(shlex.split(explicit))
        except ValueError as exc:  # (an unclosed quote)
            raise _settings.LLD.invalid(explicit, str(exc)) from None
        found.append(("ROCARRAY_LLD", command))
    for root in _rocm_roots():
        for sub in ("llvm/bin/ld.lld", "lib/llvm/bin/ld.lld"):
            path = os.path.join(root, sub)
            if os.access(path, os.X_OK):
                found.append(("rocm", (path,)))
    spec = importlib.util.find_spec("ziglang")
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            zig = os.path.join(folder, "zig")
            if os.access(zig, os.X_OK):
                found.append(("ziglang", (zig, "ld.lld")))
    for major in range(30, MIN_LLD - 1, -1):
        path = shutil.which(f"ld.lld-{major}")
        if path:
            found.append((f"ld.lld-{major}", (path,)))
    path = shutil.which("ld.lld")
    if path:
        found.append(("PATH", (path,)))
    return found


_lld_choice: list = []


def find_lld() -> tuple | None:
    """Command (a tuple) of the ``ld.lld`` used to link code objects, or None.

    Search order: env ``ROCARRAY_LLD`` (a path or a command line such as "zig ld.lld");
    the ROCm installation (``$ROCM_PATH``, /opt/rocm*: ``llvm/bin/ld.lld``); the ``ziglang``
    wheel's ``zig ld.lld``; ``ld.lld-NN`` on PATH, newest first; ``ld.lld`` on PATH.  Each
    must report LLD >= 17.  The wheel comes before Debian's ``ld.lld-19`` because it is
    statically linked: 5.5 ms per link against 20 ms for a binary that loads libLLVM.so
    at every start.
    """
    if not _lld_choice:
        chosen = None
        for source, command in _lld_candidates():
            version = _lld_version(command)
            if version is not None and version >= MIN_LLD:
                chosen = (command, source, version)
                break
            if source == "ROCARRAY_LLD":  # asked for by name: use it or say why not
                found = f"it reports LLD {version}" if version else "it does not run as ld.lld --version"
                raise _settings.LLD.invalid(_settings.LLD.raw(), found)
        _lld_choice.append(chosen)
    return _lld_choice[0][0] if _lld_choice[0] else None


def _ocml(folder: str) -> BitcodeLibrary:
    path = os.path.join(folder, "ocml.bc")
    if path not in _libraries:
        _libraries[path] = BitcodeLibrary(path, "__ocml_", _OCML_COMMON)
    return _libraries[path]


def _ockl(folder: str) -> BitcodeLibrary:
    path = os.path.join(folder, "ockl.bc")
    if path not in _libraries:
        _libraries[path] = BitcodeLibrary(path, "__ockl_")
    return _libraries[path]


def toolchain_info() -> dict:
    """What the AMDGPU target found on this machine (for ``python -m rocarray info``)."""
    binding = llvm_binding()
    try:
        find_lld()
        problem = None
    except (ToolchainError, ValueError) as exc:  # (ValueError: a bad ROCARRAY_LLD)
        problem = str(exc)
    choice = _lld_choice[0] if _lld_choice else None
    command = choice[0] if choice else None
    folder = find_device_libs()
    return {
        "llvm": ".".join(map(str, binding.llvm_version_info)),
        "device_libs": folder,
        "ocml": os.path.join(folder, "ocml.bc") if folder else None,
        "ockl": os.path.join(folder, "ockl.bc") if folder and os.path.isfile(os.path.join(folder, "ockl.bc")) else None,
        "ld_lld": " ".join(command) if command else None,
        "ld_lld_source": choice[1] if choice else None,
        "ld_lld_version": choice[2] if choice else None,
        "ld_lld_problem": problem,
        "code_object_version": CODE_OBJECT_VERSION,
        "linker": "built-in (ld.lld for objects it does not handle)",
    }
