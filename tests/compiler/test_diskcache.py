"""The disk cache: round trips, damaged entries are misses, LRU size bound, many writers."""

from __future__ import annotations

import multiprocessing
import os
import shutil
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


# -- what is not a regular file is not an entry ---------------------------------------------
#
# A FIFO in an entry's place made the next process wait in ``os.open`` forever: these run
# in a child process under a timeout (``_isolated``), where a hang fails the test.

_FOREIGN = ("fifo", "socket", "directory", "device", "symlink-to-fifo", "symlink-to-device",
            "symlink-to-file", "dangling-symlink")

#: makes a thing of each kind at ``path`` (``other``: a folder for what a link points at)
_MAKE_FOREIGN = r'''
import os, socket, stat
def make_foreign(kind, path, other):
    os.makedirs(other, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        s, here = socket.socket(socket.AF_UNIX), os.getcwd()
        os.chdir(os.path.dirname(path))  # (a socket's path may hold 107 bytes at most)
        try:
            s.bind(os.path.basename(path))
        finally:
            os.chdir(here)
            s.close()
    elif kind == "directory":
        os.mkdir(path)
        open(os.path.join(path, "inside"), "w").close()
    elif kind == "device":
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))  # what /dev/null is
    elif kind == "symlink-to-fifo":
        os.mkfifo(os.path.join(other, "fifo"))
        os.symlink(os.path.join(other, "fifo"), path)
    elif kind == "symlink-to-device":
        os.symlink("/dev/zero", path)
    elif kind == "symlink-to-file":
        with open(os.path.join(other, "file"), "wb") as f:
            f.write(b"ROCARRAY" + bytes(100))
        os.symlink(os.path.join(other, "file"), path)
    elif kind == "dangling-symlink":
        os.symlink(os.path.join(other, "nothing"), path)
'''

_FOREIGN_UNIT = _MAKE_FOREIGN + r'''
import json, sys
from rocarray.compiler import diskcache
from rocarray.compiler.diskcache import DiskCache
root = sys.argv[1]
results = {}
for kind in sys.argv[2:]:
    if kind == "device" and os.geteuid() != 0:
        results[kind] = "skipped"
        continue
    folder = os.path.join(root, kind)
    cache = DiskCache(folder)
    cache.put("kept", b"a regular entry")
    path = os.path.join(folder, diskcache._file_name("k"))
    make_foreign(kind, path, os.path.join(root, kind + "-elsewhere"))
    r = {"get": cache.get("k"), "info": cache.info()["entries"]}
    r["after_get"] = ("directory" if os.path.isdir(path) and not os.path.islink(path)
                      else "gone" if not os.path.lexists(path) else "left")
    cache.put("k", b"quick", replace=False)  # a quick tier's write: only into a free place
    r["quick"] = cache.get("k")
    cache.put("k", b"full")
    r["full"] = cache.get("k")
    r["kept"] = cache.get("kept")
    r["writable"] = cache.writable
    r["evicted"] = cache.evict(0) > 0
    make_foreign(kind, os.path.join(folder, "f" * 40 + diskcache.SUFFIX), os.path.join(root, kind + "-2"))
    r["info_after"] = cache.info()["entries"]
    cache.clear()
    r["clear_left"] = sorted(os.listdir(folder))
    results[kind] = {k: v.decode() if isinstance(v, bytes) else v for k, v in r.items()}
print(json.dumps(results))
'''


def test_what_is_not_a_regular_file_is_a_miss_and_never_read(tmp_path):
    from _isolated import run_json

    got = run_json(_FOREIGN_UNIT.replace("sys.argv[1]", repr(str(tmp_path)))
                   .replace("sys.argv[2:]", repr(list(_FOREIGN))))
    for kind in _FOREIGN:
        r = got[kind]
        if r == "skipped":
            continue
        assert r["get"] is None, kind
        assert r["info"] == 1, kind  # the regular entry alone
        # removed so that the place can be filled again; a directory stays
        assert r["after_get"] == ("directory" if kind == "directory" else "gone"), kind
        assert r["quick"] == (None if kind == "directory" else "quick"), kind
        assert r["full"] == (None if kind == "directory" else "full"), kind
        assert r["kept"] == "a regular entry" and r["writable"] and r["evicted"], kind
        assert r["info_after"] == 0, kind  # the thing in an entry's place is not counted
        assert r["clear_left"] == ([diskcache._file_name("k"), "f" * 40 + diskcache.SUFFIX]
                                   if kind == "directory" else []), kind


