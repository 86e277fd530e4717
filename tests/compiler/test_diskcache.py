"""The disk cache: round trips, damaged entries are misses, LRU size bound, many writers."""

from __future__ import annotations

import multiprocessing
import os
import stat
import threading
import time
import warnings

import pytest

from rocarray.compiler import diskcache
from rocarray.compiler.diskcache import DiskCache, default_cache_dir, default_max_bytes


def _entry_path(cache: DiskCache, key: str) -> str:
    return os.path.join(cache.directory, diskcache._file_name(key))


def test_round_trip_and_info(tmp_path):
    cache = DiskCache(tmp_path / "c", max_bytes=1 << 20)
    assert cache.get("k1") is None
    assert not (tmp_path / "c").exists()  # nothing happens on disk before a write
    cache.put("k1", b"hello")
    cache.put("k2", b"\x00" * 1000)
    assert cache.get("k1") == b"hello"
    assert cache.get("k2") == b"\x00" * 1000
    cache.put("k1", b"replaced")
    assert cache.get("k1") == b"replaced"
    info = cache.info()
    assert info["entries"] == 2 and info["directory"] == str(tmp_path / "c")
    assert info["bytes"] == sum(os.path.getsize(_entry_path(cache, k)) for k in ("k1", "k2"))
    cache.clear()
    assert cache.info()["entries"] == 0 and cache.get("k1") is None


def test_entry_layout(tmp_path):
    cache = DiskCache(tmp_path)
    cache.put("the key", b"payload")
    path = _entry_path(cache, "the key")
    assert os.path.basename(path).endswith(".rk") and len(os.path.basename(path)) == 43
    blob = open(path, "rb").read()
    assert blob[:8] == b"ROCARRAY"
    assert int.from_bytes(blob[8:12], "little") == diskcache.FORMAT_VERSION
    start = diskcache._HEADER.size
    assert start == 32 and blob[start:start + 7] == b"the key" and blob.endswith(b"payload")
    assert [n for n in os.listdir(tmp_path) if not n.endswith(".rk")] == []  # no temp left


@pytest.mark.parametrize("damage", ["truncate", "flip_payload", "flip_header", "empty", "version"])
def test_damaged_entry_is_a_miss_and_is_removed(tmp_path, damage):
    cache = DiskCache(tmp_path)
    cache.put("key", b"x" * 500)
    path = _entry_path(cache, "key")
    blob = bytearray(open(path, "rb").read())
    if damage == "truncate":
        blob = blob[: len(blob) - 100]
    elif damage == "flip_payload":
        blob[-10] ^= 0x40
    elif damage == "flip_header":
        blob[26] ^= 0x01  # inside the checksum
    elif damage == "empty":
        blob = bytearray()
    elif damage == "version":
        blob[8:12] = (diskcache.FORMAT_VERSION + 1).to_bytes(4, "little")
    with open(path, "wb") as f:
        f.write(blob)
    assert cache.get("key") is None
    assert not os.path.exists(path)
    cache.put("key", b"fresh")
    assert cache.get("key") == b"fresh"


def test_entry_of_another_key_is_a_miss_and_is_kept(tmp_path):
    # Simulate a file-name hash collision: a valid entry for "other" where "key" looks.
    cache = DiskCache(tmp_path)
    with open(_entry_path(cache, "key"), "wb") as f:
        f.write(diskcache.encode_entry("other", b"not yours"))
    assert cache.get("key") is None
    assert os.path.exists(_entry_path(cache, "key"))
    cache.put("key", b"mine")
    assert cache.get("key") == b"mine"


def test_lru_eviction_under_a_small_bound(tmp_path):
    payload = b"p" * 1000
    entry_size = len(diskcache.encode_entry("key-0", payload))
    cache = DiskCache(tmp_path, max_bytes=5 * entry_size)
    now = time.time()
    for k in range(5):
        cache.put(f"key-{k}", payload)
        os.utime(_entry_path(cache, f"key-{k}"), (now - 100 + k, now - 100 + k))
    assert cache.get("key-0") == payload  # a hit makes key-0 the most recently used
    cache.put("key-5", payload)            # over the bound: evict down to 90 %
    info = cache.info()
    assert info["bytes"] <= 5 * entry_size
    assert cache.get("key-0") == payload and cache.get("key-5") == payload
    assert cache.get("key-1") is None      # the least recently used went first
    assert info["entries"] == 4


