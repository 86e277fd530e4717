"""Words a kernel writes in page-locked host memory mapped into the device: the host reads
one straight from memory (no copy back), once the kernel's stream has finished or, for a
word the host waits on (``GPURuntime.await_word``), as soon as it lands.

A gather sets its word when an index is out of range (a 32-bit store into the word's low
half); a compaction's scan writes the number of elements it selected, which sizes its
result; an integer array's extremes are two words, and a third written after them says
they are there.  Reading a value after a copy to the host costs a driver call and a DMA
besides the wait; a word the kernel writes over the bus costs the wait alone.
"""

from __future__ import annotations

import ctypes
import threading

#: Bytes of each page of words (one allocation holds ``PAGE // WORD`` words).
PAGE = 4096
#: Bytes of a word: 64-bit, so a kernel can write a count of any size
WORD = 8


class MappedWords:
    """64-bit words in page-locked host memory of one device, lent one per launch.

    ``acquire`` lends a word, zeroed, as ``(words, k, device_address)``: the kernel writes
    at ``device_address``, the host reads ``words[k]`` after synchronising the stream it
    launched on; ``release`` takes the word back, whatever the launch came to (a word a
    kernel set is zeroed again at its next ``acquire``).  Two threads never hold the
    same word.  Pages are allocated as words run out and kept for the life of the runtime.
    """

    __slots__ = ("_alloc", "_lock", "_free", "_pages")

    def __init__(self, alloc):
        #: ``alloc(nbytes) -> (host address, device address)``: the hook table's
        #: ``host_alloc_mapped`` with the device made current
        self._alloc = alloc
        self._lock = threading.Lock()
        self._free: list[tuple] = []
        self._pages: list[tuple] = []  # (host address, device address, the words' view)

    def acquire(self) -> tuple:
        """A word no other caller holds, set to zero: ``(words, k, device address)``."""
        with self._lock:
            if not self._free:
                self._add_page()
            word = self._free.pop()
        word[0][word[1]] = 0
        return word

    def acquire_many(self, count: int) -> list:
        """``count`` words, as ``acquire``'s, under one lock."""
        with self._lock:
            while len(self._free) < count:
                self._add_page()
            got = self._free[-count:]
            del self._free[-count:]
        for word in got:
            word[0][word[1]] = 0
        return got

    def release(self, word: tuple) -> None:
        """Give back a word from ``acquire`` (once its kernel has finished, or was never
        launched)."""
        with self._lock:
            self._free.append(word)

    def release_many(self, words) -> None:
        """Give back words from ``acquire_many``, as ``release``'s, under one lock."""
        with self._lock:
            self._free.extend(words)

    def lend(self, wait, index: int, count: int = 1) -> "_Lent":
        """``with words.lend(wait, index) as word:`` -- a word from ``acquire`` (with
        ``count`` > 1, a list of that many), given back when the block ends; when the
        block raises, only after ``wait(index)`` (the runtime's ``synchronize_current``): a
        kernel queued before the failure -- a launch that failed after it, an interrupted
        wait -- may still write the word."""
        return _Lent(self, wait, index, count)

    def _add_page(self) -> None:
        host, device = self._alloc(PAGE)
        count = PAGE // WORD
        words = memoryview((ctypes.c_int64 * count).from_address(host)).cast("B").cast("q")
        self._pages.append((host, device, words))
        # (the first word lent last: a page's words are taken from its start)
        self._free.extend((words, k, device + WORD * k) for k in reversed(range(count)))

    @property
    def lent(self) -> int:
        """Words lent and not yet given back."""
        with self._lock:
            return len(self._pages) * (PAGE // WORD) - len(self._free)


class _Lent:
    """``MappedWords.lend``'s block."""

    __slots__ = ("_words", "_wait", "_index", "_count", "_got")

    def __init__(self, words: MappedWords, wait, index: int, count: int):
        self._words, self._wait, self._index, self._count = words, wait, index, count

    def __enter__(self):
        # (one word, the gathers' and compactions': ``acquire``'s pop, no list)
        words = self._words
        self._got = words.acquire() if self._count == 1 else words.acquire_many(self._count)
        return self._got

    def __exit__(self, kind, value, traceback) -> None:
        try:
            if kind is not None:
                self._wait(self._index)
        finally:
            if self._count == 1:
                self._words.release(self._got)
            else:
                self._words.release_many(self._got)
