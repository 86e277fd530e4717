"""Philox4x32-10, the counter-based bit generator of rocarray.random: a key, a 128-bit
block counter, and the raw stream as a kernel on any device."""

from __future__ import annotations

import operator
import threading

import numpy as np

from .._creation_functions import empty
from .._device import as_device, default_device
from . import _kernels

_MASK32 = 0xFFFFFFFF
_MASK64 = (1 << 64) - 1
_MASK128 = (1 << 128) - 1


def _words(value, count: int, what: str) -> tuple:
    """``value`` (an int below 2^(32 count), or ``count`` uint32 words, least significant
    first) as ``count`` words."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        v = int(value)
        if not 0 <= v < 1 << (32 * count):
            raise ValueError(f"Philox: {what} must be an integer in [0, 2**{32 * count}), got {v}")
        return tuple((v >> (32 * j)) & _MASK32 for j in range(count))
    try:
        seq = [operator.index(w) for w in value]
    except TypeError:
        raise TypeError(f"Philox: {what} must be an integer or a sequence of {count} integers, "
                        f"got {type(value).__name__}") from None
    if len(seq) != count or any(not 0 <= w <= _MASK32 for w in seq):
        raise ValueError(f"Philox: {what} must be {count} integers in [0, 2**32), got {seq}")
    return tuple(seq)


class Philox:
    """Philox4x32-10 (Salmon, Moraes, Dror, Shaw, SC'11; the Random123 library).

    ``Philox(seed=None, *, key=None, counter=None)``: the key is two 32-bit words, the
    counter four (a 128-bit little-endian integer).  ``seed`` (an int, a sequence of ints,
    a ``numpy.random.SeedSequence`` or None for fresh entropy) makes the key through
    ``numpy.random.SeedSequence``; ``key=`` gives it directly (then ``seed`` must be None).
    ``counter`` (default 0) is the next block to be used.

    Every call of a ``Generator`` uses whole blocks from the counter on and moves it past
    them, so two generators with the same key and counter give the same numbers on every
    device.  Differences from NumPy's ``Philox`` (Philox4x64-10): 32-bit words, and a
    block is never split between calls.

    Examples:
        >>> bg = Philox(key=(0xA4093822, 0x299F31D0), counter=(0x243F6A88, 0x85A308D3,
        ...                                                    0x13198A2E, 0x03707344))
        >>> [hex(w) for w in bg.random_raw(4).get()]
        ['0xd16cfe09', '0x94fdcceb', '0x5001e420', '0x24126ea1']
    """

    def __init__(self, seed=None, *, key=None, counter=None):
        if key is not None:
            if seed is not None:
                raise ValueError("Philox: pass seed or key, not both")
            self._key = _words(key, 2, "key")
            self.seed_seq = None
        else:
            ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
            self.seed_seq = ss
            self._key = tuple(int(w) for w in ss.generate_state(2, np.uint32))
        c = _words(0 if counter is None else counter, 4, "counter")
        self._counter = sum(w << (32 * j) for j, w in enumerate(c))
        # calls from several threads each take their own blocks
        self._lock = threading.Lock()

    def __getstate__(self) -> dict:
        return {"key": self._key, "counter": self._counter, "seed_seq": self.seed_seq}

    def __setstate__(self, state: dict) -> None:
        self._key, self._counter, self.seed_seq = state["key"], state["counter"], state["seed_seq"]
        self._lock = threading.Lock()

    @property
    def key(self) -> tuple:
        """The key, two uint32 words.

        Examples:
            >>> Philox(key=(1, 2)).key
            (1, 2)
        """
        return self._key

    @property
    def counter(self) -> tuple:
        """The next block's counter, four uint32 words, least significant first.

        Examples:
            >>> Philox(key=(1, 2), counter=2**32 + 5).counter
            (5, 1, 0, 0)
        """
        return tuple((self._counter >> (32 * j)) & _MASK32 for j in range(4))

    @property
    def state(self) -> dict:
        """``{'bit_generator': 'Philox4x32', 'state': {'key': ..., 'counter': ...}}``;
        assigning such a dict restores it (NumPy's ``state`` property; a ``ValueError`` for
        another generator's state).

        Examples:
            >>> bg = Philox(7); saved = bg.state; _ = bg.advance(10); bg.state = saved
            >>> bg.counter
            (0, 0, 0, 0)
        """
        return {"bit_generator": "Philox4x32", "state": {"key": self.key, "counter": self.counter}}

    @state.setter
    def state(self, value) -> None:
        if not isinstance(value, dict) or value.get("bit_generator") != "Philox4x32":
            raise ValueError("Philox.state must be a dict from Philox.state "
                             "({'bit_generator': 'Philox4x32', 'state': {...}})")
        st = value["state"]
        self._key = _words(st["key"], 2, "key")
        self._counter = sum(w << (32 * j) for j, w in enumerate(_words(st["counter"], 4, "counter")))

    def take_blocks(self, n: int) -> tuple:
        """The kernels' stream arguments ``(k1 << 32 | k0, counter's low 64 bits, its high
        64 bits)``; the counter moves past ``n`` blocks (what each ``Generator`` call does).

        Examples:
            >>> bg = Philox(key=(1, 2)); bg.take_blocks(4), bg.counter
            ((8589934593, 0, 0), (4, 0, 0, 0))
        """
        with self._lock:
            c = self._counter
            self._counter = (c + n) & _MASK128
        return ((self._key[1] << 32) | self._key[0], c & _MASK64, c >> 64)

    def advance(self, delta) -> "Philox":
        """Move the counter ``delta`` blocks ahead (mod 2^128; negative goes back); returns
        ``self``, as NumPy's ``Philox.advance``.  One block is four 32-bit words.

        Examples:
            >>> Philox(key=(1, 2)).advance(3).counter
            (3, 0, 0, 0)
        """
        delta = operator.index(delta)
        with self._lock:
            self._counter = (self._counter + delta) & _MASK128
        return self

    def jumped(self, jumps=1) -> "Philox":
        """A new ``Philox`` with the same key, its counter ``jumps * 2**64`` blocks ahead:
        a stream that this one reaches only after 2^64 blocks (NumPy's ``jumped``; the jump
        there is 2^128 draws of its 4x64 generator).

        Examples:
            >>> Philox(key=(1, 2)).jumped(2).counter
            (0, 0, 2, 0)
        """
        jumps = operator.index(jumps)
        if jumps < 0:
            raise ValueError("jumps must be non-negative")
        new = Philox(key=self._key, counter=(self._counter + (jumps << 64)) & _MASK128)
        new.seed_seq = self.seed_seq
        return new

    def spawn(self, n_children) -> list:
        """``n_children`` independent ``Philox`` generators with keys from the seed
        sequence's children (``numpy.random.SeedSequence.spawn``).  A generator made from
        ``key=`` gets a seed sequence made from its key and counter the first time.

        Examples:
            >>> len({bg.key for bg in Philox(5).spawn(3)})
            3
        """
        if self.seed_seq is None:
            self.seed_seq = np.random.SeedSequence(list(self._key) + list(self.counter))
        return [Philox(ss) for ss in self.seed_seq.spawn(operator.index(n_children))]

    def random_raw(self, size=None, *, device=None):
        """The next ``size`` uint32 words of the stream (one word for None): blocks
        ``counter, counter + 1, ...``, four words each, in order, as an array on ``device``
        (default: the default device).  The counter moves past the blocks used (a last
        partial block's unused words are dropped).

        Examples:
            >>> Philox(key=(0, 0)).random_raw(2, device="cpu").get().tolist()
            [1713891541, 3781805453]
        """
        n = 1 if size is None else operator.index(size)
        if n < 0:
            raise ValueError("random_raw: size must be non-negative")
        dev = default_device() if device is None else as_device(device)
        m = -(-n // 4)
        buf = empty((m, 4), dtype=np.uint32, device=dev)
        if m:
            args = self.take_blocks(m)
            _kernels.kernel("raw")(*args, buf[:, 0], buf[:, 1], buf[:, 2], buf[:, 3])
        flat = buf.reshape((4 * m,))[:n]
        return flat[0] if size is None else flat

    def __repr__(self) -> str:
        return f"Philox(key={tuple(hex(w) for w in self.key)}, counter={self._counter})"