def test_eviction_tolerates_files_vanishing(tmp_path, monkeypatch):
    cache = DiskCache(tmp_path, max_bytes=10 ** 9)
    for k in range(10):
        cache.put(f"k{k}", b"z" * 100)
    real_remove = os.remove
    gone = []

    def racing_remove(path):  # another process evicts every file just before we do
        real_remove(path)
        gone.append(path)
        real_remove(path)

    monkeypatch.setattr(diskcache.os, "remove", racing_remove)
    cache.evict(target_bytes=0)
    monkeypatch.undo()
    assert cache.info()["entries"] == 0 and len(gone) == 10


def test_stale_temp_files_are_cleaned(tmp_path):
    cache = DiskCache(tmp_path)
    cache.put("a", b"1")
    stale = tmp_path / ".tmp-dead-writer"
    stale.write_bytes(b"partial")
    old = time.time() - 2 * diskcache._STALE_TMP_SECONDS
    os.utime(stale, (old, old))
    fresh = tmp_path / ".tmp-live-writer"
    fresh.write_bytes(b"partial")
    cache.info()
    assert not stale.exists() and fresh.exists()


def test_unwritable_directory_warns_once_and_reads_on(tmp_path, monkeypatch):
    cache = DiskCache(tmp_path)
    cache.put("k", b"v")
    if os.name == "posix" and os.geteuid() != 0:
        os.chmod(tmp_path, stat.S_IRUSR | stat.S_IXUSR)
    else:  # root writes into read-only folders: refuse the temporary file instead
        def refuse(*args, **kwargs):
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(diskcache.tempfile, "mkstemp", refuse)
    try:
        with pytest.warns(RuntimeWarning, match="not writable"):
            cache.put("k2", b"v2")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            cache.put("k3", b"v3")  # silently skipped from now on
        assert cache.get("k") == b"v"  # what is there still reads
        assert cache.get("k2") is None and not cache.info()["writable"]
    finally:
        os.chmod(tmp_path, stat.S_IRWXU)


def test_uncreatable_directory_warns_once(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_bytes(b"not a folder")
    cache = DiskCache(blocker / "cache")
    with pytest.warns(RuntimeWarning, match="not writable"):
        cache.put("k", b"v")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cache.put("k", b"v")
        assert cache.get("k") is None
    assert cache.info()["entries"] == 0 and not cache.info()["writable"]


def test_default_directory_and_bound(monkeypatch, tmp_path):
    monkeypatch.delenv("ROCARRAY_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == str(tmp_path / "xdg" / "rocarray")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert default_cache_dir() == os.path.join(os.path.expanduser("~"), ".cache", "rocarray")
    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path / "mine"))
    assert default_cache_dir() == str(tmp_path / "mine")
    assert DiskCache().directory == str(tmp_path / "mine")
    monkeypatch.setenv("ROCARRAY_CACHE_MAX_BYTES", "12345")
    assert default_max_bytes() == 12345 and DiskCache().max_bytes == 12345
    monkeypatch.delenv("ROCARRAY_CACHE_MAX_BYTES")
    assert default_max_bytes() == 1 << 30


def test_threads_share_one_cache(tmp_path):
    cache = DiskCache(tmp_path, max_bytes=1 << 30)
    errors = []

    def worker(t):
        try:
            for i in range(200):
                key = f"key-{i % 17}"
                cache.put(key, key.encode() * 50)
                got = cache.get(key)
                assert got is None or got == key.encode() * 50
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert cache.info()["entries"] == 17


_SMALL = 3_000


