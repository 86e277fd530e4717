"""The caching memory pool shared by every runtime (CUDA, HIP and the host).

The pool sits on a runtime's ``mem_alloc`` / ``mem_free`` hooks; a hook that runs out of
memory raises a ``RuntimeError_`` whose ``code`` the hook table's ``is_out_of_memory``
recognises.
"""

from __future__ import annotations

import bisect
import threading

from rocarray.runtime.base import RuntimeError_

#: Smallest allocation unit: every block is a multiple of it (CuPy uses the same).
ALLOCATION_UNIT = 512
#: The largest request the pool passes on: the largest ``ssize_t``.  The hooks take a
#: ``size_t``, which would wrap a larger count (ctypes does so silently) into a small block.
MAX_REQUEST = (1 << 63) - 1


def round_size(nbytes: int) -> int:
    """Size class of a request of ``nbytes`` (> 0): the block size the pool hands out.

    Below 8 KiB sizes round up to a multiple of 512 bytes.  Above, each power-of-two octave
    is split into 8 classes, so a block wastes less than 1/8 of its size while the number
    of classes, and so the chance that a freed block fits a later request, stays small.
    """
    shift = nbytes.bit_length() - 4
    step = 1 << shift if shift > 9 else ALLOCATION_UNIT
    return (nbytes + step - 1) // step * step


_size_classes: dict = {}  # request size -> size class, for the sizes seen most

#: Blocks of at most this many bytes are *small*: freed ones are kept on lists that
#: ``malloc`` and ``free`` use without the pool's lock (below).
SMALL_BLOCK = 1 << 16
#: At most this many freed small blocks are kept per (stream, size class).
SMALL_BLOCKS_PER_CLASS = 64
#: The bytes of one block of every small size class together.
_SMALL_CLASSES_BYTES = sum({round_size(n) for n in range(1, SMALL_BLOCK + 1, 64)})


class _Piece:
    """A part of a large block that ``MemoryPool.shrink`` split: its address and size, the
    stream its block belongs to, its neighbours in the block (None at either end), and
    whether it is free."""

    __slots__ = ("ptr", "size", "stream", "prev", "next", "free")

    def __init__(self, ptr, size, stream, prev, next_, free):
        self.ptr, self.size, self.stream, self.prev, self.next, self.free = ptr, size, stream, prev, next_, free


