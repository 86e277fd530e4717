"""The interpreter tier on a device: a new signature's first calls run its bytecode
(``compiler/interp.py``) on the interpreter kernel while ``_launch.load`` has the compiled
kernel made in the background.

The interpreter kernel is compiled once per machine and kept in the disk cache; the first
process to need it builds it in a child process, so those seconds of LLVM never hold this
process's LLVM lock (until then first calls compile).  ``prepare(device)`` builds it here
and waits.  It serves NVIDIA GPUs and small first calls on the host
(``ROCARRAY_INTERPRETER``); AMD GPUs compile first calls (the HIP runtime is untested on
AMD hardware).
"""

from __future__ import annotations

import struct
import subprocess
import sys
import threading

import numpy as np
from llvmlite import ir

from . import _settings
from .compiler import interp as _interp
from ._images import _load_image
from ._params import pack_format
from .compiler.cache import default_cache
from .targets import target_for

ENABLED = _settings.INTERPRETER.get() != "off"
#: serve the host's first calls too (those of at most ``_tiers.POLICY.host_interpreted_most``
#: elements; ``ROCARRAY_INTERPRETER=gpu`` keeps the host compiling them)
ON_HOST = _settings.INTERPRETER.get() == "on"
KEY = ("interpreter", _interp.MAGIC)
BLOCK = 256


def image_target(target):
    """The configuration the interpreter kernel is compiled with on ``target``'s machine
    (fully optimised: it is compiled once), or None where there is no interpreter."""
    memo = _image_targets.get(target.cache_key())
    if memo is not None:
        return memo[0]
    it = target.interpreter_tier
    _image_targets[target.cache_key()] = (it,)
    return it


_image_targets: dict = {}


def build_image(target) -> bytes:
    """The interpreter kernel's bytes for ``target``'s machine: from the disk cache, or
    compiled now (and kept there)."""
    it = image_target(target)
    if it is None:
        raise ValueError(f"no interpreter for target {target.name}")
    return default_cache().get_or_compile(KEY, lambda: str(_interp.build_interpreter(it)), it,
                                          counter="interpreter")


def state(target) -> str:
    """What ``python -m rocarray info`` says of the interpreter for ``target``."""
    it = image_target(target)
    if it is None:
        return "none for this target (first calls are compiled)"
    if not ENABLED or (not target.is_gpu and not ON_HOST):
        return "off (ROCARRAY_INTERPRETER)"
    cache = default_cache()
    if cache.disk is None:
        return "off (no disk cache to keep it in)"
    if cache.stored(KEY, it) is None:
        return "not built yet (the first process that needs it builds it)"
    return "built (in the disk cache)"