def _hammer(directory: str, seed: int, rounds: int, queue) -> None:
    cache = DiskCache(directory, max_bytes=_SMALL)  # ~6 of 23 entries: evictions race writes
    bad = 0
    for i in range(rounds):
        key = f"shared-{(i * 7 + seed) % 23}"
        payload = (key * 40).encode()
        got = cache.get(key)
        if got is not None and got != payload:
            bad += 1
        cache.put(key, payload)
    queue.put(bad)


def test_many_processes_hammering_the_same_keys(tmp_path):
    ctx = multiprocessing.get_context("spawn" if os.name == "nt" else "fork")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_hammer, args=(str(tmp_path), s, 300, queue)) for s in range(4)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert results == [0, 0, 0, 0]  # a reader never saw a torn or foreign entry
    cache = DiskCache(tmp_path, max_bytes=_SMALL)
    # Unbounded, the 23 keys would take ~11 kB; each process's running estimate lags the
    # others' writes by an entry or two, so allow that much over the bound.
    assert cache.info()["bytes"] <= 2 * _SMALL
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".tmp-")]
    for key in (f"shared-{k}" for k in range(23)):
        got = cache.get(key)
        assert got is None or got == (key * 40).encode()


def test_put_without_replace_keeps_the_entry_in_place(tmp_path):
    cache = DiskCache(tmp_path)
    cache.put("k", b"first")
    cache.put("k", b"second", replace=False)
    assert cache.get("k") == b"first"
    cache.put("other", b"new", replace=False)  # a free place is filled
    assert cache.get("other") == b"new"
    cache.put("k", b"third")  # replace=True (the default) replaces
    assert cache.get("k") == b"third"
    assert [n for n in os.listdir(tmp_path) if not n.endswith(".rk")] == []  # no temp left


def test_put_without_replace_where_the_file_system_makes_no_links(tmp_path, monkeypatch):
    def no_links(src, dst):
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    cache = DiskCache(tmp_path)
    cache.put("k", b"first", replace=False)  # free: written all the same (renamed)
    cache.put("k", b"second", replace=False)  # taken: left alone
    assert cache.get("k") == b"first"
    assert [n for n in os.listdir(tmp_path) if not n.endswith(".rk")] == []
    assert cache.writable  # not a write failure


def _racing_writer(directory: str, k: int, barrier, queue) -> None:
    cache = DiskCache(directory)
    barrier.wait()
    for i in range(50):
        cache.put(f"key-{i}", f"writer {k}".encode(), replace=False)
    queue.put(k)


def test_processes_racing_to_fill_one_place_leave_one_whole_entry(tmp_path):
    ctx = multiprocessing.get_context("spawn" if os.name == "nt" else "fork")
    queue, barrier = ctx.Queue(), ctx.Barrier(4)
    procs = [ctx.Process(target=_racing_writer, args=(str(tmp_path), k, barrier, queue)) for k in range(4)]
    for p in procs:
        p.start()
    assert sorted(queue.get(timeout=60) for _ in procs) == [0, 1, 2, 3]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    cache = DiskCache(tmp_path)
    for i in range(50):
        assert cache.get(f"key-{i}") in {f"writer {k}".encode() for k in range(4)}
    assert cache.info()["entries"] == 50
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".tmp-")]


def test_entry_under_a_name_the_caller_gives(tmp_path):
    """A caller whose key is made of digests names the file itself (no third hash): the
    entry is found under that name only, checked against its key as any other, and the
    size bound and ``info`` count it."""
    cache = DiskCache(tmp_path)
    name = "ab" * 20
    cache.put("digest-made key", b"payload", name=name)
    assert os.listdir(tmp_path) == [name + ".rk"]
    assert cache.get("digest-made key", name) == b"payload"
    assert cache.get("digest-made key") is None  # (its default name is another file)
    assert cache.get("another key", name) is None  # an intact entry of another key: kept
    assert cache.info()["entries"] == 1
    with pytest.raises(ValueError, match="40 hex digits"):
        cache.put("k", b"x", name="short")
