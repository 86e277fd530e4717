"""The compile cache: kernel key -> compiled bytes, from memory, then disk, then the compiler.

    get_or_compile(key, build, target)
      1. memory:  (key, target) -> bytes                              one dict lookup
      2. disk:    target.cache_key() + generator hash + key -> bytes  (``DiskCache``)
      3. build(): the LLVM IR (an ``ir.Module`` or its text)
      4. target.compile(IR text), then written to disk

The disk key is everything that decides the bytes: the target's ``cache_key()`` (name,
triple, CPU, features, LLVM version, codegen version, options), a hash of the source of
everything that generates code (``generator_hash()``: the kernel language, the skeletons,
the targets, the op catalogue), and the caller's key, which must therefore be stable across
processes: a tuple of strings, numbers and tuples (the kernel body text is in it).  The
key holds digests of both parts (``disk_key``), each made once per process.  A disk hit
builds no IR at all, so it costs a file read and a load.

Configurations can share an entry: a stand-in configuration (``target.stands_in_for``:
the one whose entry it uses; the tiers make their quick code so) keeps its code in that
entry, so one read finds whichever code was compiled (``lookup(key, target, stand_in)``).
An entry's payload starts with a tag of the configuration that compiled the code
(``TAG_BYTES``); a read for another configuration is a miss.  A stand-in's code is
written only where the entry holds nothing yet
(``DiskCache.put(replace=False)``, a link that fails when the file is there), the full
tier's replaces it: with several processes writing, an entry only ever improves.

Threads: ``LLVM_LOCK`` serialises LLVM itself (its global context is not thread safe);
each target takes it around its LLVM steps only, so that an assembler or linker working
outside LLVM (ptxas or nvJitLink, ld.lld) runs beside another thread's LLVM -- a
background tier-up then holds a first call back for its LLVM steps alone.  Building IR
with llvmlite's pure-Python ``ir`` layer and the disk reads run unlocked.
Two threads missing on the same key compile it once: the first one in builds, the others
wait for its result (or its exception).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from typing import Callable

from .. import _settings
from ..runtime.llvm import yield_to_foreground
from ..targets.base import lend_store
from . import compile_process
from .diskcache import DiskCache
from .generator import generator_hash


class _Pending:
    """The result of one in-flight compile, which other threads may wait for.

    A lock held from creation until ``done()``: waiters take it and hand it on at once.
    (A ``threading.Event`` is a condition variable in Python code: making and setting one
    costs a first call much more than a lock does.)"""

    __slots__ = ("_lock", "value", "error")

    def __init__(self):
        self._lock = threading.Lock()
        self._lock.acquire()
        self.value: bytes | None = None
        self.error: BaseException | None = None

    def done(self) -> None:
        """The value or the error is in place: let the waiters go."""
        self._lock.release()

    def result(self) -> bytes:
        with self._lock:
            pass
        if self.error is not None:
            raise self.error
        return self.value


_COUNTERS = ("compiled", "memory_hits", "disk_hits", "disk_misses", "waits", "upgraded", "interpreter")
_TIMERS = ("ir_ms", "disk_ms", "compile_ms")


class CompileCache:
    """Compiled kernels by key and target: in memory, on disk (``disk``; None for none)."""

    def __init__(self, disk: DiskCache | None = None, write_behind: bool = False):
        self.disk = disk
        #: write compiled bytes to disk on the background thread (the caller needs only
        #: the bytes; rocarray's default cache does this)
        self.write_behind = write_behind
        self._memory: dict = {}
        self._pending: dict = {}
        self._lock = threading.Lock()
        self.reset_counts()

    # -- the one entry point ------------------------------------------------------------

    def get_or_compile(self, key: tuple, build: Callable[[], object], target,
                       counter: str = "compiled", recipe=None, wait_for_child: bool = True,
                       here: bool = False) -> bytes:
        """The bytes ``target`` compiles from ``build()`` (an ``ir.Module`` or IR text)
        for ``key``.  ``build`` is called only when ``key`` is neither in memory nor on disk
        (on the background worker, only where the compile process cannot build the module
        from ``recipe``: ``KernelSpec.recipe``).  A compile is counted under ``counter``
        ("compiled", or "upgraded" for a tier-up).  ``wait_for_child=False``: a compile a
        call waits for is not sent to a compile process still starting
        (``compile_process.compile``'s ``wait``).  ``here``: where another thread is
        making these bytes, this one makes them too rather than wait for it (that one
        may be a tier-up waiting for the compile process, at the lowest priority)."""
        mkey = (key, target)
        data = self._memory.get(mkey)
        if data is not None:
            with self._lock:
                self._counts["memory_hits"] += 1
            return data
        return self._miss(mkey, build, target, counter, recipe, wait_for_child, here)

    def lookup(self, key: tuple, target, stand_in=None) -> "tuple[bytes, object] | None":
        """``target``'s code for ``key``, else (``stand_in.stands_in_for`` being ``target``)
        the stand-in's, from memory or disk: ``(bytes, the configuration that compiled
        them)``, or None; never compiles.  Both are kept in one disk entry: one read serves."""
        memory = self._memory
        data = memory.get((key, target))
        if data is not None:
            self._count("memory_hits")
            return data, target
        found = None
        if self.disk is not None:
            t0 = time.perf_counter()
            found = self._read(key, target, stand_in)
            with self._lock:
                self._times["disk_ms"] += (time.perf_counter() - t0) * 1e3
                if found is not None:
                    self._counts["disk_hits"] += 1
                    memory.setdefault((key, found[1]), found[0])
        if found is None and stand_in is not None:
            data = memory.get((key, stand_in))
            if data is not None:
                self._count("memory_hits")
                return data, stand_in
        return found

    def stored(self, key: tuple, target) -> bytes | None:
        """``target``'s code for ``key`` in the disk cache, or None (no counter moves, the
        memory is not consulted)."""
        found = None if self.disk is None else self._read(key, target)
        return None if found is None else found[0]

    def _read(self, key: tuple, target, stand_in=None) -> "tuple[bytes, object] | None":
        """One read of the disk entry holding ``target``'s code for ``key``: that code, or
        that of ``stand_in`` (whose ``stands_in_for`` is ``target``), with who compiled it."""
        disk_key, name, tag = _entry(target, key)
        stand_in_tag = None if stand_in is None else _target_digest(stand_in)[1]

        def check(payload: bytes) -> None:
            # the code checked by the configuration that compiled it (``check_binary``):
            # bytes that are not what the tag says are a corrupt entry -- a miss
            found = payload[:TAG_BYTES]
            by = target if found == tag else stand_in if found == stand_in_tag else None
            if by is not None:
                by.check_binary(payload[TAG_BYTES:])

        payload = self.disk.get(disk_key, name, check=check)
        if payload is None:
            return None
        found = payload[:TAG_BYTES]
        if found == tag:
            return payload[TAG_BYTES:], target
        if stand_in is not None and found == stand_in_tag:
            return payload[TAG_BYTES:], stand_in
        return None  # another configuration's code (a stand-in's, asked for the owner's)

    def _write(self, key: tuple, target, data: bytes) -> None:
        """Store ``target``'s code for ``key``: a stand-in's only where its entry holds
        nothing yet, any other replacing what is there (the best code so far stays)."""
        disk_key, name, tag = _entry(target, key)
        self.disk.put(disk_key, tag + data, replace=target.stands_in_for is None, name=name)

    def _miss(self, mkey, build, target, counter="compiled", recipe=None, wait_for_child=True,
              here=False) -> bytes:
        with self._lock:
            data = self._memory.get(mkey)
            if data is not None:
                self._counts["memory_hits"] += 1
                return data
            pending = self._pending.get(mkey)
            owner = pending is None
            if owner:
                pending = self._pending[mkey] = _Pending()
            elif not here:
                self._counts["waits"] += 1
        if not owner:
            if not here:
                return pending.result()
            # (made here beside the owner, which finds the same bytes in memory or makes them)
            data = self._produce(mkey[0], build, target, counter, recipe, wait_for_child)
            with self._lock:
                self._memory.setdefault(mkey, data)
            return data
        try:
            data = self._produce(mkey[0], build, target, counter, recipe, wait_for_child)
        except BaseException as exc:
            pending.error = exc
            with self._lock:
                del self._pending[mkey]
            pending.done()
            raise
        pending.value = data
        with self._lock:
            self._memory[mkey] = data
            del self._pending[mkey]
        pending.done()
        return data

    def _produce(self, key, build, target, counter="compiled", recipe=None, wait_for_child=True) -> bytes:
        t0 = time.perf_counter()
        if self.disk is not None:
            found = self._read(key, target)
            self._add_time("disk_ms", time.perf_counter() - t0)
            if found is not None:
                self._count("disk_hits")
                return found[0]
            self._count("disk_misses")
        t1 = t2 = time.perf_counter()
        # (a tier-up: built and compiled by the compile process, whose Python and LLVM run
        # beside this one's, or compiled there from the text built here; LLVM_LOCK: the
        # target's, around its LLVM steps)
        background = on_background_worker()
        data = compile_process.compile(target, None, recipe, wait_for_child) \
            if background and recipe is not None else None
        if data is None:
            module = build()
            text = module if isinstance(module, str) else str(module)
            t2 = time.perf_counter()
            self._add_time("ir_ms", t2 - t1)
            data = compile_process.compile(target, text, wait=wait_for_child) if background else None
            if data is None:
                data = bytes(target.compile(text))
        t3 = time.perf_counter()
        self._add_time("compile_ms", t3 - t2)
        self._count(counter)
        if counter == "compiled":
            last_foreground_compile[0] = time.perf_counter()
        if self.disk is not None:
            if self.write_behind and not on_background_worker():
                # after a quiet moment, like a tier-up: a write started at once would take
                # the GIL from the caller, which is still loading and launching the kernel
                compile_in_background(lambda: self._write(key, target, data))
            else:
                # (on the worker -- a tier-up -- the write is made now: queued behind the
                # worker's exit it would be lost, and every short process after it would
                # miss the entry and compile it again)
                self._write(key, target, data)
        return data

    @staticmethod
    def disk_key(target, key: tuple) -> str:
        """The disk-cache key of the entry holding ``target``'s code for kernel ``key``: a
        digest of the target's ``cache_key()`` and the generator hash (a stand-in's
        entry is the one of the configuration it stands in for, ``target.stands_in_for``),
        then ``key_digest(key)``."""
        return _entry(target, key)[0]

    # -- counters -------------------------------------------------------------------------

    def _count(self, name: str) -> None:
        with self._lock:
            self._counts[name] += 1

    def _add_time(self, name: str, seconds: float) -> None:
        with self._lock:
            self._times[name] += seconds * 1e3

    def reset_counts(self) -> None:
        """Set every counter and timer back to zero (the cached entries stay)."""
        with getattr(self, "_lock", threading.Lock()):
            self._counts = dict.fromkeys(_COUNTERS, 0)
            self._times = dict.fromkeys(_TIMERS, 0.0)

    def stats(self) -> dict:
        """Counters (``compiled``, ``memory_hits``, ``disk_hits``, ``disk_misses``,
        ``waits``: threads that waited for another's compile), ``memory_entries`` and the
        cumulative milliseconds per phase (``ir_ms``, ``disk_ms``, ``compile_ms``)."""
        with self._lock:
            out = dict(self._counts)
            out.update(self._times)
            out["memory_entries"] = len(self._memory)
        return out

    def clear(self, memory: bool = True, disk: bool = True) -> None:
        """Drop the in-memory entries and/or every entry of the disk cache."""
        if memory:
            with self._lock:
                self._memory.clear()
        if disk and self.disk is not None:
            self.disk.clear()


class _Background:
    """One low-priority worker thread for tier-up compiles.

    It takes a job only when no foreground compile is waiting for LLVM, so a program that
    meets new signatures is never slowed by upgrades of old ones; at exit it finishes the
    job in hand and drops the rest.
    """

    def __init__(self):
        import atexit
        import queue

        self._queue = queue.SimpleQueue()
        self._stopping = False
        self._pending = 0
        self._idle = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="rocarray-tier-up", daemon=True)
        self._thread.start()
        atexit.register(self._stop)

    def submit(self, job: Callable[[], None], quiet: bool = True) -> None:
        with self._idle:
            self._pending += 1
        self._queue.put((job, quiet))

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every submitted job has run; False on timeout."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def _run(self) -> None:
        yield_to_foreground()
        while True:
            item = self._queue.get()
            if item is None or self._stopping:
                return
            job, quiet = item
            # Let foreground compiles go first: start only after a quiet moment.
            while quiet and time.perf_counter() - last_foreground_compile[0] < QUIET_SECONDS:
                time.sleep(QUIET_SECONDS / 2)
            try:
                job()
            except Exception as exc:  # the working quick-tier code stays in place, said once
                background_failures.append(repr(exc))
                if len(background_failures) == 1:
                    import warnings

                    warnings.warn(f"rocarray: a background recompile failed ({exc!r}); the "
                                  "quick-tier code keeps running", RuntimeWarning, stacklevel=1)
            with self._idle:
                self._pending -= 1
                self._idle.notify_all()

    def _stop(self) -> None:
        # finish what is queued (disk writes, tier-ups) but wait no more than a moment;
        # then drop the rest, but let the job in hand end: a compile still inside LLVM on
        # this (daemon) thread while the interpreter finalises could crash the process
        self._queue.put(None)
        self._thread.join(timeout=STOP_SECONDS)
        self._stopping = True
        self._thread.join(timeout=60)
        compile_process.close()


_background: _Background | None = None
#: Seconds the exit waits for queued tier-up jobs before it drops the ones not started.
STOP_SECONDS = 2.0
#: What the background jobs that failed raised (a recompile that fails is a bug to report).
background_failures: list = []
#: Seconds without a foreground compile before a tier-up may take the LLVM lock.
QUIET_SECONDS = 0.01
#: When the last foreground (not tier-up) compile finished (time.perf_counter()).
last_foreground_compile = [0.0]


def _forget_background() -> None:
    # A forked process has no worker thread (its parent's is not copied): it starts its
    # own at its first tier-up, instead of queueing jobs that would never run.
    global _background
    _background = None


os.register_at_fork(after_in_child=_forget_background)


def on_background_worker() -> bool:
    """Whether this thread is the background worker (``compile_in_background``)."""
    return _background is not None and threading.current_thread() is _background._thread


def drain_background(timeout: float | None = None) -> bool:
    """Wait for pending tier-up compiles (benchmarks and tests use it)."""
    return True if _background is None else _background.drain(timeout)


def compile_in_background(job: Callable[[], None], quiet: bool = True) -> None:
    """Run ``job`` on the background worker thread (after a quiet moment if ``quiet``)."""
    global _background
    if _background is None:
        with _default_lock:
            if _background is None:
                _background = _Background()
    _background.submit(job, quiet)


#: target.cache_key() -> (the start of its entries' disk keys, the tag of its code)
_target_digests: dict = {}
#: bytes of the tag before the code in a disk entry: which configuration compiled it
TAG_BYTES = 16


def _target_digest(target) -> tuple[str, bytes]:
    """(the start of the disk keys of the entries ``target`` heads, the ``TAG_BYTES``
    tag its code carries in an entry): digests of its ``cache_key()`` and the generator
    hash, made once per configuration."""
    tkey = target.cache_key()
    memo = _target_digests.get(tkey)
    if memo is None:
        digest = hashlib.blake2b(f"{tkey!r}|gen:{generator_hash()}".encode(), digest_size=TAG_BYTES)
        memo = _target_digests[tkey] = (digest.hexdigest() + "|", digest.digest())
    return memo


def _entry(target, key) -> tuple[str, str, bytes]:
    """(the disk key, the file name, the tag of ``target``'s code) of the entry holding
    ``target``'s code for ``key``: the digest of the configuration heading it
    (``target.stands_in_for`` for a stand-in), then ``key_digest(key)``; the name takes 160
    bits of the two (no third hash)."""
    head = target.stands_in_for
    prefix, tag = _target_digest(target if head is None else head)
    if head is not None:
        tag = _target_digest(target)[1]
    digest = key_digest(key)
    return prefix + digest, prefix[:8] + digest[:32], tag


#: kernel key -> ``key_digest(key)``
_key_digests: dict = {}
#: ``_key_digests`` starts again when it holds this many (it is a memo, nothing more)
KEY_DIGESTS_KEPT = 4096


def key_digest(key) -> str:
    """A BLAKE2b-256 digest (hex) of ``repr(key)``, memoized: what disk keys and kernel
    entry names hold of a kernel key.

    A kernel key holds the kernel's body text (often a kilobyte with the target's part):
    hashed once per key and process, it is not hashed again by each disk look-up (one per
    tier) nor stored in full in every entry.  256 bits: two keys with one digest are as
    unlikely as two with one file name."""
    digest = _key_digests.get(key)
    if digest is None:
        if len(_key_digests) >= KEY_DIGESTS_KEPT:
            _key_digests.clear()
        digest = _key_digests[key] = hashlib.blake2b(repr(key).encode(), digest_size=32).hexdigest()
    return digest


def support_key(target, name: str, text: str) -> str:
    """The disk-cache key of the support module ``name`` of IR ``text`` for ``target``."""
    return CompileCache.disk_key(target, (name, hashlib.blake2b(text.encode()).hexdigest()))


def support_image(target, name: str, text: str, disk: DiskCache | None) -> bytes:
    """The bytes ``target`` compiles from the IR ``text`` of the support module ``name``
    (no kernel: rocarray's native built-ins, the host runtime helpers), from ``disk`` when
    they are there, else compiled now and written there.  Counted nowhere: the counters
    (``stats``) are about kernels."""
    key = support_key(target, name, text)
    data = None if disk is None else disk.get(key, check=target.check_binary)
    if data is None:
        data = target.compile(text)
        if disk is not None:
            disk.put(key, data)
    return data


_default: CompileCache | None = None
_default_lock = threading.Lock()


def default_cache() -> CompileCache:
    """The process's compile cache, on the disk cache at ``default_cache_dir()`` (set
    ``ROCARRAY_DISK_CACHE=0`` to keep compiled kernels in memory only)."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                on = _settings.DISK_CACHE.get()
                _default = CompileCache(DiskCache() if on else None, write_behind=True)
    return _default


# the targets keep installation facts, library slices and support modules in this store
lend_store(disk=lambda: default_cache().disk, salt=generator_hash, support_image=support_image)
