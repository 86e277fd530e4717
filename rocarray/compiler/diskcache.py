"""The on-disk store of compiled kernels: one checksummed file per entry, bounded in size.

Many processes and threads may share one directory at once.  No locks are taken: every
entry is written to a temporary file in the cache directory and renamed into place
(``os.replace`` is atomic on POSIX and on Windows), so a reader sees either the old
file, the new one, or none.  A file that is torn, truncated, bit-flipped or written by
another format version fails its header or checksum test and is treated as a miss.

Layout: ``<directory>/<40 hex digits>.rk``, the digits being a BLAKE2b-160 hash of the
key (or a name the caller derives from the digests its key is made of).  Each file is

    offset  size  field
    0       8     magic  b"ROCARRAY"
    8       4     format version (little-endian u32, ``FORMAT_VERSION``)
    12      4     key length K in bytes (u32)
    16      8     payload length P in bytes (u64)
    24      4     CRC-32 of key + payload (``zlib.crc32``)
    28      4     zero
    32      K     the full key, UTF-8 (a hash collision on the file name is a miss)
    32+K    P     the payload

The checksum guards against torn, truncated and bit-flipped files, not against an
adversary (whoever can write the directory can write any entry, and the key is compared
in full).  CRC-32 rather than a cryptographic hash: a disk hit checks every byte it
reads, and a cryptographic hash in Python took a visible part of a disk hit's first call.

Size bound: least recently used entries are removed once the directory holds more than
``max_bytes``.  A hit sets the entry's mtime to now (unless it was set in the last
minute), so mtime orders entries by last use.  Each process keeps a running estimate of the directory size (one scan at its first
write, plus what it writes); only when the estimate passes the bound does it scan again
and remove the oldest entries until the directory is under 90 % of the bound.  Files
that vanish under a scan (another process evicted them first) are skipped.

Only regular files are entries.  Anything else in an entry's place -- a FIFO, a socket, a
device node, a directory, a symbolic link (to anything) -- is never followed and never
read: an entry is opened with ``O_NONBLOCK | O_NOFOLLOW | O_NOCTTY`` (a FIFO opened for
reading would wait for a writer forever; a terminal would become the process's
controlling terminal) and checked with ``fstat`` before a byte is read.  A read finds
it a miss and removes it (a directory stays: ``put`` then skips that entry), scans and
``info`` do not count it, eviction passes it by, ``clear`` removes it.
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
import tempfile
import threading
import time
import warnings
import zlib

from .. import _settings

#: Bump when the entry layout changes; older files then read as misses.
FORMAT_VERSION = 2
MAGIC = b"ROCARRAY"
_HEADER = struct.Struct("<8sIIQI4x")
SUFFIX = ".rk"
_TMP_PREFIX = ".tmp-"
#: Temporary files older than this are leftovers of a writer that died; scans remove them.
_STALE_TMP_SECONDS = 3600.0
DEFAULT_MAX_BYTES = _settings.CACHE_MAX_BYTES.default
#: A file larger than this is no entry (compiled kernels are kilobytes): a read takes it
#: for a corrupt one without reading it.
LARGEST_ENTRY = 1 << 30
#: A hit re-stamps an entry's mtime (its last use) only when the stamp is older than this:
#: LRU order to the minute, without a write to the file system on every hit.
_TOUCH_SECONDS = 60.0
#: how an entry is opened: never waiting (a FIFO), never through a symbolic link, never
#: as a controlling terminal (a tty); ``fstat`` then rejects anything but a regular file
_O_READ = (os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
           | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
_UTIME_FD = os.utime in os.supports_fd


def default_cache_dir() -> str:
    """``$ROCARRAY_CACHE_DIR``, else ``$XDG_CACHE_HOME/rocarray``, else ``~/.cache/rocarray``."""
    explicit = _settings.CACHE_DIR.get()
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = xdg if xdg and os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "rocarray")


def default_max_bytes() -> int:
    """``$ROCARRAY_CACHE_MAX_BYTES`` (a number of bytes), else 1 GiB."""
    return _settings.CACHE_MAX_BYTES.get()


def _file_name(key: str) -> str:
    return hashlib.blake2b(key.encode("utf-8"), digest_size=20).hexdigest() + SUFFIX


def _remove_quietly(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def _passes(check, payload: bytes) -> bool:
    """Whether ``check(payload)`` accepts it (returns; ``ValueError`` rejects it)."""
    try:
        check(payload)
    except ValueError:
        return False
    return True


def _checksum(key_bytes: bytes, payload: bytes) -> int:
    return zlib.crc32(payload, zlib.crc32(key_bytes))


def encode_entry(key: str, payload: bytes) -> bytes:
    """The bytes of one cache file holding ``payload`` under ``key``."""
    key_bytes = key.encode("utf-8")
    header = _HEADER.pack(MAGIC, FORMAT_VERSION, len(key_bytes), len(payload),
                          _checksum(key_bytes, payload))
    return b"".join((header, key_bytes, payload))


def decode_entry(blob: bytes, key: str) -> bytes | None:
    """The payload stored in ``blob`` if it is an intact entry for ``key``, else None."""
    if len(blob) < _HEADER.size:
        return None
    magic, version, key_len, payload_len, digest = _HEADER.unpack_from(blob)
    if magic != MAGIC or version != FORMAT_VERSION:
        return None
    start = _HEADER.size
    if len(blob) != start + key_len + payload_len:
        return None
    key_bytes = key.encode("utf-8")
    # the key compared in place; the payload copied out once and checksummed after the
    # key (which the checksum covers first, ``_checksum``)
    if key_len != len(key_bytes) or not blob.startswith(key_bytes, start):
        return None
    payload = blob[start + key_len:]
    if zlib.crc32(payload, zlib.crc32(key_bytes)) != digest:
        return None
    return payload


class DiskCache:
    """A directory of checksummed ``key -> bytes`` entries, shared between processes.

    Nothing is touched on disk until the first ``get`` or ``put``.  An unusable
    directory never raises: the first failure to create it or to write into it gives one
    ``warnings.warn`` and turns writing off for the life of this object (reads of an
    existing, read-only directory keep working).
    """

    def __init__(self, directory: str | os.PathLike | None = None, max_bytes: int | None = None):
        self.directory = os.fspath(directory) if directory is not None else default_cache_dir()
        self.max_bytes = default_max_bytes() if max_bytes is None else int(max_bytes)
        self._writable: bool | None = None  # None: not yet tried
        self._lock = threading.Lock()
        self._estimate: int | None = None  # bytes believed to be in the directory
        self._dir_prefix = os.path.join(self.directory, "")

    # -- reading --------------------------------------------------------------------

    def get(self, key: str, name: str | None = None, check=None) -> bytes | None:
        """The payload stored under ``key``, or None (missing, corrupt, another key, or
        not a regular file).

        ``name``: the entry's file name without the suffix (40 hex digits) where the caller
        has one -- a key made of digests gives it without hashing again --, else
        ``_file_name(key)``; one key must always come with one name.  ``check``: called
        with the payload, it raises ``ValueError`` when the payload is not what the caller
        stores (a structure check: see ``rocarray.targets.base.Target.check_binary``);
        such an entry is a corrupt one: removed, and a miss."""
        path = self._path(key, name)
        try:
            fd = os.open(path, _O_READ)
        except FileNotFoundError:
            return None
        except OSError:  # a symbolic link (ELOOP), a socket (ENXIO), no permission ...
            self._remove_foreign(path)
            return None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):  # a FIFO, socket, device or directory
                payload = blob = None
            elif st.st_size > LARGEST_ENTRY:  # not read into memory: no entry is near it
                payload, blob = None, b""
            else:
                size = st.st_size
                blob = os.read(fd, size)
                while len(blob) < size:  # a short read (rare): go on to the end
                    chunk = os.read(fd, size - len(blob))
                    if not chunk:
                        break
                    blob += chunk
                payload = decode_entry(blob, key)
                if payload is not None and check is not None and not _passes(check, payload):
                    payload = None
                if (payload is not None and self._writable is not False
                        and time.time() - st.st_mtime > _TOUCH_SECONDS):
                    try:  # mark as recently used, for LRU eviction
                        os.utime(fd if _UTIME_FD else path)
                    except OSError:
                        pass
        except OSError:  # an I/O error is not evidence of a bad entry: leave it be
            return None
        finally:
            os.close(fd)
        if blob is None:
            self._remove_foreign(path)
        elif payload is None:
            self._discard_bad(path, blob, key)
        return payload

    @staticmethod
    def _remove_foreign(path: str) -> None:
        # Not a file rocarray wrote: removed so that a later ``put`` can take the place
        # (``replace=False`` would never); a directory stays (``os.remove`` refuses it).
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                os.remove(path)
        except OSError:
            pass

    def _discard_bad(self, path: str, blob: bytes, key: str) -> None:
        # An intact entry for a different key (a file-name hash collision) is left for its
        # owner; a torn or corrupt one is removed.  Either way the caller's put replaces it.
        if len(blob) >= _HEADER.size:
            magic, version, key_len, payload_len, _ = _HEADER.unpack_from(blob)
            if (magic == MAGIC and version == FORMAT_VERSION
                    and len(blob) == _HEADER.size + key_len + payload_len):
                other = blob[_HEADER.size:_HEADER.size + key_len]
                if other != key.encode("utf-8"):
                    return
        try:
            os.remove(path)
        except OSError:
            pass

    # -- writing --------------------------------------------------------------------

    def _path(self, key: str, name: str | None) -> str:
        return self._dir_prefix + (_file_name(key) if name is None else name + SUFFIX)

    def put(self, key: str, data: bytes, replace: bool = True, name: str | None = None) -> None:
        """Store ``data`` under ``key``, atomically replacing any older entry -- or, with
        ``replace=False``, only where no file holds the entry's place yet (a hard link of
        the written file, which fails when one does: another writer's entry is never
        replaced, even one written a moment ago).  ``name`` as for ``get``."""
        if name is not None and len(name) != 40:
            raise ValueError(f"disk cache entry name {name!r}: expected 40 hex digits")
        if not self._ensure_directory():
            return
        blob = encode_entry(key, bytes(data))
        path = self._path(key, name)
        try:
            fd, tmp = tempfile.mkstemp(prefix=_TMP_PREFIX, dir=self.directory)
        except OSError as exc:
            self._disable(exc)
            return
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(blob)
            if replace or not self._link(tmp, path):
                os.replace(tmp, path)
        except FileExistsError:  # (replace=False) the place is taken: nothing written
            _remove_quietly(tmp)
            return
        except IsADirectoryError:  # a directory holds the entry's place: not this entry
            _remove_quietly(tmp)
            return
        except OSError as exc:
            _remove_quietly(tmp)
            self._disable(exc)
            return
        self._account(len(blob))

    @staticmethod
    def _link(tmp: str, path: str) -> bool:
        """Hard-link ``tmp`` as ``path`` and drop ``tmp``: True when done; False where the
        file system makes no hard links and ``path`` is free (the caller renames ``tmp``
        then: a writer racing it may be replaced after all, which costs a recompile).
        FileExistsError when ``path`` is taken."""
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise
        except (OSError, AttributeError, NotImplementedError):
            if os.path.lexists(path):
                raise FileExistsError(path) from None
            return False
        _remove_quietly(tmp)
        return True

    def _ensure_directory(self) -> bool:
        if self._writable is None:
            try:
                os.makedirs(self.directory, exist_ok=True)
                self._writable = True
            except OSError as exc:
                self._disable(exc)
        return bool(self._writable)

    def _disable(self, exc: BaseException) -> None:
        with self._lock:
            if self._writable is False:
                return
            self._writable = False
        warnings.warn(
            f"rocarray: kernel disk cache at {self.directory!r} is not writable ({exc}); "
            "compiled kernels will not be saved. Set ROCARRAY_CACHE_DIR to a writable folder.",
            RuntimeWarning,
            stacklevel=3,
        )

    @property
    def writable(self) -> bool:
        return self._ensure_directory()

    # -- size bound -----------------------------------------------------------------

    def _account(self, nbytes: int) -> None:
        with self._lock:
            if self._estimate is None:
                self._estimate = self._scan_total()
            else:
                self._estimate += nbytes
            over = self._estimate > self.max_bytes
        if over:
            self.evict()

    def _scan(self) -> list[tuple[float, int, str]]:
        """(mtime, size, path) of every entry; removes stale temporary files on the way."""
        found = []
        now = time.time()
        try:
            it = os.scandir(self.directory)
        except OSError:
            return found
        with it:
            for entry in it:
                name = entry.name
                try:
                    if name.endswith(SUFFIX) and len(name) == 40 + len(SUFFIX):
                        if not entry.is_file(follow_symlinks=False):
                            continue  # not an entry (see the module docstring)
                        st = entry.stat(follow_symlinks=False)
                        found.append((st.st_mtime, st.st_size, entry.path))
                    elif name.startswith(_TMP_PREFIX):
                        st = entry.stat(follow_symlinks=False)
                        if now - st.st_mtime > _STALE_TMP_SECONDS:
                            os.remove(entry.path)
                except OSError:  # vanished under us: another process evicted or replaced it
                    continue
        return found

    def _scan_total(self) -> int:
        return sum(size for _, size, _ in self._scan())

    def evict(self, target_bytes: int | None = None) -> int:
        """Remove least recently used entries until at most ``target_bytes`` remain
        (default 90 % of ``max_bytes``).  Returns the number of bytes removed."""
        if target_bytes is None:
            target_bytes = int(self.max_bytes * 0.9)
        entries = self._scan()
        total = sum(size for _, size, _ in entries)
        removed = 0
        if total > target_bytes:
            entries.sort()
            for _, size, path in entries:
                if total - removed <= target_bytes:
                    break
                try:
                    os.remove(path)
                except FileNotFoundError:  # someone else removed it: it is gone all the same
                    pass
                except OSError:
                    continue
                removed += size
        with self._lock:
            self._estimate = total - removed
        return removed

    # -- maintenance ----------------------------------------------------------------

    def info(self) -> dict:
        """``entries``, ``bytes`` and ``directory`` (plus ``max_bytes``, ``writable``)."""
        entries = self._scan()
        return {
            "entries": len(entries),
            "bytes": sum(size for _, size, _ in entries),
            "directory": self.directory,
            "max_bytes": self.max_bytes,
            "writable": self._writable is not False,
        }

    def clear(self) -> None:
        """Remove every entry (and temporary file) from the directory."""
        try:
            it = os.scandir(self.directory)
        except OSError:
            return
        with it:
            for entry in it:
                name = entry.name
                if name.endswith(SUFFIX) or name.startswith(_TMP_PREFIX):
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            continue  # not rocarray's to remove
                        os.remove(entry.path)  # (a FIFO or socket too: unlinking opens nothing)
                    except OSError:
                        pass
        with self._lock:
            self._estimate = 0

    def __repr__(self) -> str:
        return f"<DiskCache {self.directory!r} max_bytes={self.max_bytes}>"
