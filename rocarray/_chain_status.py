"""The single-pass GPU scan's counter and status words, kept on each stream from one scan to the next.

(The GPU compactions' count entries use them too: each tile's count goes into its status
word with the call's tag, and they take no tickets, ``compiler/compact_gpu.py``.)

A single-pass scan (``compiler/reduction_chain.py``) takes its tiles from a counter and
finds its predecessors' records in a status word per tile, so it must not meet a state an
earlier scan left.  Rather than zero them with a launch of its own before every scan (a
launch, and the host's time between it and the scan's, on every call), each stream keeps
one buffer: the counter word, then the status words.

* The counter only grows: a scan of ``tiles`` tiles on ``grid`` blocks moves it by exactly
  ``tiles + grid`` (each block takes one ticket past the last tile), so the host knows
  the value each scan starts from and passes it (``base``).
* Each scan on the stream gets the next tag, which its status words carry beside their
  state; words with any other tag read as "nothing yet".

The work on one stream runs in the order it is queued, so a scan sees its predecessors'
words finished and its successors' not begun.  The buffer is zeroed when it is made or
grown, when the tags run out, and after a launch that raised (which may have moved the
counter by a part of its tickets).  A lock keeps the tags, the counter's value and the
launch in one order when several threads queue scans on one stream.
"""

from __future__ import annotations

import threading
import weakref

from ._buffer import allocate

#: Tags are multiples of 4 below 2^32 (the status word's upper half: the tag, then a
#: 2-bit state); the first tag of a zeroed buffer is 4, so no tag is 0 (a zeroed word).
TAGS = 1 << 30
#: Bytes before the status words: the counter, alone on its 256 bytes.
COUNTER_BYTES = 256


class ChainStatus:
    """One stream's buffer: the counter, then ``words`` status words; the counter's value
    and the last tag handed out."""

    __slots__ = ("buffer", "words", "base", "tag", "lock", "__weakref__")

    def __init__(self):
        self.buffer = None
        self.words = 0
        self.base = 0
        #: the last tag's number (``TAGS``: the buffer must be zeroed before the next scan)
        self.tag = TAGS
        self.lock = threading.Lock()

    def scan(self, device, words: int, tickets: int, zero, launch) -> None:
        """Queue a scan that needs ``words`` status words and takes ``tickets`` tickets:
        ``zero(address, n)`` queues the zeroing of ``n`` 64-bit words from ``address`` (when
        the buffer needs it), ``launch(counter, status, base, tag)`` the scan."""
        with self.lock:
            if self.words < words or self.tag >= TAGS - 1:
                self.tag = TAGS  # (until the zeroing is queued: an error here leaves it to the next scan)
                if self.words < words:
                    # the old buffer freed first (in the stream's order); a power of two, so
                    # that a stream's longer lines do not regrow it each time
                    self.buffer, self.words = None, 0
                    size = 1 << (words - 1).bit_length()
                    self.buffer = allocate(device, COUNTER_BYTES + 8 * size)
                    self.words = size
                zero(self.buffer.ptr, COUNTER_BYTES // 8 + self.words)
                self.base = self.tag = 0
            self.tag += 1
            counter = self.buffer.ptr
            try:
                launch(counter, counter + COUNTER_BYTES, self.base, self.tag << 2)
            except BaseException:
                self.tag = TAGS
                raise
            self.base += tickets


_streams: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def chain_status(device) -> ChainStatus:
    """The status buffer of ``device``'s current stream (made at its first scan; freed with
    the stream)."""
    stream = device.runtime.current_stream(device.index)
    found = _streams.get(stream)
    if found is None:
        with _lock:
            found = _streams.get(stream)
            if found is None:
                found = _streams[stream] = ChainStatus()
    return found
