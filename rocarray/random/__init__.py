"""rocarray.random: counter-based random numbers (Philox4x32-10) made by kernels of
rocarray's own pipeline, NumPy's ``Generator`` API, CuPy's module-level functions (NumPy's
legacy distributions among them), and the same stream for the same seed on every device
(docs/random.md)."""

from __future__ import annotations

import inspect
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


#: NumPy's legacy names for ``Generator.random``
_ALIASES = {"random_sample": "random", "ranf": "random", "sample": "random"}


def _global_method(name: str):
    """The module-level function ``name``: the global generator's method of that name (or
    the one ``_ALIASES`` names), looked up at each call (``seed`` replaces the generator),
    with the method's parameters and documentation."""
    attr = _ALIASES.get(name, name)
    method = getattr(Generator, attr)

    def call(*args, **kwargs):
        return getattr(_rng(), attr)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__module__ = __name__
    legacy = "" if attr == name else ", under a legacy name of NumPy's"
    call.__doc__ = (f"``{name}``: ``Generator.{attr}`` of the global generator (``seed`` sets it){legacy}."
                    f"\n\n{inspect.cleandoc(method.__doc__)}")
    call.__signature__ = inspect.Signature(list(inspect.signature(method).parameters.values())[1:])
    return call


#: NumPy's legacy distributions (``numpy.random.<name>``, CuPy's ``cupy.random.<name>``)
_DISTRIBUTIONS = ["random", "ranf", "sample", "bytes", "standard_normal", "standard_exponential", "exponential",
                  "standard_gamma", "gamma", "beta", "chisquare", "noncentral_chisquare", "f", "noncentral_f",
                  "standard_t", "standard_cauchy", "lognormal", "gumbel", "laplace", "logistic", "rayleigh",
                  "weibull", "pareto", "power", "triangular", "wald", "vonmises", "dirichlet",
                  "multivariate_normal", "poisson", "binomial", "negative_binomial", "geometric", "hypergeometric",
                  "logseries", "zipf", "multinomial"]


#: CuPy's module functions that are the global generator's methods, made here (NumPy's
#: module binds its global ``RandomState``'s methods the same way)
_METHODS = ["random_sample", "uniform", "normal", "choice", "shuffle", "permutation", *_DISTRIBUTIONS]
globals().update({name: _global_method(name) for name in _METHODS})

__all__ = ["Generator", "Philox", "default_rng", "seed", "get_random_state", "rand", "randn", "randint", *_METHODS]
