"""A second process that compiles the background worker's tier-ups, beside the first calls.

llvmlite serialises every LLVM call of a process (one lock around its whole C API), so a
tier-up compiled on the background thread makes a first call that needs a compile of its
own wait for the tier-up's step in hand (``runtime.llvm.llvm_step``), and leaves a core
idle meanwhile.  A child process has an LLVM of its own: the worker thread sends the
kernel's recipe (``KernelSpec.recipe``: the spec made again there) or, for a spec without
one, the IR text it builds, with the target's facts and configuration; the child builds
the module (Python there, not beside the program's own threads) and compiles it with the
same target, and sends the bytes back.  The parent's compile cache checks and stores them
as it does its own.

The child starts at a GPU's first use or at the first tier-up, at the lowest scheduling
priority (``NICENESS``), with this process's interpreter and import path (none where
``sys.executable`` is no Python interpreter: a program that embeds Python may name itself
there), and ends when its pipe closes (this process exits or ``close``).  Its first
message says it is ready and which code generator it runs (``READY``); every reply names
its request's number.  A module a call waits for (a hand-built GPU module) is built here
while the child is still starting.  Whatever goes wrong -- the child cannot start, dies,
runs other code, answers garbage or out of step, or its build or compile raises --
``compile`` returns None and the caller builds and compiles in this process, which raises
the real error if there is one; after ``MAX_FAILURES`` broken children no other is started.
``ROCARRAY_COMPILE_PROCESS=0`` keeps every compile in this process.
"""

from __future__ import annotations

import importlib
import itertools
import json
import os
import pickle
import re
import select
import struct
import subprocess
import sys
import threading

from .. import _settings
from .generator import generator_hash

#: Children that died or broke the protocol before this process stops starting them.
MAX_FAILURES = 3

#: A message's header: its length, its request's number.
_HEADER = struct.Struct("<QQ")
#: What an interpreter's file is called: python, python3.12, pypy3, python.exe ...
_PYTHON = re.compile(r"^(python|pypy)[\d.]*(\.exe)?$", re.IGNORECASE)
_lock = threading.Lock()
_child: "subprocess.Popen | None" = None
_ready = False
#: Request numbers: a reply names its request's (a reply out of step breaks the child).
_serials = itertools.count(1)
_stats = {"compiled": 0, "built": 0, "errors": 0, "failures": 0, "started": 0, "unpicklable": 0, "not_ready": 0}
#: The child's first message (request number 0), with its code generator's hash
#: (``generator.generator_hash``): its imports are done, it takes requests.  A child whose
#: rocarray is not this process's (installed again meanwhile) is a broken child.
READY = "ready"