class MemoryPool:
    """A caching allocator over one device's ``mem_alloc`` / ``mem_free`` hooks.

    Freed blocks go to a free list keyed by (stream, size class) and are handed out again
    to requests of the same size class on the same stream, which keeps reuse safe without
    synchronisation: work on one stream runs in order.  A driver allocation happens only on
    a miss.  When the driver reports out-of-memory, the pool frees every cached block and
    tries once more, then raises :class:`MemoryError`.

    ``activate`` (optional) is called before every driver call, to make the pool's device
    current.  All methods are thread-safe.

    Small blocks (up to ``SMALL_BLOCK`` bytes: the arrays of warm elementwise calls) are
    taken from and given back to their free list without the lock: the books are a dict
    (pointer -> key) and lists whose ``pop``, ``append`` and ``dict.pop`` are each atomic,
    so a block is handed to one owner and a double free is still caught; the byte counts
    are summed when asked for (measured several times faster than with the lock).  At most
    ``SMALL_BLOCKS_PER_CLASS`` small blocks are kept per (stream, size class), fewer when
    ``max_cached_bytes`` is low, so the small ones together never pass it.  Large blocks keep the locked path and its
    exact bound.

    A large block can be cut to the bytes it turned out to need (``shrink``: a result
    written into a block of its largest possible size before its size was known).  Its
    rest becomes a free *piece*, handed out (best fit, split again where much is left) to
    large requests on the block's stream that no free block of their size class meets;
    free neighbouring pieces join, and a block whose pieces are all free is a whole free
    block again.  Pieces count as cached bytes but cannot go back to the driver until their
    block is whole.

    A buffer's finalizer frees its block, and the garbage collector may run finalizers in
    the middle of a pool method (at any allocation), on the thread that holds the lock: such
    a re-entered ``free`` of a large block only notes the pointer, and the method it
    interrupted frees it before returning (a plain lock would deadlock there); a small
    block's free takes no lock and completes at once.
    """

    def __init__(self, api, activate=None, label: str = "device", max_cached_bytes: int | None = None):
        self.api = api
        self.label = label
        #: The most bytes kept in free blocks; a freed block that would pass it goes straight
        #: back to the allocator (None: no bound).
        self.max_cached_bytes = max_cached_bytes
        self._small_limit = (SMALL_BLOCKS_PER_CLASS if max_cached_bytes is None
                             else min(SMALL_BLOCKS_PER_CLASS, max_cached_bytes // _SMALL_CLASSES_BYTES))
        self._activate = activate
        self._lock = threading.RLock()
        self._busy = False  # a method is between its first and last change of the books
        self._deferred: list[int] = []  # frees that re-entered a busy method
        self._free_lists: dict[tuple[int, int], list[int]] = {}  # large blocks (locked)
        self._small: dict[tuple[int, int], list[int]] = {}  # small blocks (no lock)
        self._in_use: dict[int, tuple[int, int]] = {}  # ptr -> (stream, size class)
        self._cached = 0  # bytes in large free blocks
        self._driver_allocations = 0
        self._pieces: dict[int, _Piece] = {}  # ptr -> piece, for the pieces of cut blocks
        self._free_pieces: dict[int, list[tuple[int, int]]] = {}  # stream -> sorted (size, ptr)
        self._piece_bytes = 0  # bytes in free pieces

    def malloc(self, nbytes: int, stream: int = 0) -> int:
        """Return a device pointer to at least ``nbytes`` bytes, for use on ``stream``.

        ``stream`` is the raw stream handle (0 for the null stream).  Zero bytes give the
        null pointer 0, which :meth:`free` accepts.
        """
        size = _size_classes.get(nbytes)
        if size is None:
            if nbytes <= 0:
                if nbytes == 0:
                    return 0
                raise ValueError(f"cannot allocate a negative number of bytes ({nbytes})")
            if nbytes > MAX_REQUEST:
                raise MemoryError(
                    f"{self.label}: cannot allocate {nbytes} bytes: more than the largest "
                    f"possible allocation ({MAX_REQUEST} bytes)"
                )
            size = round_size(nbytes)
            if len(_size_classes) < 4096:
                _size_classes[nbytes] = size
        key = (stream, size)
        if size <= SMALL_BLOCK:
            free_list = self._small.get(key)
            if free_list:
                try:
                    ptr = free_list.pop()
                except IndexError:  # another thread took the last one
                    pass
                else:
                    self._in_use[ptr] = key
                    return ptr
        with self._lock:
            busy, self._busy = self._busy, True
            try:
                free_list = self._free_lists.get(key)
                if free_list:
                    ptr = free_list.pop()
                    self._cached -= size
                elif size > SMALL_BLOCK and self._free_pieces.get(stream):
                    ptr, key = self._take_piece(stream, size)
                    if ptr is None:
                        ptr, key = self._allocate(size, nbytes), (stream, size)
                else:
                    ptr = self._allocate(size, nbytes)
                self._in_use[ptr] = key
            finally:
                self._busy = busy
                if self._deferred and not busy:
                    self._free_deferred()
        return ptr

    def free(self, ptr: int) -> None:
        """Give the block at ``ptr`` back to the pool (it stays allocated on the device)."""
        if ptr == 0:
            return
        key = self._in_use.get(ptr)
        if key is not None and key[1] <= SMALL_BLOCK:
            if self._in_use.pop(ptr, None) is None:  # another thread freed it meanwhile
                self._not_ours(ptr)
            free_list = self._small.get(key)
            if free_list is None:
                free_list = self._small.setdefault(key, [])
            if len(free_list) < self._small_limit:
                free_list.append(ptr)
                return
            self.api.mem_free(ptr)  # over the limit: back to the driver (no books to keep)
            return
        with self._lock:
            if self._busy:  # a finalizer run inside a pool method of this thread
                self._deferred.append(ptr)
                return
            self._busy = True
            try:
                key = self._in_use.pop(ptr, None)
                if key is None:
                    self._not_ours(ptr)
                self._give_back(ptr, key)
            finally:
                self._busy = False
                if self._deferred:
                    self._free_deferred()

    def shrink(self, ptr: int, nbytes: int) -> None:
        """Keep the first ``nbytes`` of the block at ``ptr`` (in use) and free the rest as a
        piece for later large requests on its stream (see the class).  A block of at most
        ``SMALL_BLOCK`` bytes, or whose rest would be, stays whole; so does a block's first
        ``SMALL_BLOCK + ALLOCATION_UNIT`` bytes (a piece in use is never small, so its free
        takes the locked path)."""
        keep = max(-(-nbytes // ALLOCATION_UNIT) * ALLOCATION_UNIT, SMALL_BLOCK + ALLOCATION_UNIT)
        key = self._in_use.get(ptr)  # (only its owner changes a block's entry: read without the lock)
        if key is None:
            self._not_ours(ptr)
        if key[1] - keep <= SMALL_BLOCK:  # (small blocks, short rests: the common short result)
            return
        with self._lock:
            busy, self._busy = self._busy, True
            try:
                stream, size = key
                head = self._pieces.get(ptr)
                if head is None:
                    head = self._pieces[ptr] = _Piece(ptr, size, stream, None, None, False)
                self._split(head, keep)
                self._in_use[ptr] = (stream, keep)
            finally:
                self._busy = busy
                if self._deferred and not busy:
                    self._free_deferred()

    def _not_ours(self, ptr: int):
        raise ValueError(
            f"{self.label}: pointer {ptr:#x} was not allocated by this memory pool or was freed already"
        )

    def free_all_blocks(self) -> None:
        """Return every cached (free) block to the driver; blocks in use stay."""
        with self._lock:
            busy, self._busy = self._busy, True
            try:
                self._release_cached()
            finally:
                self._busy = busy
                if self._deferred and not busy:
                    self._free_deferred()

    def used_bytes(self) -> int:
        """Bytes in blocks handed out and not freed yet."""
        return sum(key[1] for key in self._in_use.copy().values())

    def cached_bytes(self) -> int:
        """Bytes in free blocks the pool keeps for reuse."""
        small = sum(key[1] * len(blocks) for key, blocks in self._small.copy().items())
        return self._cached + self._piece_bytes + small

    def total_bytes(self) -> int:
        """Bytes the pool holds from the driver: in use plus cached."""
        return self.used_bytes() + self.cached_bytes()

    def n_free_blocks(self) -> int:
        """Free blocks and free pieces of cut blocks."""
        return sum(len(blocks) for blocks in [*self._free_lists.copy().values(), *self._small.copy().values(),
                                              *self._free_pieces.copy().values()])

    def driver_allocations(self) -> int:
        """How many times the pool has called the driver's allocator."""
        return self._driver_allocations

    # The helpers below run with self._lock held.

    def _give_back(self, ptr: int, key) -> None:
        """Book the large block or piece ``ptr`` (of ``key``, already out of ``_in_use``) as
        free."""
        piece = self._pieces.get(ptr)
        if piece is not None:
            piece.free = True
            self._settle(piece)
            return
        if self.max_cached_bytes is not None and self._cached + key[1] > self.max_cached_bytes:
            self.api.mem_free(ptr)
            return
        self._free_lists.setdefault(key, []).append(ptr)
        self._cached += key[1]

    def _split(self, piece: _Piece, size: int) -> None:
        """Cut the piece ``piece`` (not free) after its first ``size`` bytes; the rest is a
        free piece."""
        rest = _Piece(piece.ptr + size, piece.size - size, piece.stream, piece, piece.next, True)
        if piece.next is not None:
            piece.next.prev = rest
        piece.next, piece.size = rest, size
        self._pieces[rest.ptr] = rest
        self._settle(rest)

    def _settle(self, piece: _Piece) -> None:
        """Join the newly free ``piece`` with its free neighbours; book the result as a free
        piece, or as a free block where it is its whole block again."""
        for other in (piece.next, piece.prev):
            if other is not None and other.free:
                self._unbook_piece(other)
                first, second = (piece, other) if other is piece.next else (other, piece)
                first.size += second.size
                first.next = second.next
                if second.next is not None:
                    second.next.prev = first
                del self._pieces[second.ptr]
                piece = first
        if piece.prev is None and piece.next is None:
            del self._pieces[piece.ptr]
            self._give_back(piece.ptr, (piece.stream, piece.size))
            return
        bisect.insort(self._free_pieces.setdefault(piece.stream, []), (piece.size, piece.ptr))
        self._piece_bytes += piece.size

    def _unbook_piece(self, piece: _Piece) -> None:
        pieces = self._free_pieces[piece.stream]
        del pieces[bisect.bisect_left(pieces, (piece.size, piece.ptr))]
        self._piece_bytes -= piece.size

    def _take_piece(self, stream: int, size: int) -> tuple:
        """(address, ``_in_use`` key) of the smallest free piece on ``stream`` of at least
        ``size`` bytes, cut to ``size`` where more than ``SMALL_BLOCK`` would be left; (None,
        None) where none is that large."""
        pieces = self._free_pieces[stream]
        at = bisect.bisect_left(pieces, (size, 0))
        if at == len(pieces):
            return None, None
        piece = self._pieces[pieces[at][1]]
        self._unbook_piece(piece)
        piece.free = False
        if piece.size - size > SMALL_BLOCK:
            self._split(piece, size)
        return piece.ptr, (stream, piece.size)

    def _free_deferred(self) -> None:
        """Free the blocks whose frees re-entered a busy method (finalizers: a pointer
        the pool does not know is dropped, as the finalizer would have dropped the error)."""
        self._busy = True
        try:
            while self._deferred:
                ptr = self._deferred.pop()
                key = self._in_use.pop(ptr, None)
                if key is not None:
                    self._give_back(ptr, key)
        finally:
            self._busy = False

    def _allocate(self, size: int, nbytes: int) -> int:
        """A new block from the driver; on out-of-memory the cached blocks go back to the
        driver and the allocation is tried once more before :class:`MemoryError`."""
        api = self.api
        if self._activate is not None:
            self._activate()
        released = None
        while True:
            try:
                ptr = api.mem_alloc(size)
            except RuntimeError_ as e:
                if e.code is None or not api.is_out_of_memory(e.code):
                    raise
                if released is not None:
                    raise MemoryError(self._out_of_memory_message(size, nbytes, released)) from e
            else:
                self._driver_allocations += 1
                return ptr
            released = self.cached_bytes() - self._piece_bytes  # (pieces of blocks in use stay)
            self._release_cached()

    def _release_cached(self) -> None:
        small = [blocks for blocks in self._small.copy().values() if blocks]
        if not self._cached and not small:
            return
        if self._activate is not None:
            self._activate()
        free_lists = self._free_lists
        # Pop before each driver call, so that a failing free leaves the books right.
        while free_lists:
            key, blocks = free_lists.popitem()
            while blocks:
                ptr = blocks.pop()
                self._cached -= key[1]
                try:
                    self.api.mem_free(ptr)
                except BaseException:
                    if blocks:
                        free_lists[key] = blocks
                    raise
        # small lists stay in place: other threads pop and append on them meanwhile
        for blocks in small:
            while True:
                try:
                    ptr = blocks.pop()
                except IndexError:
                    break
                self.api.mem_free(ptr)

    def _out_of_memory_message(self, size: int, nbytes: int, released: int) -> str:
        message = (
            f"{self.label}: out of memory allocating {nbytes} bytes (a {size}-byte block); "
            f"the memory pool holds {self.used_bytes()} bytes in use and released {released} cached "
            "bytes before retrying"
        )
        mem_info = getattr(self.api, "mem_info", None)
        if mem_info is not None:
            try:
                free, total = mem_info()
            except Exception:  # a report on the device is a courtesy, not a need
                pass
            else:
                message += f"; the device has {free} of {total} bytes free"
        return message

    def __repr__(self) -> str:
        return (
            f"<MemoryPool {self.label}: {self.used_bytes()} bytes in use, {self.cached_bytes()} cached, "
            f"{self._driver_allocations} driver allocations>"
        )