_FOREIGN_END_TO_END = _MAKE_FOREIGN + r'''
import json, sys
root, kinds = sys.argv[1], sys.argv[2:]
names = sorted(n for n in os.listdir(root) if n.endswith(".rk"))
for k, name in enumerate(names):  # every entry of the earlier run, one kind after another
    os.remove(os.path.join(root, name))
    kind = kinds[k % len(kinds)]
    if kind == "device" and os.geteuid() != 0:
        kind = "fifo"
    make_foreign(kind, os.path.join(root, name), os.path.join(root + "-elsewhere", str(k)))
import numpy as np
import rocarray as ra
from rocarray import cache
a = np.arange(1, 40, dtype=np.float32) / 7
b = np.linspace(-3, 3, 39).astype(np.float32)
x, y = ra.asarray(a), ra.asarray(b)
out = {"replaced": len(names),
       "add": bool(np.allclose((x + y).get(), a + b)),
       "exp_sum": bool(np.isclose(float(ra.sum(ra.exp(x))), np.exp(a).sum(dtype=np.float32), rtol=1e-5)),
       "entries": cache.info()["disk_entries"]}
cache.clear()
out["left"] = sorted(n for n in os.listdir(root) if not os.path.isdir(os.path.join(root, n)))
print(json.dumps(out))
'''

_SOME_OPS = r'''
import numpy as np, rocarray as ra
a = np.arange(1, 40, dtype=np.float32) / 7
x, y = ra.asarray(a), ra.asarray(np.linspace(-3, 3, 39).astype(np.float32))
print(float((x + y).get().sum()), float(ra.sum(ra.exp(x))))
'''


@pytest.mark.parametrize("kinds", [("fifo",), _FOREIGN], ids=["fifo", "every-kind"])
def test_a_process_meeting_foreign_files_in_the_cache_computes_and_lists_them(tmp_path, kinds):
    from _isolated import run_json, run_python

    # (no interpreter: its child process, building it, would write the cache after these
    # processes have ended)
    env = {"ROCARRAY_CACHE_DIR": str(tmp_path), "ROCARRAY_INTERPRETER": "0"}
    first = run_python(_SOME_OPS, env)
    assert first.returncode == 0, first.stderr
    assert any(n.endswith(".rk") for n in os.listdir(tmp_path))
    got = run_json(_FOREIGN_END_TO_END.replace("sys.argv[1]", repr(str(tmp_path)))
                   .replace("sys.argv[2:]", repr(list(kinds))), env)
    assert got["replaced"] > 0 and got["add"] and got["exp_sum"], got
    assert got["left"] == [], got  # clear() took the foreign things too (not directories)
    # ``python -m rocarray cache`` neither hangs nor counts them
    names = sorted(n for n in os.listdir(tmp_path) if n.endswith(".rk"))
    for name in names:  # (directories are left by clear(): see above)
        shutil.rmtree(tmp_path / name) if (tmp_path / name).is_dir() else os.remove(tmp_path / name)
    os.mkfifo(tmp_path / ("0" * 40 + ".rk"))
    listed = run_python("import sys, rocarray.__main__ as m; sys.exit(m.main(['cache']))", env)
    assert listed.returncode == 0, listed.stderr
    assert "disk_entries: 0" in listed.stdout
    cleared = run_python("import sys, rocarray.__main__ as m; sys.exit(m.main(['cache', '--clear']))", env)
    assert cleared.returncode == 0 and "cache cleared" in cleared.stdout, cleared.stderr
    assert not os.path.lexists(tmp_path / ("0" * 40 + ".rk"))