def compile(target, text: "str | None", recipe=None, wait: bool = True) -> "bytes | None":  # noqa: A001
    """``target.compile(text)``'s bytes, made by the child process -- with ``text`` None,
    of the module the child builds itself from ``recipe`` (``KernelSpec.recipe``: a
    picklable call giving the spec again, whose ``build_module(target)`` it compiles); None
    where this process should build or compile it instead (the child is off or broken,
    the recipe does not pickle, or the child's build or compile raised).  ``wait=False``
    (a module a call is waiting for): None also while the child is still starting, which
    it goes on doing (its imports take longer than most compiles)."""
    if not _settings.COMPILE_PROCESS.get():
        return None
    cls = type(target)
    try:
        payload = pickle.dumps((cls.__module__, cls.__qualname__, target.facts, target.config, text, recipe),
                               protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # (a recipe holding what does not pickle: this process builds it)
        with _lock:
            _stats["unpicklable"] += 1
        return None
    with _lock:
        if _stats["failures"] >= MAX_FAILURES:
            return None
        try:
            _running_child()
            if not _ready_child(wait):
                _stats["not_ready"] += 1
                return None
            serial = next(_serials)
            _write(_child.stdin, payload, serial)
            status, data, timings = _receive(_child.stdout, serial)
        except Exception:  # (it cannot start, died, or answered what is no reply)
            _stats["failures"] += 1
            _stop_child()
            return None
        if status != "ok":
            _stats["errors"] += 1
            return None
        _stats["compiled"] += 1
        _stats["built"] += text is None
    if timings is not None:
        target.last_timings = timings
    return data


def start() -> None:
    """Start the child if none is running, without waiting for it to be ready (a GPU's
    first use: its modules' compiles in the background find it ready)."""
    if not _settings.COMPILE_PROCESS.get():
        return
    with _lock:
        if _stats["failures"] >= MAX_FAILURES:
            return
        try:
            _running_child()
        except Exception:  # (it cannot start: counted as a broken child)
            _stats["failures"] += 1
            _stop_child()


def _running_child() -> None:
    """Start a child where none runs (under ``_lock``)."""
    global _child, _ready
    if _child is None or _child.poll() is not None:
        _child, _ready = _start(), False


def _ready_child(wait: bool) -> bool:
    """Whether the child has said it is ready (its first message, read here once); with
    ``wait`` reads it, else only when it has come (under ``_lock``)."""
    global _ready
    if not _ready:
        if not wait and not _has_data(_child.stdout):
            return False
        if _read(_child.stdout) != (0, (READY, generator_hash())):
            raise ValueError("the compile process did not say it was ready, or runs other code")
        _ready = True
    return True


def _has_data(stream) -> bool:
    """Whether ``stream`` (a pipe no byte of which has been read) has bytes to read, not
    waiting; where pipes cannot be polled (Windows), True: the caller waits."""
    if os.name == "nt":
        return True
    return bool(select.select([stream], [], [], 0)[0])


def stats() -> dict:
    """Compiles the child made (``built``: of modules it built from their recipes), its
    builds and compiles that raised, children that broke, children started, recipes that
    did not pickle, compiles made here while the child was starting (``not_ready``);
    ``pid``: the running child's, or None."""
    with _lock:
        out = dict(_stats)
        out["pid"] = _child.pid if _child is not None and _child.poll() is None else None
    return out


def close() -> None:
    """End the child (it exits when its pipe closes); a later ``compile`` starts another."""
    with _lock:
        _stop_child()


def _forget_child() -> None:
    # A forked process must not talk to its parent's child over the parent's pipes: it
    # starts its own if it needs one.  The parent's stays referenced (never waited for or
    # collected here) and the lock is new (the fork may have come while a thread held it).
    global _child, _lock, _ready
    if _child is not None:
        _inherited.append(_child)
    _child, _lock, _ready = None, threading.Lock(), False


_inherited: list = []
os.register_at_fork(after_in_child=_forget_child)


def _start() -> subprocess.Popen:
    # Only a Python interpreter is started: a program that embeds Python may have itself
    # as sys.executable.
    if not _PYTHON.match(os.path.basename(sys.executable or "")):
        raise OSError(f"sys.executable {sys.executable!r} is not a Python interpreter")
    # the same rocarray as this process's, and its import path
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = ("import sys, json; sys.path[:0] = json.loads(sys.argv[1]); "
            "from rocarray.compiler.compile_process import serve; serve()")
    child = subprocess.Popen([sys.executable, "-c", code, json.dumps([root] + sys.path)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    _stats["started"] += 1
    return child


def _stop_child() -> None:
    global _child
    child, _child = _child, None
    if child is None:
        return
    try:
        child.stdin.close()
        child.wait(timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        child.kill()
        child.wait()
    child.stdout.close()


def _send(stream, obj, serial: int) -> None:
    _write(stream, pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), serial)


def _write(stream, payload: bytes, serial: int) -> None:
    stream.write(_HEADER.pack(len(payload), serial))
    stream.write(payload)
    stream.flush()


def _read(stream) -> tuple:
    """The next (request number, object) on ``stream``; EOFError where it ends first."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError("the compile process's pipe closed")
    size, serial = _HEADER.unpack(header)
    payload = stream.read(size)
    if len(payload) < size:
        raise EOFError("the compile process's pipe closed")
    return serial, pickle.loads(payload)


def _receive(stream, serial: int) -> tuple:
    """The reply to request ``serial``: (status, data, timings)."""
    number, reply = _read(stream)
    if number != serial or not (isinstance(reply, tuple) and len(reply) == 3):
        raise ValueError(f"the compile process answered request {number} with {type(reply).__name__}, "
                         f"not request {serial} with its reply")
    return reply


#: The child's scheduling priority (``os.nice``'s increment): the lowest, so that its
#: builds and compiles run on cores the program leaves idle (at 0 or 10 the child's builds
#: made a program's first run slower than building them in the program's process).
NICENESS = 19


def serve() -> None:
    """The child's loop: build (from a recipe) and compile each request, answer ``("ok",
    bytes, timings)`` or ``("error", message, None)``; return when the pipe closes."""
    if hasattr(os, "nice"):
        try:
            os.nice(NICENESS)
        except OSError:  # (not permitted: it runs at the program's priority)
            pass
    requests, replies = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # (nothing printed may land in the replies' stream)
    targets: dict = {}
    _send(replies, (READY, generator_hash()), 0)
    while True:
        try:
            serial, (module, name, facts, config, text, recipe) = _read(requests)
        except EOFError:
            return
        try:
            key = (module, name, facts, config)
            target = targets.get(key)
            if target is None:
                target = object.__new__(getattr(importlib.import_module(module), name))
                target._start(facts, config)
                targets[key] = target
            if text is None:  # (as the parent's compile cache makes the text of what it builds)
                built = recipe().build_module(target)
                text = built if isinstance(built, str) else str(built)
            reply = ("ok", bytes(target.compile(text)), getattr(target, "last_timings", None))
        except Exception as exc:  # (the parent compiles it again and raises the real error)
            reply = ("error", f"{type(exc).__name__}: {exc}", None)
        _send(replies, reply, serial)

