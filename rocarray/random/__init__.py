"""rocarray.random: counter-based random numbers (Philox4x32-10) made by kernels of
rocarray's own pipeline, NumPy's ``Generator`` API, CuPy's module-level functions, and the
same stream for the same seed on every device (docs/random.md)."""

from __future__ import annotations

import threading

import numpy as np

from ._generator import Generator, default_rng
from ._philox import Philox

_global = None
_global_lock = threading.Lock()


def _rng() -> Generator:
    global _global
    if _global is None:
        with _global_lock:
            if _global is None:
                _global = default_rng()
    return _global


def seed(seed=None) -> None:
    """``seed(seed=None)``: reset the global generator of the module-level functions to
    ``default_rng(seed)`` (CuPy's ``cupy.random.seed``; None draws fresh entropy).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.seed(0); a = ra.random.rand(3); ra.random.seed(0)
        >>> bool((a == ra.random.rand(3)).all())
        True
    """
    global _global
    with _global_lock:
        _global = default_rng(seed)


def get_random_state() -> Generator:
    """The global generator the module-level functions use (made on first use; ``seed``
    replaces it).  CuPy returns its ``RandomState`` here; this is a ``Generator``.

    Examples:
        >>> import rocarray as ra
        >>> isinstance(ra.random.get_random_state(), ra.random.Generator)
        True
    """
    return _rng()


def rand(*size, dtype=np.float64):
    """``rand(*size, dtype=float64)``: uniform floats in [0, 1) of shape ``size``.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.rand(2, 3).shape
        (2, 3)
    """
    return _rng().random(size, dtype=dtype)


def randn(*size, dtype=np.float64):
    """``randn(*size, dtype=float64)``: standard normal floats of shape ``size``.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.randn(4).shape
        (4,)
    """
    return _rng().standard_normal(size, dtype=dtype)


def randint(low, high=None, size=None, dtype=np.int64):
    """``randint(low, high=None, size=None, dtype=int64)``: integers in [low, high) ([0,
    low) without ``high``), as ``Generator.integers``.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.randint(0, 10, 5).dtype
        dtype('int64')
    """
    return _rng().integers(low, high, size, dtype=dtype)


def random_sample(size=None, dtype=np.float64):
    """``random_sample(size=None, dtype=float64)``: uniform floats in [0, 1).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.random_sample((2, 2)).shape
        (2, 2)
    """
    return _rng().random(size, dtype=dtype)


def uniform(low=0.0, high=1.0, size=None, dtype=np.float64):
    """``uniform(low=0.0, high=1.0, size=None, dtype=float64)``: floats in [low, high).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.uniform(-1, 1, 3).shape
        (3,)
    """
    return _rng().uniform(low, high, size, dtype=dtype)


def normal(loc=0.0, scale=1.0, size=None, dtype=np.float64):
    """``normal(loc=0.0, scale=1.0, size=None, dtype=float64)``: N(loc, scale^2).

    Examples:
        >>> import rocarray as ra
        >>> ra.random.normal(0, 1, 3).shape
        (3,)
    """
    return _rng().normal(loc, scale, size, dtype=dtype)


def choice(a, size=None, replace=True, p=None):
    """``choice(a, size=None, replace=True, p=None)``: as ``Generator.choice``.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.choice(5, 3, replace=False).shape
        (3,)
    """
    return _rng().choice(a, size, replace, p)


def shuffle(a) -> None:
    """``shuffle(a)``: permute the rocarray array ``a`` in place along its first axis.

    Examples:
        >>> import rocarray as ra
        >>> x = ra.arange(4); ra.random.shuffle(x); x.shape
        (4,)
    """
    _rng().shuffle(a)


def permutation(a):
    """``permutation(a)``: a permuted ``arange(a)`` for an int, else a permuted copy of
    ``a`` along its first axis.

    Examples:
        >>> import rocarray as ra
        >>> ra.random.permutation(4).shape
        (4,)
    """
    return _rng().permutation(a)


__all__ = ["Generator", "Philox", "default_rng", "seed", "get_random_state", "rand", "randn", "randint",
           "random_sample", "uniform", "normal", "choice", "shuffle", "permutation"]