class Interpreted:
    """A kernel's bytecode on one device, ready to launch on the interpreter kernel."""

    __slots__ = ("function", "code", "packer", "grid", "keep")

    def __init__(self, function, code: int, packer: struct.Struct, grid: int, keep):
        self.function = function
        self.code = code
        self.packer = packer
        self.grid = grid      # most blocks a launch uses (GPU), 0 on the host
        self.keep = keep      # what holds the bytecode's memory

    def launch(self, runtime, n: int, values) -> None:
        if self.grid:
            grid = min(-(-n // BLOCK), self.grid)
            runtime.launch_packed(self.function, grid, BLOCK, self.packer, self.code, [n, *values])
        else:
            runtime.launch_packed(self.function, n, 1, self.packer, self.code, [n, *values])


class InterpretedItems:
    """A reduction's entries as bytecode on one device (``compile_items``): each launch
    runs one entry's item function once per item on the interpreter kernel."""

    __slots__ = ("function", "codes", "grid", "keep", "packers", "pad")

    def __init__(self, function, codes: list, grid: int, keep, pad: int | None):
        self.function = function
        self.codes = codes    # per entry: the bytecode's address
        self.grid = grid      # most blocks a launch uses (GPU), 0 on the host
        self.keep = keep
        self.pad = pad        # the interpreter's parameter bytes (GPU), None on the host
        self.packers: dict = {}

    def launch(self, runtime, entry: int, packer: struct.Struct, items: int, values, grid: int = 0,
               work: int = 0) -> None:
        """Run entry ``entry`` over ``items`` items, its parameters ``items, *values``
        packed by ``packer`` (the compiled entry's); ``grid``: the blocks the launcher
        would give the compiled entry (at most this interpreter's own grid)."""
        ip = self.packers.get(packer)
        if ip is None:
            fmt = "<QQQ" + packer.format.lstrip("<")
            if self.pad is not None:
                fmt += f"{self.pad - 24 - packer.size}x"
            ip = self.packers[packer] = struct.Struct(fmt)
        if self.grid:
            grid = min(grid or -(-items // BLOCK), self.grid)
            runtime.launch_packed(self.function, grid, BLOCK, ip, self.codes[entry], [items, 1, items, *values])
        else:
            runtime.launch_packed(self.function, items, 1, ip, self.codes[entry], [items, 1, items, *values],
                                  work=work or items)


class DeviceInterpreter:
    """The interpreter kernel loaded on one device."""

    def __init__(self, device, runtime, target, function):
        self.device = device
        self.runtime = runtime
        self.index = device.index
        self.function = function
        self.iset = _interp.instruction_set(image_target(target))
        self.grid = runtime.resident_grid(function, BLOCK) if target.is_gpu else 0
        self.param_bytes = 8 * _interp.PARAM_WORDS if target.is_gpu else None

    def prepare(self, spec, target) -> "Interpreted | InterpretedItems | None":
        """``spec``'s body (or, for a reduction, its items) as bytecode on this device
        (lowered for ``target``, the tier whose code it stands in for), or None when the
        interpreter cannot run it."""
        if spec.build_items is not None:
            return self._prepare_items(spec, target)
        packer = pack_format(spec.operands)
        size = 8 + packer.size
        if self.param_bytes is not None and size > self.param_bytes:
            return None
        module = ir.Module(name=spec.entry)
        module.triple = target.triple
        module.data_layout = target.data_layout
        body = spec.build_body(module, target)
        try:
            code = _interp.compile_body(module, body, spec.operands, self.iset)
        except _interp.NotInterpretable:
            return None
        pad = "" if self.param_bytes is None else f"{self.param_bytes - size}x"
        ipacker = struct.Struct("<Q" + packer.format.lstrip("<") + pad)
        ptr, keep = self._place(code)
        return Interpreted(self.function, ptr, ipacker, self.grid, keep)

    def _prepare_items(self, spec, target) -> "InterpretedItems | None":
        module = ir.Module(name=spec.entry)
        module.triple = target.triple
        module.data_layout = target.data_layout
        codes = []
        try:
            items = spec.build_items(module, target, spec.entry)
        except _interp.NotInterpretable:
            return None
        for fn, substitutions, packer in items:
            if self.param_bytes is not None and 24 + packer.size > self.param_bytes:
                return None
            try:
                codes.append(_interp.compile_items(fn, packer.size, self.iset, substitutions))
            except _interp.NotInterpretable:
                return None
        starts, pos = [], 0
        for code in codes:
            starts.append(pos)
            pos += -(-len(code) // 8) * 8
        ptr, keep = self._place(b"".join(code.ljust(-(-len(code) // 8) * 8, b"\0") for code in codes))
        return InterpretedItems(self.function, [ptr + s for s in starts], self.grid, keep, self.param_bytes)

    def _place(self, code: bytes) -> tuple:
        """(the address of ``code`` where the interpreter reads it, what keeps it there)."""
        if self.grid:
            rt = self.runtime
            host = np.frombuffer(code, dtype=np.uint8)
            ptr = rt.alloc(self.index, len(code))
            rt.copy_host_to_device(self.index, ptr, host.ctypes.data, len(code))
            return ptr, ptr  # (a few hundred bytes per signature, kept for the process)
        keep = np.frombuffer(code, dtype=np.uint8).copy()
        return keep.ctypes.data, keep


class _Building:
    """A child process building the interpreter kernel into the disk cache."""

    def __init__(self, proc):
        self.proc = proc


_state: dict = {}     # device -> DeviceInterpreter, _Building, or None (none for it)
_lock = threading.Lock()


def for_device(device, runtime, target) -> DeviceInterpreter | None:
    """The device's interpreter when it is ready; else None (and, the first time, a child
    process starts building it)."""
    st = _state.get(device)
    if not ENABLED or not (target.is_gpu or ON_HOST):
        return None
    if st.__class__ is DeviceInterpreter:
        return st
    if device in _state and st is None:
        return None
    with _lock:
        st = _state.get(device)
        if st.__class__ is DeviceInterpreter or (device in _state and st is None):
            return st
        it = image_target(target)
        cache = default_cache()
        if it is None or cache.disk is None:
            _state[device] = None
            return None
        image = cache.stored(KEY, it)
        if image is None:
            if st is None:
                proc = _start_build(target)
                _state[device] = None if proc is None else _Building(proc)
            elif st.proc.poll() is not None:  # the child is done and left nothing
                _state[device] = None
            return None
        if st is not None:
            st.proc.poll()  # (the child is done: reaped)
        interp = _state[device] = _load(device, runtime, target, it, image)
        return interp


def _start_build(target):
    """The child process building ``target``'s interpreter, or None if none can start."""
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "rocarray", "interpreter", "--target", target.name],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return None


def _load(device, runtime, target, it, image) -> DeviceInterpreter:
    module = _load_image(runtime, device.index, image, it)
    return DeviceInterpreter(device, runtime, target, runtime.get_function(module, _interp.ENTRY))


def prepare(device) -> DeviceInterpreter | None:
    """Build (or read from the disk cache) and load ``device``'s interpreter now, in this
    thread; None where the device has none."""
    runtime = device.runtime
    target = target_for(runtime.target_name(device.index))
    it = image_target(target)
    if it is None:
        return None
    with _lock:
        st = _state.get(device)
        if st.__class__ is DeviceInterpreter:
            return st
        interp = _state[device] = _load(device, runtime, target, it, build_image(target))
        return interp
